// The real collision_load binary, bounded runs on 127.0.0.1: against the real
// server (counts add up, JSON and CSV parse back, the HTML renders in
// headless Chromium), against test doubles (--verify catches wrong answers,
// UNAVAILABLE with pushback slows it down), and --baseline.
#include "tests/tools/load_tool_testing.h"

namespace collision {
namespace {

using namespace load_testing;  // NOLINT: the shared test helpers

TEST(LoadTool, CountsAddUpAgainstTheRealServerAndJsonCsvParseBack) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string d = Dir();
  ASSERT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --rpc=", kAllOps, " --kinds=", kAllKinds,
                                 " --batch=16 --concurrency=4 --requests=300",
                                 " --warmup=0s --verify=1 --format=json",
                                 " --csv_out=", d, "/real.csv"),
                    "real"),
            0)
      << ReadAll(d + "/real.err");
  json j = json::parse(ReadAll(d + "/real.out"));
  EXPECT_EQ(j["requests"].get<int64_t>(), 300);
  EXPECT_EQ(j["ok"].get<int64_t>() + j["errors"].get<int64_t>(), 300);
  EXPECT_EQ(j["errors"].get<int64_t>(), 0) << j["first_error"].dump();
  EXPECT_EQ(j["pair_tests"].get<int64_t>(), j["ok"].get<int64_t>() * 16);
  int64_t by_code = 0;
  for (const auto& [code, n] : j["status_counts"].items())
    by_code += n.get<int64_t>();
  EXPECT_EQ(by_code, 300);
  EXPECT_EQ(j["verify"]["pairs"].get<int64_t>(), 300 * 16);
  EXPECT_EQ(j["verify"]["mismatches"].get<int64_t>(), 0);
  const json& l = j["latency_us"];
  EXPECT_LE(l["min"].get<double>(), l["p50"].get<double>());
  EXPECT_LE(l["p50"].get<double>(), l["p75"].get<double>());
  EXPECT_LE(l["p75"].get<double>(), l["p90"].get<double>());
  EXPECT_LE(l["p90"].get<double>(), l["p95"].get<double>());
  EXPECT_LE(l["p95"].get<double>(), l["p99"].get<double>());
  EXPECT_THAT(j["tool"].get<std::string>(), HasSubstr("collision_load "));
  EXPECT_THAT(j["started_at"].get<std::string>(),
              ::testing::MatchesRegex("[0-9-]+T[0-9:]+\\+00:00"));
  EXPECT_LE(l["p99"].get<double>(), l["p99_9"].get<double>());
  EXPECT_LE(l["p99_9"].get<double>(), l["max"].get<double>());
  int64_t series = 0;
  for (const json& i : j["series"]) series += i["requests"].get<int64_t>();
  EXPECT_EQ(series, 300);
  // A mixed run is broken down by RPC and wire form, adding up.
  ASSERT_EQ(j["by_rpc"].size(), 6u) << j["by_rpc"].dump();
  int64_t by_rpc = 0, by_rpc_pairs = 0;
  for (const auto& [name, op] : j["by_rpc"].items()) {
    by_rpc += op["requests"].get<int64_t>();
    by_rpc_pairs += op["pair_tests"].get<int64_t>();
  }
  EXPECT_EQ(by_rpc, 300);
  EXPECT_EQ(by_rpc_pairs, j["pair_tests"].get<int64_t>());
  EXPECT_THAT(ReadAll(d + "/real.err"), ::testing::IsEmpty());

  std::vector<std::string> lines =
      absl::StrSplit(ReadAll(d + "/real.csv"), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u);
  std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  std::vector<std::string> row = absl::StrSplit(lines[1], ',');
  ASSERT_EQ(header.size(), row.size());
  std::map<std::string, std::string> csv;
  for (std::size_t i = 0; i < header.size(); ++i) csv[header[i]] = row[i];
  EXPECT_EQ(csv["requests"], "300");
  EXPECT_EQ(std::stoll(csv["pair_tests"]), j["pair_tests"].get<int64_t>());
  EXPECT_EQ(csv["batch"], "16");
}

