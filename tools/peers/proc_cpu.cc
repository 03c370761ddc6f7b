#include "tools/peers/proc_cpu.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace collision::peers {
namespace {

// Fields of /proc/<pid>/stat after "pid (comm) ": the comm may hold spaces
// and parentheses, so split after the last ')'. fields[0] is field 3 (state)
// of proc(5).
absl::StatusOr<std::vector<std::string>> StatFields(int pid) {
  std::ifstream file(absl::StrCat("/proc/", pid, "/stat"));
  std::stringstream text;
  text << file.rdbuf();
  const std::string line = text.str();
  const size_t close = line.rfind(')');
  if (!file || close == std::string::npos) {
    return absl::NotFoundError(absl::StrCat("no /proc/", pid, "/stat"));
  }
  return std::vector<std::string>(
      absl::StrSplit(line.substr(close + 1), ' ', absl::SkipEmpty()));
}

constexpr size_t kPpid = 4 - 3;
constexpr size_t kUtime = 14 - 3;
constexpr size_t kStime = 15 - 3;

absl::StatusOr<double> CpuOf(const std::vector<std::string>& fields, int pid) {
  double utime = 0;
  double stime = 0;
  if (fields.size() <= kStime || !absl::SimpleAtod(fields[kUtime], &utime) ||
      !absl::SimpleAtod(fields[kStime], &stime)) {
    return absl::InternalError(absl::StrCat("unreadable /proc/", pid, "/stat"));
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

absl::StatusOr<double> ProcessCpuSeconds(int pid) {
  absl::StatusOr<std::vector<std::string>> fields = StatFields(pid);
  if (!fields.ok()) return fields.status();
  return CpuOf(*fields, pid);
}

absl::StatusOr<double> ProcessTreeCpuSeconds(int pid) {
  absl::StatusOr<double> total = ProcessCpuSeconds(pid);
  if (!total.ok()) return total.status();
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return absl::InternalError("cannot list /proc");
  const std::string parent = absl::StrCat(pid);
  while (dirent* entry = readdir(proc)) {
    int child = 0;
    if (!absl::SimpleAtoi(entry->d_name, &child) || child == pid) continue;
    absl::StatusOr<std::vector<std::string>> fields = StatFields(child);
    if (!fields.ok() || fields->size() <= kStime ||
        (*fields)[kPpid] != parent) {
      continue;  // gone meanwhile, or not a child
    }
    absl::StatusOr<double> cpu = CpuOf(*fields, child);
    if (cpu.ok()) *total += *cpu;
  }
  closedir(proc);
  return total;
}

double SelfCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) +
           1e-6 * static_cast<double>(t.tv_usec);
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double MachineBusySeconds() {
  std::ifstream file("/proc/stat");
  std::string cpu;
  file >> cpu;
  if (!file || cpu != "cpu") return -1;
  double total = 0;
  double idle = 0;
  double value = 0;
  // user nice system idle iowait irq softirq steal: steal (the host's
  // other guests) counts as busy, as interference.
  for (int field = 0; field < 8 && file >> value; ++field) {
    total += value;
    if (field == 3 || field == 4) idle += value;
  }
  return (total - idle) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace collision::peers
