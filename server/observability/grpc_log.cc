#include "server/observability/grpc_log.h"

#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "absl/time/clock.h"
#include "grpc/support/log.h"

namespace collision::server {
namespace {

struct Failures {
  std::mutex mu;
  std::condition_variable changed;
  uint64_t count = 0;
  std::string last_line;
};

Failures& State() {
  static Failures* state = new Failures;  // never destroyed: gRPC may log late
  return *state;
}

char SeverityLetter(gpr_log_severity severity) {
  switch (severity) {
    case GPR_LOG_SEVERITY_DEBUG:
      return 'D';
    case GPR_LOG_SEVERITY_INFO:
      return 'I';
    default:
      return 'E';
  }
}

// Called by gRPC, sometimes with its listener's mutex held: print, count,
// notify; nothing that could call back into gRPC.
void Sink(gpr_log_func_args* args) {
  const char* file = std::strrchr(args->file, '/');
  std::fprintf(
      stderr, "%s grpc %c %s:%d] %s\n",
      absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone())
          .c_str(),
      SeverityLetter(args->severity), file != nullptr ? file + 1 : args->file,
      args->line, args->message);
  if (std::strncmp(args->message, "Failed accept4", 14) == 0) {
    Failures& state = State();
    {
      std::lock_guard<std::mutex> lock(state.mu);
      ++state.count;
      state.last_line = args->message;
    }
    state.changed.notify_all();
  }
}

}  // namespace

void InstallGrpcLogSink() {
  static const bool installed = [] {
    State();
    gpr_set_log_function(Sink);
    return true;
  }();
  (void)installed;
}

uint64_t ListenerFailures() {
  Failures& state = State();
  std::lock_guard<std::mutex> lock(state.mu);
  return state.count;
}

bool WaitForListenerFailure(uint64_t seen, absl::Duration timeout,
                            std::string* line) {
  Failures& state = State();
  std::unique_lock<std::mutex> lock(state.mu);
  const bool failed =
      state.changed.wait_for(lock, absl::ToChronoMilliseconds(timeout),
                             [&] { return state.count > seen; });
  if (failed && line != nullptr) *line = state.last_line;
  return failed;
}

}  // namespace collision::server
