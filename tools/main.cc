// collision_load: load-tests a collision server and reports throughput,
// latency percentiles, errors by status code and client CPU, as text, JSON,
// CSV and a self-contained HTML page. Flags live here only and are turned
// into the options structs of workload.h, runner.h and report.h.
//
//   collision_load --target=127.0.0.1:50051 --rpc=intersect_columns
//       --batch=1000 --concurrency=16 --duration=30s --html_out=report.html
//
// Exit status (docs/load-testing.md has the table): 0 ok; 1 nothing was
// run: bad flags, no --target, a file that cannot be read, a --baseline
// of another workload; 2 --verify found mismatches; 3 --baseline found a
// regression; 4 more calls (ticks) failed than --max_error_rate allows (by
// default: any), none was measured, or a scene could not be opened; 5 an
// open-loop run (--rate, or scenes at --tick_rate) sent fewer of the calls
// due in --duration than asked (beyond --max_rate_shortfall). When several
// apply: the first of 2, 4, 5, 3.
#include <arpa/inet.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "collision/core/batch.h"
#include "common/usage.h"
#include "tools/report.h"
#include "tools/runner.h"
#include "tools/scene_load.h"
#include "tools/workload.h"

ABSL_FLAG(std::string, target, "",
          "required: server host:port (e.g. 127.0.0.1:50051); several "
          "comma-separated host:port are called round-robin; any gRPC target "
          "(e.g. dns:///name:port) works too");
ABSL_FLAG(std::string, lb, "",
          "load-balancing policy (default: round_robin for several targets)");
ABSL_FLAG(std::string, rpc, "intersect_pairs",
          "rpc mix: name[:weight],... of intersect|closest x "
          "_pairs|_columns|_stream (stream sends columns over QueryStream); "
          "or `scene`: --concurrency scenes ticking on SceneService (the "
          "--scene_* flags), latency per tick");
ABSL_FLAG(int, scene_entities, 10000, "scene: moving circles per scene");
ABSL_FLAG(double, scene_moving, 1.0, "scene: share of entities moved per tick");
ABSL_FLAG(double, tick_rate, 64, "scene: ticks per second per scene");
ABSL_FLAG(int, scene_rays, 256, "scene: raycasts per tick");
ABSL_FLAG(int, scene_sweeps, 200, "scene: swept circles per tick");
ABSL_FLAG(int, scene_overlaps, 50, "scene: circle overlaps per tick");
ABSL_FLAG(bool, scene_columns, true,
          "scene: send upserts as columns (false: per entity)");
ABSL_FLAG(absl::Duration, scene_rewind_min, absl::ZeroDuration(),
          "scene: rewind each raycast by a lag drawn uniformly from "
          "[--scene_rewind_min, --scene_rewind_max] (lag compensation, "
          "SceneQuery.at); both 0: not rewound");
ABSL_FLAG(absl::Duration, scene_rewind_max, absl::ZeroDuration(),
          "scene: see --scene_rewind_min");
ABSL_FLAG(std::string, scene_port, "",
          "scene: host:port of the server's scene port (--scene_port_address; "
          "several separated by commas): scenes go over plain TCP frames "
          "instead of SceneService on gRPC");
ABSL_FLAG(int, scene_history_ticks, 0,
          "scene: ticks of history each scene keeps for rewound raycasts "
          "(SceneConfig.history_ticks); 0: what the run needs: none without "
          "--scene_rewind_max, else the ticks it spans at --tick_rate + 2");
ABSL_FLAG(std::string, kinds, "circle_rect",
          "pair-kind mix: name[:weight],... of circle_circle, circle_rect, "
          "circle_rotated_rect, rect_rect, sphere_sphere, sphere_box, box_box "
          "and the hitbox pairings (per-pair wire only): sphere_capsule3, "
          "sphere_oriented_box, capsule3_capsule3, capsule3_box, "
          "capsule3_oriented_box, box_oriented_box, oriented_box_oriented_box");
ABSL_FLAG(int, batch, 100, "pairs (or queries) per request");
ABSL_FLAG(int, pool, 64, "distinct prepared requests, cycled");
ABSL_FLAG(uint64_t, seed, 1, "seed of the workload and Poisson arrivals");
ABSL_FLAG(bool, exclusive, false,
          "boundary rule EXCLUSIVE (default INCLUSIVE)");
