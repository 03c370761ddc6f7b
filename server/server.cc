#include "server/server.h"

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/core/batch.h"
#include "common/tsan_handoff.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"

namespace collision::server {

CollisionServer::CollisionServer(const ServerOptions& options)
    : options_(options) {}

CollisionServer::~CollisionServer() {
  Shutdown(absl::ZeroDuration());
  Wait();
  // gRPC returns from Wait() only after every call has finished (reactors'
  // OnDone included), so the service and metrics can go; tell TSan so.
  if (service_ != nullptr) TakeOver(service_.get());
}

absl::StatusOr<std::unique_ptr<CollisionServer>> CollisionServer::Start(
    const ServerOptions& options) {
  if (options.service.limits.max_batch == 0) {
    return absl::InvalidArgumentError("max_batch must be > 0");
  }
  if (options.service.max_in_flight <= 0) {
    return absl::InvalidArgumentError("max_in_flight must be > 0");
  }
  if (options.max_receive_message_bytes <= 0) {
    return absl::InvalidArgumentError("max_receive_message_bytes must be > 0");
  }
  grpc::EnableDefaultHealthCheckService(true);
  if (options.enable_reflection) {
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  }
  std::unique_ptr<CollisionServer> server(new CollisionServer(options));
  if (options.metrics_address.empty()) {
    server->metrics_ = MakeNullMetrics();
  } else {
    PrometheusOptions metrics_options;
    metrics_options.address = options.metrics_address;
    metrics_options.simd_target = SimdTargetName();
    auto metrics = PrometheusMetrics::Start(metrics_options);
    if (!metrics.ok()) return metrics.status();
    server->metrics_port_ = (*metrics)->port();
    server->metrics_ = *std::move(metrics);
  }
  auto credentials = MakeServerCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  ServiceOptions service_options = options.service;
  if (!options.token_file.empty()) {
    auto tokens = TokenSet::LoadFile(options.token_file);
    if (!tokens.ok()) return tokens.status();
    service_options.tokens =
        std::make_shared<const TokenSet>(*std::move(tokens));
  }
  server->service_ = std::make_unique<CollisionServiceImpl>(
      service_options, server->metrics_.get());
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, *credentials, &server->port_);
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT,
                             options.allow_reuseport ? 1 : 0);
  builder.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  const auto ms = [](absl::Duration d) {
    return static_cast<int>(
        std::min<int64_t>(absl::ToInt64Milliseconds(d), INT32_MAX));
  };
  if (options.max_connection_age > absl::ZeroDuration()) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                               ms(options.max_connection_age));
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                               ms(options.max_connection_age_grace));
  }
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                             ms(options.keepalive_time));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                             ms(options.keepalive_timeout));
  builder.AddChannelArgument(
      GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
      ms(options.min_client_ping_interval));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 2);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS,
                             options.permit_keepalive_without_calls ? 1 : 0);
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
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(kHealthServiceName, serving);
  health->SetServingStatus("", serving);
}

void CollisionServer::Shutdown(absl::Duration deadline) {
  if (server_ == nullptr) return;
  server_->Shutdown(std::chrono::system_clock::now() +
                    absl::ToChronoMilliseconds(deadline));
}

void CollisionServer::Drain(absl::Duration grace, absl::Duration deadline) {
  SetServing(false);
  absl::SleepFor(grace);
  Shutdown(deadline);
}

void CollisionServer::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace collision::server
