#include "collision/client/client.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace collision::client {
namespace {

absl::Status FromGrpc(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      s.error_message());
}

void SetDeadline(grpc::ClientContext* context, absl::Duration timeout) {
  context->set_deadline(std::chrono::system_clock::now() +
                        absl::ToChronoMicroseconds(timeout));
}

}  // namespace

Client::Client(std::shared_ptr<grpc::Channel> channel,
               const ClientOptions& options)
    : options_(options),
      channel_(std::move(channel)),
      stub_(v1::CollisionService::NewStub(channel_)),
      health_(grpc::health::v1::Health::NewStub(channel_)) {}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(
    const std::string& target, const ClientOptions& options) {
  if (target.empty()) return absl::InvalidArgumentError("target is empty");
  if (options.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("timeout must be > 0");
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  if (!options.load_balancing_policy.empty()) {
    args.SetServiceConfigJSON(absl::StrCat(R"({"loadBalancingConfig":[{")",
                                           options.load_balancing_policy,
                                           R"(":{}}]})"));
  }
  std::shared_ptr<grpc::Channel> channel = grpc::CreateCustomChannel(
      target, grpc::InsecureChannelCredentials(), args);
  if (channel == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create a channel to ", target));
  }
  return std::unique_ptr<Client>(new Client(std::move(channel), options));
}

absl::StatusOr<v1::IntersectResponse> Client::Intersect(
    const v1::IntersectRequest& request) const {
  grpc::ClientContext context;
  SetDeadline(&context, options_.timeout);
  v1::IntersectResponse response;
  grpc::Status s = stub_->Intersect(&context, request, &response);
  if (!s.ok()) return FromGrpc(s);
  return response;
}

absl::StatusOr<v1::ClosestPointResponse> Client::ClosestPoint(
    const v1::ClosestPointRequest& request) const {
  grpc::ClientContext context;
  SetDeadline(&context, options_.timeout);
  v1::ClosestPointResponse response;
  grpc::Status s = stub_->ClosestPoint(&context, request, &response);
  if (!s.ok()) return FromGrpc(s);
  return response;
}

absl::StatusOr<bool> Client::IsServing(const std::string& service) const {
  grpc::ClientContext context;
  SetDeadline(&context, options_.timeout);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status s = health_->Check(&context, request, &response);
  if (!s.ok()) return FromGrpc(s);
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

absl::Status Client::WaitUntilServing(absl::Duration timeout) const {
  const absl::Time end = absl::Now() + timeout;
  absl::Status last = absl::DeadlineExceededError("no health answer yet");
  while (absl::Now() < end) {
    // Wait for the connection itself first, bounded by what is left.
    channel_->WaitForConnected(absl::ToChronoTime(
        std::min(end, absl::Now() + absl::Milliseconds(200))));
    absl::StatusOr<bool> serving = IsServing();
    if (serving.ok() && *serving) return absl::OkStatus();
    last = serving.ok() ? absl::UnavailableError("health: NOT_SERVING")
                        : serving.status();
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError(
      absl::StrCat("not serving after ", absl::FormatDuration(timeout), ": ",
                   last.ToString()));
}

}  // namespace collision::client
