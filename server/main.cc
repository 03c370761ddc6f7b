// collision_server: serves collision.v1 on one port. Flags live here only and
// are turned into ServerOptions.
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "collision/core/batch.h"
#include "collision/wire/scene_request.h"
#include "common/usage.h"
#include "server/observability/event_log.h"
#include "server/server.h"

ABSL_FLAG(std::string, address, "127.0.0.1:50051",
          "host:port to listen on; port 0 picks a free port");
ABSL_FLAG(std::string, scene_port_address, "",
          "host:port of the scene port: SceneService.Session over plain TCP "
          "frames, without gRPC, for the lowest tick latency (plaintext; not "
          "with --tls_cert); port 0 picks a free port; empty: off");
ABSL_FLAG(std::string, port_file, "",
          "if set, the bound port is written to this file once serving");
ABSL_FLAG(int64_t, max_batch, 100000,
          "largest number of pairs or queries in one request");
ABSL_FLAG(int64_t, scene_max_entities, 100000,
          "entities one scene (SceneService.Session stream) may hold");
ABSL_FLAG(int64_t, max_scenes, 256,
          "scenes open at once on this server; beyond it a new scene is "
          "refused with RESOURCE_EXHAUSTED");
ABSL_FLAG(int64_t, scene_max_queries, 10000, "queries in one scene message");
ABSL_FLAG(int64_t, scene_max_hits, 1000,
          "hits one scene query may return (and the largest nearest k)");
ABSL_FLAG(int64_t, scene_max_history_ticks, 1024,
          "ticks of history one scene may keep for rewound queries "
          "(config.history_ticks)");
ABSL_FLAG(int64_t, scene_history_bytes,
          static_cast<int64_t>(collision::wire::SceneLimits{}.history_bytes),
          "memory one scene's history may hold (within --scene_memory_bytes); "
          "past it the oldest ticks are dropped early (rewound queries older "
          "than what is kept are clamped)");
ABSL_FLAG(
    int64_t, scene_memory_bytes,
    static_cast<int64_t>(collision::wire::SceneLimits{}.scene_memory_bytes),
    "memory one scene may reserve (entities, index, history); a scene "
    "reserves what its entity limit and history could come to, at most "
    "this, and its entity limit falls to what that holds");
ABSL_FLAG(int64_t, scenes_memory_bytes, 0,
          "memory all scenes may reserve together; a scene that does not fit "
          "is refused with RESOURCE_EXHAUSTED when it opens. 0: half of "
          "--memory_limit_bytes (or 384 MiB with the guard off)");
ABSL_FLAG(int64_t, scene_max_message_hits,
          static_cast<int64_t>(collision::wire::SceneLimits{}.max_message_hits),
          "hits one scene message's answers may carry over all its queries; "
          "the query that would pass it and the later ones get "
          "RESOURCE_EXHAUSTED");
ABSL_FLAG(absl::Duration, scene_message_cpu,
          collision::wire::SceneLimits{}.message_cpu,
          "CPU time one scene message's queries may take; past it the "
          "remaining queries get RESOURCE_EXHAUSTED");
ABSL_FLAG(std::string, scene_record_dir, "",
          "directory scene recordings go to (docs/recording.md); empty: "
          "nothing is recorded. Scenes whose config sets record are "
          "recorded, or every scene with --scene_record_all");
ABSL_FLAG(bool, scene_record_all, false,
          "record every scene to --scene_record_dir, not only those whose "
          "config asks");
ABSL_FLAG(int64_t, scene_record_max_bytes,
          collision::server::SceneRecordOptions{}.max_bytes,
          "largest recording file; a recording that would pass it stops "
          "there (a `truncated` frame says so) and the scene goes on");
ABSL_FLAG(int, max_receive_message_bytes, 0,
          "largest request accepted on the wire, in bytes; 0 = what "
          "--max_batch items need (logged at start)");
