// collision_load's engines (grpc, grpc_typed, http2) against the real
// server and test doubles, and the workload options users bring: call
// metadata, load schedules, a request written in proto JSON.
#include "tests/tools/load_tool_testing.h"

namespace collision {
namespace {

using namespace load_testing;  // NOLINT: the shared test helpers

// Every engine makes the same calls: all answered, every answer checked
// against the scalar reference, counts adding up; the engine is reported.
TEST(LoadTool, EveryEngineCountsAndVerifiesAgainstTheRealServer) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  for (const std::string engine : {"grpc", "grpc_typed", "http2"}) {
    SCOPED_TRACE(engine);
    const std::string name = "engine_" + engine;
    ASSERT_EQ(RunTool(absl::StrCat(
                          "--target=", server->address(), " --engine=", engine,
                          " --rpc=intersect_pairs,intersect_columns,"
                          "closest_pairs,closest_columns",
                          " --kinds=", kAllKinds, " --batch=16 --concurrency=8",
                          " --connections=3 --requests=400",
                          " --warmup=0s --verify=1 --format=json"),
                      name),
              0)
        << ReadAll(Dir() + "/" + name + ".err");
    json j = json::parse(ReadAll(Dir() + "/" + name + ".out"));
    EXPECT_EQ(j["config"]["engine"].get<std::string>(), engine);
    EXPECT_EQ(j["requests"].get<int64_t>(), 400);
    EXPECT_EQ(j["ok"].get<int64_t>(), 400) << j["first_error"].dump();
    EXPECT_EQ(j["pair_tests"].get<int64_t>(), 400 * 16);
    EXPECT_EQ(j["verify"]["pairs"].get<int64_t>(), 400 * 16);
    EXPECT_EQ(j["verify"]["mismatches"].get<int64_t>(), 0);
  }
}

// The tool's own HTTP/2 client keeps what gRPC would: the token, the
// deadline, grpc-status and the pushback; it says what it cannot do.
TEST(LoadTool, Http2EngineCarriesTokenDeadlineStatusAndPushback) {
  const std::string token_file = Dir() + "/h2_token";
  std::ofstream(token_file) << "h2-secret\n";
  server::ServerOptions options;
  options.address = "127.0.0.1:0";
  options.allow_reuseport = false;
  options.token_file = token_file;
  auto secured = server::CollisionServer::Start(options);
  ASSERT_TRUE(secured.ok()) << secured.status();
  const std::string base = absl::StrCat(
      "--engine=http2 --target=", (*secured)->address(),
      " --batch=4 --requests=50 --concurrency=2 --warmup=0s --verify=1");
  EXPECT_EQ(RunTool(base + " --token_file=" + token_file, "h2_token"), 0)
      << ReadAll(Dir() + "/h2_token.err");
  EXPECT_EQ(RunTool(base, "h2_no_token"), 4);
  EXPECT_THAT(ReadAll(Dir() + "/h2_no_token.err"),
              HasSubstr("UNAUTHENTICATED:50"));

  SlowService slow;  // 100 ms a call
  testing::TestServer slow_server(&slow);
  ASSERT_TRUE(slow_server.ok());
  EXPECT_EQ(
      RunTool(absl::StrCat("--engine=http2 --target=", slow_server.address(),
                           " --batch=1 --requests=4 --concurrency=2",
                           " --warmup=0s --deadline=20ms"),
              "h2_deadline"),
      4);
  EXPECT_THAT(ReadAll(Dir() + "/h2_deadline.err"),
              HasSubstr("DEADLINE_EXCEEDED:4"));

  BusyService busy;  // UNAVAILABLE with a 100 ms pushback
  testing::TestServer busy_server(&busy);
  ASSERT_TRUE(busy_server.ok());
  ASSERT_EQ(
      RunTool(
          absl::StrCat("--engine=http2 --target=", busy_server.address(),
                       " --batch=1 --duration=1s --warmup=0s",
                       " --concurrency=2 --format=json", " --max_error_rate=1"),
          "h2_busy"),
      0)
      << ReadAll(Dir() + "/h2_busy.err");
  json j = json::parse(ReadAll(Dir() + "/h2_busy.out"));
  const int64_t requests = j["requests"].get<int64_t>();
  EXPECT_EQ(j["status_counts"]["UNAVAILABLE"].get<int64_t>(), requests);
  EXPECT_EQ(j["backoffs"].get<int64_t>(), requests);
  EXPECT_LE(requests, 30);  // one thread pausing 100 ms after each

  EXPECT_EQ(RunTool("--engine=http2 --tls --target=127.0.0.1:1", "h2_tls"), 1);
  EXPECT_THAT(ReadAll(Dir() + "/h2_tls.err"), HasSubstr("plaintext only"));
  EXPECT_EQ(RunTool("--engine=http2 --target=127.0.0.1:1"
                    " --rpc=intersect_stream",
                    "h2_stream"),
            1);
  EXPECT_THAT(ReadAll(Dir() + "/h2_stream.err"), HasSubstr("unary calls only"));
  EXPECT_EQ(RunTool("--engine=http2 --target=127.0.0.1:1 --requests=2"
                    " --warmup=0s --concurrency=1",
                    "h2_refused"),
            4);
  EXPECT_THAT(ReadAll(Dir() + "/h2_refused.out"),
              HasSubstr("cannot connect to 127.0.0.1:1"));
}

// A server that ages its connections out (GOAWAY every ~200 ms) costs the
// HTTP/2 engine no call: it lets each old connection finish its streams
// and opens a new one, as gRPC does.
TEST(LoadTool, Http2EngineRidesThroughConnectionAgeing) {
  server::ServerOptions options;
  options.max_connection_age = absl::Milliseconds(200);
  options.max_connection_age_grace = absl::Milliseconds(500);
  auto s = StartServer(options);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(RunTool(absl::StrCat("--engine=http2 --target=", s->address(),
                                 " --batch=8 --duration=2s --warmup=0s",
                                 " --concurrency=4 --connections=2",
                                 " --format=json"),
                    "h2_ageing"),
            0)
      << ReadAll(Dir() + "/h2_ageing.err");
  json j = json::parse(ReadAll(Dir() + "/h2_ageing.out"));
  EXPECT_GT(j["ok"].get<int64_t>(), 0);
  EXPECT_EQ(j["errors"].get<int64_t>(), 0) << j["first_error"].dump();
}

// Answers Intersect only when the call carries x-tenant: blue.
class TenantService : public v1::CollisionService::CallbackService {
  grpc::ServerUnaryReactor* Intersect(grpc::CallbackServerContext* context,
                                      const v1::IntersectRequest*,
                                      v1::IntersectResponse*) override {
    auto* reactor = context->DefaultReactor();
    const auto& md = context->client_metadata();
    auto it = md.find("x-tenant");
    reactor->Finish(
        it != md.end() && it->second == "blue"
            ? grpc::Status::OK
            : grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "no tenant"));
    return reactor;
  }
};