// Scenes ticking with lag-compensated raycasts: every tick answered, none
// rejected (a rewound moment in the future would be), on a real server.
TEST(LoadTool, SceneTicksWithRewoundRaycastsAllSucceed) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string d = Dir();
  ASSERT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --rpc=scene --scene_entities=500",
                                 " --tick_rate=40 --scene_rays=32",
                                 " --scene_sweeps=8 --scene_overlaps=4",
                                 " --scene_rewind_min=50ms",
                                 " --scene_rewind_max=150ms --concurrency=2",
                                 " --duration=1s --warmup=0s --format=json"),
                    "scene_rewind"),
            0)
      << ReadAll(d + "/scene_rewind.err");
  json j = json::parse(ReadAll(d + "/scene_rewind.out"));
  EXPECT_GT(j["requests"].get<int64_t>(), 0);
  EXPECT_EQ(j["errors"].get<int64_t>(), 0) << j["first_error"].dump();
  EXPECT_EQ(j["pair_tests"].get<int64_t>(), j["ok"].get<int64_t>() * 44);
}

TEST(LoadTool, OpenLoopPoissonRunCountsAddUp) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  ASSERT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --rpc=intersect_columns --batch=8",
                                 " --rate=400 --poisson --requests=100",
                                 " --concurrency=4 --warmup=0s --format=json"),
                    "open"),
            0)
      << ReadAll(Dir() + "/open.err");
  json j = json::parse(ReadAll(Dir() + "/open.out"));
  EXPECT_EQ(j["requests"].get<int64_t>(), 100);
  EXPECT_EQ(j["ok"].get<int64_t>(), 100);
  EXPECT_EQ(j["pair_tests"].get<int64_t>(), 800);
  EXPECT_EQ(j["config"]["rate"].get<double>(), 400);
}

