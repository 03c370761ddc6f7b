#include "collision/client/session.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace collision::client {
namespace {

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      s.error_message());
}

}  // namespace

QuerySession::QuerySession(std::unique_ptr<grpc::ClientContext> context,
                           v1::CollisionService::Stub* stub)
    : context_(std::move(context)),
      stream_(stub->QueryStream(context_.get())) {}

QuerySession::~QuerySession() {
  bool finished;
  {
    absl::MutexLock lock(&mu_);
    finished = finished_;
  }
  if (!finished) {
    context_->TryCancel();
    stream_->Finish().IgnoreError();
  }
}

absl::Status QuerySession::Send(uint64_t sequence,
                                const v1::IntersectRequest& request) {
  v1::QueryStreamRequest r;
  r.set_sequence(sequence);
  *r.mutable_intersect() = request;
  return Send(r);
}
absl::Status QuerySession::Send(uint64_t sequence,
                                const v1::ClosestPointRequest& request) {
  v1::QueryStreamRequest r;
  r.set_sequence(sequence);
  *r.mutable_closest_point() = request;
  return Send(r);
}
absl::Status QuerySession::Send(uint64_t sequence,
                                const v1::IntersectColumnsRequest& request) {
  v1::QueryStreamRequest r;
  r.set_sequence(sequence);
  *r.mutable_intersect_columns() = request;
  return Send(r);
}
absl::Status QuerySession::Send(uint64_t sequence,
                                const v1::ClosestPointColumnsRequest& request) {
  v1::QueryStreamRequest r;
  r.set_sequence(sequence);
  *r.mutable_closest_point_columns() = request;
  return Send(r);
}

absl::Status QuerySession::Send(const v1::QueryStreamRequest& request) {
  {
    absl::MutexLock lock(&mu_);
    if (finished_) {
      return final_.ok() ? absl::FailedPreconditionError("session finished")
                         : final_;
    }
    if (writes_done_) return absl::FailedPreconditionError("session closing");
    sent_.push_back(request.sequence());
  }
  if (!stream_->Write(request)) {
    // The stream is broken; its status comes from Finish().
    {
      absl::MutexLock lock(&mu_);
      sent_.pop_back();
    }
    return absl::UnavailableError(
        "stream broken; Receive() or Finish() gives its status");
  }
  return absl::OkStatus();
}

int QuerySession::outstanding() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(sent_.size());
}

absl::StatusOr<StreamReply> QuerySession::Receive() {
  uint64_t want;
  {
    absl::MutexLock lock(&mu_);
    if (finished_ && !final_.ok()) return final_;
    if (sent_.empty()) {
      return absl::FailedPreconditionError("no request is waiting for a reply");
    }
    want = sent_.front();
  }
  v1::QueryStreamResponse response;
  if (!stream_->Read(&response)) {
    absl::Status s = Finish();
    return s.ok() ? absl::UnavailableError("stream ended before the reply to " +
                                           std::to_string(want))
                  : s;
  }
  {
    absl::MutexLock lock(&mu_);
    sent_.pop_front();
  }
  if (response.sequence() != want) {
    return absl::InternalError(absl::StrCat(
        "reply out of order: expected ", want, ", got ", response.sequence()));
  }
  StreamReply reply;
  reply.sequence = want;
  if (response.has_error()) {
    reply.status =
        absl::Status(static_cast<absl::StatusCode>(response.error().code()),
                     response.error().message());
    if (reply.status.ok()) reply.status = absl::UnknownError("error code 0");
  }
  reply.response = std::move(response);
  return reply;
}

absl::Status QuerySession::Finish() {
  {
    absl::MutexLock lock(&mu_);
    if (finished_) return final_;
    writes_done_ = true;
  }
  stream_->WritesDone();
  v1::QueryStreamResponse drain;
  while (stream_->Read(&drain)) {
  }
  absl::Status s = FromGrpc(stream_->Finish());
  absl::MutexLock lock(&mu_);
  finished_ = true;
  final_ = s;
  sent_.clear();
  return final_;
}

}  // namespace collision::client