// --metadata goes out on every call of every engine, and bad keys are
// refused before any call.
TEST(LoadTool, MetadataIsSentByEveryEngine) {
  TenantService tenant;
  testing::TestServer server(&tenant);
  ASSERT_TRUE(server.ok());
  const std::string base =
      absl::StrCat("--target=", server.address(),
                   " --batch=2 --requests=20 --concurrency=2 --warmup=0s");
  for (const std::string engine : {"grpc", "grpc_typed", "http2"}) {
    SCOPED_TRACE(engine);
    EXPECT_EQ(RunTool(base + " --engine=" + engine +
                          " --metadata=x-trace:1,x-tenant:blue",
                      "tenant_" + engine),
              0)
        << ReadAll(Dir() + "/tenant_" + engine + ".err");
    EXPECT_EQ(RunTool(base + " --engine=" + engine, "no_tenant_" + engine), 4);
  }
  EXPECT_EQ(RunTool(base + " --metadata=X-Tenant:blue", "bad_key"), 1);
  EXPECT_THAT(ReadAll(Dir() + "/bad_key.err"), HasSubstr("metadata key"));
}

// A step schedule: 100 req/s, +100 every 500 ms for 2 s = 50 + 100 + 150 +
// 200 calls due, recorded as such.
TEST(LoadTool, StepScheduleRaisesTheRate) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --batch=4 --rate=100 --load_schedule=step",
                                 " --load_step=100 --load_step_every=500ms",
                                 " --duration=2s --warmup=0s --concurrency=16",
                                 " --max_rate_shortfall=1 --format=json"),
                    "step"),
            0)
      << ReadAll(Dir() + "/step.err");
  json j = json::parse(ReadAll(Dir() + "/step.out"));
  EXPECT_NEAR(j["open_loop"]["due"].get<double>(), 500, 2);
  EXPECT_THAT(j["config"]["schedule"].get<std::string>(),
              HasSubstr("step +100 req/s every 500ms"));
  EXPECT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --load_schedule=step --load_step=10"),
                    "step_closed"),
            1);
  EXPECT_THAT(ReadAll(Dir() + "/step_closed.err"), HasSubstr("open loop"));
}