// Answers Intersect with every hit flipped.
class WrongService : public v1::CollisionService::CallbackService {
  grpc::ServerUnaryReactor* Intersect(
      grpc::CallbackServerContext* context, const v1::IntersectRequest* request,
      v1::IntersectResponse* response) override {
    const Boundary b = request->boundary() == v1::BOUNDARY_RULE_EXCLUSIVE
                           ? Boundary::kExclusive
                           : Boundary::kInclusive;
    for (const v1::ShapePair& p : request->pairs()) {
      const bool hit = collision::Intersect(load::ToCoreShape(p.a()),
                                            load::ToCoreShape(p.b()), b)
                           .hit;
      response->add_results()->set_hit(!hit);
    }
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
};

TEST(LoadTool, VerifyCatchesAServerThatAnswersWrong) {
  WrongService wrong;
  testing::TestServer server(&wrong);
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(RunTool(absl::StrCat("--target=", server.address(),
                                 " --rpc=intersect_pairs --batch=10",
                                 " --requests=40 --concurrency=2 --warmup=0s",
                                 " --verify=0.5 --format=json"),
                    "wrong"),
            2);
  json j = json::parse(ReadAll(Dir() + "/wrong.out"));
  EXPECT_EQ(j["verify"]["responses"].get<int64_t>(), 20);
  EXPECT_EQ(j["verify"]["mismatches"].get<int64_t>(), 200);  // every pair
  EXPECT_THAT(ReadAll(Dir() + "/wrong.err"), HasSubstr("mismatch"));
}

// Failed calls are failures, not results: by default any fails the run
// (exit 4, with the codes), and --max_error_rate sets how many may.
TEST(LoadTool, FailedCallsFailTheRunUnlessAllowed) {
  BusyService busy;
  testing::TestServer server(&busy);
  ASSERT_TRUE(server.ok());
  const std::string args = absl::StrCat(
      "--target=", server.address(),
      " --batch=1 --requests=5 --warmup=0s --concurrency=1", " --retries=1");
  EXPECT_EQ(RunTool(args, "all_failed"), 4);
  EXPECT_THAT(ReadAll(Dir() + "/all_failed.err"),
              HasSubstr("5 of 5 calls failed (100.00%), above "
                        "--max_error_rate=0; UNAVAILABLE:5"));
  EXPECT_EQ(RunTool(args + " --max_error_rate=0.5", "half"), 4);
  EXPECT_EQ(RunTool(args + " --max_error_rate=1", "allowed"), 0);
  EXPECT_EQ(RunTool(args + " --max_error_rate=2", "bad_flag"), 1);
  // Nobody listening at all: every call fails, and the run says so.
  EXPECT_EQ(RunTool("--target=127.0.0.1:1 --requests=2 --warmup=0s"
                    " --concurrency=1 --retries=1 --deadline=2s",
                    "unreachable"),
            4);
}

// Slower than the rate asks: one slot and a server taking 100 ms a call
// cannot send 200 calls a second. The run still ends on time, says how many
// due calls were never sent and why, and exits 5 unless allowed.

TEST(LoadTool, AnOpenLoopRateNotReachedIsSaidAndFailsTheRun) {
  SlowService slow;
  testing::TestServer server(&slow);
  ASSERT_TRUE(server.ok());
  const std::string args = absl::StrCat(
      "--target=", server.address(),
      " --batch=1 --rate=200 --duration=1s --warmup=0s --concurrency=1",
      " --format=json");
  EXPECT_EQ(RunTool(args, "behind"), 5) << ReadAll(Dir() + "/behind.err");
  EXPECT_THAT(ReadAll(Dir() + "/behind.err"),
              HasSubstr("the rate was not reached"));
  json j = json::parse(ReadAll(Dir() + "/behind.out"));
  // It stopped at its duration instead of sending every due call late
  // (200 calls at 100 ms each would have taken 20 s).
  EXPECT_LT(j["requests"].get<int64_t>(), 200);
  EXPECT_EQ(j["open_loop"]["due"].get<int64_t>(), 200);
  EXPECT_EQ(j["open_loop"]["unsent"].get<int64_t>(),
            200 - j["requests"].get<int64_t>());
  EXPECT_EQ(RunTool(args + " --max_rate_shortfall=1", "allowed_behind"), 0);
}

TEST(LoadTool, BacksOffOnUnavailableInsteadOfHammering) {
  BusyService busy;
  testing::TestServer server(&busy);
  ASSERT_TRUE(server.ok());
  ASSERT_EQ(RunTool(absl::StrCat("--target=", server.address(),
                                 " --batch=1 --duration=1s --warmup=0s",
                                 " --concurrency=2 --retries=1 --format=json",
                                 " --max_error_rate=1"),
                    "busy"),
            0)
      << ReadAll(Dir() + "/busy.err");
  json j = json::parse(ReadAll(Dir() + "/busy.out"));
  const int64_t requests = j["requests"].get<int64_t>();
  EXPECT_EQ(j["status_counts"]["UNAVAILABLE"].get<int64_t>(), requests);
  EXPECT_EQ(j["backoffs"].get<int64_t>(), requests);
  // Two workers pausing 100 ms each: about 20 calls in 1 s, not thousands.
  EXPECT_GE(requests, 2);
  EXPECT_LE(requests, 30);
}

TEST(LoadTool, BaselineRegressionExitsNonZero) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string d = Dir();
  // A baseline no loopback run can reach, and one every run beats.
  std::ofstream(d + "/fast.json")
      << R"({"requests_per_second":1e12,"errors":0,)"
      << R"("latency_us":{"p50":0.001,"p99":0.001}})";
  std::ofstream(d + "/slow.json")
      << R"({"requests_per_second":0.001,"errors":0,)"
      << R"("latency_us":{"p50":1e12,"p99":1e12}})";
  const std::string args =
      absl::StrCat("--target=", server->address(), " --requests=50 --warmup=0s",
                   " --concurrency=2 --baseline=", d);
  EXPECT_EQ(RunTool(args + "/fast.json", "regress"), 3);
  EXPECT_THAT(ReadAll(d + "/regress.err"), HasSubstr("regression: throughput"));
  EXPECT_EQ(RunTool(args + "/slow.json", "improve"), 0)
      << ReadAll(d + "/improve.err");
  std::ofstream(d + "/junk.json") << "not json";
  EXPECT_EQ(RunTool(args + "/junk.json", "junk"), 1);
  // A baseline of another workload is refused, not compared.
  ASSERT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --requests=50 --warmup=0s --concurrency=2",
                                 " --json_out=", d, "/base.json"),
                    "base"),
            0)
      << ReadAll(d + "/base.err");
  EXPECT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --requests=50 --warmup=0s --concurrency=2",
                                 " --batch=16 --rpc=intersect_columns",
                                 " --baseline=", d, "/base.json"),
                    "other"),
            1);
  EXPECT_THAT(ReadAll(d + "/other.err"),
              HasSubstr("--baseline ran a different workload (rpc "
                        "intersect_columns vs intersect_pairs; batch 16 vs "
                        "100)"));
}

