// collision_probe: one standard gRPC health check (grpc.health.v1), for
// container HEALTHCHECKs and scripts. Exit 0 when the service is SERVING,
// 1 when it is not (or the call failed), 2 on bad usage.
//
//   collision_probe --target=127.0.0.1:50051
//                   --service=collision.v1.CollisionService --timeout=2s
//   collision_probe --target=collision.example:50051 --tls
//                   --tls_ca=ca.pem [--tls_cert=c.pem --tls_key=c.key]
//
// A server with TLS can instead open a plaintext health-only port
// (collision_server --health_address): probe that one without --tls.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/time/time.h"
#include "common/usage.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server host:port");
ABSL_FLAG(std::string, service, "",
          "health service name (\"\" = the whole server)");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(2),
          "deadline of the check, connection included");
ABSL_FLAG(bool, quiet, false, "print nothing");
ABSL_FLAG(bool, tls, false,
          "connect with TLS (implied by the other --tls_ flags); without "
          "--tls_ca the system's root certificates are used");
ABSL_FLAG(std::string, tls_ca, "",
          "TLS: CA (PEM) the server's certificate "
          "must chain to");
ABSL_FLAG(std::string, tls_cert, "",
          "mutual TLS: client certificate chain (PEM), with --tls_key");
ABSL_FLAG(std::string, tls_key, "", "mutual TLS: client private key (PEM)");
ABSL_FLAG(std::string, tls_server_name, "",
          "TLS: check the server's certificate against this name instead of "
          "the target's host (e.g. when probing 127.0.0.1)");

namespace {

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The channel the flags ask for; an error message on a bad flag.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& target,
                                           std::string* error) {
  const std::string ca = absl::GetFlag(FLAGS_tls_ca);
  const std::string cert = absl::GetFlag(FLAGS_tls_cert);
  const std::string key = absl::GetFlag(FLAGS_tls_key);
  const std::string name = absl::GetFlag(FLAGS_tls_server_name);
  const bool tls = absl::GetFlag(FLAGS_tls) || !ca.empty() || !cert.empty() ||
                   !key.empty() || !name.empty();
  if (!tls) {
    return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  }
  if (cert.empty() != key.empty()) {
    *error = "--tls_cert and --tls_key go together";
    return nullptr;
  }
  grpc::SslCredentialsOptions ssl;
  for (auto [flag, path, into] :
       {std::tuple{"--tls_ca", ca, &ssl.pem_root_certs},
        std::tuple{"--tls_cert", cert, &ssl.pem_cert_chain},
        std::tuple{"--tls_key", key, &ssl.pem_private_key}}) {
    if (path.empty()) continue;
    std::optional<std::string> pem = ReadFile(path);
    if (!pem.has_value()) {
      *error = std::string("cannot read ") + flag + " " + path;
      return nullptr;
    }
    *into = *std::move(pem);
  }
  grpc::ChannelArguments args;
  if (!name.empty()) args.SetSslTargetNameOverride(name);
  return grpc::CreateCustomChannel(target, grpc::SslCredentials(ssl), args);
}

}  // namespace

int main(int argc, char** argv) {
  collision::ConfigureUsage(
      "collision_probe", "probe/probe.cc", "none (the probe computes nothing)",
      "One grpc.health.v1 check: exit 0 if SERVING, 1 otherwise, 2 on bad "
      "usage.\n  collision_probe --target=127.0.0.1:50051 [--service=NAME] "
      "[--tls --tls_ca=ca.pem]");
  const auto positional = collision::ParseCommandLine(argc, argv);
  if (positional.size() > 1) {
    std::fprintf(stderr, "collision_probe: unexpected argument %s\n",
                 positional[1]);
    return 2;
  }
  const std::string target = absl::GetFlag(FLAGS_target);
  const bool quiet = absl::GetFlag(FLAGS_quiet);

  std::string error;
  auto channel = MakeChannel(target, &error);
  if (channel == nullptr) {
    std::fprintf(stderr, "collision_probe: %s\n", error.c_str());
    return 2;
  }
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