ABSL_FLAG(int, concurrency, 8, "calls in flight (worker threads)");
ABSL_FLAG(int, connections, 1, "separate channels / TCP connections");
ABSL_FLAG(int64_t, requests, 0, "measured requests; 0: run for --duration");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(10), "measured run time");
ABSL_FLAG(absl::Duration, warmup, absl::Seconds(1), "unmeasured warm-up time");
ABSL_FLAG(double, rate, 0,
          "open loop at this many requests/s in total; 0: closed loop");
ABSL_FLAG(bool, poisson, false, "open loop with Poisson (exponential) gaps");
ABSL_FLAG(absl::Duration, deadline, absl::Seconds(5),
          "deadline of every call (scenes: of every tick's answer)");
ABSL_FLAG(int, retries, 4, "gRPC max attempts on UNAVAILABLE (1 = none)");
ABSL_FLAG(std::string, tls_ca, "", "TLS: root CA PEM file (turns TLS on)");
ABSL_FLAG(std::string, tls_cert, "", "TLS: client certificate chain PEM");
ABSL_FLAG(std::string, tls_key, "", "TLS: client private key PEM");
ABSL_FLAG(std::string, tls_server_name, "", "TLS: expected server name");
ABSL_FLAG(bool, tls, false, "TLS with the system roots");
ABSL_FLAG(std::string, token_file, "",
          "file holding a bearer token sent as `authorization: Bearer ...`");
ABSL_FLAG(std::string, request_file, "",
          "send this request instead of generated ones: proto JSON of an "
          "IntersectRequest (--rpc=intersect_pairs) or ClosestPointRequest "
          "(--rpc=closest_pairs); --batch, --kinds and --pool are ignored");
ABSL_FLAG(std::string, load_schedule, "const",
          "open-loop rate over the measured window, starting at --rate: const, "
          "step (+--load_step req/s every --load_step_every) or line "
          "(+--load_step req/s per second), capped at --load_end");
ABSL_FLAG(double, load_step, 0, "load schedule: req/s added per step");
ABSL_FLAG(absl::Duration, load_step_every, absl::Seconds(1),
          "load schedule step: time between steps");
ABSL_FLAG(double, load_end, 0, "load schedule: rate not passed (0: no cap)");
ABSL_FLAG(std::vector<std::string>, metadata, {},
          "call metadata sent on every call: key:value[,key:value...] "
          "(lowercase keys; the token goes in --token_file)");
ABSL_FLAG(double, verify, 0,
          "share of responses (0..1) recomputed with the scalar reference");
ABSL_FLAG(std::string, format, "text", "stdout report: text, json or csv");
ABSL_FLAG(std::string, json_out, "", "also write the JSON report here");
ABSL_FLAG(std::string, csv_out, "", "also write the CSV report here");
ABSL_FLAG(std::string, html_out, "", "also write the HTML report here");
ABSL_FLAG(std::string, baseline, "",
          "JSON report to compare with; one of another workload (rpc, kinds, "
          "batch, concurrency, connections, engine, rate, scene) is refused "
          "before the run (exit 1)");
ABSL_FLAG(double, max_error_rate, 0,
          "share of measured calls (0..1) that may fail before the run exits "
          "4; 0: any failure does (an unreachable server, 100% "
          "UNAUTHENTICATED or shed load are failures, not results)");
ABSL_FLAG(double, max_rate_shortfall, 0.01,
          "open loop for a --duration (--rate, or scenes at --tick_rate): "
          "share of the calls (ticks) due that may go unsent (every "
          "--concurrency slot busy, every scene waiting for an answer) "
          "before the run exits 5; 1: never");
ABSL_FLAG(double, max_regression, 1.2,
          "with --baseline: allowed ratio (1.2 = 20% slower) before exit 3");
ABSL_FLAG(bool, blocking, false,
          "unary calls as blocking calls on one thread per slot instead of "
          "callback calls from one pacer thread (stream ops always block)");
ABSL_FLAG(std::string, engine, "grpc",
          "how unary calls are made: grpc (requests serialised once, gRPC "
          "completion queues, one thread per core; retries, TLS, load "
          "balancing), grpc_typed (typed messages per call through the client "
          "library: what an application pays), http2 (the tool's own HTTP/2 "
          "client, the cheapest: the server is the limit; plaintext, "
          "host:port targets, no retries)");
