// --help and --version for the project's programs (absl flags): --help
// lists the program's own flags (the ones its main file defines) with their
// defaults, --helpfull every flag with its file relative to the repository
// (not the build machine's path), and --version the project's version, the
// build type and the SIMD target the kernels dispatch to on this CPU. Each
// prints to stdout and exits 0 (ParseCommandLine below).
#ifndef COLLISION_COMMON_USAGE_H_
#define COLLISION_COMMON_USAGE_H_

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/internal/parse.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

#ifndef COLLISION_VERSION
#define COLLISION_VERSION "unknown"
#endif
#ifndef COLLISION_BUILD_TYPE
#define COLLISION_BUILD_TYPE "unknown"
#endif

namespace collision {

// `main_file`: the program's main source as the repository names it
// ("server/main.cc"); `simd_target`: collision::SimdTargetName().
inline void ConfigureUsage(const char* program, const char* main_file,
                           const char* simd_target, const char* usage) {
  static std::string version;
  static std::string own_file;
  version = absl::StrCat(program, " ", COLLISION_VERSION, " (",
                         COLLISION_BUILD_TYPE, " build, ",
#ifdef NDEBUG
                         "assertions off",
#else
                         "assertions on",
#endif
                         ", SIMD target ", simd_target, ")\n");
  own_file = main_file;
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, own_file);
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  // The file from the repository's top: its last two path components.
  config.normalize_filename = [](absl::string_view file) {
    const size_t last = file.rfind('/');
    if (last == absl::string_view::npos || last == 0) return std::string(file);
    const size_t before = file.rfind('/', last - 1);
    return std::string(
        before == absl::string_view::npos ? file : file.substr(before + 1));
  };
  config.version_string = [] { return version; };
  absl::SetFlagsUsageConfig(config);
  absl::SetProgramUsageMessage(usage);
}

// absl::ParseCommandLine, except that a request for help (--help,
// --helpfull, --helpshort, --helppackage, --helpmatch) exits 0, as --version
// does: asking for help is not a failure. The absl of Debian bookworm
// (20220623) exits 1 for help and has no public way to change that, hence
// its internal parse and usage entry points, the very calls its
// ParseCommandLine makes. Undefined or malformed flags still exit 1 with
// absl's message on stderr.
inline std::vector<char*> ParseCommandLine(int argc, char** argv) {
  std::vector<char*> positional = absl::flags_internal::ParseCommandLineImpl(
      argc, argv, absl::flags_internal::ArgvListAction::kRemoveParsedArgs,
      absl::flags_internal::UsageFlagsAction::kIgnoreUsage,
      absl::flags_internal::OnUndefinedFlag::kAbortIfUndefined);
  // -1: no usage flag; 0: --version (or --only_check_args); 1: help shown.
  const int usage = absl::flags_internal::HandleUsageFlags(
      std::cout, absl::ProgramUsageMessage());
  if (usage != -1) {
    std::cout.flush();
    std::exit(0);
  }
  return positional;
}

}  // namespace collision

#endif  // COLLISION_COMMON_USAGE_H_
