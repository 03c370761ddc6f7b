#include "collision/client/errors.h"

#include <utility>

#include "absl/strings/cord.h"

namespace collision::client {

std::vector<FieldViolation> FieldViolations(const absl::Status& status) {
  std::vector<FieldViolation> out;
  auto payload = status.GetPayload(kBadRequestTypeUrl);
  if (!payload.has_value()) return out;
  v1::BadRequest bad_request;
  if (!bad_request.ParseFromString(std::string(*payload))) return out;
  out.reserve(bad_request.field_violations_size());
  for (const v1::BadRequest::FieldViolation& v :
       bad_request.field_violations()) {
    out.push_back({v.field(), v.description()});
  }
  return out;
}

absl::Status StatusFromStreamError(const v1::StreamError& error) {
  absl::Status status(static_cast<absl::StatusCode>(error.code()),
                      error.message());
  // A server that set no code still refused the message.
  if (status.ok()) return absl::UnknownError("error code 0");
  if (error.has_bad_request()) {
    status.SetPayload(kBadRequestTypeUrl,
                      absl::Cord(error.bad_request().SerializeAsString()));
  }
  return status;
}

void AttachFieldViolations(const std::string& error_details,
                           absl::Status* status) {
  if (error_details.empty() || status->ok()) return;
  v1::RpcStatus details;
  if (!details.ParseFromString(error_details)) return;
  for (const v1::StatusDetail& d : details.details()) {
    if (d.type_url() == kBadRequestTypeUrl) {
      status->SetPayload(kBadRequestTypeUrl, absl::Cord(d.value()));
    }
  }
}

}  // namespace collision::client