ABSL_FLAG(int, max_in_flight_per_connection, 0,
          "once more than half of --max_in_flight is taken, the slots one "
          "connection may hold (answers it has not read count); 0 = no "
          "per-connection share (behind a balancer, callers share a few "
          "connections)");
ABSL_FLAG(int64_t, max_in_flight_bytes, int64_t{64} << 20,
          "encoded request bytes admitted at once; beyond it: UNAVAILABLE "
          "as for --max_in_flight (a lone request always fits)");
ABSL_FLAG(int, max_concurrent_streams, 100,
          "streams one connection may have open at once (HTTP/2 "
          "SETTINGS_MAX_CONCURRENT_STREAMS)");
ABSL_FLAG(int, max_connections, -1,
          "connections the main port keeps open at once; one more is refused "
          "(plaintext: its call UNAVAILABLE, then GOAWAY; TLS: closed before "
          "its handshake) while the others go on. -1: the open-file limit "
          "less 256; 0: no limit");
ABSL_FLAG(int64_t, transport_memory_bytes, int64_t{256} << 20,
          "memory gRPC's transport may hold over all connections (read "
          "buffers, messages still arriving, call state); past it idle "
          "connections are closed and streams cancelled; 0 = unbounded");
ABSL_FLAG(int64_t, memory_limit_bytes, int64_t{768} << 20,
          "memory guard: past this resident memory the server turns "
          "NOT_SERVING, drains and exits 1 for a restart; 0 = off");
ABSL_FLAG(int, max_metadata_bytes, 8 * 1024,
          "largest request metadata of one call (names + values + 32 bytes "
          "per entry); a call over it gets RESOURCE_EXHAUSTED, alone");
ABSL_FLAG(int, max_in_flight, 64,
          "requests computing or queued at once; beyond it: UNAVAILABLE with "
          "a grpc-retry-pushback-ms trailer");
ABSL_FLAG(int, retry_pushback_ms, 20,
          "pushback sent with an overload rejection, in milliseconds");
ABSL_FLAG(int, worker_threads, 0, "compute threads; 0 = one per core");
ABSL_FLAG(bool, decode_pairs_from_bytes, true,
          "decode Intersect and ClosestPoint requests straight from their "
          "bytes (same answers; off only to compare with parsing messages)");
ABSL_FLAG(std::string, metrics_address, "",
          "host:port of the Prometheus /metrics endpoint (e.g. "
          "0.0.0.0:9464; port 0 picks a free port); empty = off");
ABSL_FLAG(std::string, health_address, "",
          "host:port of a plaintext listener serving only grpc.health.v1 "
          "(for probes that cannot speak the main port's TLS; port 0 picks a "
          "free port); empty = off");
ABSL_FLAG(absl::Duration, max_connection_age, absl::Minutes(5),
          "close connections after this age (+ grace) so clients re-resolve; "
          "0 = never");
ABSL_FLAG(absl::Duration, max_connection_age_grace, absl::Minutes(5),
          "time in-flight calls get on a connection closed for its age; "
          "QueryStreams end themselves, between two messages, before the "
          "shorter of the age and this grace");
ABSL_FLAG(absl::Duration, keepalive_time, absl::Minutes(1),
          "server keepalive ping interval on idle connections");
ABSL_FLAG(absl::Duration, keepalive_timeout, absl::Seconds(20),
          "time to wait for a keepalive ping ack");
ABSL_FLAG(absl::Duration, min_client_ping_interval, absl::Seconds(10),
          "least interval accepted between client pings (keepalive "
          "enforcement)");
ABSL_FLAG(std::string, tls_cert, "",
          "TLS: server certificate chain (PEM); with --tls_key turns TLS on");
ABSL_FLAG(std::string, tls_key, "", "TLS: server private key (PEM)");
ABSL_FLAG(std::string, tls_client_ca, "",
          "mutual TLS: CA (PEM) client certificates must chain to");
ABSL_FLAG(std::string, token_file, "",
          "bearer tokens (one per line) required on every collision.v1 call; "
          "the health service stays open");
