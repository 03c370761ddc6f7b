// Shared by the collision_load tests: runs the real binary (bounded, on
// 127.0.0.1) with its output in the test's temp folder, a real server, and
// test doubles that fail or stall on purpose.
#ifndef COLLISION_TESTS_TOOLS_LOAD_TOOL_TESTING_H_
#define COLLISION_TESTS_TOOLS_LOAD_TOOL_TESTING_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "collision/core/scalar.h"
#include "collision/v1/scene.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "server/server.h"
#include "tests/util/local_server.h"
#include "tests/util/test_server.h"
#include "tools/verify.h"

namespace collision::load_testing {

using nlohmann::json;
using ::testing::HasSubstr;

inline std::string Dir() { return ::testing::TempDir(); }

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs a command line; returns its exit status (-1 if it did not exit).
inline int Shell(const std::string& command) {
  const int s = std::system(command.c_str());
  return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
}

inline int RunTool(const std::string& args, const std::string& name) {
  return Shell(absl::StrCat(COLLISION_LOAD_BINARY, " --progress=off ", args,
                            " > ", Dir(), "/", name, ".out 2> ", Dir(), "/",
                            name, ".err"));
}

// As RunTool, but killed after `limit` (exit 124, as timeout(1) says): for
// runs whose failure mode is not ending.
inline int RunToolBounded(const std::string& args, const std::string& name,
                          int limit_s = 60) {
  return Shell(absl::StrCat("timeout ", limit_s, " ", COLLISION_LOAD_BINARY,
                            " --progress=off ", args, " > ", Dir(), "/", name,
                            ".out 2> ", Dir(), "/", name, ".err"));
}

// The tool in a child process, bounded by timeout(1), while the test acts
// on the server; Wait() returns its exit status (124: it did not end).
class BackgroundTool {
 public:
  BackgroundTool(const std::string& args, const std::string& name,
                 int limit_s = 60) {
    // Built before fork(): a child of a threaded process may only exec.
    const std::string command =
        absl::StrCat("exec timeout ", limit_s, " ", COLLISION_LOAD_BINARY,
                     " --progress=off ", args, " > ", Dir(), "/", name,
                     ".out 2> ", Dir(), "/", name, ".err");
    pid_ = fork();
    if (pid_ == 0) {
      execl("/bin/sh", "sh", "-c", command.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~BackgroundTool() {
    if (pid_ > 0) Wait();
  }
  bool started() const { return pid_ > 0; }
  int Wait() {
    int status = 0;
    if (pid_ <= 0 || waitpid(pid_, &status, 0) != pid_) return -1;
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  pid_t pid_ = -1;
};

// A TCP port on 127.0.0.1 that is bound and not listening, held for the
// test's life: connecting to it is refused (a server that is down), and no
// other process can take it meanwhile.
class ClosedPort {
 public:
  ClosedPort() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof(a);
    if (fd_ >= 0 && bind(fd_, reinterpret_cast<sockaddr*>(&a), n) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n) == 0) {
      port_ = ntohs(a.sin_port);
    }
  }
  ~ClosedPort() {
    if (fd_ >= 0) close(fd_);
  }
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  bool ok() const { return port_ > 0; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

using testing::StartServer;

constexpr char kAllOps[] =
    "intersect_pairs,intersect_columns,intersect_stream,closest_pairs,"
    "closest_columns,closest_stream";
constexpr char kAllKinds[] =
    "circle_circle,circle_rect,circle_rotated_rect,rect_rect,sphere_sphere,"
    "sphere_box,box_box";

// Always UNAVAILABLE with a 100 ms pushback.
class BusyService : public v1::CollisionService::CallbackService {
  grpc::ServerUnaryReactor* Intersect(grpc::CallbackServerContext* context,
                                      const v1::IntersectRequest*,
                                      v1::IntersectResponse*) override {
    context->AddTrailingMetadata("grpc-retry-pushback-ms", "100");
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "overloaded"));
    return reactor;
  }
};

// Takes 100 ms per call.
class SlowService : public v1::CollisionService::CallbackService {
  grpc::ServerUnaryReactor* Intersect(grpc::CallbackServerContext* context,
                                      const v1::IntersectRequest*,
                                      v1::IntersectResponse*) override {
    auto* reactor = context->DefaultReactor();
    std::thread([reactor] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));  // work
      reactor->Finish(grpc::Status::OK);
    }).detach();
    return reactor;
  }
};

// A SceneService double: answers every message (its sequence, nothing
// computed) after `delay`; from message `stall_from` on (counted over all
// streams, from 1; 0: never) answers nothing until the stream is
// cancelled, as a hung server would.
class FakeScenes : public v1::SceneService::Service {
 public:
  FakeScenes(absl::Duration delay, int stall_from)
      : delay_(delay), stall_from_(stall_from) {}
  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::SceneResponse, v1::SceneRequest>* stream)
      override {
    v1::SceneRequest request;
    while (stream->Read(&request)) {
      if (stall_from_ > 0 && ++messages_ >= stall_from_) {
        while (!context->IsCancelled()) absl::SleepFor(absl::Milliseconds(10));
        return grpc::Status(grpc::StatusCode::CANCELLED, "stalled");
      }
      absl::SleepFor(delay_);  // the work
      v1::SceneResponse response;
      response.set_sequence(request.sequence());
      if (!stream->Write(response)) break;
    }
    return grpc::Status::OK;
  }

 private:
  const absl::Duration delay_;
  const int stall_from_;
  std::atomic<int> messages_{0};
};

}  // namespace collision::load_testing

#endif  // COLLISION_TESTS_TOOLS_LOAD_TOOL_TESTING_H_
