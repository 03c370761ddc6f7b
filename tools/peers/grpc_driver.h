// Closed-loop load on the service with prepared requests: every call sends
// the same serialized bytes (built once, like h2load reusing a body) through
// gRPC's generic stub, so that the server, not request building, is what is
// measured. Each worker is a thread with its own channel (TCP connection)
// and completion queue, keeping `depth` calls (or stream messages) in flight.
#ifndef COLLISION_TOOLS_PEERS_GRPC_DRIVER_H_
#define COLLISION_TOOLS_PEERS_GRPC_DRIVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "google/protobuf/message_lite.h"
#include "grpcpp/channel.h"
#include "grpcpp/support/byte_buffer.h"

namespace collision::peers {

struct PreparedCall {
  // Full method name, e.g. "/collision.v1.CollisionService/Intersect".
  std::string method;
  grpc::ByteBuffer body;
  // A bidirectional stream (QueryStream) that carries `body` as every
  // message, instead of one unary call per body.
  bool stream = false;
};

grpc::ByteBuffer Serialize(const google::protobuf::MessageLite& message);

struct LoadOptions {
  int depth = 4;  // calls (stream messages) in flight per worker
  absl::Duration duration = absl::Seconds(2);
  // Deadline of every call (or stream) beyond the end of the run.
  absl::Duration call_timeout = absl::Seconds(30);
};

struct LoadResult {
  int64_t calls = 0;   // answered OK (stream: messages answered)
  int64_t errors = 0;  // failed calls, broken streams
  std::string first_error;
  double seconds = 0;  // from the start until every worker was done
};

// One channel per worker, each with its own TCP connection.
std::vector<std::shared_ptr<grpc::Channel>> MakeChannels(
    const std::string& target, int count);

// Runs one worker thread per channel for options.duration, then waits for
// the calls in flight.
LoadResult RunLoad(const std::vector<std::shared_ptr<grpc::Channel>>& channels,
                   const PreparedCall& call, const LoadOptions& options);

}  // namespace collision::peers

#endif  // COLLISION_TOOLS_PEERS_GRPC_DRIVER_H_
