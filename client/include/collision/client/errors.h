// What a rejected request got wrong, for programs. The server answers a
// request that fails validation with INVALID_ARGUMENT, a message for people
// and, for programs, the fields at fault: as a google.rpc.BadRequest in the
// `grpc-status-details-bin` trailer of a unary call, or in StreamError's
// `bad_request` on a stream (see BadRequest in collision.proto). Every status
// this library returns for such a request carries them:
//
//   absl::StatusOr<v1::IntersectResponse> r = client->Intersect(batch);
//   for (const FieldViolation& v : FieldViolations(r.status()))
//     std::cerr << v.field << ": " << v.description << "\n";
#ifndef COLLISION_CLIENT_ERRORS_H_
#define COLLISION_CLIENT_ERRORS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "collision/v1/collision.pb.h"

namespace collision::client {

struct FieldViolation {
  // A path into the request ("pairs[3].a.circle.radius"); empty for the
  // request as a whole, and on the last entry of a capped list, whose
  // description then says how many more there were ("and 120 more invalid
  // fields").
  std::string field;
  std::string description;  // why, e.g. "must be >= 0, got -1"
};

// The fields at fault of a status returned by a call or a session; empty
// when the status carries none.
std::vector<FieldViolation> FieldViolations(const absl::Status& status);

// The type URL the violations travel under, google.rpc.BadRequest's (also the
// absl::Status payload key this library stores them under).
inline constexpr char kBadRequestTypeUrl[] =
    "type.googleapis.com/google.rpc.BadRequest";

// A stream response's per-message error as a status, with its violations.
absl::Status StatusFromStreamError(const v1::StreamError& error);

// Adds the violations held in a grpc::Status's error_details (a serialized
// google.rpc.Status) to `status`.
void AttachFieldViolations(const std::string& error_details,
                           absl::Status* status);

}  // namespace collision::client

#endif  // COLLISION_CLIENT_ERRORS_H_