ABSL_FLAG(std::string, dump_request, "",
          "write the first unary request as a gRPC-framed body (5-byte prefix "
          "+ message, for h2load -d) to this file, print its method, and exit");
ABSL_FLAG(std::string, progress, "auto",
          "live progress line on stderr: auto (when stderr is a terminal), "
          "on, off");

namespace {

using namespace collision::load;  // NOLINT: a main file

// Nothing was run: bad flags, a file that cannot be read, a baseline of
// another workload.
int Fail(const std::string& message) {
  std::fprintf(stderr, "collision_load: %s\n", message.c_str());
  return 1;
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

absl::StatusOr<std::string> ReadToken(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (!in || !std::getline(in, token) || token.empty()) {
    return absl::InvalidArgumentError("cannot read a token from " + path);
  }
  return token;
}

// "1.2.3.4:80" or "[::1]:80": what an ipv4:/ipv6: target list accepts.
bool IsNumericHostPort(const std::string& t) {
  const std::size_t colon = t.rfind(':');
  if (colon == std::string::npos) return false;
  std::string host = t.substr(0, colon);
  unsigned char buf[sizeof(in6_addr)];
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    return inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), buf) ==
           1;
  }
  return inet_pton(AF_INET, host.c_str(), buf) == 1;
}

// For cross-checking with h2load: the body and :path of one unary call.
int DumpRequest(const Item& item, const std::string& path) {
  if (item.op.wire == Wire::kStream) return Fail("cannot dump a stream op");
  const std::string& message = item.serialized;
  const uint32_t n = static_cast<uint32_t>(message.size());
  std::string body(1, '\0');  // not compressed
  for (int shift = 24; shift >= 0; shift -= 8)
    body += char((n >> shift) & 0xff);
  if (!WriteFile(path, body + message)) return Fail("cannot write " + path);
  std::printf("%s\n", item.method.c_str());
  return 0;
}

}  // namespace

