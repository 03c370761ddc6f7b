// collision_probe: one standard gRPC health check (grpc.health.v1), for
// container HEALTHCHECKs and scripts. Exit 0 when the service is SERVING,
// 1 when it is not (or the call failed), 2 on bad usage.
//
//   collision_probe --target=127.0.0.1:50051
//                   --service=collision.v1.CollisionService --timeout=2s
#include <chrono>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server host:port");
ABSL_FLAG(std::string, service, "",
          "health service name (\"\" = the whole server)");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(2),
          "deadline of the check, connection included");
ABSL_FLAG(bool, quiet, false, "print nothing");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "One grpc.health.v1 check: exit 0 if SERVING, 1 otherwise.");
  const auto positional = absl::ParseCommandLine(argc, argv);
  if (positional.size() > 1) {
    std::fprintf(stderr, "collision_probe: unexpected argument %s\n",
                 positional[1]);
    return 2;
  }
  const std::string target = absl::GetFlag(FLAGS_target);
  const bool quiet = absl::GetFlag(FLAGS_quiet);

  auto channel =
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  // Waits for the connection within the deadline instead of failing fast
  // while the server is still starting.
  context.set_wait_for_ready(true);
  context.set_deadline(
      std::chrono::system_clock::now() +
      absl::ToChronoMilliseconds(absl::GetFlag(FLAGS_timeout)));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(absl::GetFlag(FLAGS_service));
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  if (!status.ok()) {
    if (!quiet) {
      std::fprintf(stderr, "collision_probe: %s: %s (code %d)\n",
                   target.c_str(), status.error_message().c_str(),
                   static_cast<int>(status.error_code()));
    }
    return 1;
  }
  const bool serving =
      response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
  if (!quiet) {
    std::printf("%s %s\n", target.c_str(),
                grpc::health::v1::HealthCheckResponse::ServingStatus_Name(
                    response.status())
                    .c_str());
  }
  return serving ? 0 : 1;
}
