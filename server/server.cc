#include "server/server.h"

#include <fcntl.h>
#include <netdb.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/core/batch.h"
#include "common/tsan_handoff.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "grpcpp/resource_quota.h"
#include "server/observability/grpc_log.h"

namespace collision::server {

namespace {

// Why gRPC could not listen on `address` (it only says that it could not):
// the same bind tried again, and its error.
std::string WhyCannotListen(const std::string& address, bool reuseport) {
  absl::StatusOr<addrinfo*> found = ResolveForListening(address);
  if (!found.ok()) return std::string(found.status().message());
  std::string why = "unknown (it was free when tried again)";
  for (addrinfo* a = *found; a != nullptr; a = a->ai_next) {
    const int fd = ListeningSocket(*a, reuseport, 0);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    const bool bound = bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    const int error = errno;
    close(fd);
    if (!bound) {
      why = BindError(error);
      break;
    }
  }
  freeaddrinfo(*found);
  return why;
}

// The process's open-file limit less what the rest of the server needs
// (gRPC's own descriptors, the metrics and health ports, logs).
int DefaultMaxConnections() {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0 ||
      files.rlim_cur == RLIM_INFINITY) {
    return 1 << 20;
  }
  const int64_t limit =
      static_cast<int64_t>(std::min<rlim_t>(files.rlim_cur, rlim_t{1} << 30));
  return static_cast<int>(
      std::max<int64_t>(16, limit - ServerOptions::kFilesKeptBack));
}

// Resident memory of this process (from /proc/self/statm), 0 if unknown.
int64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long pages = 0, resident = 0;
  const int read = std::fscanf(f, "%ld %ld", &pages, &resident);
  std::fclose(f);
  return read == 2 ? int64_t{resident} * sysconf(_SC_PAGESIZE) : 0;
}

// Linking gRPC's reflection library registers its plugin for every server
// of the process (a static initializer calls
// InitProtoReflectionServerBuilderPlugin): this option takes it out of one
// server's builder.
class WithoutReflection : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments*) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>*
                         plugins) override {
    plugins->erase(std::remove_if(plugins->begin(), plugins->end(),
                                  [](const auto& plugin) {
                                    return plugin->name() ==
                                           "proto_server_reflection";
                                  }),
                   plugins->end());
  }
};

// The transport's own header limit: far above the service's
// (ServiceOptions::max_metadata_bytes), because gRPC 1.51 answers headers
// over it by closing the whole connection, every other call on it included;
// below it the service rejects just the one call.
constexpr int kTransportMetadataBytes = 64 * 1024;

// The largest canonical encoding of one item: a pair of two rotated
// rectangles with every field set (larger than any other pair, query or
// column entry).
std::size_t MaxItemBytes() {
  v1::IntersectRequest request;
  v1::ShapePair* pair = request.add_pairs();
  for (v1::Shape* shape : {pair->mutable_a(), pair->mutable_b()}) {
    v1::RotatedRect* r = shape->mutable_rotated_rect();
    for (v1::Vec2* v :
         {r->mutable_size(), r->mutable_pivot(), r->mutable_position()}) {
      v->set_x(1);
      v->set_y(1);
    }
    r->mutable_rotation()->set_cos(1);
    r->mutable_rotation()->set_sin(1);
  }
  return request.ByteSizeLong();  // tag + length + pair
}

}  // namespace

int MaxRequestBytes(const wire::RequestLimits& limits) {
  // The request's own fields and a QueryStream message's envelope (tag,
  // length, sequence) take well under 1 KiB.
  constexpr std::size_t kEnvelope = 1024;
  const std::size_t bytes = limits.max_batch * MaxItemBytes() + kEnvelope;
  return static_cast<int>(std::min<std::size_t>(bytes, INT32_MAX));
}

CollisionServer::CollisionServer(const ServerOptions& options)
    : options_(options) {}

