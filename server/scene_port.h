// The scene port: SceneService.Session without gRPC, for ticks whose round
// trip should cost what the network costs (docs/scenes.md, "The scene
// port"). A plaintext TCP listener; each connection is one scene stream,
// served by a thread of its own that reads a frame, handles it and writes
// the answer with no hand-off between threads. Frames are a 4-byte
// little-endian length and a protobuf message: a SceneHello, then
// SceneRequests answered by SceneResponses (scene.proto).
//
// Everything the gRPC stream promises holds here too, through the same
// HostedScene and the same service: tokens, the scene budgets and limits,
// the in-flight admission, metrics (method "SceneSession", type
// "tcp_stream"), the maximum stream age and drains (the stream ends at a
// message boundary with `end` UNAVAILABLE). What differs:
// - a message over --max_receive_message_bytes is answered by its own
//   RESOURCE_EXHAUSTED error and the stream goes on (its bytes are read and
//   dropped, never held);
// - a frame must arrive whole within frame_timeout of its first byte, and
//   an answer must be taken by the client within it, else the connection is
//   closed (a peer that sends slowly or never reads holds one thread and
//   one frame's buffer, never more);
// - connections beyond max_connections get an `end` RESOURCE_EXHAUSTED and
//   are closed.
#ifndef COLLISION_SERVER_SCENE_PORT_H_
#define COLLISION_SERVER_SCENE_PORT_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/service.h"

namespace collision::server {

struct ScenePortOptions {
  // host:port; port 0 picks a free port.
  std::string address;
  // Connections served at once (each one a thread).
  int max_connections = 256;
  // Largest SceneRequest frame, as the gRPC port's receive limit.
  std::size_t max_message_bytes = 4 << 20;
  // A frame's bytes must all arrive within this of its first, and an
  // answer must be taken within it.
  absl::Duration frame_timeout = absl::Seconds(10);
  bool allow_reuseport = false;
};

class ScenePort {
 public:
  // Binds and starts accepting. `service` must outlive the port.
  static absl::StatusOr<std::unique_ptr<ScenePort>> Start(
      CollisionServiceImpl* service, const ScenePortOptions& options);
  ~ScenePort();
  ScenePort(const ScenePort&) = delete;
  ScenePort& operator=(const ScenePort&) = delete;

  int port() const { return port_; }
  // Stops accepting; every stream ends at its next message boundary with
  // `end` UNAVAILABLE (a message being read or handled is answered first);
  // whatever is still open after `deadline` is closed. Returns once every
  // connection's thread is done. Idempotent.
  void Shutdown(absl::Duration deadline);

 private:
  ScenePort(CollisionServiceImpl* service, const ScenePortOptions& options,
            int listener, int port);
  void Accept();
  void Serve(int fd, const std::string& peer);

  CollisionServiceImpl* const service_;
  const ScenePortOptions options_;
  const int listener_;
  const int port_;
  // Readable once the port stops: every connection polls it beside its
  // socket.
  int stop_fd_ = -1;
  std::thread acceptor_;
  std::mutex mu_;
  std::condition_variable done_;
  int connections_ = 0;  // threads serving a connection
  std::set<int> open_;   // their sockets, cut at the shutdown's deadline
  bool stopped_ = false;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_SCENE_PORT_H_
