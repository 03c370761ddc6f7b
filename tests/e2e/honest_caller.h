// An honest caller for the attack tests (hardening_*_test.cc): sequential
// Intersect calls, each checked against known answers and timed, on a
// connection of its own, so that a test can say what an attack does to the
// latency of someone who is not attacking.
#ifndef COLLISION_TESTS_E2E_HONEST_CALLER_H_
#define COLLISION_TESTS_E2E_HONEST_CALLER_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "collision/v1/collision.grpc.pb.h"

namespace collision::hardening_testing {

// What a run of honest calls got.
struct Latencies {
  int answered = 0;  // OK, every answer right
  // UNAVAILABLE with a grpc-retry-pushback-ms trailer: the server's overload
  // answer. (An UNAVAILABLE without it, e.g. a lost connection, is failed.)
  int shed = 0;
  // Anything else, a wrong or missing answer included.
  int failed = 0;
  std::string first_failure;  // "<code> <message>" of the first; "" if none
  // Latencies of the answered calls in milliseconds, from sending to the
  // answer, by nearest rank (the smallest sample with at least that share of
  // samples at or below it). Below 100 answered calls p99 is the maximum.
  // All 0 when nothing was answered.
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

// Calls `target` (plaintext) with `authorization: Bearer <token>` on a
// connection of its own (a channel no other channel in the process shares),
// opened on the first call and kept for the caller's life. Each call is one
// Intersect of 64 circle pairs (radius 1, touching, overlapping, concentric
// and apart, in four directions), INCLUSIVE, with a 10 s deadline; one at a
// time, never retried.
//
// Not thread-safe: one thread drives Run, Start and Stop.
class HonestCaller {
 public:
  HonestCaller(const std::string& target, const std::string& token);
  ~HonestCaller();  // stops a running caller, discarding its figures
  HonestCaller(const HonestCaller&) = delete;
  HonestCaller& operator=(const HonestCaller&) = delete;

  // Makes `calls` calls on the calling thread, one after another (not while
  // started).
  Latencies Run(int calls);

  // Starts calling on a thread of its own, one call after another, until
  // Stop. Not while running.
  void Start();
  // Lets the current call finish and returns the figures since Start: at
  // least one call. When none was answered yet (all shed, say, by a burst
  // that ended just before), it calls on until one is answered or fails, or
  // for at most 10 s, so that "answered at least once" says something about
  // the server rather than about when Stop was called.
  Latencies Stop();

 private:
  struct Tally {
    std::vector<double> answered_ms;
    int shed = 0;
    int failed = 0;
    std::string first_failure;
  };
  // Makes one call and counts it in `tally`.
  void Call(Tally* tally);
  static Latencies Summarize(Tally tally);

  std::unique_ptr<v1::CollisionService::Stub> stub_;
  const std::string authorization_;
  v1::IntersectRequest request_;
  std::vector<bool> expected_;  // expected_[i]: pairs[i] is a hit

  std::atomic<bool> stop_{false};
  std::thread thread_;
  Tally running_;  // written by thread_, read after joining it
};

}  // namespace collision::hardening_testing

#endif  // COLLISION_TESTS_E2E_HONEST_CALLER_H_