CollisionServer::~CollisionServer() {
  Shutdown(absl::ZeroDuration());
  Wait();
  StopWatching();
  for (int fd : reserve_fds_) {
    if (fd >= 0) close(fd);
  }
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
  if (!options.scene_port_address.empty() &&
      !options.tls.cert_chain_file.empty()) {
    return absl::InvalidArgumentError(
        "the scene port is plaintext: with TLS on the main port it would "
        "carry scenes and tokens in the clear; leave --scene_port_address "
        "empty, or serve it on a private network without --tls_cert");
  }
  if (const std::string& dir = options.service.record.dir;
      !dir.empty() && access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scene_record_dir ", dir,
        " is not a directory this process can write: ", std::strerror(errno)));
  }
  if (options.max_receive_message_bytes < 0) {
    return absl::InvalidArgumentError(
        "max_receive_message_bytes must be >= 0 (0: follow max_batch)");
  }
  if (options.max_concurrent_streams <= 0) {
    return absl::InvalidArgumentError("max_concurrent_streams must be > 0");
  }
  if (options.service.max_metadata_bytes > kTransportMetadataBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_metadata_bytes must be <= ", kTransportMetadataBytes));
  }
  InstallGrpcLogSink();
  grpc::EnableDefaultHealthCheckService(true);
  // Reflection is gRPC's own service, which cannot check a bearer token (a
  // 1.51 interceptor cannot reject a call): a server that requires tokens
  // does not describe its schema to callers without one.
  const bool reflection =
      options.enable_reflection && options.token_file.empty();
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  std::unique_ptr<CollisionServer> server(new CollisionServer(options));
  server->reflection_ = reflection;
  server->max_receive_message_bytes_ =
      options.max_receive_message_bytes > 0
          ? options.max_receive_message_bytes
          : MaxRequestBytes(options.service.limits);
  if (options.metrics_address.empty()) {
    server->metrics_ = MakeNullMetrics();
  } else {
    PrometheusOptions metrics_options;
    metrics_options.address = options.metrics_address;
    metrics_options.simd_target = SimdTargetName();
    metrics_options.version = options.version;
    metrics_options.build_type = options.build_type;
    auto metrics = PrometheusMetrics::Start(metrics_options);
    if (!metrics.ok()) return metrics.status();
    server->metrics_port_ = (*metrics)->port();
    server->metrics_ = *std::move(metrics);
  }
  auto credentials = MakeServerCredentials(options.tls);
  if (!credentials.ok()) return credentials.status();
  ServiceOptions service_options = options.service;
  if (!service_options.record.dir.empty() &&
      service_options.record.writer == nullptr) {
    service_options.record.writer =
        std::make_shared<RecordWriter>(kRecordPendingBytes);
  }
  if (!options.token_file.empty()) {
    auto tokens = TokenSet::LoadFile(options.token_file);
    if (!tokens.ok()) return tokens.status();
    service_options.tokens =
        std::make_shared<const TokenSet>(*std::move(tokens));
  }
  if (options.max_connection_age > absl::ZeroDuration()) {
    // A stream must end on its own (between two messages) before the
    // transport cuts it: a stream opened just before its connection's
    // GOAWAY is cut a grace later, so streams live at most the shorter of
    // the age and the grace, less a margin for the message in hand.
    const absl::Duration lifetime =
        std::min(options.max_connection_age, options.max_connection_age_grace);
    service_options.max_stream_age =
        lifetime - std::min(lifetime / 10, absl::Seconds(5));
  }
  server->service_ = std::make_unique<CollisionServiceImpl>(
      service_options, server->metrics_.get());
  grpc::ServerBuilder builder;
  const bool plaintext = options.tls.cert_chain_file.empty();
  if (options.max_connections != 0) {
    server->max_connections_ = options.max_connections > 0
                                   ? options.max_connections
                                   : DefaultMaxConnections();
  }
  if (options.max_connections != 0 && plaintext) {
    auto gate =
        ConnectionGate::Listen(options.address, options.allow_reuseport);
    if (!gate.ok()) return gate.status();
    server->gate_ = *std::move(gate);
    server->port_ = server->gate_->port();
  } else {
    builder.AddListeningPort(options.address, *credentials, &server->port_);
  }
  if (options.max_connections != 0 && !plaintext) {
    // gRPC keeps the listener and asks the limit about each connection.
    server->listener_limit_ = std::make_shared<ListenerLimit>(
        static_cast<size_t>(server->max_connections_), server->metrics_.get());
    ListenerLimit::Install(server->listener_limit_, &builder);
  }
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT,
                             options.allow_reuseport ? 1 : 0);
  builder.SetMaxReceiveMessageSize(server->max_receive_message_bytes_);
  // Requests are taken uncompressed only: gRPC 1.51 inflates a compressed
  // message whole before comparing it with the receive limit. With the
  // algorithms off, a compressed call is refused on its headers, before its
  // body is read (docs/decisions/0013-uncompressed-requests-only.md).
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                             options.max_concurrent_streams);
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE,
                             kTransportMetadataBytes);
  if (options.transport_memory_bytes > 0) {
    // Far enough above the budget that the server's own cut
    // (TransportShedder) comes first: near its quota gRPC sends GOAWAY to
    // every connection without an open call, honest ones included. The
    // slack is at least kQuotaSlack: ~160 ms of loopback-speed arrivals, many
    // of the shedder's readings (docs/decisions/0014-resource-quota-slack.md).
    constexpr int64_t kQuotaSlack = int64_t{64} << 20;
    grpc::ResourceQuota quota("collision_server");
    quota.Resize(static_cast<std::size_t>(
        options.transport_memory_bytes +
        std::max(options.transport_memory_bytes, kQuotaSlack)));
    builder.SetResourceQuota(quota);
  }
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
  if (!reflection) builder.SetOption(std::make_unique<WithoutReflection>());
  builder.RegisterService(server->service_.get());
  server->scene_service_ =
      std::make_unique<SceneServiceImpl>(server->service_.get());
  builder.RegisterService(server->scene_service_.get());
  // Another server of the process may already have started gRPC's threads:
  // they reach these services through libgrpc, out of TSan's sight.
  HandOff(server->service_.get());
  HandOff(server->scene_service_.get());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", options.address, ": ",
        WhyCannotListen(options.address, options.allow_reuseport)));
  }
  if (server->gate_ != nullptr) {
    server->gate_->Start(server->server_.get(), server->max_connections_,
                         server->metrics_.get());
  }
  const std::string host =
      options.address.substr(0, options.address.rfind(':'));
  server->address_ = absl::StrCat(host, ":", server->port_);
  if (!options.health_address.empty()) {
    // Its own grpc::Server: a second port on the main builder would serve
    // every service there, in plaintext. gRPC adds its default health
    // service; the generic service answers every other method UNIMPLEMENTED
    // (a builder with no service of its own refuses to start).
    grpc::ServerBuilder health;
    server->health_fallback_ = std::make_unique<grpc::CallbackGenericService>();
    health.RegisterCallbackGenericService(server->health_fallback_.get());
    health.AddListeningPort(options.health_address,
                            grpc::InsecureServerCredentials(),
                            &server->health_port_);
    health.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT,
                              options.allow_reuseport ? 1 : 0);
    // Health checks are a few bytes; nothing bigger is read.
    health.SetMaxReceiveMessageSize(4096);
    health.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, 16);
    health.SetOption(std::make_unique<WithoutReflection>());
    server->health_server_ = health.BuildAndStart();
    if (server->health_server_ == nullptr || server->health_port_ == 0) {
      server->server_->Shutdown(std::chrono::system_clock::now());
      return absl::UnavailableError(absl::StrCat(
          "cannot listen on --health_address ", options.health_address, ": ",
          WhyCannotListen(options.health_address, options.allow_reuseport)));
    }
  }
  if (!options.scene_port_address.empty()) {
    ScenePortOptions port;
    port.address = options.scene_port_address;
    port.max_connections = static_cast<int>(
        std::min<std::size_t>(options.service.scenes.max_scenes, 1 << 20));
    port.max_message_bytes =
        static_cast<std::size_t>(server->max_receive_message_bytes_);
    port.allow_reuseport = options.allow_reuseport;
    port.frame_timeout = options.scene_port_frame_timeout;
    absl::StatusOr<std::unique_ptr<ScenePort>> scene_port =
        ScenePort::Start(server->service_.get(), port);
    if (!scene_port.ok()) {
      server->Shutdown(absl::ZeroDuration());
      return scene_port.status();
    }
    server->scene_port_ = *std::move(scene_port);
  }
  server->SetServing(true);
  // A few descriptors kept back for the way out should the process run out
  // (see Watch).
  for (int& fd : server->reserve_fds_)
    fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (options.transport_memory_bytes > 0) {
    server->shedder_ = std::make_unique<TransportShedder>(
        server->port_, options.transport_memory_bytes,
        server->service_->arrivals(), server->metrics_.get());
  }
  server->watch_ = std::thread([s = server.get()] { s->Watch(); });
  return server;
}

