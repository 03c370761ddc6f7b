// The load tool's report: what was run, the numbers, and its text, JSON,
// CSV and HTML forms; plus the --baseline comparison.
#ifndef COLLISION_TOOLS_REPORT_H_
#define COLLISION_TOOLS_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/runner.h"
#include "tools/scene_load.h"

namespace collision::load {

struct ReportConfig {
  std::string target;
  std::string ops;    // the rpc mix as given ("scene" for scenes)
  std::string kinds;  // the kind mix as given ("" for scenes)
  // --rpc=scene: the scenes' parameters (`concurrency` scenes).
  std::optional<SceneLoadOptions> scene;
  int batch = 0;  // pairs per request; scenes: queries per tick
  int concurrency = 0;
  int connections = 0;
  std::string engine;  // --engine (or "blocking")
  double rate = 0;     // 0: closed loop
  bool poisson = false;
  std::string schedule;  // open loop with a load schedule, described; "": none
  uint64_t seed = 0;
  double warmup_s = 0;
  int64_t requests = 0;   // --requests; 0: a run for `duration_s`
  double duration_s = 0;  // --duration; 0: a run of `requests`
  double interval_s = 1;
  std::string tool_version;  // "collision_load 0.1.0 (...)"
  std::string started_at;    // RFC 3339, UTC
};

struct LatencySummary {  // microseconds
  double min = 0, mean = 0, p50 = 0, p75 = 0, p90 = 0, p95 = 0, p99 = 0,
         p999 = 0, max = 0;
};

struct Report {
  ReportConfig config;
  RunResult run;
  double requests_per_second = 0;
  double pair_tests_per_second = 0;
  LatencySummary latency_us;
  double cpu_utilization = 0;  // client CPU / (wall time x cores), 0..1
  bool client_saturated = false;
};

// Client CPU above this share of all cores makes the report warn that the
// numbers may measure the client rather than the server.
inline constexpr double kSaturationThreshold = 0.85;

Report MakeReport(const ReportConfig& config, RunResult run);

// "8 scenes x 10000 entities (100% moved per tick) at 64 ticks/s; per tick
// 256 raycasts, 200 sweeps, 50 overlaps; upserts as columns, history ...".
std::string DescribeScene(const SceneLoadOptions& scene, int scenes);

std::string TextReport(const Report& r);
std::string JsonReport(const Report& r);
// A header line and one data line.
std::string CsvReport(const Report& r);
// A self-contained page: summary tables and inline SVG charts (latency
// histogram, throughput and latency over time). No scripts, no links.
std::string HtmlReport(const Report& r);

// The numbers --baseline compares, read from a JSON report, and the
// workload that produced them (reports before the workload was recorded
// have none).
struct Baseline {
  double requests_per_second = 0;
  double p50_us = 0;
  double p99_us = 0;
  int64_t errors = 0;
  bool has_config = false;
  ReportConfig config;  // the workload fields only
};
absl::StatusOr<Baseline> ReadBaseline(const std::string& path);
// The workload fields (rpc, kinds, batch, concurrency, connections,
// engine, rate, poisson, schedule, and a scene's parameters) in which the
// run differs from the baseline's, as "batch 16 vs 100; ..."; empty when
// they match or the baseline records no workload (a hand-written one). A
// scene baseline that does not record its scene differs from every scene
// run. Numbers of different workloads are not compared.
std::string WorkloadDifference(const ReportConfig& run, const Baseline& b);
// One line per regression: throughput below baseline / ratio, p50 or p99
// above baseline * ratio, or errors where the baseline had none. Empty:
// no regression. ratio > 1 (e.g. 1.2 allows 20%).
std::vector<std::string> Regressions(const Report& r, const Baseline& b,
                                     double ratio);

}  // namespace collision::load

#endif  // COLLISION_TOOLS_REPORT_H_
