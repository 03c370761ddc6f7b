#include "server/server.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"

namespace collision::server {

CollisionServer::CollisionServer(const ServerOptions& options)
    : options_(options),
      service_(std::make_unique<CollisionServiceImpl>(options.limits)) {}

CollisionServer::~CollisionServer() {
  Shutdown(absl::ZeroDuration());
  Wait();
}

absl::StatusOr<std::unique_ptr<CollisionServer>> CollisionServer::Start(
    const ServerOptions& options) {
  if (options.limits.max_batch == 0) {
    return absl::InvalidArgumentError("max_batch must be > 0");
  }
  if (options.max_receive_message_bytes <= 0) {
    return absl::InvalidArgumentError("max_receive_message_bytes must be > 0");
  }
  grpc::EnableDefaultHealthCheckService(true);
  if (options.enable_reflection) {
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  }
  std::unique_ptr<CollisionServer> server(new CollisionServer(options));
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, grpc::InsecureServerCredentials(),
                           &server->port_);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT,
                             options.allow_reuseport ? 1 : 0);
  builder.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  builder.RegisterService(server->service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options.address));
  }
  const std::string host =
      options.address.substr(0, options.address.rfind(':'));
  server->address_ = absl::StrCat(host, ":", server->port_);
  server->SetServing(true);
  return server;
}

void CollisionServer::SetServing(bool serving) {
  grpc::HealthCheckServiceInterface* health =
      server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(kHealthServiceName, serving);
  health->SetServingStatus("", serving);
}

void CollisionServer::Shutdown(absl::Duration deadline) {
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now() +
                    absl::ToChronoMilliseconds(deadline));
}

void CollisionServer::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace collision::server
