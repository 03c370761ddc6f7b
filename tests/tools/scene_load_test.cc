// collision_load --rpc=scene, the real binary: it ends on time and says so
// when the server cannot keep up (exit 5), carries the scene's parameters
// in every report, fails the run (exit 4) when the server is down, goes
// away mid-run, hangs or rejects ticks, and refuses a baseline of another
// scene before running. Servers: the real one (in-process or as a child
// process) and test doubles that are slow or hang on purpose.
#include <signal.h>

#include <cstdio>

#include "tests/tools/load_tool_testing.h"
#include "tests/util/server_process.h"

namespace collision {
namespace {

using namespace load_testing;  // NOLINT: the shared test helpers

// A small scene, cheap for a shared machine: 1 raycast per tick.
constexpr char kSmallScene[] =
    " --rpc=scene --scene_entities=10 --scene_rays=1 --scene_sweeps=0"
    " --scene_overlaps=0 --warmup=0s";

// One scene at 64 ticks/s against a server taking 100 ms a message: at
// most ~20 ticks of the 128 due in two seconds can be sent. The run stops at
// its duration instead of sending the other ticks late (what it did: a 3 s
// run took 10 s and reported "in 3.00s"), reports what was due and sent
// and the time it really measured, and exits 5.
TEST(SceneLoad, ATickRateTheServerCannotKeepUpWithIsReportedAndExitsFive) {
  FakeScenes slow(absl::Milliseconds(100), /*stall_from=*/0);
  testing::TestServer server(&slow);
  ASSERT_TRUE(server.ok());
  const std::string d = Dir();
  EXPECT_EQ(
      RunToolBounded(
          absl::StrCat("--target=", server.address(), kSmallScene,
                       " --concurrency=1 --tick_rate=64",
                       " --duration=2s --json_out=", d, "/behind_scene.json"),
          "behind_scene"),
      5)
      << ReadAll(d + "/behind_scene.err");
  EXPECT_THAT(ReadAll(d + "/behind_scene.err"),
              HasSubstr("the tick rate was not reached"));
  json j = json::parse(ReadAll(d + "/behind_scene.json"));
  const int64_t requests = j["requests"].get<int64_t>();
  EXPECT_GT(requests, 0);
  EXPECT_LT(requests, 128);
  EXPECT_EQ(j["open_loop"]["due"].get<int64_t>(), 128);
  EXPECT_EQ(j["open_loop"]["sent"].get<int64_t>(), requests);
  EXPECT_EQ(j["open_loop"]["unsent"].get<int64_t>(), 128 - requests);
  EXPECT_EQ(j["config"]["duration_s"].get<double>(), 2.0);
  // The measured time is the real one: each answered tick took the
  // server's 100 ms, one after the other.
  EXPECT_GE(j["seconds"].get<double>(), 0.1 * double(requests));
  EXPECT_NEAR(j["requests_per_second"].get<double>(),
              double(requests) / j["seconds"].get<double>(), 1e-6);
  const std::string text = ReadAll(d + "/behind_scene.out");
  EXPECT_THAT(text, HasSubstr(absl::StrCat("128 due, ", requests, " sent, ",
                                           128 - requests, " never sent")));
  EXPECT_THAT(text, HasSubstr("asked 2.00s, measured "));
}

// Every report form names the scene that was run.
TEST(SceneLoad, ReportsCarryTheSceneParameters) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string d = Dir();
  ASSERT_EQ(RunToolBounded(
                absl::StrCat("--target=", server->address(),
                             " --rpc=scene --scene_entities=300",
                             " --scene_moving=0.5 --tick_rate=40",
                             " --scene_rays=7 --scene_sweeps=3",
                             " --scene_overlaps=2 --scene_columns=false",
                             " --scene_rewind_min=20ms --scene_rewind_max=60ms",
                             " --scene_history_ticks=8 --concurrency=2",
                             " --requests=6 --warmup=0s --json_out=", d,
                             "/scene_params.json --csv_out=", d,
                             "/scene_params.csv --html_out=", d,
                             "/scene_params.html"),
                "scene_params"),
            0)
      << ReadAll(d + "/scene_params.err");
  json j = json::parse(ReadAll(d + "/scene_params.json"));
  EXPECT_EQ(j["requests"].get<int64_t>(), 6);  // over both scenes
  EXPECT_EQ(j["ok"].get<int64_t>(), 6) << j["first_error"].dump();
  const json& s = j["config"]["scene"];
  EXPECT_EQ(s["scenes"].get<int>(), 2);
  EXPECT_EQ(s["entities"].get<int>(), 300);
  EXPECT_EQ(s["moving"].get<double>(), 0.5);
  EXPECT_EQ(s["tick_rate"].get<double>(), 40);
  EXPECT_EQ(s["rays"].get<int>(), 7);
  EXPECT_EQ(s["sweeps"].get<int>(), 3);
  EXPECT_EQ(s["overlaps"].get<int>(), 2);
  EXPECT_EQ(s["columns"].get<bool>(), false);
  EXPECT_NEAR(s["rewind_min_s"].get<double>(), 0.02, 1e-9);
  EXPECT_NEAR(s["rewind_max_s"].get<double>(), 0.06, 1e-9);
  EXPECT_EQ(s["history_ticks"].get<int>(), 8);
  EXPECT_EQ(j["config"]["batch"].get<int>(), 12);  // queries per tick
  EXPECT_EQ(j["scenes"]["opened"].get<int>(), 2);

