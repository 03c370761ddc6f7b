// PrometheusMetrics on 127.0.0.1:0, scraped over loopback by a small HTTP/1.0
// client, with every asserted value known in advance.
#include "server/observability/metrics.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/util/http_get.h"

namespace collision::server {
namespace {

using ::collision::testing::HttpGet;
using ::collision::testing::ParseSamples;
using ::testing::HasSubstr;

std::string Scrape(const PrometheusMetrics& m) {
  absl::StatusOr<std::string> body = HttpGet(m.port(), "/metrics");
  EXPECT_TRUE(body.ok()) << body.status();
  return body.ok() ? *body : "";
}

// Label text of the per-method series, in exposition order (sorted by name).
std::string MethodLabels(const std::string& method,
                         const std::string& type = "unary") {
  return absl::StrCat("grpc_method=\"", method,
                      "\",grpc_service=\"collision.v1.CollisionService\","
                      "grpc_type=\"",
                      type, "\"");
}

std::string Handled(const std::string& code, const std::string& method,
                    const std::string& type = "unary") {
  return absl::StrCat("grpc_server_handled_total{grpc_code=\"", code, "\",",
                      MethodLabels(method, type), "}");
}

std::unique_ptr<PrometheusMetrics> StartOnPortZero(
    const std::string& simd_target = "AVX3") {
  PrometheusOptions options;
  options.address = "127.0.0.1:0";
  options.simd_target = simd_target;
  auto m = PrometheusMetrics::Start(options);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *std::move(m) : nullptr;
}

TEST(PrometheusMetrics, ScrapeShowsExactCountsForARecordedSequence) {
  std::unique_ptr<PrometheusMetrics> m = StartOnPortZero();
  ASSERT_NE(m, nullptr);
  ASSERT_GT(m->port(), 0);

  for (int i = 0; i < 4; ++i) {
    m->CallStarted("Intersect", "unary");
    m->MessageReceived("Intersect", "unary");
  }
  for (int i = 0; i < 3; ++i) {
    m->MessageSent("Intersect", "unary");
    m->CallHandled("Intersect", "unary", grpc::StatusCode::OK, 20e-6);
  }
  m->CallHandled("Intersect", "unary", grpc::StatusCode::INVALID_ARGUMENT,
                 5e-6);
  m->Rejected("invalid_argument");
  m->CallStarted("QueryStream", "bidi_stream");
  for (int i = 0; i < 5; ++i) m->MessageReceived("QueryStream", "bidi_stream");
  for (int i = 0; i < 4; ++i) m->MessageSent("QueryStream", "bidi_stream");
  m->CallHandled("QueryStream", "bidi_stream", grpc::StatusCode::UNAVAILABLE,
                 0.75);
  m->Rejected("overloaded");
  m->Rejected("overloaded");
  m->PairsProcessed("circle_rect", 64);
  m->PairsProcessed("circle_rect", 1000);
  m->PairsProcessed("box_box", 7);
  m->PairsProcessed("closest_sphere", 3);
  m->SetInFlight(5);
  m->SetInFlight(2);

  const std::string body = Scrape(*m);
  // The exact text for a few lines pins the exposition format itself.
  EXPECT_THAT(body, HasSubstr("\n" + Handled("OK", "Intersect") + " 3\n"));
  EXPECT_THAT(body, HasSubstr("\ngrpc_server_started_total{" +
                              MethodLabels("Intersect") + "} 4\n"));
  EXPECT_THAT(body, HasSubstr("\ncollision_pairs_total{kind=\"circle_rect\"} "
                              "1064\n"));
  EXPECT_THAT(body, HasSubstr("\ncollision_in_flight 2\n"));
  EXPECT_THAT(body, HasSubstr("# TYPE grpc_server_handled_total counter\n"));
  EXPECT_THAT(body,
              HasSubstr("# TYPE grpc_server_handling_seconds histogram\n"));
  EXPECT_THAT(body, HasSubstr("# TYPE collision_in_flight gauge\n"));

  std::map<std::string, double> s = ParseSamples(body);
  EXPECT_EQ(s[Handled("OK", "Intersect")], 3);
  EXPECT_EQ(s[Handled("INVALID_ARGUMENT", "Intersect")], 1);
  EXPECT_EQ(s[Handled("UNAVAILABLE", "Intersect")], 0);
  EXPECT_EQ(s[Handled("UNAVAILABLE", "QueryStream", "bidi_stream")], 1);
  EXPECT_EQ(s["grpc_server_started_total{" +
              MethodLabels("QueryStream", "bidi_stream") + "}"],
            1);
  EXPECT_EQ(
      s["grpc_server_msg_received_total{" + MethodLabels("Intersect") + "}"],
      4);
  EXPECT_EQ(s["grpc_server_msg_sent_total{" + MethodLabels("Intersect") + "}"],
            3);
  EXPECT_EQ(s["grpc_server_msg_received_total{" +
              MethodLabels("QueryStream", "bidi_stream") + "}"],
            5);
  EXPECT_EQ(s["grpc_server_msg_sent_total{" +
              MethodLabels("QueryStream", "bidi_stream") + "}"],
            4);
  EXPECT_EQ(s["collision_pairs_total{kind=\"box_box\"}"], 7);
  EXPECT_EQ(s["collision_pairs_total{kind=\"closest_sphere\"}"], 3);
  EXPECT_EQ(s["collision_rejected_total{reason=\"invalid_argument\"}"], 1);
  EXPECT_EQ(s["collision_rejected_total{reason=\"overloaded\"}"], 2);
  EXPECT_EQ(s["collision_rejected_total{reason=\"deadline\"}"], 0);
}

TEST(PrometheusMetrics, HandlingHistogramHasExactBucketsCountAndSum) {
  std::unique_ptr<PrometheusMetrics> m = StartOnPortZero();
  ASSERT_NE(m, nullptr);
  // Binary fractions, so the sum is exact: 2^-15 s (~30.5 us), 2^-12 s
  // (~244 us), 2^-8 s (~3.9 ms), 0.5 s exactly on a bound, 20 s past the last.
  const double observed[] = {0.000030517578125, 0.000244140625, 0.00390625, 0.5,
                             20.0};
  for (double seconds : observed) {
    m->CallHandled("ClosestPoint", "unary", grpc::StatusCode::OK, seconds);
  }
  const std::string body = Scrape(*m);
  std::map<std::string, double> s = ParseSamples(body);
  const std::string labels = MethodLabels("ClosestPoint");
  auto bucket = [&](const std::string& le) {
    const std::string key = absl::StrCat("grpc_server_handling_seconds_bucket{",
                                         labels, ",le=\"", le, "\"}");
    EXPECT_EQ(s.count(key), 1u) << key << " missing in\n" << body;
    return s[key];
  };
  EXPECT_EQ(bucket("1e-05"), 0);
  EXPECT_EQ(bucket("2.5e-05"), 0);
  EXPECT_EQ(bucket("5e-05"), 1);
  EXPECT_EQ(bucket("0.00025"), 2);
  EXPECT_EQ(bucket("0.0025"), 2);
  EXPECT_EQ(bucket("0.005"), 3);
  EXPECT_EQ(bucket("0.25"), 3);
  EXPECT_EQ(bucket("0.5"), 4);  // "le" is inclusive
  EXPECT_EQ(bucket("10"), 4);
  EXPECT_EQ(bucket("+Inf"), 5);
  EXPECT_EQ(s["grpc_server_handling_seconds_count{" + labels + "}"], 5);
  EXPECT_DOUBLE_EQ(s["grpc_server_handling_seconds_sum{" + labels + "}"],
                   20.504180908203125);
  // A method that was never called exports an empty histogram.
  EXPECT_EQ(s["grpc_server_handling_seconds_count{" +
              MethodLabels("Intersect") + "}"],
            0);
}

TEST(PrometheusMetrics, EveryKnownLabelSetIsExportedAtZeroBeforeUse) {
  std::unique_ptr<PrometheusMetrics> m = StartOnPortZero();
  ASSERT_NE(m, nullptr);
  std::map<std::string, double> s = ParseSamples(Scrape(*m));
  const std::pair<const char*, const char*> methods[] = {
      {"Intersect", "unary"},
      {"ClosestPoint", "unary"},
      {"IntersectColumns", "unary"},
      {"ClosestPointColumns", "unary"},
      {"QueryStream", "bidi_stream"}};
  const char* codes[] = {"OK",
                         "CANCELLED",
                         "UNKNOWN",
                         "INVALID_ARGUMENT",
                         "DEADLINE_EXCEEDED",
                         "NOT_FOUND",
                         "ALREADY_EXISTS",
                         "PERMISSION_DENIED",
                         "RESOURCE_EXHAUSTED",
                         "FAILED_PRECONDITION",
                         "ABORTED",
                         "OUT_OF_RANGE",
                         "UNIMPLEMENTED",
                         "INTERNAL",
                         "UNAVAILABLE",
                         "DATA_LOSS",
                         "UNAUTHENTICATED"};
  for (const auto& [method, type] : methods) {
    for (const char* code : codes) {
      EXPECT_EQ(s.count(Handled(code, method, type)), 1u)
          << Handled(code, method, type);
    }
    for (const char* family :
         {"grpc_server_started_total", "grpc_server_msg_received_total",
          "grpc_server_msg_sent_total", "grpc_server_handling_seconds_count"}) {
      const std::string key =
          absl::StrCat(family, "{", MethodLabels(method, type), "}");
      EXPECT_EQ(s.count(key), 1u) << key;
    }
  }
  for (const char* kind :
       {"circle_circle", "circle_rect", "circle_rotated_rect", "rect_rect",
        "sphere_sphere", "sphere_box", "box_box", "closest_circle",
        "closest_rect", "closest_rotated_rect", "closest_sphere",
        "closest_box"}) {
    EXPECT_EQ(
        s.count(absl::StrCat("collision_pairs_total{kind=\"", kind, "\"}")), 1u)
        << kind;
  }
  for (const char* reason :
       {"invalid_argument", "overloaded", "deadline", "cancelled"}) {
    EXPECT_EQ(s.count(absl::StrCat("collision_rejected_total{reason=\"", reason,
                                   "\"}")),
              1u)
        << reason;
  }
  EXPECT_EQ(s["collision_in_flight"], 0);
}

TEST(PrometheusMetrics, EveryStatusCodeHasItsCanonicalName) {
  std::unique_ptr<PrometheusMetrics> m = StartOnPortZero();
  ASSERT_NE(m, nullptr);
  for (int c = 0; c <= 16; ++c) {
    for (int i = 0; i <= c; ++i) {
      m->CallHandled("IntersectColumns", "unary",
                     static_cast<grpc::StatusCode>(c), 1e-4);
    }
  }
  std::map<std::string, double> s = ParseSamples(Scrape(*m));
  EXPECT_EQ(s[Handled("OK", "IntersectColumns")], 1);
  EXPECT_EQ(s[Handled("CANCELLED", "IntersectColumns")], 2);
  EXPECT_EQ(s[Handled("DEADLINE_EXCEEDED", "IntersectColumns")], 5);
  EXPECT_EQ(s[Handled("RESOURCE_EXHAUSTED", "IntersectColumns")], 9);
  EXPECT_EQ(s[Handled("UNAVAILABLE", "IntersectColumns")], 15);
  EXPECT_EQ(s[Handled("UNAUTHENTICATED", "IntersectColumns")], 17);
}

TEST(PrometheusMetrics, SimdTargetIsAnInfoMetricWithValueOne) {
  std::unique_ptr<PrometheusMetrics> m = StartOnPortZero("AVX3_ZEN4");
  ASSERT_NE(m, nullptr);
  const std::string body = Scrape(*m);
  EXPECT_THAT(body,
              HasSubstr("\ncollision_simd_info{target=\"AVX3_ZEN4\"} 1\n"));

  std::unique_ptr<PrometheusMetrics> unnamed = StartOnPortZero("");
  ASSERT_NE(unnamed, nullptr);
  EXPECT_THAT(Scrape(*unnamed),
              HasSubstr("\ncollision_simd_info{target=\"unknown\"} 1\n"));
}

TEST(PrometheusMetrics, BuildInfoAndTheStandardProcessMetricsAreExported) {
  PrometheusOptions options;
  options.address = "127.0.0.1:0";
  options.simd_target = "AVX2";
  options.version = "1.2.3";
  options.build_type = "Release";
  auto m = PrometheusMetrics::Start(options);
  ASSERT_TRUE(m.ok()) << m.status();
  // CPU time is counted in ticks of 10 ms: spend a few first.
  volatile uint64_t spin = 0;
  while (std::clock() < CLOCKS_PER_SEC / 20) spin = spin + 1;
  const std::string body = Scrape(**m);
  EXPECT_THAT(body, HasSubstr("\ncollision_build_info{build_type=\"Release\","
                              "simd_target=\"AVX2\",version=\"1.2.3\"} 1\n"));
  std::map<std::string, double> values;
  for (const auto& [name, value] : ParseSamples(body)) values[name] = value;
  // This very process: the numbers /proc and getrlimit give.
  EXPECT_GT(values["process_cpu_seconds_total"], 0);
  EXPECT_GT(values["process_resident_memory_bytes"], 1 << 20);
  EXPECT_GE(values["process_virtual_memory_bytes"],
            values["process_resident_memory_bytes"]);
  EXPECT_GE(values["process_open_fds"], 3);  // stdin, stdout, stderr at least
  rlimit files{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &files), 0);
  EXPECT_EQ(values["process_max_fds"], static_cast<double>(files.rlim_cur));
  // Started before now, and after the Unix epoch's first year.
  EXPECT_LE(values["process_start_time_seconds"],
            absl::ToUnixSeconds(absl::Now()) + 1);
  EXPECT_GT(values["process_start_time_seconds"], 365.0 * 24 * 3600);
  for (const char* family :
       {"process_cpu_seconds_total counter",
        "process_resident_memory_bytes gauge", "process_open_fds gauge"}) {
    EXPECT_THAT(body, HasSubstr(absl::StrCat("# TYPE ", family)));
  }
}

TEST(PrometheusMetrics, UnknownLabelsAreCountedOnTheSlowPath) {
  std::unique_ptr<PrometheusMetrics> m = StartOnPortZero();
  ASSERT_NE(m, nullptr);
  m->CallStarted("FutureMethod", "server_stream");
  m->CallStarted("FutureMethod", "server_stream");
  m->CallHandled("FutureMethod", "server_stream", grpc::StatusCode::OK, 1e-3);
  // A known method with a type it does not have is its own label set.
  m->CallStarted("Intersect", "bidi_stream");
  m->PairsProcessed("capsule_capsule", 11);
  m->Rejected("too_large");
  // gRPC reports an out-of-range code as UNKNOWN.
  m->CallHandled("Intersect", "unary", static_cast<grpc::StatusCode>(99), 0);

  std::map<std::string, double> s = ParseSamples(Scrape(*m));
  EXPECT_EQ(s["grpc_server_started_total{" +
              MethodLabels("FutureMethod", "server_stream") + "}"],
            2);
  EXPECT_EQ(s[Handled("OK", "FutureMethod", "server_stream")], 1);
  EXPECT_EQ(s["grpc_server_handling_seconds_count{" +
              MethodLabels("FutureMethod", "server_stream") + "}"],
            1);
  EXPECT_EQ(s["grpc_server_started_total{" +
              MethodLabels("Intersect", "bidi_stream") + "}"],
            1);
  EXPECT_EQ(s["grpc_server_started_total{" + MethodLabels("Intersect") + "}"],
            0);
  EXPECT_EQ(s["collision_pairs_total{kind=\"capsule_capsule\"}"], 11);
  EXPECT_EQ(s["collision_rejected_total{reason=\"too_large\"}"], 1);
  EXPECT_EQ(s[Handled("UNKNOWN", "Intersect")], 1);
}

TEST(PrometheusMetrics, TwoInstancesOnPortZeroGetDifferentPorts) {
  std::unique_ptr<PrometheusMetrics> a = StartOnPortZero();
  std::unique_ptr<PrometheusMetrics> b = StartOnPortZero();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_GT(a->port(), 0);
  EXPECT_GT(b->port(), 0);
  EXPECT_NE(a->port(), b->port());
  // Each endpoint serves its own registry.
  a->Rejected("deadline");
  std::map<std::string, double> sa = ParseSamples(Scrape(*a));
  std::map<std::string, double> sb = ParseSamples(Scrape(*b));
  EXPECT_EQ(sa["collision_rejected_total{reason=\"deadline\"}"], 1);
  EXPECT_EQ(sb["collision_rejected_total{reason=\"deadline\"}"], 0);
}

TEST(PrometheusMetrics, BusyPortIsAnErrorStatus) {
  std::unique_ptr<PrometheusMetrics> a = StartOnPortZero();
  ASSERT_NE(a, nullptr);
  PrometheusOptions options;
  options.address = absl::StrCat("127.0.0.1:", a->port());
  auto b = PrometheusMetrics::Start(options);
  EXPECT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr(options.address));
}

