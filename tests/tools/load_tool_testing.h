// Shared by the collision_load tests: runs the real binary (bounded, on
// 127.0.0.1) with its output in the test's temp folder, a real server, and
// test doubles that fail or stall on purpose.
#ifndef COLLISION_TESTS_TOOLS_LOAD_TOOL_TESTING_H_
#define COLLISION_TESTS_TOOLS_LOAD_TOOL_TESTING_H_

#include <sys/wait.h>

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
#include "collision/core/scalar.h"
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

}  // namespace collision::load_testing

#endif  // COLLISION_TESTS_TOOLS_LOAD_TOOL_TESTING_H_