  const std::string text = ReadAll(d + "/scene_params.out");
  EXPECT_THAT(text, HasSubstr("2 scenes x 300 entities (50% moved per tick) "
                              "at 40 ticks/s"));
  EXPECT_THAT(text, HasSubstr("7 raycasts rewound 20ms-60ms, 3 sweeps, "
                              "2 overlaps"));
  EXPECT_THAT(text, HasSubstr("upserts per entity, history 8 ticks"));

  std::vector<std::string> lines =
      absl::StrSplit(ReadAll(d + "/scene_params.csv"), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u);
  std::vector<std::string> header = absl::StrSplit(lines[0], ',');
  std::vector<std::string> row = absl::StrSplit(lines[1], ',');
  ASSERT_EQ(header.size(), row.size());
  std::map<std::string, std::string> csv;
  for (std::size_t i = 0; i < header.size(); ++i) csv[header[i]] = row[i];
  EXPECT_EQ(csv["scenes"], "2");
  EXPECT_EQ(csv["scene_entities"], "300");
  EXPECT_EQ(csv["scene_moving"], "0.5");
  EXPECT_EQ(csv["tick_rate"], "40");
  EXPECT_EQ(csv["scene_rays"], "7");
  EXPECT_EQ(csv["scene_sweeps"], "3");
  EXPECT_EQ(csv["scene_overlaps"], "2");
  EXPECT_EQ(csv["scene_columns"], "false");
  EXPECT_EQ(csv["scene_rewind_min_s"], "0.02");
  EXPECT_EQ(csv["scene_rewind_max_s"], "0.06");
  EXPECT_EQ(csv["scene_history_ticks"], "8");

