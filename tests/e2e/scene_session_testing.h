// Shared by the SceneService tests: a server on 127.0.0.1:0, one Session
// stream driven message by message, and a config message.
#ifndef COLLISION_TESTS_E2E_SCENE_SESSION_TESTING_H_
#define COLLISION_TESTS_E2E_SCENE_SESSION_TESTING_H_

#include <chrono>
#include <memory>

#include "collision/v1/scene.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/util/local_server.h"

namespace collision::scene_testing {

using Stream = grpc::ClientReaderWriter<v1::SceneRequest, v1::SceneResponse>;

inline std::unique_ptr<server::CollisionServer> Start(
    server::ServerOptions options) {
  return testing::StartServer(std::move(options));
}

struct Session {
  explicit Session(const server::CollisionServer& server)
      : stub(v1::SceneService::NewStub(grpc::CreateChannel(
            server.address(), grpc::InsecureChannelCredentials()))) {
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(60));
    stream = stub->Session(&context);
  }
  v1::SceneResponse Send(v1::SceneRequest request) {
    request.set_sequence(++sequence);
    EXPECT_TRUE(stream->Write(request));
    v1::SceneResponse response;
    EXPECT_TRUE(stream->Read(&response));
    EXPECT_EQ(response.sequence(), sequence);
    return response;
  }
  grpc::Status Close() {
    stream->WritesDone();
    v1::SceneResponse ignored;
    while (stream->Read(&ignored)) {
    }
    return stream->Finish();
  }

  std::unique_ptr<v1::SceneService::Stub> stub;
  grpc::ClientContext context;
  std::unique_ptr<Stream> stream;
  uint64_t sequence = 0;
};

inline v1::SceneRequest Config(v1::Dimension d) {
  v1::SceneRequest r;
  r.mutable_config()->set_dimension(d);
  r.mutable_config()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return r;
}

}  // namespace collision::scene_testing

#endif  // COLLISION_TESTS_E2E_SCENE_SESSION_TESTING_H_
