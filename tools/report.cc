#include "tools/report.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"

namespace collision::load {
namespace {

using nlohmann::json;

double Us(int64_t ns) { return double(ns) / 1000.0; }

std::string Mode(const ReportConfig& c) {
  if (c.scene.has_value()) {
    return absl::StrFormat("open loop, %g ticks/s per scene",
                           c.scene->tick_rate);
  }
  if (c.rate <= 0) return "closed loop";
  return absl::StrFormat("open loop, %s %.0f req/s%s",
                         c.poisson ? "Poisson" : "fixed", c.rate,
                         c.schedule.empty() ? "" : ", " + c.schedule);
}

std::string Seconds(absl::Duration d) { return absl::FormatDuration(d); }

}  // namespace

std::string DescribeScene(const SceneLoadOptions& s, int scenes) {
  std::string rays = absl::StrCat(s.rays, " raycasts");
  if (s.rewind_max > absl::ZeroDuration()) {
    absl::StrAppend(&rays, " rewound ", Seconds(s.rewind_min), "-",
                    Seconds(s.rewind_max));
  }
  const std::string history =
      s.history_ticks > 0
          ? absl::StrCat("history ", s.history_ticks, " ticks")
          : std::string("history the server's default (1 s of ticks)");
  return absl::StrFormat(
      "%d scenes x %d entities (%g%% moved per tick) at %g ticks/s; per tick "
      "%s, %d sweeps, %d overlaps; upserts %s, %s; over %s",
      scenes, s.entities, 100 * s.moving, s.tick_rate, rays, s.sweeps,
      s.overlaps, s.columns ? "as columns" : "per entity", history,
      s.scene_port.empty() ? "gRPC" : "the scene port");
}

Report MakeReport(const ReportConfig& config, RunResult run) {
  Report r;
  r.config = config;
  r.run = std::move(run);
  const RunResult& x = r.run;
  r.requests_per_second = double(x.requests) / x.seconds;
  r.pair_tests_per_second = double(x.pairs) / x.seconds;
  const Histogram& h = x.latency;
  r.latency_us = {
      Us(h.min()),          h.mean() / 1000.0,      Us(h.Percentile(50)),
      Us(h.Percentile(75)), Us(h.Percentile(90)),   Us(h.Percentile(95)),
      Us(h.Percentile(99)), Us(h.Percentile(99.9)), Us(h.max())};
  r.cpu_utilization =
      (x.cpu_user_s + x.cpu_system_s) / (x.seconds * double(x.cores));
  r.client_saturated = r.cpu_utilization > kSaturationThreshold;
  return r;
}

std::string TextReport(const Report& r) {
  const RunResult& x = r.run;
  const ReportConfig& c = r.config;
  std::string s;
  absl::StrAppendFormat(&s, "target       %s\n", c.target);
  if (c.scene.has_value()) {
    absl::StrAppendFormat(&s,
                          "workload     rpc %s, %d queries per tick, seed %d\n",
                          c.ops, c.batch, c.seed);
    absl::StrAppendFormat(&s, "scene        %s\n",
                          DescribeScene(*c.scene, c.concurrency));
  } else {
    absl::StrAppendFormat(&s,
                          "workload     rpc %s, kinds %s, batch %d, seed %d\n",
                          c.ops, c.kinds, c.batch, c.seed);
  }
  absl::StrAppendFormat(&s,
                        "load         %s, concurrency %d, connections %d, "
                        "engine %s, warm-up %.1fs\n",
                        Mode(c), c.concurrency, c.connections, c.engine,
                        c.warmup_s);
  absl::StrAppendFormat(&s, "requests     %d in %.2fs: %d ok, %d errors\n",
                        x.requests, x.seconds, x.ok, x.errors);
  if (c.duration_s > 0) {
    // The measured time runs to the last answer, after --duration's end.
    absl::StrAppendFormat(&s, "duration     asked %.2fs, measured %.2fs\n",
                          c.duration_s, x.seconds);
  }
  if (x.due > 0) {
    absl::StrAppendFormat(&s, "open loop    %d due, %d sent, %d never sent%s\n",
                          x.due, x.due - x.unsent, x.unsent,
                          x.unsent > 0 ? ": the rate was NOT REACHED" : "");
  }
  if (x.scenes > 0) {
    absl::StrAppendFormat(&s,
                          "scenes       %d of %d opened, %d left unanswered\n",
                          x.scenes_opened, x.scenes, x.scenes_abandoned);
    if (!x.scene_open_error.empty()) {
      absl::StrAppendFormat(&s, "  first not opened: %s\n", x.scene_open_error);
    }
  }
  // Calls count whether answered or not; pairs only when answered.
  absl::StrAppendFormat(&s,
                        "throughput   %.1f requests/s (%.1f answered), %.4g "
                        "pair-tests/s (answered calls)\n",
                        r.requests_per_second, double(x.ok) / x.seconds,
                        r.pair_tests_per_second);
  if (x.by_op.size() > 1) {
    for (const auto& [name, op] : x.by_op) {
      absl::StrAppendFormat(
          &s,
          "  %-18s %d requests, %d errors, %.1f requests/s, p50 %.1f us, "
          "p99 %.1f us\n",
          name, op.requests, op.requests - op.ok,
          double(op.requests) / x.seconds, Us(op.latency.Percentile(50)),
          Us(op.latency.Percentile(99)));
    }
  }
  const LatencySummary& l = r.latency_us;
  absl::StrAppendFormat(&s,
                        "latency (us) min %.1f  mean %.1f  p50 %.1f  p75 %.1f  "
                        "p90 %.1f  p95 %.1f  "
                        "p99 %.1f  p99.9 %.1f  max %.1f\n",
                        l.min, l.mean, l.p50, l.p75, l.p90, l.p95, l.p99,
                        l.p999, l.max);
  s += "status      ";
  for (const auto& [code, n] : x.status_counts) {
    absl::StrAppendFormat(&s, " %s=%d", code, n);
  }
  s += "\n";
  for (const auto& [code, message] : x.first_error) {
    absl::StrAppendFormat(&s, "  first %s: %s\n", code, message);
  }
  if (x.backoffs > 0) {
    absl::StrAppendFormat(&s,
                          "backoff      %d pauses after UNAVAILABLE, %.2fs\n",
                          x.backoffs, x.backoff_s);
  }
  if (x.verified > 0) {
    absl::StrAppendFormat(&s,
                          "verify       %d responses (%d pairs) checked "
                          "against the scalar reference: %d mismatches\n",
                          x.verified, x.verified_pairs, x.mismatches);
  }
  absl::StrAppendFormat(&s,
                        "client cpu   user %.2fs, system %.2fs = %.0f%% of %d "
                        "cores\n",
                        x.cpu_user_s, x.cpu_system_s, 100 * r.cpu_utilization,
                        x.cores);
  if (r.client_saturated) {
    s += "WARNING: the client used more than 85% of the machine's CPU; the "
         "numbers may measure the client, not the server.\n";
  }
  return s;
}

std::string JsonReport(const Report& r) {
  const RunResult& x = r.run;
  const ReportConfig& c = r.config;
  json j;
  j["config"] = {{"target", c.target},
                 {"rpc", c.ops},
                 {"kinds", c.kinds},
                 {"batch", c.batch},
                 {"concurrency", c.concurrency},
                 {"connections", c.connections},
                 {"engine", c.engine},
                 {"rate", c.rate},
                 {"poisson", c.poisson},
                 {"schedule", c.schedule},
                 {"seed", c.seed},
                 {"warmup_s", c.warmup_s},
                 {"requests", c.requests},
                 {"duration_s", c.duration_s}};
  if (c.scene.has_value()) {
    const SceneLoadOptions& sc = *c.scene;
    j["config"]["scene"] = {
        {"scenes", c.concurrency},
        {"entities", sc.entities},
        {"moving", sc.moving},
        {"tick_rate", sc.tick_rate},
        {"rays", sc.rays},
        {"sweeps", sc.sweeps},
        {"overlaps", sc.overlaps},
        {"columns", sc.columns},
        {"rewind_min_s", absl::ToDoubleSeconds(sc.rewind_min)},
        {"rewind_max_s", absl::ToDoubleSeconds(sc.rewind_max)},
        {"history_ticks", sc.history_ticks},
        {"transport", sc.scene_port.empty() ? "grpc" : "scene_port"}};
    j["scenes"] = {{"asked", x.scenes},
                   {"opened", x.scenes_opened},
                   {"not_opened", x.scenes - x.scenes_opened},
                   {"abandoned", x.scenes_abandoned},
                   {"first_open_error", x.scene_open_error}};
  }
  j["tool"] = c.tool_version;
  j["basis"] =
      "requests and requests_per_second count every call, answered or not; "
      "pair_tests and pair_tests_per_second count answered calls only";
  j["ok_requests_per_second"] = double(x.ok) / x.seconds;
  for (const auto& [name, op] : x.by_op) {
    const Histogram& h = op.latency;
    j["by_rpc"][name] = {
        {"requests", op.requests},
        {"ok", op.ok},
        {"errors", op.requests - op.ok},
        {"pair_tests", op.pairs},
        {"requests_per_second", double(op.requests) / x.seconds},
        {"latency_us",
         {{"p50", Us(h.Percentile(50))},
          {"p90", Us(h.Percentile(90))},
          {"p99", Us(h.Percentile(99))},
          {"p99_9", Us(h.Percentile(99.9))}}}};
  }
  j["started_at"] = c.started_at;
  j["requests"] = x.requests;
  j["ok"] = x.ok;
  j["errors"] = x.errors;
  j["pair_tests"] = x.pairs;
  j["seconds"] = x.seconds;
  j["requests_per_second"] = r.requests_per_second;
  j["pair_tests_per_second"] = r.pair_tests_per_second;
  const LatencySummary& l = r.latency_us;
  j["latency_us"] = {{"min", l.min}, {"mean", l.mean},  {"p50", l.p50},
                     {"p75", l.p75}, {"p90", l.p90},    {"p95", l.p95},
                     {"p99", l.p99}, {"p99_9", l.p999}, {"max", l.max}};
  j["status_counts"] = x.status_counts;
  j["first_error"] = x.first_error;
  j["backoffs"] = x.backoffs;
  j["open_loop"] = {
      {"due", x.due}, {"sent", x.due - x.unsent}, {"unsent", x.unsent}};
  j["verify"] = {{"responses", x.verified},
                 {"pairs", x.verified_pairs},
                 {"mismatches", x.mismatches}};
  j["cpu"] = {{"user_s", x.cpu_user_s},
              {"system_s", x.cpu_system_s},
              {"cores", x.cores},
              {"utilization", r.cpu_utilization},
              {"saturated", r.client_saturated}};
  json series = json::array();
  for (const Interval& i : x.series) {
    series.push_back({{"start_s", i.start_s},
                      {"requests", i.requests},
                      {"errors", i.errors},
                      {"p50_us", Us(i.p50_ns)},
                      {"p99_us", Us(i.p99_ns)}});
  }
  j["series"] = series;
  json buckets = json::array();
  for (const Histogram::Bucket& b : x.latency.Buckets()) {
    buckets.push_back({Us(b.low), Us(b.high), b.count});
  }
  j["histogram_us"] = buckets;
  return j.dump(2) + "\n";
}

std::string CsvReport(const Report& r) {
  const RunResult& x = r.run;
  const LatencySummary& l = r.latency_us;
  std::string s =
      "requests,ok,errors,pair_tests,seconds,requests_per_second,"
      "pair_tests_per_second,latency_min_us,latency_mean_us,latency_p50_us,"
      "latency_p75_us,latency_p90_us,latency_p95_us,latency_p99_us,"
      "latency_p99_9_us,latency_max_us,"
      "verified_pairs,mismatches,cpu_utilization,batch,concurrency,"
      "connections,rate,duration_s,due,sent,unsent,scenes,scene_entities,"
      "scene_moving,tick_rate,scene_rays,scene_sweeps,scene_overlaps,"
      "scene_columns,scene_rewind_min_s,scene_rewind_max_s,"
      "scene_history_ticks\n";
  absl::StrAppendFormat(
      &s,
      "%d,%d,%d,%d,%.6f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,"
      "%.3f,%d,%d,%.4f,%d,%d,%d,%.3f,%g,%d,%d,%d,",
      x.requests, x.ok, x.errors, x.pairs, x.seconds, r.requests_per_second,
      r.pair_tests_per_second, l.min, l.mean, l.p50, l.p75, l.p90, l.p95, l.p99,
      l.p999, l.max, x.verified_pairs, x.mismatches, r.cpu_utilization,
      r.config.batch, r.config.concurrency, r.config.connections, r.config.rate,
      r.config.duration_s, x.due, x.due - x.unsent, x.unsent);
  if (const auto& sc = r.config.scene; sc.has_value()) {
    absl::StrAppendFormat(
        &s, "%d,%d,%g,%g,%d,%d,%d,%s,%g,%g,%d\n", r.config.concurrency,
        sc->entities, sc->moving, sc->tick_rate, sc->rays, sc->sweeps,
        sc->overlaps, sc->columns ? "true" : "false",
        absl::ToDoubleSeconds(sc->rewind_min),
        absl::ToDoubleSeconds(sc->rewind_max), sc->history_ticks);
  } else {
    s += ",,,,,,,,,,\n";  // not a scene run
  }
  return s;
}

absl::StatusOr<Baseline> ReadBaseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() ||
      !j.contains("requests_per_second") || !j.contains("latency_us") ||
      !j["requests_per_second"].is_number() ||
      !j["latency_us"].value("p99", json()).is_number()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " is not a collision_load JSON report"));
  }
  Baseline b;
  b.requests_per_second = j["requests_per_second"].get<double>();
  b.p50_us = j["latency_us"].value("p50", 0.0);
  b.p99_us = j["latency_us"]["p99"].get<double>();
  b.errors = j.value("errors", int64_t{0});
  if (j.contains("config") && j["config"].is_object()) {
    const json& c = j["config"];
    b.has_config = true;
    b.config.ops = c.value("rpc", std::string());
    b.config.kinds = c.value("kinds", std::string());
    b.config.batch = c.value("batch", 0);
    b.config.concurrency = c.value("concurrency", 0);
    b.config.connections = c.value("connections", 0);
    b.config.engine = c.value("engine", std::string());
    b.config.rate = c.value("rate", 0.0);
    b.config.poisson = c.value("poisson", false);
    b.config.schedule = c.value("schedule", std::string());
    if (c.contains("scene") && c["scene"].is_object()) {
      const json& sc = c["scene"];
      SceneLoadOptions& s = b.config.scene.emplace();
      s.entities = sc.value("entities", 0);
      s.moving = sc.value("moving", 0.0);
      s.tick_rate = sc.value("tick_rate", 0.0);
      s.rays = sc.value("rays", 0);
      s.sweeps = sc.value("sweeps", 0);
      s.overlaps = sc.value("overlaps", 0);
      s.columns = sc.value("columns", true);
      // As written (seconds), to the microsecond the flags are given in.
      auto us = [](double seconds) {
        return absl::Microseconds(std::llround(seconds * 1e6));
      };
      s.rewind_min = us(sc.value("rewind_min_s", 0.0));
      s.rewind_max = us(sc.value("rewind_max_s", 0.0));
      s.history_ticks = sc.value("history_ticks", 0);
      // Only the transport counts for a comparison, not the address.
      if (sc.value("transport", std::string("grpc")) == "scene_port") {
        s.scene_port = "scene port";
      }
    }
  }
  return b;
}

