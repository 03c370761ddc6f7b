// Where the wire layer's absl::Status becomes the grpc::Status a reactor
// answers with. The canonical codes are the same numbers in both. A status
// with fields at fault (wire::Violations) also carries them as a
// google.rpc.Status with a google.rpc.BadRequest detail, which gRPC sends in
// the `grpc-status-details-bin` trailer (see BadRequest in collision.proto).
#ifndef COLLISION_SERVER_STATUS_H_
#define COLLISION_SERVER_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "collision/v1/collision.pb.h"
#include "collision/wire/convert.h"
#include "grpcpp/support/status.h"

namespace collision::server {

inline grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(s.code());
  std::string message(s.message());
  // absl's own optional (Debian's absl does not alias std::optional).
  const auto bad_request = s.GetPayload(wire::kBadRequestTypeUrl);
  if (!bad_request.has_value()) return grpc::Status(code, std::move(message));
  v1::RpcStatus details;
  details.set_code(static_cast<int>(s.code()));
  details.set_message(message);
  v1::StatusDetail* detail = details.add_details();
  detail->set_type_url(wire::kBadRequestTypeUrl);
  detail->set_value(std::string(*bad_request));
  return grpc::Status(code, std::move(message), details.SerializeAsString());
}

// A stream message's own failure (a status ToGrpc made), with its fields at
// fault: a stream answers a bad message in its response, not in a trailer.
inline void ToStreamError(const grpc::Status& s, v1::StreamError* error) {
  error->set_code(static_cast<int>(s.error_code()));
  error->set_message(s.error_message());
  if (s.error_details().empty()) return;
  v1::RpcStatus details;
  if (!details.ParseFromString(s.error_details())) return;
  for (const v1::StatusDetail& d : details.details()) {
    if (d.type_url() == wire::kBadRequestTypeUrl) {
      error->mutable_bad_request()->ParseFromString(d.value());
    }
  }
}

// For a server-side stop (deadline, cancellation) handed back through the
// handlers layer's HandlerContext::stopped_status.
inline absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      s.error_message());
}

}  // namespace collision::server

#endif  // COLLISION_SERVER_STATUS_H_
