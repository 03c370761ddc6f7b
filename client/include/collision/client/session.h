// A per-tick QueryStream session: one long-lived bidirectional stream, one
// request per tick tagged with your sequence number, one reply per request in
// the order sent.
//
//   auto session = client->OpenSession();
//   (*session)->Send(tick, batch.request());
//   absl::StatusOr<StreamReply> reply = (*session)->Receive();
//   if (!reply.ok()) ...             // the stream itself failed or ended
//   else if (!reply->status.ok())    // this request was rejected
//   else reply->response.intersect() ...
//   (*session)->Finish();            // half-close and collect the final status
//
// Threading: Send() may be called from one thread while Receive() runs on
// another; do not call Send() (or Receive()) from two threads at once. With
// many sends outstanding and nobody receiving, the server eventually stops
// reading (HTTP/2 flow control): receive from another thread when pipelining.
#ifndef COLLISION_CLIENT_SESSION_H_
#define COLLISION_CLIENT_SESSION_H_

#include <cstdint>
#include <deque>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "collision/v1/collision.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/sync_stream.h"

namespace collision::client {

struct StreamReply {
  uint64_t sequence = 0;
  // OK, or the per-request error the server reported (the stream stays open).
  absl::Status status;
  // The answer (one of its `answer` fields) when status is OK.
  v1::QueryStreamResponse response;
};

class QuerySession {
 public:
  ~QuerySession();  // cancels the stream if Finish() was not called
  QuerySession(const QuerySession&) = delete;
  QuerySession& operator=(const QuerySession&) = delete;

  // Sends one request. Fails (with the stream's final status when known)
  // once the stream is broken or finished.
  absl::Status Send(uint64_t sequence, const v1::IntersectRequest& request);
  absl::Status Send(uint64_t sequence, const v1::ClosestPointRequest& request);
  absl::Status Send(uint64_t sequence,
                    const v1::IntersectColumnsRequest& request);
  absl::Status Send(uint64_t sequence,
                    const v1::ClosestPointColumnsRequest& request);
  absl::Status Send(const v1::QueryStreamRequest& request);

  // Blocks for the reply to the oldest request not yet answered. Errors:
  // FAILED_PRECONDITION when nothing is outstanding, the stream's status
  // when it ended, INTERNAL when the server answered out of order.
  absl::StatusOr<StreamReply> Receive();

  // Number of requests sent and not yet received.
  int outstanding() const;

  // Half-closes, drains replies nobody received, and returns the stream's
  // final status. Idempotent.
  absl::Status Finish();

 private:
  friend class Client;
  QuerySession(std::unique_ptr<grpc::ClientContext> context,
               v1::CollisionService::Stub* stub);

  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<
      grpc::ClientReaderWriter<v1::QueryStreamRequest, v1::QueryStreamResponse>>
      stream_;
  mutable absl::Mutex mu_;
  std::deque<uint64_t> sent_ ABSL_GUARDED_BY(mu_);
  bool writes_done_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status final_ ABSL_GUARDED_BY(mu_);
};

}  // namespace collision::client

#endif  // COLLISION_CLIENT_SESSION_H_