TEST(PrometheusMetrics, EmptyAddressIsInvalid) {
  PrometheusOptions options;
  options.address = "";
  auto m = PrometheusMetrics::Start(options);
  EXPECT_EQ(m.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PrometheusMetrics, StoppedEndpointRefusesConnections) {
  std::unique_ptr<PrometheusMetrics> m = StartOnPortZero();
  ASSERT_NE(m, nullptr);
  const int port = m->port();
  ASSERT_TRUE(HttpGet(port, "/metrics").ok());
  m.reset();
  EXPECT_FALSE(HttpGet(port, "/metrics", absl::Seconds(1)).ok());
}

TEST(PrometheusMetrics, ConcurrentRecordingGivesExactTotals) {
  std::unique_ptr<PrometheusMetrics> m = StartOnPortZero();
  ASSERT_NE(m, nullptr);
  constexpr int kThreads = 4;
  constexpr int kCalls = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&m, t] {
      for (int i = 0; i < kCalls; ++i) {
        m->CallStarted("Intersect", "unary");
        m->MessageReceived("Intersect", "unary");
        m->PairsProcessed("circle_circle", 3);
        m->CallHandled(
            "Intersect", "unary",
            i % 2 == 0 ? grpc::StatusCode::OK : grpc::StatusCode::UNAVAILABLE,
            1e-4);
        m->SetInFlight(t);
        if (i % 100 == 0) {
          m->Rejected("overloaded");
          m->CallStarted("SlowPathMethod", "unary");  // locked path
        }
      }
    });
  }
  // Scrapes while the counters move must not disturb them.
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(HttpGet(m->port(), "/metrics").ok());
  for (auto& t : threads) t.join();

  std::map<std::string, double> s = ParseSamples(Scrape(*m));
  const double total = kThreads * kCalls;
  EXPECT_EQ(s["grpc_server_started_total{" + MethodLabels("Intersect") + "}"],
            total);
  EXPECT_EQ(
      s["grpc_server_msg_received_total{" + MethodLabels("Intersect") + "}"],
      total);
  EXPECT_EQ(s[Handled("OK", "Intersect")], total / 2);
  EXPECT_EQ(s[Handled("UNAVAILABLE", "Intersect")], total / 2);
  EXPECT_EQ(s["grpc_server_handling_seconds_count{" +
              MethodLabels("Intersect") + "}"],
            total);
  EXPECT_EQ(s["grpc_server_handling_seconds_bucket{" +
              MethodLabels("Intersect") + ",le=\"0.0001\"}"],
            total);
  EXPECT_EQ(s["collision_pairs_total{kind=\"circle_circle\"}"], 3 * total);
  EXPECT_EQ(s["collision_rejected_total{reason=\"overloaded\"}"],
            kThreads * kCalls / 100);
  EXPECT_EQ(
      s["grpc_server_started_total{" + MethodLabels("SlowPathMethod") + "}"],
      kThreads * kCalls / 100);
  const double in_flight = s["collision_in_flight"];
  EXPECT_GE(in_flight, 0);
  EXPECT_LT(in_flight, kThreads);
}

TEST(NullMetrics, AcceptsEveryCall) {
  std::unique_ptr<Metrics> m = MakeNullMetrics();
  ASSERT_NE(m, nullptr);
  m->CallStarted("Intersect", "unary");
  m->MessageReceived("Intersect", "unary");
  m->MessageSent("Intersect", "unary");
  m->CallHandled("Intersect", "unary", grpc::StatusCode::OK, 1e-5);
  m->CallHandled("Unknown", "x", static_cast<grpc::StatusCode>(-1), -1);
  m->PairsProcessed("circle_rect", 10);
  m->Rejected("overloaded");
  m->SetInFlight(3);
}

}  // namespace
}  // namespace collision::server