  const std::string html = ReadAll(d + "/scene_params.html");
  EXPECT_THAT(html, HasSubstr("<th>scene</th><td>2 scenes x 300 entities"));
  EXPECT_THAT(html, HasSubstr("history 8 ticks"));
}

// Nobody listening: no scene opens, the run fails with the reason (it
// exited 1, "bad flags or setup"). The session retries for ~4 s: the
// deadline leaves it room.
TEST(SceneLoad, AServerThatIsDownFailsTheRunWithExitFour) {
  ClosedPort down;
  ASSERT_TRUE(down.ok());
  const std::string d = Dir();
  EXPECT_EQ(RunToolBounded(
                absl::StrCat("--target=", down.address(), kSmallScene,
                             " --concurrency=2 --duration=1s --deadline=10s",
                             " --format=json"),
                "scene_down"),
            4)
      << ReadAll(d + "/scene_down.err");
  EXPECT_THAT(ReadAll(d + "/scene_down.err"),
              HasSubstr("2 of 2 scenes could not be opened: UNAVAILABLE"));
  json j = json::parse(ReadAll(d + "/scene_down.out"));
  EXPECT_EQ(j["scenes"]["opened"].get<int>(), 0);
  EXPECT_EQ(j["scenes"]["not_opened"].get<int>(), 2);
  EXPECT_THAT(j["scenes"]["first_open_error"].get<std::string>(),
              HasSubstr("UNAVAILABLE"));
  EXPECT_EQ(j["requests"].get<int64_t>(), 0);
}

// The real server SIGKILLed while scenes tick: the run still ends (it ran
// until a 60 s timeout killed it, having printed nothing), with a report
// that counts the ticks answered before and the ones that failed after,
// and exits 4.
TEST(SceneLoad, AServerThatGoesAwayMidRunEndsTheRunWithItsFailures) {
  std::remove((Dir() + "/gone.port").c_str());  // of an earlier run
  testing::ServerProcess server(COLLISION_SERVER_BINARY, Dir(), "gone");
  server.Start({"--metrics_address=127.0.0.1:0"});
  server.WaitForPorts(/*metrics=*/true);
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  BackgroundTool tool(
      absl::StrCat("--target=", server.target(),
                   " --rpc=scene --scene_entities=200 --scene_rays=8",
                   " --scene_sweeps=4 --scene_overlaps=2 --tick_rate=32",
                   " --concurrency=2 --duration=6s --warmup=0s --deadline=1s",
                   " --format=json"),
      "gone");
  ASSERT_TRUE(tool.started());
  // Three ticks answered over the two scenes (8 raycasts each): one scene
  // has had an answer (it sends a tick once the one before is answered).
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (server.Metric("collision_scene_queries_total{kind=\"raycast\"}") <
         3 * 8) {
    ASSERT_LT(absl::Now(), give_up) << "no scene ticked: " << server.log();
    absl::SleepFor(absl::Milliseconds(20));
  }
  server.Signal(SIGKILL);
  EXPECT_EQ(server.WaitExit(absl::Seconds(10)), 128 + SIGKILL);
  EXPECT_EQ(tool.Wait(), 4) << ReadAll(Dir() + "/gone.err");
  json j = json::parse(ReadAll(Dir() + "/gone.out"));
  EXPECT_GT(j["ok"].get<int64_t>(), 0);
  EXPECT_GT(j["errors"].get<int64_t>(), 0);
  int64_t failed = 0;
  for (const auto& [code, n] : j["status_counts"].items()) {
    EXPECT_THAT(code,
                ::testing::AnyOf("OK", "UNAVAILABLE", "DEADLINE_EXCEEDED"));
    if (code != "OK") failed += n.get<int64_t>();
  }
  EXPECT_EQ(failed, j["errors"].get<int64_t>());
  EXPECT_THAT(ReadAll(Dir() + "/gone.err"), HasSubstr("ticks failed"));
}

// A server that stops answering (as a stopped process would) holds no run
// past its duration and --deadline: the unanswered tick is a
// DEADLINE_EXCEEDED failure.
TEST(SceneLoad, AHungServerCannotHoldTheRunPastItsDeadline) {
  // The config and the first tick are answered, then nothing.
  FakeScenes hung(absl::ZeroDuration(), /*stall_from=*/3);
  testing::TestServer server(&hung);
  ASSERT_TRUE(server.ok());
  EXPECT_EQ(RunToolBounded(
                absl::StrCat("--target=", server.address(), kSmallScene,
                             " --concurrency=1 --tick_rate=20",
                             " --duration=2s --deadline=1s", " --format=json"),
                "hung"),
            4)
      << ReadAll(Dir() + "/hung.err");
  json j = json::parse(ReadAll(Dir() + "/hung.out"));
  EXPECT_EQ(j["ok"].get<int64_t>(), 1);
  EXPECT_GE(j["status_counts"]["DEADLINE_EXCEEDED"].get<int64_t>(), 1);
}

// A server with --max_batch=10 rejects a tick that moves 1000 entities
// (the tool aborted with exit 134 in the client library): every tick is a
// failure counted by its code, with the server's message.
TEST(SceneLoad, TicksTheServerRejectsAreCountedByTheirCode) {
  server::ServerOptions options;
  options.service.limits.max_batch = 10;
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(RunToolBounded(absl::StrCat("--target=", server->address(),
                                        " --rpc=scene --scene_entities=1000",
                                        " --scene_rays=1 --scene_sweeps=0",
                                        " --scene_overlaps=0 --tick_rate=20",
                                        " --concurrency=1 --requests=3",
                                        " --warmup=0s --format=json"),
                           "rejected"),
            4)
      << ReadAll(Dir() + "/rejected.err");
  json j = json::parse(ReadAll(Dir() + "/rejected.out"));
  EXPECT_EQ(j["requests"].get<int64_t>(), 3);
  EXPECT_EQ(j["errors"].get<int64_t>(), 3);
  EXPECT_EQ(j["status_counts"]["RESOURCE_EXHAUSTED"].get<int64_t>(), 3)
      << j["status_counts"].dump();
  EXPECT_THAT(j["first_error"]["RESOURCE_EXHAUSTED"].get<std::string>(),
              ::testing::Not(::testing::IsEmpty()));
  EXPECT_THAT(ReadAll(Dir() + "/rejected.err"),
              HasSubstr("3 of 3 ticks failed (100.00%), above "
                        "--max_error_rate=0; RESOURCE_EXHAUSTED:3"));
}

// A baseline of 200 entities is not compared with a run of 100: refused
// before anything is sent (here at a server that is down, which a run
// would have reported as exit 4), as is a scene baseline that does not
// record its scene. The same scene is compared.
TEST(SceneLoad, ABaselineOfAnotherSceneIsRefusedBeforeTheRun) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string d = Dir();
  const std::string scene =
      " --rpc=scene --scene_rays=4 --scene_sweeps=2 --scene_overlaps=1"
      " --tick_rate=50 --concurrency=1 --requests=4 --warmup=0s";
  ASSERT_EQ(RunToolBounded(absl::StrCat("--target=", server->address(), scene,
                                        " --scene_entities=200 --json_out=", d,
                                        "/scene_base.json"),
                           "scene_base"),
            0)
      << ReadAll(d + "/scene_base.err");
  ClosedPort down;
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(RunToolBounded(absl::StrCat("--target=", down.address(), scene,
                                        " --scene_entities=100 --baseline=", d,
                                        "/scene_base.json"),
                           "scene_other"),
            1);
  EXPECT_THAT(ReadAll(d + "/scene_other.err"),
              HasSubstr("--baseline ran a different workload (scene entities "
                        "100 vs 200)"));
  EXPECT_THAT(ReadAll(d + "/scene_other.out"), ::testing::IsEmpty());

  // A report from before the scene was recorded: nothing to compare with.
  json old = json::parse(ReadAll(d + "/scene_base.json"));
  old["config"].erase("scene");
  std::ofstream(d + "/scene_old.json") << old.dump();
  EXPECT_EQ(RunToolBounded(absl::StrCat("--target=", down.address(), scene,
                                        " --scene_entities=200 --baseline=", d,
                                        "/scene_old.json"),
                           "scene_old"),
            1);
  EXPECT_THAT(ReadAll(d + "/scene_old.err"),
              HasSubstr("does not record its scene"));

  EXPECT_EQ(
      RunToolBounded(absl::StrCat("--target=", server->address(), scene,
                                  " --scene_entities=200 --baseline=", d,
                                  "/scene_base.json", " --max_regression=1000"),
                     "scene_same"),
      0)
      << ReadAll(d + "/scene_same.err");
}

}  // namespace
}  // namespace collision
