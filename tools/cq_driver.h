// The load tool's fastest driver of unary calls: requests serialised once
// (Item::serialized_buffer) go out through grpc::GenericStub on completion
// queues, one thread per queue, and each thread both starts its calls and
// reaps their completions. A call then costs no thread hand-off, no message
// serialisation and no parsing (only answers picked for --verify are
// parsed): the client does what h2load does with a prepared body, while
// keeping gRPC's deadline, token, retries, pushback and load balancing, so
// the server, not the tool, is what a run measures.
#ifndef COLLISION_TOOLS_CQ_DRIVER_H_
#define COLLISION_TOOLS_CQ_DRIVER_H_

#include <functional>
#include <memory>
#include <vector>

#include "collision/client/client.h"
#include "tools/run_state.h"
#include "tools/runner.h"
#include "tools/workload.h"

namespace collision::load {

struct CqDriverContext {
  const RunOptions& options;
  const Workload& workload;
  Scheduler& scheduler;
  const RecordFn& record;
  std::function<bool(const Ticket&)> wants_verify;
  // Call i goes to clients[i % size()], as on the other drivers.
  const std::vector<std::unique_ptr<client::Client>>& clients;
};

// Runs one driver thread until the scheduler stops and its calls have
// ended, with at most `slots` calls in flight; counts into `*result`.
void DriveCompletionQueue(const CqDriverContext& run, int slots,
                          WorkerResult* result);

}  // namespace collision::load

#endif  // COLLISION_TOOLS_CQ_DRIVER_H_
