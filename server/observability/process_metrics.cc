#include "server/observability/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "prometheus/client_metric.h"
#include "prometheus/metric_type.h"
#include "server/observability/open_descriptors.h"

namespace collision::server {
namespace {

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

prometheus::MetricFamily One(const char* name, const char* help,
                             prometheus::MetricType type, double value) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(metric);
  return family;
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  // /proc/self/stat: the fields after the command name (which is in
  // parentheses and may hold spaces), numbered from 3 (state) as in proc(5).
  const std::string stat = ReadAll("/proc/self/stat");
  const std::size_t close = stat.rfind(')');
  if (close != std::string::npos) {
    std::istringstream fields(stat.substr(close + 2));
    std::string f[23];  // fields 3 .. 25
    for (std::string& field : f) fields >> field;
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    const double cpu = (std::stod(f[14 - 3]) + std::stod(f[15 - 3])) / ticks;
    out.push_back(One("process_cpu_seconds_total",
                      "User and system CPU time spent, in seconds.",
                      MetricType::Counter, cpu));
    out.push_back(One("process_virtual_memory_bytes",
                      "Virtual memory size in bytes.", MetricType::Gauge,
                      std::stod(f[23 - 3])));
    out.push_back(One("process_resident_memory_bytes",
                      "Resident memory size in bytes.", MetricType::Gauge,
                      std::stod(f[24 - 3]) * page));
    // Start time: boot time (btime in /proc/stat) plus the start in ticks.
    std::istringstream boot(ReadAll("/proc/stat"));
    std::string key;
    double btime = 0;
    while (boot >> key) {
      if (key == "btime") {
        boot >> btime;
        break;
      }
    }
    out.push_back(One("process_start_time_seconds",
                      "Start time of the process since the Unix epoch, in "
                      "seconds.",
                      MetricType::Gauge, btime + std::stod(f[22 - 3]) / ticks));
  }
  // -1 when they could not be listed (a serving process always has some
  // open: its listening sockets).
  const std::vector<int> fds = OpenDescriptors();
  out.push_back(One("process_open_fds", "Number of open file descriptors.",
                    MetricType::Gauge,
                    fds.empty() ? -1.0 : static_cast<double>(fds.size())));
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    out.push_back(One("process_max_fds",
                      "Maximum number of open file descriptors.",
                      MetricType::Gauge, static_cast<double>(files.rlim_cur)));
  }
  return out;
}

}  // namespace collision::server
