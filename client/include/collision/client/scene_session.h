// A scene on the service (collision.v1.SceneService.Session) that survives
// its stream: the session keeps the world the server acknowledged, and when
// the stream breaks (a drain, the server's maximum stream age, a replica
// killed) it reopens one, on whichever replica the channel picks, resends
// the config, a snapshot of that world and the updates of the scene's
// history window (so rewound queries, SceneQuery.at, get the same answers
// after a failover as before), then the message in flight. The game sees
// neither an error nor an answer computed against a partial world.
//
//   auto scene = collision::client::SceneSession::Open(*client, config);
//   v1::SceneRequest tick;            // update + queries of one tick
//   absl::StatusOr<v1::SceneResponse> answer = (*scene)->Send(tick);
//   if (!answer.ok()) ...             // rejected (the scene goes on), or the
//                                     // service unreachable after retries
//
// Send blocks for its answer; SendAsync hands a message over and returns at
// once (a future). Sequence numbers are the session's. Not thread-safe: one
// caller thread per session (the session has a thread of its own for
// SendAsync). Memory, the price
// of failover: a compact copy of every entity (~56 bytes: its shape at the
// oldest tick of the history window) plus the updates of the window as
// they were sent (config.history_ticks - 1 of them at most; with the
// default, one second of ticks); an acknowledged update is kept and folded
// while the next message is on its way to the server, off the round trip.
#ifndef COLLISION_CLIENT_SCENE_SESSION_H_
#define COLLISION_CLIENT_SCENE_SESSION_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collision/client/client.h"
#include "collision/v1/scene.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/sync_stream.h"

namespace collision::client {
namespace internal {
class SceneStream;  // scene_stream.h: gRPC's stream or the scene port's
}  // namespace internal

struct SceneSessionOptions {
  // Stream reopenings tried for one message before Send gives up (with the
  // last error). Between them: a backoff from `first_backoff`, doubling up
  // to `max_backoff`.
  int max_reopens_per_message = 8;
  absl::Duration first_backoff = absl::Milliseconds(20);
  absl::Duration max_backoff = absl::Seconds(1);
  // A message unanswered this long fails with DEADLINE_EXCEEDED (the
  // stream is cancelled; the next Send reopens the scene). Infinite: wait
  // for the stream's own deadline (ClientOptions::stream_timeout).
  absl::Duration message_timeout = absl::Seconds(10);
  // The server's scene port (--scene_port_address), "host:port", or several
  // separated by commas (replicas: every reopening tries the next one):
  // the stream goes over plain TCP frames instead of gRPC, for the lowest
  // tick latency (docs/scenes.md, "The scene port"), with the client's
  // bearer token in its hello. Empty: SceneService.Session on the client's
  // gRPC channel.
  std::string scene_port;
};

class SceneSession {
 public:
  // Opens the scene. `client` must outlive the session.
  static absl::StatusOr<std::unique_ptr<SceneSession>> Open(
      const Client& client, const v1::SceneConfig& config,
      const SceneSessionOptions& options = {});
  ~SceneSession();
  SceneSession(const SceneSession&) = delete;
  SceneSession& operator=(const SceneSession&) = delete;

  // Sends one message (its `sequence` and `config` are the session's) and
  // returns its answer. A message the server rejects returns its status
  // (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...) and changes nothing; a
  // broken stream is reopened transparently (see above). A stream that ends
  // with any other status while a message is in hand (a message over the
  // server's --max_receive_message_bytes: RESOURCE_EXHAUSTED; the stream's
  // deadline, ClientOptions::stream_timeout: DEADLINE_EXCEEDED) fails that
  // message with it, and the next Send reopens the scene from the
  // acknowledged world. Never aborts: every failure is a returned status.
  absl::StatusOr<v1::SceneResponse> Send(v1::SceneRequest request);

  // Hands the message over and returns at once: its answer (or the status
  // Send would return) arrives in the future, messages answered in the
  // order they were handed over, so that a game loop's own work overlaps
  // the round trip. The session's own thread sends them one after another
  // (each written once the one before is answered), with Send's failover;
  // a Send after SendAsync waits behind the messages handed over before
  // it. The session's destructor fails the messages it has not sent with
  // CANCELLED.
  std::future<absl::StatusOr<v1::SceneResponse>> SendAsync(
      v1::SceneRequest request);
  // Messages handed over (SendAsync) and not answered yet.
  std::size_t in_flight() const;

