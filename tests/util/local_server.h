// Test helper: an in-process CollisionServer on 127.0.0.1 port 0 without
// SO_REUSEPORT (so no other server can share the port); nullptr, with a
// test failure, when it cannot start.
#ifndef COLLISION_TESTS_UTIL_LOCAL_SERVER_H_
#define COLLISION_TESTS_UTIL_LOCAL_SERVER_H_

#include <memory>
#include <utility>

#include "gtest/gtest.h"
#include "server/server.h"

namespace collision::testing {

inline std::unique_ptr<server::CollisionServer> StartServer(
    server::ServerOptions options = {}) {
  options.address = "127.0.0.1:0";
  options.allow_reuseport = false;
  auto s = server::CollisionServer::Start(options);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

}  // namespace collision::testing

#endif  // COLLISION_TESTS_UTIL_LOCAL_SERVER_H_
