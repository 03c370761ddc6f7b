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
//
// A game loop that must not block uses ReceiveFor(timeout) (or TryReceive())
// instead: it returns the next reply if it arrives in time and nullopt
// otherwise, losing nothing. From the first such call on, the session reads
// replies on a thread of its own into a queue that every receive reads from.
//
// A long session does not die of old age: when the stream breaks (the
// server ends it at its maximum stream age, drains, or the connection is
// lost: UNAVAILABLE, ABORTED or CANCELLED), Receive() opens a new one, on
// whichever replica the channel picks, and resends the requests not yet
// answered, in order; the caller sees every reply, in order, and no error.
// It keeps a copy of each request until its reply is received (the price of
// the resend). SessionOptions turns this off or bounds it.
#ifndef COLLISION_CLIENT_SESSION_H_
#define COLLISION_CLIENT_SESSION_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collision/v1/collision.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/sync_stream.h"

namespace collision::client {

class Client;

struct SessionOptions {
  // Reopen a broken stream and resend the unanswered requests (see above).
  bool reopen = true;
  // Reopenings tried for one reply before Receive() gives up with the last
  // error; after the first, a backoff from `first_backoff`, doubling up to
  // `max_backoff`.
  int max_reopens_per_reply = 8;
  absl::Duration first_backoff = absl::Milliseconds(20);
  absl::Duration max_backoff = absl::Seconds(1);
};

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

  // Sends one request. Fails once the session is finished (or, without
  // reopening, once the stream is broken); with reopening, a request written
  // to a stream that broke is resent by Receive().
  absl::Status Send(uint64_t sequence, const v1::IntersectRequest& request);
  absl::Status Send(uint64_t sequence, const v1::ClosestPointRequest& request);
  absl::Status Send(uint64_t sequence,
                    const v1::IntersectColumnsRequest& request);
  absl::Status Send(uint64_t sequence,
                    const v1::ClosestPointColumnsRequest& request);
  absl::Status Send(const v1::QueryStreamRequest& request);

  // Blocks for the reply to the oldest request not yet answered, reopening
  // a broken stream (see above). Errors: FAILED_PRECONDITION when nothing
  // is outstanding, the stream's status when it ended for good (or could
  // not be reopened), INTERNAL when the server answered out of order.
  absl::StatusOr<StreamReply> Receive();

  // As Receive(), but waits at most `timeout`: nullopt when the reply has
  // not arrived by then (ask again later; it stays first in line).
  absl::StatusOr<std::optional<StreamReply>> ReceiveFor(absl::Duration timeout);
  // ReceiveFor(zero): the next reply if it is already here.
  absl::StatusOr<std::optional<StreamReply>> TryReceive() {
    return ReceiveFor(absl::ZeroDuration());
  }

  // Number of requests sent and not yet received.
  int outstanding() const;
  // Streams reopened so far.
  int reopens() const;

  // Half-closes, drains replies nobody received, and returns the stream's
  // final status. Idempotent.
  absl::Status Finish();

 private:
  friend class Client;
  QuerySession(const Client& client, const SessionOptions& options);

  // A new context and stream; the caller holds wmu_ (or is the constructor).
  void OpenStream();
  // Receive() on the stream itself (the caller is the only reader).
  absl::StatusOr<StreamReply> ReadReply();
  // The reader thread of ReceiveFor: reads replies into ready_ while
  // requests are outstanding, until the session closes or fails.
  void ReadAhead();
  // Stops the reader thread (once every outstanding reply is read when
  // `drain`, at once otherwise) and joins it. No lock held.
  void StopReader();
  // The stream ended without the reply to `want`: reopens it and resends
  // the unanswered requests, or returns the status to give up with.
  absl::Status Recover(uint64_t want, int* attempt);

  const Client& client_;
  const SessionOptions options_;
  std::unique_ptr<v1::CollisionService::Stub> stub_;
  // Writers (Send, Finish) hold wmu_ while they use the stream; Receive
  // takes it to replace a broken stream. context_ and stream_ change only
  // then, on the receiving thread, which reads without it. wmu_ is taken
  // before mu_. std::mutex, not absl::Mutex: Debian's absl is not built for
  // ThreadSanitizer, which must see these locks (the reopen test runs
  // under it).
  std::mutex wmu_;
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<
      grpc::ClientReaderWriter<v1::QueryStreamRequest, v1::QueryStreamResponse>>
      stream_;
  mutable std::mutex mu_;  // guards the members below
  // Requests sent and not yet answered, oldest first (resent on reopening).
  std::deque<v1::QueryStreamRequest> pending_;
  bool writes_done_ = false;
  bool finished_ = false;
  absl::Status final_;
  int reopens_ = 0;
  // The reader thread (ReceiveFor): replies read and not yet received, in
  // order; a failure ends the queue. `changed_` is signalled on every
  // change of pending_, ready_ or stop_reader_.
  std::deque<absl::StatusOr<StreamReply>> ready_;
  bool in_hand_ = false;      // the reader is reading a reply
  bool reader_done_ = false;  // the reader stopped (stop_reader_ or a failure)
  bool stop_reader_ = false;
  std::condition_variable changed_;
  std::thread reader_;
};

}  // namespace collision::client

#endif  // COLLISION_CLIENT_SESSION_H_