int Main(int argc, char** argv) {
  collision::ConfigureUsage(
      "collision_load", "tools/main.cc", collision::SimdTargetName(),
      "Load-tests a collision server: collision_load --target=host:port "
      "[--rpc=...] [--batch=N] [--concurrency=N] [--duration=10s]");
  collision::ParseCommandLine(argc, argv);
  // No default server: with no flags it used to load whatever listened on
  // 127.0.0.1:50051 for 11 s.
  if (absl::GetFlag(FLAGS_target).empty() &&
      absl::GetFlag(FLAGS_dump_request).empty()) {
    return Fail(
        "--target is required (e.g. --target=127.0.0.1:50051); --help lists "
        "the flags, docs/load-testing.md the workloads and exit codes");
  }

  WorkloadOptions w;
  const bool scene_load = absl::GetFlag(FLAGS_rpc) == "scene";
  auto ops =
      ParseOpMix(scene_load ? "intersect_pairs" : absl::GetFlag(FLAGS_rpc));
  if (!ops.ok()) return Fail(ops.status().ToString());
  auto kinds = ParseKindMix(absl::GetFlag(FLAGS_kinds));
  if (!kinds.ok()) return Fail(kinds.status().ToString());
  w.ops = *ops;
  w.kinds = *kinds;
  w.seed = absl::GetFlag(FLAGS_seed);
  w.batch = absl::GetFlag(FLAGS_batch);
  w.pool = absl::GetFlag(FLAGS_pool);
  w.exclusive = absl::GetFlag(FLAGS_exclusive);
  w.verify = absl::GetFlag(FLAGS_verify) > 0;

  RunOptions o;
  std::vector<std::string> targets =
      absl::StrSplit(absl::GetFlag(FLAGS_target), ',', absl::SkipEmpty());
  if (targets.empty()) targets.push_back("");  // --dump_request only
  o.target = targets[0];
  o.client.load_balancing_policy = absl::GetFlag(FLAGS_lb);
  if (targets.size() > 1) {
    for (const std::string& t : targets) {
      if (!IsNumericHostPort(t)) {
        return Fail(
            "with several --target addresses each must be a numeric "
            "ip:port (got \"" +
            t +
            "\"); for host names use one "
            "dns:///name:port target and --lb=round_robin");
      }
    }
    o.target =
        absl::StrCat(absl::StartsWith(targets[0], "[") ? "ipv6:" : "ipv4:",
                     absl::StrJoin(targets, ","));
    if (o.client.load_balancing_policy.empty()) {
      o.client.load_balancing_policy = "round_robin";
    }
  }
  o.client.timeout = absl::GetFlag(FLAGS_deadline);
  o.client.retry.enabled = absl::GetFlag(FLAGS_retries) > 1;
  o.client.retry.max_attempts = absl::GetFlag(FLAGS_retries);
  o.client.tls.root_ca_file = absl::GetFlag(FLAGS_tls_ca);
  o.client.tls.cert_chain_file = absl::GetFlag(FLAGS_tls_cert);
  o.client.tls.private_key_file = absl::GetFlag(FLAGS_tls_key);
  o.client.tls.server_name_override = absl::GetFlag(FLAGS_tls_server_name);
  o.client.tls.enabled = absl::GetFlag(FLAGS_tls) ||
                         !o.client.tls.root_ca_file.empty() ||
                         !o.client.tls.cert_chain_file.empty();
  for (const std::string& kv : absl::GetFlag(FLAGS_metadata)) {
    const std::size_t colon = kv.find(':');
    if (colon == std::string::npos) {
      return Fail("--metadata takes key:value, not \"" + kv + "\"");
    }
    o.client.metadata.emplace_back(kv.substr(0, colon), kv.substr(colon + 1));
  }
  if (!absl::GetFlag(FLAGS_token_file).empty()) {
    auto token = ReadToken(absl::GetFlag(FLAGS_token_file));
    if (!token.ok()) return Fail(token.status().ToString());
    o.client.bearer_token = *token;
  }
  o.concurrency = absl::GetFlag(FLAGS_concurrency);
  o.connections = absl::GetFlag(FLAGS_connections);
  o.requests = absl::GetFlag(FLAGS_requests);
  o.duration = absl::GetFlag(FLAGS_duration);
  o.warmup = absl::GetFlag(FLAGS_warmup);
  o.rate = absl::GetFlag(FLAGS_rate);
  o.poisson = absl::GetFlag(FLAGS_poisson);
  if (const std::string k = absl::GetFlag(FLAGS_load_schedule); k == "step") {
    o.schedule.kind = RunOptions::Schedule::Kind::kStep;
  } else if (k == "line") {
    o.schedule.kind = RunOptions::Schedule::Kind::kLine;
  } else if (k != "const") {
    return Fail("--load_schedule is const, step or line, not \"" + k + "\"");
  }
  o.schedule.step = absl::GetFlag(FLAGS_load_step);
  o.schedule.step_every = absl::GetFlag(FLAGS_load_step_every);
  o.schedule.end = absl::GetFlag(FLAGS_load_end);
  o.seed = w.seed;
  o.verify_fraction = absl::GetFlag(FLAGS_verify);
  o.blocking = absl::GetFlag(FLAGS_blocking);
  if (const std::string e = absl::GetFlag(FLAGS_engine); e == "grpc") {
    o.engine = RunOptions::Engine::kGrpc;
  } else if (e == "grpc_typed") {
    o.engine = RunOptions::Engine::kGrpcTyped;
  } else if (e == "http2") {
    o.engine = RunOptions::Engine::kHttp2;
  } else {
    return Fail("--engine is grpc, grpc_typed or http2, not \"" + e + "\"");
  }
  const std::string progress = absl::GetFlag(FLAGS_progress);
  o.progress = progress == "on" || (progress == "auto" && isatty(2));
  if (!(absl::GetFlag(FLAGS_max_error_rate) >= 0 &&
        absl::GetFlag(FLAGS_max_error_rate) <= 1)) {
    return Fail("--max_error_rate must be in [0, 1]");
  }
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json" && format != "csv") {
    return Fail("--format must be text, json or csv");
  }

  std::optional<SceneLoadOptions> scene;
  std::optional<Workload> workload;
  if (scene_load) {
    SceneLoadOptions& s = scene.emplace();
    s.entities = absl::GetFlag(FLAGS_scene_entities);
    s.moving = absl::GetFlag(FLAGS_scene_moving);
    s.tick_rate = absl::GetFlag(FLAGS_tick_rate);
    s.rays = absl::GetFlag(FLAGS_scene_rays);
    s.sweeps = absl::GetFlag(FLAGS_scene_sweeps);
    s.overlaps = absl::GetFlag(FLAGS_scene_overlaps);
    s.columns = absl::GetFlag(FLAGS_scene_columns);
    s.rewind_min = absl::GetFlag(FLAGS_scene_rewind_min);
    s.rewind_max = absl::GetFlag(FLAGS_scene_rewind_max);
    s.history_ticks = absl::GetFlag(FLAGS_scene_history_ticks);
    // Resolved here so that the report says what the scenes asked for.
    if (s.history_ticks == 0) s.history_ticks = HistoryTicksNeeded(s);
    s.scene_port = absl::GetFlag(FLAGS_scene_port);
    o.rate = s.tick_rate * o.concurrency;
    w.batch = s.rays + s.sweeps + s.overlaps;
  } else {
    absl::StatusOr<Workload> created;
    if (const std::string path = absl::GetFlag(FLAGS_request_file);
        !path.empty()) {
      std::ifstream in(path, std::ios::binary);
      if (!in) return Fail("cannot read --request_file " + path);
      const std::string json((std::istreambuf_iterator<char>(in)), {});
      created = Workload::FromJson(w, json);
      if (created.ok()) w = created->options();
    } else {
      created = Workload::Create(w);
    }
    if (!created.ok()) return Fail(created.status().ToString());
    if (const std::string path = absl::GetFlag(FLAGS_dump_request);
        !path.empty()) {
      return DumpRequest(created->Get(0), path);
    }
    workload = *std::move(created);
  }

  ReportConfig rc;
  rc.target = o.target;
  rc.ops = absl::GetFlag(FLAGS_rpc);
  rc.kinds = scene_load ? "" : absl::GetFlag(FLAGS_kinds);
  rc.scene = scene;
  rc.batch = w.batch;
  rc.concurrency = o.concurrency;
  rc.connections = o.connections;
  rc.engine = o.blocking ? "blocking" : absl::GetFlag(FLAGS_engine);
  rc.rate = o.rate;
  rc.poisson = o.poisson;
  if (o.schedule.kind != RunOptions::Schedule::Kind::kConst) {
    const bool step = o.schedule.kind == RunOptions::Schedule::Kind::kStep;
    rc.schedule = absl::StrFormat(
        "%s %+g req/s %s%s", step ? "step" : "line", o.schedule.step,
        step ? absl::StrCat("every ",
                            absl::FormatDuration(o.schedule.step_every))
             : std::string("per second"),
        o.schedule.end > 0 ? absl::StrFormat(", up to %g", o.schedule.end)
                           : std::string());
  }
  rc.seed = w.seed;
  rc.warmup_s = absl::ToDoubleSeconds(o.warmup);
  rc.requests = o.requests;
  rc.duration_s = o.requests > 0 ? 0 : absl::ToDoubleSeconds(o.duration);
  rc.tool_version = absl::StrCat("collision_load ", COLLISION_VERSION);
  rc.interval_s = absl::ToDoubleSeconds(o.progress_interval);

  // A baseline is checked before the run: one that cannot be read, or of
  // another workload, would waste the run.
  std::optional<Baseline> baseline;
  if (const std::string path = absl::GetFlag(FLAGS_baseline); !path.empty()) {
    auto read = ReadBaseline(path);
    if (!read.ok()) return Fail("--baseline: " + read.status().ToString());
    if (const std::string diff = WorkloadDifference(rc, *read); !diff.empty()) {
      return Fail(absl::StrCat(
          "--baseline ran a different workload (", diff,
          "); its numbers are not comparable: rerun it with these flags"));
    }
    baseline = *std::move(read);
  }

  rc.started_at =
      absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  absl::StatusOr<RunResult> run =
      scene_load ? RunScenes(o, *scene) : Run(o, *workload);
  if (!run.ok()) return Fail(run.status().ToString());
  const Report report = MakeReport(rc, *std::move(run));

  const std::string text = format == "json"  ? JsonReport(report)
                           : format == "csv" ? CsvReport(report)
                                             : TextReport(report);
  std::fputs(text.c_str(), stdout);
  struct Out {
    std::string path;
    std::string (*write)(const Report&);
  };
  for (const Out& out : {Out{absl::GetFlag(FLAGS_json_out), JsonReport},
                         Out{absl::GetFlag(FLAGS_csv_out), CsvReport},
                         Out{absl::GetFlag(FLAGS_html_out), HtmlReport}}) {
    if (!out.path.empty() && !WriteFile(out.path, out.write(report))) {
      return Fail("cannot write " + out.path);
    }
  }

  // Every condition is said on stderr; the exit status is the first of
  // 2 (wrong answers), 4 (failed calls), 5 (rate not reached), 3
  // (regression) that applies.
  const char* calls = scene_load ? "ticks" : "calls";
  bool mismatched = false, failed = false, short_of_rate = false,
       regressed = false;
  if (report.run.scenes > report.run.scenes_opened) {
    std::fprintf(stderr,
                 "collision_load: %d of %d scenes could not be opened: %s\n",
                 report.run.scenes - report.run.scenes_opened,
                 report.run.scenes, report.run.scene_open_error.c_str());
    failed = true;
  }
  const double max_error_rate = absl::GetFlag(FLAGS_max_error_rate);
  if (report.run.requests == 0) {
    std::fprintf(stderr, "collision_load: no %s was measured\n",
                 scene_load ? "tick" : "call");
    failed = true;
  } else if (double(report.run.errors) >
             max_error_rate * double(report.run.requests)) {
    std::string codes;
    for (const auto& [code, n] : report.run.status_counts) {
      if (code != "OK") absl::StrAppend(&codes, " ", code, ":", n);
    }
    std::fprintf(
        stderr,
        "collision_load: %lld of %lld %s failed (%.2f%%), above "
        "--max_error_rate=%g;%s\n",
        static_cast<long long>(report.run.errors),
        static_cast<long long>(report.run.requests), calls,
        100.0 * double(report.run.errors) / double(report.run.requests),
        max_error_rate, codes.c_str());
    failed = true;
  }
  if (report.run.due > 0 && report.run.unsent > 0) {
    const double shortfall = double(report.run.unsent) / double(report.run.due);
    if (scene_load) {
      std::fprintf(
          stderr,
          "collision_load: the tick rate was not reached: %lld of the %lld "
          "ticks due at --tick_rate=%g in %d scenes in --duration were not "
          "sent (%.1f%%): a scene sends a tick once the one before is "
          "answered; a slower --tick_rate, fewer --scene_entities or "
          "queries, or fewer scenes (--concurrency) fit this server\n",
          static_cast<long long>(report.run.unsent),
          static_cast<long long>(report.run.due), scene->tick_rate,
          o.concurrency, 100.0 * shortfall);
    } else {
      std::fprintf(stderr,
                   "collision_load: the rate was not reached: %lld of the "
                   "%lld calls due at --rate=%g in --duration were not sent "
                   "(%.1f%%): all %d slots of --concurrency were busy; raise "
                   "--concurrency (or --connections) or lower --rate\n",
                   static_cast<long long>(report.run.unsent),
                   static_cast<long long>(report.run.due), o.rate,
                   100.0 * shortfall, o.concurrency);
    }
    short_of_rate = shortfall > absl::GetFlag(FLAGS_max_rate_shortfall);
  }
  if (report.run.mismatches > 0) {
    std::fprintf(stderr, "collision_load: --verify: %lld mismatching answers\n",
                 static_cast<long long>(report.run.mismatches));
    mismatched = true;
  }
  if (baseline.has_value()) {
    const std::vector<std::string> regressions =
        Regressions(report, *baseline, absl::GetFlag(FLAGS_max_regression));
    for (const std::string& r : regressions) {
      std::fprintf(stderr, "collision_load: regression: %s\n", r.c_str());
    }
    regressed = !regressions.empty();
  }
  return mismatched ? 2 : failed ? 4 : short_of_rate ? 5 : regressed ? 3 : 0;
}

// gRPC keeps threads of its own (callback completion queues) that can still
// be winding down when Main returns; static destructors then race with them
// (seen under ASan as a double free in grpc_cq_internal_unref after a junk
// --baseline). Everything is written and the status known by then: flush and
// leave without running them.
int main(int argc, char** argv) {
  // Debian's absl builds check every Mutex acquisition for lock-order
  // cycles, a debug aid paid on every call under load
  // (docs/decisions/0022-mutex-deadlock-detection-off.md). The tests,
  // which run without this, keep it on.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const int status = Main(argc, argv);
  std::fflush(nullptr);
  std::_Exit(status);
}