ABSL_FLAG(bool, permit_keepalive_without_calls, false,
          "accept client keepalive pings on connections with no open call");
ABSL_FLAG(bool, reflection, true, "serve gRPC server reflection");
ABSL_FLAG(bool, allow_reuseport, false,
          "let other processes bind the same port (SO_REUSEPORT)");
ABSL_FLAG(std::string, log_format, "text",
          "stderr log lines: text, or json (one object per line, for log "
          "pipelines)");
ABSL_FLAG(std::string, log_level, "info",
          "least severe log lines written: info, warning or error");
ABSL_FLAG(absl::Duration, drain_grace, absl::Seconds(2),
          "on SIGTERM/SIGINT: time between health NOT_SERVING and shutdown");
ABSL_FLAG(absl::Duration, shutdown_deadline, absl::Seconds(10),
          "on SIGTERM/SIGINT: time in-flight calls get to finish");

namespace {

void Log(const std::string& message, collision::server::LogLevel level =
                                         collision::server::LogLevel::kInfo) {
  collision::server::EventLog::Global().Write(level, "lifecycle", message);
}

// Every connection takes a file descriptor, and gRPC 1.51 stops accepting
// for good once accept4 fails for want of one: take the hard limit the
// process is allowed. Returns the limit in force.
uint64_t RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return static_cast<uint64_t>(limit.rlim_cur);
}

