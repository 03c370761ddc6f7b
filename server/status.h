// Where the wire layer's absl::Status becomes the grpc::Status a reactor
// answers with. The canonical codes are the same numbers in both.
#ifndef COLLISION_SERVER_STATUS_H_
#define COLLISION_SERVER_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace collision::server {

inline grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

// For a server-side stop (deadline, cancellation) handed back through the
// wire layer's HandlerContext::stopped_status.
inline absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      s.error_message());
}

}  // namespace collision::server

#endif  // COLLISION_SERVER_STATUS_H_