void CollisionServer::Watch() {
  const uint64_t seen = ListenerFailures();
  std::string line;
  absl::Time recounted = absl::Now();
  while (!watch_stop_.load()) {
    const absl::Time now = absl::Now();
    service_->FlushLogs(now);
    if (listener_limit_ != nullptr && now - recounted >= absl::Seconds(1)) {
      listener_limit_->Recount();
      recounted = now;
    }
    // Every 10 ms (reading /proc/self/statm costs microseconds): at
    // loopback speed (~400 MB/s coming in) the guard notices within ~4 MB.
    if (WaitForListenerFailure(seen, absl::Milliseconds(10), &line)) {
      // Out of descriptors, most likely: the way out (logging, shutting the
      // transports down) may need a few.
      for (int& fd : reserve_fds_) {
        if (fd >= 0) close(fd);
        fd = -1;
      }
      Fail(absl::StrCat("the listening socket stopped accepting (gRPC: ", line,
                        ")"),
           options_.failure_grace, options_.failure_deadline);
      return;
    }
    const int64_t rss = ResidentBytes();
    if (shedder_ != nullptr) shedder_->Check(now, rss);
    if (options_.memory_limit_bytes > 0 && rss > options_.memory_limit_bytes) {
      // No grace: every connection is cut at once, so that whatever is
      // still arriving stops arriving.
      Fail(absl::StrCat("resident memory ", rss >> 20,
                        " MiB passed --memory_limit_bytes (",
                        options_.memory_limit_bytes >> 20, " MiB)"),
           absl::ZeroDuration(), absl::ZeroDuration());
      return;
    }
  }
}