bool WritePortFile(const std::string& path, int port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << port << "\n";
    if (!out) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Debian's absl builds check every Mutex acquisition for lock-order
  // cycles, a debug aid paid on every call under load
  // (docs/decisions/0022-mutex-deadlock-detection-off.md). The tests,
  // which run without this, keep it on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // A message's transient buffers (its arena, parsed columns, answer) of a
  // MiB or more come from mmap and go back to the system when freed:
  // glibc's default threshold rises to 32 MiB after the first such free,
  // after which every large message's buffers stay in the heap and the
  // process's memory no longer says what the scenes hold.
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // One malloc arena: a scene's messages are handled on whichever gRPC
  // thread is free, and with an arena per thread each one kept its own
  // copy of the largest message's freed buffers. Small blocks still come
  // from per-thread caches without a lock
  // (docs/decisions/0023-one-malloc-arena.md). GLIBC_TUNABLES or
  // MALLOC_ARENA_MAX in the environment still decide.
  if (std::getenv("MALLOC_ARENA_MAX") == nullptr &&
      std::getenv("GLIBC_TUNABLES") == nullptr) {
    mallopt(M_ARENA_MAX, 1);
  }
  collision::ConfigureUsage(
      "collision_server", "server/main.cc", collision::SimdTargetName(),
      "Serves collision.v1.CollisionService (Intersect, ClosestPoint, "
      "IntersectColumns, ClosestPointColumns, QueryStream) and "
      "collision.v1.SceneService (Session) with health checking and "
      "reflection.\n  collision_server --address=0.0.0.0:50051 "
      "[--metrics_address=0.0.0.0:9464] [flags below]");
  collision::ParseCommandLine(argc, argv);
  {
    const auto format =
        collision::server::ParseLogFormat(absl::GetFlag(FLAGS_log_format));
    const auto level =
        collision::server::ParseLogLevel(absl::GetFlag(FLAGS_log_level));
    if (!format.ok() || !level.ok()) {
      std::fprintf(
          stderr, "collision_server: --log_format/--log_level: %s\n",
          (!format.ok() ? format.status() : level.status()).ToString().c_str());
      return 1;
    }
    collision::server::EventLog::Global().Configure(*format, *level);
  }

  // Block the stop signals in every thread; one thread waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  collision::server::ServerOptions options;
  options.address = absl::GetFlag(FLAGS_address);
  options.service.limits.max_batch = static_cast<std::size_t>(
      std::max<int64_t>(0, absl::GetFlag(FLAGS_max_batch)));
  options.service.max_in_flight = absl::GetFlag(FLAGS_max_in_flight);
  auto at_least_1 = [](int64_t v) {
    return static_cast<std::size_t>(std::max<int64_t>(1, v));
  };
  options.service.scenes.max_entities =
      at_least_1(absl::GetFlag(FLAGS_scene_max_entities));
  options.service.scenes.max_scenes =
      at_least_1(absl::GetFlag(FLAGS_max_scenes));
  options.service.scenes.max_queries =
      at_least_1(absl::GetFlag(FLAGS_scene_max_queries));
  options.service.scenes.max_hits =
      at_least_1(absl::GetFlag(FLAGS_scene_max_hits));
  options.service.scenes.max_history_ticks =
      at_least_1(absl::GetFlag(FLAGS_scene_max_history_ticks));
  options.service.scenes.history_bytes =
      at_least_1(absl::GetFlag(FLAGS_scene_history_bytes));
  options.service.scenes.scene_memory_bytes =
      at_least_1(absl::GetFlag(FLAGS_scene_memory_bytes));
  const int64_t scenes_memory = absl::GetFlag(FLAGS_scenes_memory_bytes);
  const int64_t guard = absl::GetFlag(FLAGS_memory_limit_bytes);
  options.service.scenes.memory_bytes =
      scenes_memory > 0 ? at_least_1(scenes_memory)
      : guard > 0       ? at_least_1(guard / 2)
                        : collision::wire::SceneLimits{}.memory_bytes;
  options.service.scenes.max_message_hits =
      at_least_1(absl::GetFlag(FLAGS_scene_max_message_hits));
  options.service.scenes.message_cpu =
      std::max(absl::Milliseconds(1), absl::GetFlag(FLAGS_scene_message_cpu));
  options.service.record.dir = absl::GetFlag(FLAGS_scene_record_dir);
  options.service.record.all = absl::GetFlag(FLAGS_scene_record_all);
  options.service.record.max_bytes =
      std::max<int64_t>(4096, absl::GetFlag(FLAGS_scene_record_max_bytes));
  options.service.record.server_version = COLLISION_VERSION;
  options.service.retry_pushback_ms = absl::GetFlag(FLAGS_retry_pushback_ms);
  options.service.worker_threads = static_cast<std::size_t>(
      std::max(0, absl::GetFlag(FLAGS_worker_threads)));
  options.service.decode_pairs_from_bytes =
      absl::GetFlag(FLAGS_decode_pairs_from_bytes);
  options.version = COLLISION_VERSION;
  options.build_type = COLLISION_BUILD_TYPE;
  options.metrics_address = absl::GetFlag(FLAGS_metrics_address);
  options.health_address = absl::GetFlag(FLAGS_health_address);
  options.scene_port_address = absl::GetFlag(FLAGS_scene_port_address);
  options.tls.cert_chain_file = absl::GetFlag(FLAGS_tls_cert);
  options.tls.private_key_file = absl::GetFlag(FLAGS_tls_key);
  options.tls.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca);
  options.token_file = absl::GetFlag(FLAGS_token_file);
  options.permit_keepalive_without_calls =
      absl::GetFlag(FLAGS_permit_keepalive_without_calls);
  options.max_connection_age = absl::GetFlag(FLAGS_max_connection_age);
  options.max_connection_age_grace =
      absl::GetFlag(FLAGS_max_connection_age_grace);
  options.keepalive_time = absl::GetFlag(FLAGS_keepalive_time);
  options.keepalive_timeout = absl::GetFlag(FLAGS_keepalive_timeout);
  options.min_client_ping_interval =
      absl::GetFlag(FLAGS_min_client_ping_interval);
  options.max_receive_message_bytes =
      absl::GetFlag(FLAGS_max_receive_message_bytes);
  options.service.max_in_flight_bytes =
      absl::GetFlag(FLAGS_max_in_flight_bytes);
  options.service.max_in_flight_per_connection =
      absl::GetFlag(FLAGS_max_in_flight_per_connection);
  options.max_concurrent_streams = absl::GetFlag(FLAGS_max_concurrent_streams);
  options.max_connections = absl::GetFlag(FLAGS_max_connections);
  options.transport_memory_bytes = absl::GetFlag(FLAGS_transport_memory_bytes);
  options.service.max_metadata_bytes = absl::GetFlag(FLAGS_max_metadata_bytes);
  options.memory_limit_bytes = absl::GetFlag(FLAGS_memory_limit_bytes);
  options.enable_reflection = absl::GetFlag(FLAGS_reflection);
  options.allow_reuseport = absl::GetFlag(FLAGS_allow_reuseport);

  const uint64_t open_files = RaiseOpenFileLimit();
  auto server = collision::server::CollisionServer::Start(options);
  if (!server.ok()) {
    Log(absl::StrCat("failed to start: ", server.status().ToString()),
        collision::server::LogLevel::kError);
    return 1;
  }
  Log(absl::StrCat(
      "listening on ", (*server)->address(),
      " max_batch=", options.service.limits.max_batch,
      " max_in_flight=", options.service.max_in_flight, " metrics=",
      options.metrics_address.empty()
          ? std::string("off")
          : absl::StrCat(options.metrics_address.substr(
                             0, options.metrics_address.rfind(':')),
                         ":", (*server)->metrics_port()),
      " health_only=",
      options.health_address.empty()
          ? std::string("off")
          : absl::StrCat(options.health_address.substr(
                             0, options.health_address.rfind(':')),
                         ":", (*server)->health_port()),
      " scene_port=",
      options.scene_port_address.empty()
          ? std::string("off")
          : absl::StrCat(options.scene_port_address.substr(
                             0, options.scene_port_address.rfind(':')),
                         ":", (*server)->scene_port()),
      " max_receive_message_bytes=", (*server)->max_receive_message_bytes(),
      " max_in_flight_bytes=", options.service.max_in_flight_bytes,
      " transport_memory_bytes=", options.transport_memory_bytes,
      " memory_limit_bytes=", options.memory_limit_bytes,
      " max_concurrent_streams=", options.max_concurrent_streams,
      " max_connections=", (*server)->max_connections(),
      " max_scenes=", options.service.scenes.max_scenes,
      " scene_max_history_ticks=", options.service.scenes.max_history_ticks,
      " scene_history_bytes=", options.service.scenes.history_bytes,
      " scene_memory_bytes=", options.service.scenes.scene_memory_bytes,
      " scenes_memory_bytes=", options.service.scenes.memory_bytes,
      " scene_max_entities=", options.service.scenes.max_entities,
      " open_files=", open_files, " reflection=", (*server)->reflection(),
      " tls=",
      options.tls.cert_chain_file.empty()
          ? "off"
          : (options.tls.client_ca_file.empty() ? "on" : "mutual"),
      " auth=", options.token_file.empty() ? "off" : "bearer tokens",
      " simd_target=", collision::SimdTargetName()));
  const std::string port_file = absl::GetFlag(FLAGS_port_file);
  if (!port_file.empty() && !WritePortFile(port_file, (*server)->port())) {
    Log(absl::StrCat("cannot write --port_file ", port_file),
        collision::server::LogLevel::kError);
    return 1;
  }

  std::thread stopper([&server, &stop_signals] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    const absl::Duration grace = absl::GetFlag(FLAGS_drain_grace);
    Log(absl::StrCat("signal ", signal, ": health NOT_SERVING, draining for ",
                     absl::FormatDuration(grace)));
    (*server)->Drain(grace, absl::GetFlag(FLAGS_shutdown_deadline));
  });
  (*server)->Wait();
  if ((*server)->failed()) {
    // The stopper thread still waits for a signal: leave without it.
    Log("stopped: the server failed (see above); exit status 1 for a "
        "restart",
        collision::server::LogLevel::kError);
    std::fflush(stderr);
    std::_Exit(1);
  }
  stopper.join();
  Log("stopped");
  return 0;
}