// The user's own request, in proto JSON, sent as is and verified.
TEST(LoadTool, SendsARequestWrittenInProtoJson) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string file = Dir() + "/request.json";
  std::ofstream(file) << R"({"boundary": "BOUNDARY_RULE_INCLUSIVE", "pairs": [
      {"a": {"circle": {"center": {"x": 0, "y": 0}, "radius": 1}},
       "b": {"rect": {"min": {"x": 1, "y": -1}, "max": {"x": 3, "y": 1}}}},
      {"a": {"point": {"x": 5, "y": 5}},
       "b": {"circle": {"center": {"x": 0, "y": 0}, "radius": 2}}},
      {"a": {"sphere": {"center": {"x": 0, "y": 0, "z": 0}, "radius": 1}},
       "b": {"box": {"min": {"x": 0.5, "y": 0, "z": 0},
                     "max": {"x": 2, "y": 1, "z": 1}}}}]})";
  for (const std::string engine : {"grpc", "http2"}) {
    SCOPED_TRACE(engine);
    ASSERT_EQ(
        RunTool(absl::StrCat(
                    "--target=", server->address(), " --engine=", engine,
                    " --request_file=", file, " --rpc=intersect_pairs",
                    " --requests=20 --warmup=0s --verify=1", " --format=json"),
                "json_request"),
        0)
        << ReadAll(Dir() + "/json_request.err");
    json j = json::parse(ReadAll(Dir() + "/json_request.out"));
    EXPECT_EQ(j["ok"].get<int64_t>(), 20);
    EXPECT_EQ(j["config"]["batch"].get<int64_t>(), 3);
    EXPECT_EQ(j["verify"]["pairs"].get<int64_t>(), 60);
    EXPECT_EQ(j["verify"]["mismatches"].get<int64_t>(), 0);
  }
  std::ofstream(Dir() + "/bad.json") << R"({"pairs": [{"a": {"cirlce": {}}}]})";
  EXPECT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --request_file=", Dir(), "/bad.json"),
                    "bad_json"),
            1);
  EXPECT_THAT(ReadAll(Dir() + "/bad_json.err"),
              HasSubstr("not a IntersectRequest in proto JSON"));
  EXPECT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --request_file=", file,
                                 " --rpc=intersect_columns"),
                    "json_columns"),
            1);
  EXPECT_THAT(ReadAll(Dir() + "/json_columns.err"),
              HasSubstr("intersect_pairs or closest_pairs"));
}

}  // namespace
}  // namespace collision