void CollisionServer::Fail(const std::string& why, absl::Duration grace,
                           absl::Duration deadline) {
  failed_.store(true);
  EventLog::Global().Write(
      LogLevel::kError, "failing",
      absl::StrCat(why, "; health NOT_SERVING, stopping (grace ",
                   absl::FormatDuration(grace),
                   ") so that the supervisor restarts the server"));
  Drain(grace, deadline);
}

void CollisionServer::StopWatching() {
  watch_stop_.store(true);
  if (watch_.joinable()) watch_.join();
  // What the last bursts counted, before the process goes.
  if (service_ != nullptr) service_->FlushLogs(absl::Now(), /*force=*/true);
}

void CollisionServer::SetServing(bool serving) {
  for (grpc::Server* s : {server_.get(), health_server_.get()}) {
    if (s == nullptr) continue;
    grpc::HealthCheckServiceInterface* health = s->GetHealthCheckService();
    if (health == nullptr) continue;
    health->SetServingStatus(kHealthServiceName, serving);
    health->SetServingStatus("", serving);
  }
}

void CollisionServer::Shutdown(absl::Duration deadline) {
  if (server_ == nullptr) return;
  // Scene port streams end at their next message boundary, as the gRPC
  // ones get GOAWAY below.
  if (scene_port_ != nullptr) scene_port_->Shutdown(deadline);
  // No new connection from here on; the open ones get GOAWAY below.
  if (gate_ != nullptr) gate_->Stop();
  server_->Shutdown(std::chrono::system_clock::now() +
                    absl::ToChronoMilliseconds(deadline));
  // After the main port: probes see NOT_SERVING until the calls are done.
  if (health_server_ != nullptr) {
    health_server_->Shutdown(std::chrono::system_clock::now());
  }
}

void CollisionServer::Drain(absl::Duration grace, absl::Duration deadline) {
  SetServing(false);
  absl::SleepFor(grace);
  // Each step on its own line, so that an operator can tell a drain that
  // waited for slow calls from one that cut them.
  const absl::Time start = absl::Now();
  EventLog::Global().Write(
      LogLevel::kInfo, "drain",
      absl::StrCat("grace over: GOAWAY to every connection; ",
                   service_->in_flight(), " requests in flight get up to ",
                   absl::FormatDuration(deadline)),
      {{"in_flight", absl::StrCat(service_->in_flight()), true}});
  Shutdown(deadline);
  const absl::Duration took = absl::Now() - start;
  EventLog::Global().Write(
      took >= deadline ? LogLevel::kWarning : LogLevel::kInfo, "drain",
      took >= deadline
          ? absl::StrCat("deadline reached after ", absl::FormatDuration(took),
                         ": calls still running were cancelled")
          : absl::StrCat("every call finished, in ",
                         absl::FormatDuration(took)),
      {{"seconds", absl::StrCat(absl::ToDoubleSeconds(took)), true}});
  // What the last bursts counted, before the process says it stopped.
  service_->FlushLogs(absl::Now(), /*force=*/true);
}

void CollisionServer::Wait() {
  if (server_ != nullptr) server_->Wait();
  if (health_server_ != nullptr) health_server_->Wait();
}

}  // namespace collision::server