TEST(LoadTool, HtmlReportRendersInHeadlessChromium) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string d = Dir();
  ASSERT_EQ(RunTool(absl::StrCat("--target=", server->address(),
                                 " --duration=2s --warmup=0s --concurrency=4",
                                 " --html_out=", d, "/report.html"),
                    "html"),
            0)
      << ReadAll(d + "/html.err");
  const std::string html = ReadAll(d + "/report.html");
  ASSERT_THAT(html, HasSubstr("<!DOCTYPE html>"));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("<script")));
  EXPECT_THAT(html, ::testing::Not(HasSubstr("http://www.w3.org/1999")));
  // Three charts; the histogram has bars, the time charts have lines.
  std::vector<std::string> svgs = absl::StrSplit(html, "<svg ");
  ASSERT_EQ(svgs.size(), 4u);
  // Bars beyond the white backdrop.
  EXPECT_GT(std::vector<std::string>(absl::StrSplit(svgs[1], "<rect ")).size(),
            2u)
      << svgs[1];
  EXPECT_THAT(svgs[2], HasSubstr("<path d=\"M"));
  EXPECT_THAT(svgs[3], HasSubstr("<path d=\"M"));
  // p50, p90, p99 and p99.9 marked on the histogram.
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(svgs[1], "class=\"mark\""))
                    .size() -
                1,
            4u);
  EXPECT_THAT(svgs[1], HasSubstr(">p99.9 "));

  // Chromium is a test dependency (scripts/install-test-extras.sh): fail,
  // never skip, when it is missing.
  ASSERT_EQ(Shell("command -v chromium > /dev/null"), 0)
      << "chromium is not installed: run scripts/install-test-extras.sh";
  const std::string png = d + "/report.png";
  std::remove(png.c_str());
  const std::string cmd = absl::StrCat(
      "timeout 120 chromium --headless --no-sandbox --disable-gpu "
      "--disable-quic",
      " --no-first-run --disable-background-networking",
      " --disable-component-update --disable-sync --user-data-dir=$(mktemp -d)",
      " --screenshot=", png, " --window-size=1200,900 file://", d,
      "/report.html > ", d, "/chromium.log 2>&1");
  EXPECT_EQ(Shell(cmd), 0) << ReadAll(d + "/chromium.log");
  const std::string image = ReadAll(png);
  ASSERT_GT(image.size(), 20000u) << "screenshot missing or blank";
  EXPECT_EQ(image.substr(1, 3), "PNG");
}

}  // namespace
}  // namespace collision
