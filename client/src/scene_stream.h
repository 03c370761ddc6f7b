// One scene stream under a SceneSession, on gRPC (SceneService.Session) or
// on a server's scene port (plain TCP frames, scene.proto): the session's
// failover and bookkeeping are the same over either.
#ifndef COLLISION_CLIENT_SRC_SCENE_STREAM_H_
#define COLLISION_CLIENT_SRC_SCENE_STREAM_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collision/client/client.h"
#include "collision/v1/scene.grpc.pb.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"

namespace collision::client::internal {

class SceneStream {
 public:
  virtual ~SceneStream() = default;
  // Blocking; false once the stream is over (Finish then tells why).
  virtual bool Write(const v1::SceneRequest& request) = 0;
  virtual bool Read(v1::SceneResponse* response) = 0;
  // Half-closes: the server answers what it has, then ends the stream.
  virtual void WritesDone() = 0;
  // The stream's final status, once Write or Read returned false (or after
  // WritesDone and reading to the end). Call exactly once.
  virtual grpc::Status Finish() = 0;
  // From any thread: ends the stream; a blocked Write or Read returns false
  // and Finish says CANCELLED.
  virtual void Cancel() = 0;
};

// SceneService.Session on `stub`'s channel, with `context` (prepared with
// the client's token and the stream's deadline).
std::unique_ptr<SceneStream> OpenGrpcSceneStream(
    std::unique_ptr<grpc::ClientContext> context, v1::SceneService::Stub* stub);

// A connection to a scene port at `address` (host:port), within
// `connect_timeout`, its hello carrying the client's token.
absl::StatusOr<std::unique_ptr<SceneStream>> OpenTcpSceneStream(
    const Client& client, const std::string& address,
    absl::Duration connect_timeout);

}  // namespace collision::client::internal

#endif  // COLLISION_CLIENT_SRC_SCENE_STREAM_H_
