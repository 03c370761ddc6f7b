// How the shipped programs meet a user at the command line: --help exits 0
// with the usage on stdout (collision_server, collision_load,
// collision_probe).
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

}  // namespace
}  // namespace collision
