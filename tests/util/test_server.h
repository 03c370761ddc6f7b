// A tiny in-test gRPC server on 127.0.0.1:0 (SO_REUSEPORT off) around any
// service, plaintext or TLS, for client tests that need a scripted peer.
#ifndef COLLISION_TESTS_UTIL_TEST_SERVER_H_
#define COLLISION_TESTS_UTIL_TEST_SERVER_H_

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"

namespace collision::testing {

class TestServer {
 public:
  explicit TestServer(grpc::Service* service,
                      std::shared_ptr<grpc::ServerCredentials> credentials =
                          grpc::InsecureServerCredentials()) {
    grpc::ServerBuilder builder;
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    builder.AddListeningPort("127.0.0.1:0", credentials, &port_);
    builder.RegisterService(service);
    server_ = builder.BuildAndStart();
  }
  ~TestServer() {
    if (server_ != nullptr) server_->Shutdown();
  }
  bool ok() const { return server_ != nullptr && port_ > 0; }
  int port() const { return port_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  grpc::Server* server() const { return server_.get(); }

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace collision::testing

#endif  // COLLISION_TESTS_UTIL_TEST_SERVER_H_