std::string WorkloadDifference(const ReportConfig& run, const Baseline& b) {
  if (!b.has_config) return "";
  const ReportConfig& base = b.config;
  std::vector<std::string> out;
  auto differ = [&](const char* name, const std::string& now,
                    const std::string& then) {
    if (now != then) out.push_back(absl::StrCat(name, " ", now, " vs ", then));
  };
  differ("rpc", run.ops, base.ops);
  if (run.scene.has_value() && base.ops == "scene" && !base.scene.has_value()) {
    out.push_back(
        "scene: the baseline does not record its scene (a report of an older "
        "collision_load)");
  } else if (run.scene.has_value() && base.scene.has_value()) {
    const SceneLoadOptions& now = *run.scene;
    const SceneLoadOptions& then = *base.scene;
    auto number = [](double v) { return absl::StrFormat("%g", v); };
    differ("scene entities", number(now.entities), number(then.entities));
    differ("scene moving", number(now.moving), number(then.moving));
    differ("tick rate", number(now.tick_rate), number(then.tick_rate));
    differ("scene rays", number(now.rays), number(then.rays));
    differ("scene sweeps", number(now.sweeps), number(then.sweeps));
    differ("scene overlaps", number(now.overlaps), number(then.overlaps));
    differ("scene columns", now.columns ? "true" : "false",
           then.columns ? "true" : "false");
    differ("scene rewind",
           Seconds(now.rewind_min) + "-" + Seconds(now.rewind_max),
           Seconds(then.rewind_min) + "-" + Seconds(then.rewind_max));
    differ("scene history ticks", number(now.history_ticks),
           number(then.history_ticks));
    differ("scene transport", now.scene_port.empty() ? "grpc" : "scene_port",
           then.scene_port.empty() ? "grpc" : "scene_port");
  }
  if (!run.scene.has_value()) differ("kinds", run.kinds, base.kinds);
  differ("batch", absl::StrCat(run.batch), absl::StrCat(base.batch));
  differ("concurrency", absl::StrCat(run.concurrency),
         absl::StrCat(base.concurrency));
  differ("connections", absl::StrCat(run.connections),
         absl::StrCat(base.connections));
  if (!base.engine.empty()) differ("engine", run.engine, base.engine);
  differ("rate", Mode(run), Mode(base));
  return absl::StrJoin(out, "; ");
}

std::vector<std::string> Regressions(const Report& r, const Baseline& b,
                                     double ratio) {
  std::vector<std::string> out;
  if (r.requests_per_second * ratio < b.requests_per_second) {
    out.push_back(absl::StrFormat(
        "throughput %.1f requests/s is below baseline %.1f / %.2f",
        r.requests_per_second, b.requests_per_second, ratio));
  }
  if (r.latency_us.p50 > b.p50_us * ratio) {
    out.push_back(absl::StrFormat("p50 %.1fus is above baseline %.1fus x %.2f",
                                  r.latency_us.p50, b.p50_us, ratio));
  }
  if (r.latency_us.p99 > b.p99_us * ratio) {
    out.push_back(absl::StrFormat("p99 %.1fus is above baseline %.1fus x %.2f",
                                  r.latency_us.p99, b.p99_us, ratio));
  }
  if (r.run.errors > 0 && b.errors == 0) {
    out.push_back(
        absl::StrFormat("%d errors, baseline had none", r.run.errors));
  }
  return out;
}

}  // namespace collision::load
