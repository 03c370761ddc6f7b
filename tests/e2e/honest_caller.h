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
  int answered = 0;  // OK, every answer right (after any retries)
  // Attempts answered UNAVAILABLE with a grpc-retry-pushback-ms trailer:
  // the server's overload answer, each retried after its pushback. (An
  // UNAVAILABLE without it, e.g. a lost connection, is failed.)
  int shed = 0;
  // Of those, the ones shed because requests in flight filled the server's
  // capacity (--max_in_flight, --max_in_flight_bytes, a connection's share):
  // others held the slots (this caller's own slot is free before its answer
  // leaves). The rest were shed for the answer backlog ("answers wait for
  // the transport": more than 4 x --max_in_flight answers gRPC has not yet
  // reported done). A burst of calls makes one; so does this caller alone,
  // because gRPC reports a call done after its caller has the answer: one
  // caller calling back to back at --max_in_flight=1 (a backlog of 4) was
  // shed 4 times in 20,000 calls on the idle machine, 8 beside
  // `stress-ng --cpu 8`.
  int shed_for_capacity = 0;
  std::string first_shed;  // the server's message for the first; "" if none
  // The most attempts one call was shed before it was answered.
  int most_shed_in_a_row = 0;
  // Anything else, a wrong or missing answer included, and a call shed
  // until its deadline passed.
  int failed = 0;
  std::string first_failure;  // "<code> <message>" of the first; "" if none
  // Latencies of the answered attempts in milliseconds, from sending to the
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
// time. A call that is shed is retried after the server's pushback, within
// the same deadline, as the C++ client's retry policy does; nothing else is
// retried.
//
// Not thread-safe: one thread drives Run, Start and Stop.
class HonestCaller {
 public:
  HonestCaller(const std::string& target, const std::string& token);
  ~HonestCaller();  // stops a running caller, discarding its figures
  HonestCaller(const HonestCaller&) = delete;
  HonestCaller& operator=(const HonestCaller&) = delete;

  // Makes `calls` calls on the calling thread, one after another (not while
  // started); stops at the first that fails (each may take its 10 s).
  Latencies Run(int calls);

  // Starts calling on a thread of its own, one call after another, until
  // Stop. Not while running.
  void Start();
  // Lets the current call finish (answered, or failed) and returns the
  // figures since Start: at least one call.
  Latencies Stop();

 private:
  struct Tally {
    std::vector<double> answered_ms;
    int shed = 0;
    int shed_for_capacity = 0;
    std::string first_shed;
    int most_shed_in_a_row = 0;
    int failed = 0;
    std::string first_failure;
  };
  // Makes one call, retried while it is shed, and counts it in `tally`.
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
