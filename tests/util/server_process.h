// Test helper: a real collision_server binary in a child process, started
// as an operator would (127.0.0.1 port 0, --port_file), waited for on its
// port file (bounded), with its log, its memory (from /proc) and its exit.
#ifndef COLLISION_TESTS_UTIL_SERVER_PROCESS_H_
#define COLLISION_TESTS_UTIL_SERVER_PROCESS_H_

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "tests/util/http_get.h"

namespace collision::testing {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ServerProcess {
 public:
  // `binary` is collision_server; its port file and log go to `dir`,
  // named after `name`.
  ServerProcess(std::string binary, const std::string& dir,
                const std::string& name)
      : binary_(std::move(binary)),
        port_file_(absl::StrCat(dir, "/", name, ".port")),
        log_file_(absl::StrCat(dir, "/", name, ".log")) {}
  ~ServerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Starts the server with `flags` beside --address and --port_file. A
  // non-zero `open_files` sets the child's RLIMIT_NOFILE (soft and hard).
  void Start(const std::vector<std::string>& flags, rlim_t open_files = 0) {
    std::vector<std::string> args = {binary_, "--address=127.0.0.1:0",
                                     absl::StrCat("--port_file=", port_file_)};
    args.insert(args.end(), flags.begin(), flags.end());
    // Everything the child needs is prepared before fork(): between fork and
    // exec a child of a threaded process may only make async-signal-safe
    // calls (no malloc).
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const rlimit limit{open_files, open_files};
    const int log_fd =
        open(log_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(log_fd, 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(log_fd, STDERR_FILENO);  // dup2 clears O_CLOEXEC on the copy
      if (open_files != 0) setrlimit(RLIMIT_NOFILE, &limit);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(log_fd);
    ASSERT_GT(pid_, 0);
  }

  // Polls (bounded) for the port file the server writes once it is bound
  // and serving; with `metrics`, also reads the metrics port from its start
  // log line.
  void WaitForPorts(bool metrics = false) {
    const absl::Time deadline = absl::Now() + absl::Seconds(15);
    while (ReadFile(port_file_).empty()) {
      int status = 0;
      ASSERT_EQ(waitpid(pid_, &status, WNOHANG), 0)
          << "server exited early: " << log();
      ASSERT_LT(absl::Now(), deadline) << "no port file";
      absl::SleepFor(absl::Milliseconds(20));
    }
    port_ = std::atoi(ReadFile(port_file_).c_str());
    ASSERT_GT(port_, 0);
    if (!metrics) return;
    const std::string text = log();
    const std::size_t at = text.find("metrics=127.0.0.1:");
    ASSERT_NE(at, std::string::npos) << text;
    metrics_port_ = std::atoi(text.c_str() + at + 18);
    ASSERT_GT(metrics_port_, 0);
  }

  // Calls this server has answered OK so far, from its /metrics.
  int64_t HandledOk() const {
    auto body = HttpGet(metrics_port_, "/metrics");
    EXPECT_TRUE(body.ok()) << body.status();
    if (!body.ok()) return -1;
    double sum = 0;
    for (const auto& [name, value] : ParseSamples(*body)) {
      if (absl::StartsWith(name, "grpc_server_handled_total{") &&
          absl::StrContains(name, "grpc_code=\"OK\"")) {
        sum += value;
      }
    }
    return static_cast<int64_t>(sum);
  }

  // The value of an unlabelled metric (e.g. "collision_scenes_open"), or
  // -1 when the server does not answer.
  double Metric(const std::string& name) const {
    auto body = HttpGet(metrics_port_, "/metrics");
    if (!body.ok()) return -1;
    for (const auto& [sample, value] : ParseSamples(*body)) {
      if (sample == name) return value;
    }
    return -1;
  }

  void Signal(int signal) const { kill(pid_, signal); }

  // Waits (bounded) for the process to exit; its exit code (128 + signal
  // when killed), or -1 when it is still running.
  int WaitExit(absl::Duration timeout) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      int status = 0;
      struct rusage usage {};
      if (wait4(pid_, &status, WNOHANG, &usage) == pid_) {
        pid_ = -1;
        // The kernel's own high-water mark for the whole life of the
        // process: sampling /proc from outside misses a peak that comes
        // just before a fast exit (the memory guard exits within ~10 ms).
        exit_peak_rss_bytes_ = static_cast<int64_t>(usage.ru_maxrss) * 1024;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    return -1;
  }

  // Resident memory now and at its peak (VmRSS, VmHWM), in bytes; -1 when
  // the process is gone.
  int64_t RssBytes() const { return StatusKilobytes("VmRSS:") * 1024; }
  int64_t PeakRssBytes() const { return StatusKilobytes("VmHWM:") * 1024; }
  // After WaitExit returned an exit code: the process's peak resident
  // memory over its whole life (ru_maxrss), in bytes; -1 before.
  int64_t ExitPeakRssBytes() const { return exit_peak_rss_bytes_; }

  int port() const { return port_; }
  int metrics_port() const { return metrics_port_; }
  pid_t pid() const { return pid_; }
  std::string target() const { return absl::StrCat("127.0.0.1:", port_); }
  std::string log() const { return ReadFile(log_file_); }

 private:
  int64_t StatusKilobytes(absl::string_view field) const {
    if (pid_ <= 0) return -1;
    const std::string status =
        ReadFile(absl::StrCat("/proc/", pid_, "/status"));
    const std::size_t at = status.find(field.data(), 0, field.size());
    if (at == std::string::npos) return -1;
    int64_t kb = -1;
    const std::size_t end = status.find(" kB", at);
    std::string number(
        status.substr(at + field.size(), end - at - field.size()));
    number.erase(0, number.find_first_not_of(" \t"));
    return absl::SimpleAtoi(number, &kb) ? kb : -1;
  }

  std::string binary_;
  std::string port_file_;
  std::string log_file_;
  pid_t pid_ = -1;
  int64_t exit_peak_rss_bytes_ = -1;
  int port_ = 0;
  int metrics_port_ = 0;
};

}  // namespace collision::testing

#endif  // COLLISION_TESTS_UTIL_SERVER_PROCESS_H_
