#include "collision/client/session.h"

#include <algorithm>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "collision/client/errors.h"

namespace collision::client {
namespace {

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      s.error_message());
}

// Statuses that mean the stream (not a request) failed: the server ageing
// it out or draining, a connection lost, a replica gone.
bool StreamBroke(const absl::Status& s) {
  return s.code() == absl::StatusCode::kUnavailable ||
         s.code() == absl::StatusCode::kAborted ||
         s.code() == absl::StatusCode::kCancelled;
}

}  // namespace

QuerySession::QuerySession(const Client& client, const SessionOptions& options)
    : client_(client),
      options_(options),
      stub_(v1::CollisionService::NewStub(client.channel())) {
  OpenStream();
}

void QuerySession::OpenStream() {
  context_ = std::make_unique<grpc::ClientContext>();
  client_.Prepare(context_.get(), client_.options().stream_timeout);
  stream_ = stub_->QueryStream(context_.get());
}

QuerySession::~QuerySession() {
  bool finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished = finished_;
    writes_done_ = true;  // a stream broken from here on is not reopened
  }
  if (!finished) {
    std::lock_guard<std::mutex> write(wmu_);  // not while Recover swaps it
    context_->TryCancel();
  }
  StopReader();  // its read fails at once now
  {
    std::lock_guard<std::mutex> lock(mu_);
    finished = finished_;  // the reader may have finished the stream
  }
  if (!finished) stream_->Finish().IgnoreError();
}

void QuerySession::StopReader() {
  if (!reader_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_reader_ = true;
  }
  changed_.notify_all();
  reader_.join();
}

void QuerySession::ReadAhead() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return stop_reader_ || !pending_.empty(); });
      if (pending_.empty()) {
        reader_done_ = true;
        break;
      }
      in_hand_ = true;
    }
    absl::StatusOr<StreamReply> reply = ReadReply();
    const bool failed = !reply.ok();
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.push_back(std::move(reply));
      in_hand_ = false;
      reader_done_ = failed;
    }
    changed_.notify_all();
    if (failed) return;  // the session is over (or nothing was waiting)
  }
  changed_.notify_all();
}

absl::StatusOr<std::optional<StreamReply>> QuerySession::ReceiveFor(
    absl::Duration timeout) {
  if (!reader_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished_ && !final_.ok()) return final_;
      if (pending_.empty()) {
        return absl::FailedPreconditionError(
            "no request is waiting for a reply");
      }
    }
    reader_ = std::thread([this] { ReadAhead(); });
  }
  std::unique_lock<std::mutex> lock(mu_);
  const auto here = [&] {
    return !ready_.empty() || reader_done_ || (pending_.empty() && !in_hand_);
  };
  if (timeout == absl::InfiniteDuration()) {
    changed_.wait(lock, here);
  } else if (!changed_.wait_until(
                 lock, absl::ToChronoTime(absl::Now() + timeout), here)) {
    return std::optional<StreamReply>();  // not yet
  }
  if (ready_.empty()) {
    if (finished_ && !final_.ok()) return final_;
    return absl::FailedPreconditionError("no request is waiting for a reply");
  }
  absl::StatusOr<StreamReply> reply = std::move(ready_.front());
  ready_.pop_front();
  if (!reply.ok()) return reply.status();
  return std::optional<StreamReply>(*std::move(reply));
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
  std::lock_guard<std::mutex> write(wmu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) {
      return final_.ok() ? absl::FailedPreconditionError("session finished")
                         : final_;
    }
    if (writes_done_) return absl::FailedPreconditionError("session closing");
    pending_.push_back(request);
  }
  changed_.notify_all();  // the reader thread, if any, has a reply to read
  if (stream_->Write(request)) return absl::OkStatus();
  // The stream is broken. With reopening, Receive() resends this request
  // on the next stream; without, its status comes from Receive()/Finish().
  if (options_.reopen) return absl::OkStatus();
  std::lock_guard<std::mutex> lock(mu_);
  pending_.pop_back();
  return absl::UnavailableError(
      "stream broken; Receive() or Finish() gives its status");
}

int QuerySession::outstanding() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(pending_.size());
}

int QuerySession::reopens() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reopens_;
}

absl::Status QuerySession::Recover(uint64_t want, int* attempt) {
  std::lock_guard<std::mutex> write(
      wmu_);  // no Send() on the stream being replaced
  absl::Status ended = FromGrpc(stream_->Finish());
  if (ended.ok()) {
    ended = absl::UnavailableError(
        absl::StrCat("stream ended before the reply to ", want));
  }
  bool closing;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing = writes_done_ || finished_;
  }
  if (!options_.reopen || closing || !StreamBroke(ended) ||
      *attempt >= options_.max_reopens_per_reply) {
    std::lock_guard<std::mutex> lock(mu_);
    finished_ = true;
    final_ = ended;
    pending_.clear();
    return ended;
  }
  // The first reopening at once (a stream ageing out is routine); later
  // ones back off, as a replica may be gone.
  if (*attempt > 0) {
    absl::Duration backoff = options_.first_backoff;
    for (int i = 1; i < *attempt; ++i) {
      backoff = std::min(backoff * 2, options_.max_backoff);
    }
    absl::SleepFor(backoff);
  }
  ++*attempt;
  OpenStream();
  std::deque<v1::QueryStreamRequest> resend;
  {
    std::lock_guard<std::mutex> lock(mu_);
    resend = pending_;
    ++reopens_;
  }
  for (const v1::QueryStreamRequest& r : resend) {
    if (!stream_->Write(r)) break;  // broken again: the next Read says so
  }
  return absl::OkStatus();
}

absl::StatusOr<StreamReply> QuerySession::Receive() {
  if (!reader_.joinable()) return ReadReply();
  absl::StatusOr<std::optional<StreamReply>> reply =
      ReceiveFor(absl::InfiniteDuration());
  if (!reply.ok()) return reply.status();
  return **std::move(reply);
}

absl::StatusOr<StreamReply> QuerySession::ReadReply() {
  int attempt = 0;
  v1::QueryStreamResponse response;
  uint64_t want;
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished_ && !final_.ok()) return final_;
      if (pending_.empty()) {
        return absl::FailedPreconditionError(
            "no request is waiting for a reply");
      }
      want = pending_.front().sequence();
    }
    if (stream_->Read(&response)) break;
    if (absl::Status s = Recover(want, &attempt); !s.ok()) return s;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.pop_front();
  }
  if (response.sequence() != want) {
    return absl::InternalError(absl::StrCat(
        "reply out of order: expected ", want, ", got ", response.sequence()));
  }
  StreamReply reply;
  reply.sequence = want;
  if (response.has_error()) {
    reply.status = StatusFromStreamError(response.error());
  }
  reply.response = std::move(response);
  return reply;
}

absl::Status QuerySession::Finish() {
  {
    std::lock_guard<std::mutex> write(wmu_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (finished_) return final_;
      writes_done_ = true;
    }
    stream_->WritesDone();
  }
  // The reader thread reads what is outstanding, then stops; it may need
  // wmu_ on the way (a stream breaking: Recover), so it is not held here.
  StopReader();
  std::lock_guard<std::mutex> write(wmu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return final_;
  }
  v1::QueryStreamResponse drain;
  while (stream_->Read(&drain)) {
  }
  absl::Status s = FromGrpc(stream_->Finish());
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  final_ = s;
  pending_.clear();
  ready_.clear();
  return final_;
}

}  // namespace collision::client
