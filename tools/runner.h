// Runs a load test: `concurrency` workers share `connections` channels and
// call the server with requests from a Workload, closed loop (each worker
// sends its next request when the previous one is answered) or open loop
// (requests are due at a fixed or Poisson rate, and latency counts from the
// time a request was DUE, so a slow server cannot hide its queueing delay:
// no coordinated omission).
#ifndef COLLISION_TOOLS_RUNNER_H_
#define COLLISION_TOOLS_RUNNER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collision/client/client.h"
#include "tools/histogram.h"
#include "tools/workload.h"

namespace collision::load {

struct RunOptions {
  // One target, or several "host:port" joined into an ipv4:/ipv6: list by
  // the caller; see client::ClientOptions for the rest (deadline, TLS,
  // token, retries, load balancing).
  std::string target;
  client::ClientOptions client;
  int concurrency = 8;   // workers, each with one call in flight
  int connections = 1;   // separate channels (TCP connections)
  int64_t requests = 0;  // measured requests; 0: run for `duration`
  absl::Duration duration = absl::Seconds(10);
  absl::Duration warmup = absl::ZeroDuration();  // not measured
  double rate = 0;       // requests/s over all workers; 0 = closed loop
  bool poisson = false;  // open loop: exponential gaps instead of fixed
  // Open loop whose rate changes over the measured window (the warm-up
  // runs at `rate`): kStep adds `step` req/s every `step_every`, kLine
  // adds `step` req/s per second; neither goes past `end` (0: no cap).
  struct Schedule {
    enum class Kind { kConst, kStep, kLine };
    Kind kind = Kind::kConst;
    double step = 0;
    absl::Duration step_every = absl::Seconds(1);
    double end = 0;
  };
  Schedule schedule;
  uint64_t seed = 1;           // Poisson arrivals
  double verify_fraction = 0;  // share of responses checked (0..1)
  bool progress = false;       // live line on stderr
  // How unary calls are made, when not `blocking`:
  //   kGrpc       requests serialised once, gRPC completion queues, one
  //               thread per core (cq_driver.h); answers parsed only when
  //               verified. gRPC's retries, TLS and load balancing.
  //   kGrpcTyped  typed messages through the client library's callback
  //               calls from one pacer thread: what an application pays.
  //   kHttp2      the tool's own HTTP/2 client (h2_driver.h): the cheapest
  //               client, so the server is the limit; plaintext, no retries.
  enum class Engine { kGrpc, kGrpcTyped, kHttp2 };
  Engine engine = Engine::kGrpc;
  // One thread per slot with blocking calls (what stream ops always use).
  bool blocking = false;
  absl::Duration progress_interval = absl::Seconds(1);
};

// One second (or progress_interval) of the measured run.
struct Interval {
  double start_s = 0;
  int64_t requests = 0;
  int64_t errors = 0;
  int64_t p50_ns = 0;
  int64_t p99_ns = 0;
};

// One RPC and wire form of a mixed run ("intersect_pairs", ...).
struct OpResult {
  int64_t requests = 0;
  int64_t ok = 0;
  int64_t pairs = 0;     // in answered calls
  Histogram latency{4};  // ns, every call
};

struct RunResult {
  Histogram latency;  // ns, successful and failed calls alike
  int64_t requests = 0;
  int64_t ok = 0;
  int64_t errors = 0;
  int64_t pairs = 0;  // pairs (queries) in successful requests
  std::map<std::string, int64_t> status_counts;    // "OK", "UNAVAILABLE", ...
  std::map<std::string, std::string> first_error;  // code -> message
  // Measured wall time: from the start of the measured window to the last
  // answer (which may come after --duration).
  double seconds = 0;
  double cpu_user_s = 0;
  double cpu_system_s = 0;
  int cores = 1;
  int64_t backoffs = 0;  // UNAVAILABLE answers the workers paused after
  double backoff_s = 0;
  int64_t verified = 0;  // responses checked
  int64_t verified_pairs = 0;
  int64_t mismatches = 0;  // pairs whose answer differed from the reference
  // Open loop for a duration: calls due in the measured window, and how
  // many of them were never sent because the run's time was up (every slot
  // of --concurrency busy: the rate was not reached).
  int64_t due = 0;
  int64_t unsent = 0;
  // Scene runs: scenes asked for, opened, and left behind with a tick
  // unanswered at the run's hard stop; the first reason a scene could not
  // be opened ("" when all were).
  int scenes = 0;
  int scenes_opened = 0;
  int scenes_abandoned = 0;
  std::string scene_open_error;
  std::vector<Interval> series;
  std::map<std::string, OpResult> by_op;  // by OpName
};

// Runs the load; fails only when the options are invalid or no channel can
// be created (call failures are counted, not returned).
absl::StatusOr<RunResult> Run(const RunOptions& options,
                              const Workload& workload);

// The open-loop rate `since` the start of the measured window.
double RateAt(const RunOptions& options, absl::Duration since);

// The live progress line (RunOptions::progress), on stderr, rewritten in
// place: time into the measured window, `unit`s done ("requests",
// "ticks"), their rate over the last interval and the errors so far.
// `last` ends the line.
void PrintProgress(absl::Duration elapsed, const char* unit, int64_t done,
                   double per_second, int64_t errors, bool last);

}  // namespace collision::load

#endif  // COLLISION_TOOLS_RUNNER_H_
