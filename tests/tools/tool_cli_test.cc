// How the shipped programs meet a user at the command line: --help exits 0
// with the usage on stdout (collision_server, collision_load,
// collision_probe), collision_load without a target explains itself and
// runs nothing, shows a progress line on a terminal and only there, and
// refuses a baseline of another workload before it runs.
#include "tests/tools/load_tool_testing.h"

namespace collision {
namespace {

using namespace load_testing;  // NOLINT: the shared test helpers

struct Program {
  const char* binary;
  const char* main_file;  // as --help names it
  const char* usage;      // the start of its usage message
};

TEST(Programs, HelpExitsZeroWithTheUsageOnStdout) {
  const Program programs[] = {
      {COLLISION_SERVER_BINARY, "server/main.cc", "Serves collision.v1."},
      {COLLISION_LOAD_BINARY, "tools/main.cc", "Load-tests a collision server"},
      {COLLISION_PROBE_BINARY, "probe/probe.cc", "One grpc.health.v1 check"},
  };
  const std::string d = Dir();
  for (const Program& p : programs) {
    SCOPED_TRACE(p.binary);
    for (const char* flag : {"--help", "--helpfull", "--version"}) {
      SCOPED_TRACE(flag);
      EXPECT_EQ(Shell(absl::StrCat("timeout 30 ", p.binary, " ", flag, " > ", d,
                                   "/help.out 2> ", d, "/help.err")),
                0)
          << ReadAll(d + "/help.err");
      EXPECT_THAT(ReadAll(d + "/help.err"), ::testing::IsEmpty());
      if (std::string(flag) == "--version") continue;
      const std::string out = ReadAll(d + "/help.out");
      EXPECT_THAT(out, HasSubstr(p.usage));
      EXPECT_THAT(out, HasSubstr(absl::StrCat("Flags from ", p.main_file)));
    }
  }
}

// With no arguments it ran 11 s against 127.0.0.1:50051 (whatever listened
// there); now it says what it needs and exits 1 without calling anything.
TEST(LoadTool, WithoutATargetItExplainsAndRunsNothing) {
  const std::string d = Dir();
  for (const char* args : {"", "--rpc=scene --duration=1s"}) {
    SCOPED_TRACE(args);
    EXPECT_EQ(
        Shell(absl::StrCat("timeout 30 ", COLLISION_LOAD_BINARY, " ", args,
                           " > ", d, "/bare.out 2> ", d, "/bare.err")),
        1);
    const std::string err = ReadAll(d + "/bare.err");
    EXPECT_THAT(err, HasSubstr("--target is required"));
    EXPECT_THAT(err, HasSubstr("--help"));
    EXPECT_THAT(ReadAll(d + "/bare.out"), ::testing::IsEmpty());
  }
  // --dump_request calls nothing: it needs no target.
  EXPECT_EQ(Shell(absl::StrCat("timeout 30 ", COLLISION_LOAD_BINARY,
                               " --batch=2 --dump_request=", d, "/body.bin > ",
                               d, "/dump.out 2> ", d, "/dump.err")),
            0)
      << ReadAll(d + "/dump.err");
  EXPECT_THAT(ReadAll(d + "/dump.out"),
              HasSubstr("/collision.v1.CollisionService/Intersect"));
}

// A progress line on a terminal (here a pseudo-terminal from script(1)),
// for pairwise calls and scenes alike, however short the run; none when
// the output is not a terminal.
TEST(LoadTool, ShowsProgressOnATerminalOnly) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string d = Dir();
  for (const std::string workload :
       {" --requests=20",
        " --rpc=scene --scene_entities=50 --scene_rays=2"
        " --scene_sweeps=1 --scene_overlaps=1"
        " --tick_rate=50 --concurrency=1 --requests=5"}) {
    SCOPED_TRACE(workload);
    const std::string command =
        absl::StrCat(COLLISION_LOAD_BINARY, " --target=", server->address(),
                     " --warmup=0s", workload);
    EXPECT_EQ(
        Shell(absl::StrCat("timeout 60 script -qec '", command,
                           "' /dev/null < /dev/null > ", d, "/tty.out 2>&1")),
        0)
        << ReadAll(d + "/tty.out");
    EXPECT_THAT(ReadAll(d + "/tty.out"), HasSubstr("elapsed "));
    EXPECT_EQ(Shell(absl::StrCat("timeout 60 ", command, " > ", d,
                                 "/piped.out 2> ", d, "/piped.err")),
              0)
        << ReadAll(d + "/piped.err");
    EXPECT_THAT(ReadAll(d + "/piped.out"),
                ::testing::Not(HasSubstr("elapsed ")));
    EXPECT_THAT(ReadAll(d + "/piped.err"), ::testing::IsEmpty());
  }
}

// A baseline of another workload is refused before the run: at a server
// that is down, a run would have been a failed one (exit 4).
TEST(LoadTool, ABaselineOfAnotherWorkloadIsRefusedBeforeTheRun) {
  auto server = StartServer();
  ASSERT_NE(server, nullptr);
  const std::string d = Dir();
  ASSERT_EQ(RunToolBounded(absl::StrCat("--target=", server->address(),
                                        " --requests=20 --warmup=0s",
                                        " --concurrency=2 --json_out=", d,
                                        "/pairs_base.json"),
                           "pairs_base"),
            0)
      << ReadAll(d + "/pairs_base.err");
  ClosedPort down;
  ASSERT_TRUE(down.ok());
  EXPECT_EQ(RunToolBounded(
                absl::StrCat("--target=", down.address(),
                             " --requests=20 --warmup=0s",
                             " --concurrency=2 --batch=16",
                             " --retries=1 --baseline=", d, "/pairs_base.json"),
                "pairs_other"),
            1);
  EXPECT_THAT(ReadAll(d + "/pairs_other.err"),
              HasSubstr("--baseline ran a different workload (batch 16 vs "
                        "100)"));
  EXPECT_THAT(ReadAll(d + "/pairs_other.out"), ::testing::IsEmpty());
  // A baseline that cannot be read is refused before the run too.
  EXPECT_EQ(RunToolBounded(absl::StrCat("--target=", down.address(),
                                        " --requests=20 --warmup=0s",
                                        " --retries=1 --baseline=", d,
                                        "/no_such_baseline.json"),
                           "pairs_missing"),
            1);
  EXPECT_THAT(ReadAll(d + "/pairs_missing.err"), HasSubstr("cannot read"));
  EXPECT_THAT(ReadAll(d + "/pairs_missing.out"), ::testing::IsEmpty());
}

}  // namespace
}  // namespace collision
