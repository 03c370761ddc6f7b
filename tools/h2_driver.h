// collision_load --engine=http2: unary calls over HTTP/2 written by the
// tool itself (nghttp2, the library h2load is built on) instead of gRPC's
// client stack. Each thread runs an event loop over its own connections; a
// request is a prepared gRPC-framed body (serialised once per pool item),
// and what the thread starts in one pass goes out in one write, as h2load
// does. gRPC's client costs several times the server's per-call CPU, so at
// small batches it measured the tool; this engine leaves the server as the
// limit (docs/load-testing.md, docs/performance.md).
//
// It speaks what the service needs and no more: plaintext (h2c with prior
// knowledge), host:port targets (several are spread over the connections),
// `grpc-timeout` plus a client-side deadline, the bearer token, grpc-status
// and grpc-message from trailers, the pushback trailer. It does not retry:
// every UNAVAILABLE is counted and the thread pauses (pushback, else
// back-off), where --engine=grpc lets gRPC retry first. A broken connection
// fails its calls with UNAVAILABLE and is reopened by the next call.
#ifndef COLLISION_TOOLS_H2_DRIVER_H_
#define COLLISION_TOOLS_H2_DRIVER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/run_state.h"
#include "tools/runner.h"
#include "tools/workload.h"

namespace collision::load {

struct H2DriverContext {
  const RunOptions& options;
  const Workload& workload;
  Scheduler& scheduler;
  const RecordFn& record;
  std::function<bool(const Ticket&)> wants_verify;
  std::vector<std::string> endpoints;  // "host:port", from Http2Endpoints
};

// The host:port endpoints of a target the engine can call ("host:port",
// "ipv4:a:1,b:2", "ipv6:[::1]:1", "dns:///host:port"), or why not.
absl::StatusOr<std::vector<std::string>> Http2Endpoints(
    const std::string& target);

// Runs one driver thread with `connections` connections (opened on first
// use) and at most `slots` calls in flight, until the scheduler stops and
// its calls have ended; counts into `*result`. `first` numbers the
// thread's first connection (connection i calls endpoint i % size).
void DriveHttp2(const H2DriverContext& run, int first, int connections,
                int slots, WorkerResult* result);

}  // namespace collision::load

#endif  // COLLISION_TOOLS_H2_DRIVER_H_