  // Half-closes the stream once every message handed over is answered, and
  // returns its final status (the same status on every later call). Send
  // after Finish: FAILED_PRECONDITION.
  absl::Status Finish();

  // Streams reopened so far, entities and tick as the server acknowledged
  // (safe to read while messages are in flight).
  int reopens() const { return reopens_.load(); }
  std::size_t entities() const { return entities_.load(); }
  std::optional<uint64_t> tick() const {
    return has_tick_.load() ? std::optional<uint64_t>(published_tick_.load())
                            : std::nullopt;
  }
  // Updates kept for the history window (resent after a reopen).
  std::size_t kept_updates() const { return kept_updates_.load(); }

 private:
  SceneSession(const Client& client, const v1::SceneConfig& config,
               const SceneSessionOptions& options);
  // A new stream carrying the config and the acknowledged world.
  absl::Status Reopen();
  // A new stream, on gRPC or the scene port.
  absl::Status OpenStream();
  // Send's work (send_mu_ held).
  absl::StatusOr<v1::SceneResponse> SendNow(v1::SceneRequest request);
  // The session's thread: sends the messages handed over, in order.
  void Work();
  void WaitForQueue();
  // Ends a blocked Write or Read of the current stream, from any thread.
  void CancelStream();
  // Cancels and finishes the current stream, if any (exactly once).
  void DropStream();
  // One message on the current stream; UNAVAILABLE-like statuses mean the
  // stream broke (retry), others are the server's answer.
  // `fold`: keeps the previous answer's update while this one is on its
  // way (Fold), off the round trip.
  absl::StatusOr<v1::SceneResponse> Exchange(v1::SceneRequest* request,
                                             bool* broken, bool fold = false);
  // Keeps the last acknowledged update and folds the ones that left the
  // history window into world_.
  void Fold();
  void Apply(const v1::SceneUpdate& update);

  // An entity as the session keeps it: the shape's kind (a
  // v1::Shape::KindCase), its numbers in field order, its category.
  struct Kept {
    uint8_t kind = 0;
    bool angle = false;  // rotated rect: v[6] is its angle (else cos, sin)
    bool has_category = false;
    uint32_t category = 0;
    float v[10] = {};
  };
  static Kept Keep(const v1::Shape& shape);
  static Kept Keep(const v1::EntityColumns& columns, int row);
  static void Restore(uint64_t id, const Kept& kept, v1::SceneEntity* out);

  const Client& client_;
  const v1::SceneConfig config_;
  const SceneSessionOptions options_;
  std::unique_ptr<v1::SceneService::Stub> stub_;
  const std::vector<std::string> ports_;  // options_.scene_port's addresses
  std::size_t next_port_ = 0;
  std::unique_ptr<internal::SceneStream> stream_;
  uint64_t sequence_ = 0;
  // The acknowledged world at base_tick_ (the history window's oldest tick,
  // or before it), then the acknowledged updates after it, oldest first.
  absl::flat_hash_map<uint64_t, Kept> world_;
  std::optional<uint64_t> base_tick_;
  std::deque<v1::SceneUpdate> recent_;
  std::optional<v1::SceneUpdate> unfolded_;  // acknowledged, not yet kept
  uint32_t history_ticks_ = 1;  // as the server said (or derives it)
  std::optional<uint64_t> tick_;
  bool stream_finished_ = false;  // stream_->Finish() has been called
  bool finished_ = false;         // the session's Finish()
  absl::Status finish_status_;
  // What the accessors read while the session's thread works.
  std::atomic<int> reopens_{0};
  std::atomic<std::size_t> entities_{0};
  std::atomic<uint64_t> published_tick_{0};
  std::atomic<bool> has_tick_{false};
  std::atomic<std::size_t> kept_updates_{0};

  // One message on the stream at a time: Send's or the session thread's.
  std::mutex send_mu_;
  // stream_'s replacement, against CancelStream from another thread.
  std::mutex stream_mu_;
  // Messages handed over (SendAsync), and the thread that sends them.
  struct Queued {
    v1::SceneRequest request;
    std::promise<absl::StatusOr<v1::SceneResponse>> answer;
  };
  mutable std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<Queued> queue_;
  std::size_t pending_ = 0;  // queued or being sent
  std::atomic<bool> stopping_{false};
  std::thread worker_;
};

}  // namespace collision::client

#endif  // COLLISION_CLIENT_SCENE_SESSION_H_
