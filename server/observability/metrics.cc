// Prometheus metrics for the service.
//
// Hot path design (no allocation, no lock after setup):
// - Every label set the service is known to use (the five RPCs with their
//   gRPC type, all 17 status codes, the pair kinds, the reject reasons) is
//   created once in the constructor through prometheus-cpp's Family::Add,
//   which locks and allocates; the returned metric pointers are kept in
//   fixed arrays. A call maps its strings to array indices by comparing
//   against a handful of string_views (length first, then memcmp) and then
//   touches only the cached metric.
// - prometheus::Counter and prometheus::Gauge update an std::atomic<double>
//   with a compare-exchange loop: lock-free. prometheus::Histogram::Observe
//   in 1.0.1 takes a std::mutex, so the handling-time histogram is our own
//   AtomicHistogram (atomic_histogram.h: relaxed atomic bucket counters and
//   an atomic sum), exported through a custom prometheus::Collectable
//   registered on the same Exposer. Only a scrape (Collect) takes that
//   collectable's mutex.
// - Label sets outside the known tables (a new method, kind or reason) take
//   a slow path that locks; they still get counted, so nothing is lost when
//   the service grows before this table does.
#include "server/observability/metrics.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collision/core/kinds.h"
#include "prometheus/client_metric.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"
#include "prometheus/registry.h"
#include "server/observability/atomic_histogram.h"
#include "server/observability/process_metrics.h"

namespace collision::server {
namespace {

constexpr char kServiceName[] = "collision.v1.CollisionService";

// The gRPC service and method names of a method as the server counts it:
// SceneSession is collision.v1.SceneService/Session.
std::pair<std::string, std::string> GrpcNames(const std::string& method) {
  if (method == "SceneSession") return {"collision.v1.SceneService", "Session"};
  return {kServiceName, method};
}

struct KnownMethod {
  std::string_view name;
  std::string_view type;
};
// Each RPC with the only gRPC type it has (see collision.proto).
// SceneSession is collision.v1.SceneService/Session, counted with these.
constexpr std::array<KnownMethod, 7> kKnownMethods = {{
    {"Intersect", "unary"},
    {"ClosestPoint", "unary"},
    {"IntersectColumns", "unary"},
    {"ClosestPointColumns", "unary"},
    {"QueryStream", "bidi_stream"},
    {"SceneSession", "bidi_stream"},
    {"SceneSession", "tcp_stream"},  // the scene port (scene_port.h)
}};

// The bidi streams, whose messages get per-message series.
constexpr std::array<std::string_view, 2> kStreamMethods = {"QueryStream",
                                                            "SceneSession"};

constexpr std::array<std::string_view, 4> kSceneQueryKinds = {
    "overlap", "nearest", "raycast", "sweep"};

// The work kinds' names, from the core's kind table (kinds.h).
constexpr std::array<std::string_view, kWorkKinds> kKnownKinds = [] {
  std::array<std::string_view, kWorkKinds> names{};
  for (int k = 0; k < kWorkKinds; ++k) names[k] = kWorkKindTable[k].name;
  return names;
}();

constexpr std::array<std::string_view, 9> kKnownReasons = {
    "invalid_argument",   "overloaded",       "deadline",
    "cancelled",          "no_message",       "unauthenticated",
    "metadata_too_large", "transport_memory", "scene_budget"};

// Indexed by the numeric grpc::StatusCode (0..16).
constexpr int kNumCodes = 17;
// A code's canonical name ("INVALID_ARGUMENT"): gRPC's and absl's codes are
// the same numbers.
std::string CodeName(int code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}
constexpr int kUnknownCodeIndex = 2;

template <std::size_t N>
int IndexOf(std::string_view s, const std::array<std::string_view, N>& names) {
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) return static_cast<int>(i);
  }
  return -1;
}

int KnownMethodIndex(std::string_view method, std::string_view type) {
  for (std::size_t i = 0; i < kKnownMethods.size(); ++i) {
    if (method == kKnownMethods[i].name && type == kKnownMethods[i].type) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int CodeIndex(grpc::StatusCode code) {
  const int c = static_cast<int>(code);
  // gRPC itself reports an out-of-range code as UNKNOWN on the wire.
  return c >= 0 && c < kNumCodes ? c : kUnknownCodeIndex;
}

class NullMetrics final : public Metrics {
 public:
  void CallStarted(const std::string&, const std::string&) override {}
  void CallHandled(const std::string&, const std::string&, grpc::StatusCode,
                   double) override {}
  void MessageReceived(const std::string&, const std::string&) override {}
  void MessageSent(const std::string&, const std::string&) override {}
  void StreamMessageHandled(const std::string&, grpc::StatusCode,
                            double) override {}
  void PairsProcessed(const std::string&, uint64_t) override {}
  void Rejected(const std::string&) override {}
  void SetInFlight(int64_t) override {}
  void SetConnections(int64_t) override {}
  void SetTransportHeld(int64_t) override {}
  void ScenesChanged(int64_t, int64_t) override {}
  void SceneQueries(const std::string&, uint64_t) override {}
  void SceneMessageHandled(double) override {}
  void SceneRewoundQueries(uint64_t, uint64_t) override {}
  void SceneHistoryChanged(int64_t) override {}
  void SceneMemoryChanged(int64_t, int64_t) override {}
};

class PrometheusMetricsImpl final : public PrometheusMetrics {
 public:
  explicit PrometheusMetricsImpl(const PrometheusOptions& options)
      : registry_(std::make_shared<prometheus::Registry>()),
        handling_(std::make_shared<HistogramFamily>(
            "grpc_server_handling_seconds",
            "Time from the start of an RPC to its status, in seconds.")),
        started_(prometheus::BuildCounter()
                     .Name("grpc_server_started_total")
                     .Help("RPCs started on the server.")
                     .Register(*registry_)),
        handled_(prometheus::BuildCounter()
                     .Name("grpc_server_handled_total")
                     .Help("RPCs completed on the server, by status code.")
                     .Register(*registry_)),
        received_(prometheus::BuildCounter()
                      .Name("grpc_server_msg_received_total")
                      .Help("Messages received by the server.")
                      .Register(*registry_)),
        sent_(prometheus::BuildCounter()
                  .Name("grpc_server_msg_sent_total")
                  .Help("Messages sent by the server.")
                  .Register(*registry_)),
        pairs_(prometheus::BuildCounter()
                   .Name("collision_pairs_total")
                   .Help("Pair tests and closest-point queries computed, by "
                         "pair kind.")
                   .Register(*registry_)),
        rejected_(prometheus::BuildCounter()
                      .Name("collision_rejected_total")
                      .Help("Requests rejected before compute, by reason.")
                      .Register(*registry_)),
        in_flight_(prometheus::BuildGauge()
                       .Name("collision_in_flight")
                       .Help("Requests being computed right now.")
                       .Register(*registry_)
                       .Add({})),
        connections_(prometheus::BuildGauge()
                         .Name("collision_connections")
                         .Help("Connections open on the main port (counted "
                               "when it is plaintext: --max_connections).")
                         .Register(*registry_)
                         .Add({})),
        transport_held_(
            prometheus::BuildGauge()
                .Name("collision_transport_held_bytes")
                .Help("Bytes the main port's connections sent that no call "
                      "has taken yet (messages still arriving; read every "
                      "second, more often under memory pressure); past "
                      "--transport_memory_bytes the connections holding "
                      "the most are cut.")
                .Register(*registry_)
                .Add({})),
        scenes_(prometheus::BuildGauge()
                    .Name("collision_scenes_open")
                    .Help("Scenes (SceneService.Session streams) open.")
                    .Register(*registry_)
                    .Add({})),
        scene_entities_(prometheus::BuildGauge()
                            .Name("collision_scene_entities")
                            .Help("Entities in all open scenes.")
                            .Register(*registry_)
                            .Add({})),
        scene_queries_(prometheus::BuildCounter()
                           .Name("collision_scene_queries_total")
                           .Help("Scene queries answered, by kind.")
                           .Register(*registry_)),
        scene_message_(std::make_shared<HistogramFamily>(
            "collision_scene_message_seconds",
            "Time to apply and answer one scene message, in seconds.")),
        scene_message_seconds_(scene_message_->Add({})),
        stream_message_(std::make_shared<HistogramFamily>(
            "collision_stream_message_seconds",
            "Time from reading one stream message to handing its answer "
            "to the transport, in seconds.")),
        stream_messages_(prometheus::BuildCounter()
                             .Name("collision_stream_messages_total")
                             .Help("Stream messages answered, by the status "
                                   "of each message's own answer.")
                             .Register(*registry_)),
        rewound_(prometheus::BuildCounter()
                     .Name("collision_scene_rewound_queries_total")
                     .Help("Rewound scene queries (with `at`) answered, by "
                           "whether the moment was clamped to the oldest "
                           "tick kept.")
                     .Register(*registry_)),
        rewound_exact_(rewound_.Add({{"clamped", "false"}})),
        rewound_clamped_(rewound_.Add({{"clamped", "true"}})),
        history_bytes_(prometheus::BuildGauge()
                           .Name("collision_scene_history_bytes")
                           .Help("Memory held by the histories of all open "
                                 "scenes (rewound queries), in bytes.")
                           .Register(*registry_)
                           .Add({})),
        scene_memory_(prometheus::BuildGauge()
                          .Name("collision_scene_memory_bytes")
                          .Help("Memory held by all open scenes: entities, "
                                "their index and histories, in bytes.")
                          .Register(*registry_)
                          .Add({})),
        scene_reserved_(prometheus::BuildGauge()
                            .Name("collision_scene_reserved_bytes")
                            .Help("Memory reserved by all open scenes when "
                                  "they opened (at most "
                                  "--scenes_memory_bytes), in bytes.")
                            .Register(*registry_)
                            .Add({})) {
    for (std::size_t i = 0; i < kSceneQueryKinds.size(); ++i) {
      known_scene_queries_[i] =
          &scene_queries_.Add({{"kind", std::string(kSceneQueryKinds[i])}});
    }
    for (std::size_t i = 0; i < kKnownMethods.size(); ++i) {
      known_methods_[i] = MakeSeries(std::string(kKnownMethods[i].name),
                                     std::string(kKnownMethods[i].type));
    }
    for (std::size_t i = 0; i < kStreamMethods.size(); ++i) {
      const std::string method(kStreamMethods[i]);
      stream_series_[i].seconds =
          stream_message_->Add({{"grpc_method", method}});
      for (int c = 0; c < kNumCodes; ++c) {
        stream_series_[i].answered[static_cast<std::size_t>(c)] =
            &stream_messages_.Add(
                {{"grpc_method", method}, {"grpc_code", CodeName(c)}});
      }
    }
    for (std::size_t i = 0; i < kKnownKinds.size(); ++i) {
      known_pairs_[i] = &pairs_.Add({{"kind", std::string(kKnownKinds[i])}});
    }
    for (std::size_t i = 0; i < kKnownReasons.size(); ++i) {
      known_rejected_[i] =
          &rejected_.Add({{"reason", std::string(kKnownReasons[i])}});
    }
    const std::string simd_target =
        options.simd_target.empty() ? "unknown" : options.simd_target;
    prometheus::BuildGauge()
        .Name("collision_simd_info")
        .Help("The SIMD target the collision kernels dispatch to (always 1).")
        .Register(*registry_)
        .Add({{"target", simd_target}})
        .Set(1);
    prometheus::BuildGauge()
        .Name("collision_build_info")
        .Help("The build serving (always 1): version, build type, SIMD target.")
        .Register(*registry_)
        .Add({{"version", options.version},
              {"build_type", options.build_type},
              {"simd_target", simd_target}})
        .Set(1);
  }

  ~PrometheusMetricsImpl() override {
    // Stop serving before the collectables go away.
    exposer_.reset();
  }

  absl::Status Listen(const std::string& address) {
    if (address.empty()) {
      return absl::InvalidArgumentError("metrics address must not be empty");
    }
    try {
      exposer_ = std::make_unique<prometheus::Exposer>(address,
                                                       /*num_threads=*/2);
    } catch (const std::exception& e) {
      return absl::UnavailableError(
          absl::StrCat("cannot serve metrics on ", address, ": ", e.what()));
    }
    const std::vector<int> ports = exposer_->GetListeningPorts();
    if (ports.empty() || ports.front() <= 0) {
      exposer_.reset();
      return absl::UnavailableError(
          absl::StrCat("metrics endpoint on ", address, " has no port"));
    }
    port_ = ports.front();
    exposer_->RegisterCollectable(registry_);
    exposer_->RegisterCollectable(handling_);
    exposer_->RegisterCollectable(scene_message_);
    exposer_->RegisterCollectable(stream_message_);
    exposer_->RegisterCollectable(process_);
    return absl::OkStatus();
  }

  int port() const override { return port_; }

  void CallStarted(const std::string& method,
                   const std::string& type) override {
    SeriesFor(method, type).started->Increment();
  }

  void CallHandled(const std::string& method, const std::string& type,
                   grpc::StatusCode code, double seconds) override {
    const MethodSeries& s = SeriesFor(method, type);
    s.handled[static_cast<std::size_t>(CodeIndex(code))]->Increment();
    s.handling->Observe(seconds);
  }

  void MessageReceived(const std::string& method,
                       const std::string& type) override {
    SeriesFor(method, type).received->Increment();
  }

  void MessageSent(const std::string& method,
                   const std::string& type) override {
    SeriesFor(method, type).sent->Increment();
  }

  void StreamMessageHandled(const std::string& method, grpc::StatusCode code,
                            double seconds) override {
    const int i = IndexOf(method, kStreamMethods);
    if (i < 0) return;  // only the service's own streams exist
    const StreamSeries& s = stream_series_[static_cast<std::size_t>(i)];
    s.seconds->Observe(seconds);
    s.answered[static_cast<std::size_t>(CodeIndex(code))]->Increment();
  }

  void PairsProcessed(const std::string& kind, uint64_t count) override {
    const int i = IndexOf(kind, kKnownKinds);
    prometheus::Counter& c = i >= 0 ? *known_pairs_[static_cast<std::size_t>(i)]
                                    : pairs_.Add({{"kind", kind}});
    c.Increment(static_cast<double>(count));
  }

  void Rejected(const std::string& reason) override {
    const int i = IndexOf(reason, kKnownReasons);
    prometheus::Counter& c = i >= 0
                                 ? *known_rejected_[static_cast<std::size_t>(i)]
                                 : rejected_.Add({{"reason", reason}});
    c.Increment();
  }

  void SetInFlight(int64_t in_flight) override {
    in_flight_.Set(static_cast<double>(in_flight));
  }

  void SetTransportHeld(int64_t bytes) override {
    transport_held_.Set(static_cast<double>(bytes));
  }
  void SetConnections(int64_t open) override {
    connections_.Set(static_cast<double>(open));
  }

  void ScenesChanged(int64_t scenes_delta, int64_t entities_delta) override {
    scenes_.Increment(static_cast<double>(scenes_delta));
    scene_entities_.Increment(static_cast<double>(entities_delta));
  }

  void SceneQueries(const std::string& kind, uint64_t count) override {
    const int i = IndexOf(kind, kSceneQueryKinds);
    prometheus::Counter& c =
        i >= 0 ? *known_scene_queries_[static_cast<std::size_t>(i)]
               : scene_queries_.Add({{"kind", kind}});
    c.Increment(static_cast<double>(count));
  }

  void SceneMessageHandled(double seconds) override {
    scene_message_seconds_->Observe(seconds);
  }

  void SceneRewoundQueries(uint64_t count, uint64_t clamped) override {
    rewound_exact_.Increment(static_cast<double>(count - clamped));
    rewound_clamped_.Increment(static_cast<double>(clamped));
  }

  void SceneHistoryChanged(int64_t bytes_delta) override {
    history_bytes_.Increment(static_cast<double>(bytes_delta));
  }

  void SceneMemoryChanged(int64_t held_delta, int64_t reserved_delta) override {
    scene_memory_.Increment(static_cast<double>(held_delta));
    scene_reserved_.Increment(static_cast<double>(reserved_delta));
  }

 private:
  // The per-message series of one stream method.
  struct StreamSeries {
    AtomicHistogram* seconds = nullptr;
    std::array<prometheus::Counter*, kNumCodes> answered{};
  };

  // Every series of one (method, type) label set.
  struct MethodSeries {
    prometheus::Counter* started = nullptr;
    std::array<prometheus::Counter*, kNumCodes> handled{};
    AtomicHistogram* handling = nullptr;
    prometheus::Counter* received = nullptr;
    prometheus::Counter* sent = nullptr;
  };

  // Creates (or finds) the series of a label set; locks inside prometheus-cpp
  // and HistogramFamily, so only at setup or on the slow path.
  MethodSeries MakeSeries(const std::string& method, const std::string& type) {
    const auto [service, grpc_method] = GrpcNames(method);
    const prometheus::Labels labels = {{"grpc_service", service},
                                       {"grpc_method", grpc_method},
                                       {"grpc_type", type}};
    MethodSeries s;
    s.started = &started_.Add(labels);
    for (int c = 0; c < kNumCodes; ++c) {
      prometheus::Labels with_code = labels;
      with_code.emplace("grpc_code", CodeName(c));
      s.handled[static_cast<std::size_t>(c)] = &handled_.Add(with_code);
    }
    // Sorted by label name, as prometheus-cpp orders its own labels.
    s.handling = handling_->Add({{"grpc_method", grpc_method},
                                 {"grpc_service", service},
                                 {"grpc_type", type}});
    s.received = &received_.Add(labels);
    s.sent = &sent_.Add(labels);
    return s;
  }

  const MethodSeries& SeriesFor(const std::string& method,
                                const std::string& type) {
    const int i = KnownMethodIndex(method, type);
    if (i >= 0) return known_methods_[static_cast<std::size_t>(i)];
    // Slow path: a label set not in the table. Entries are never erased, so
    // the reference stays valid after the lock is released.
    std::lock_guard<std::mutex> lock(other_methods_mu_);
    auto& slot = other_methods_[{method, type}];
    if (slot == nullptr) {
      slot = std::make_unique<MethodSeries>(MakeSeries(method, type));
    }
    return *slot;
  }

  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<HistogramFamily> handling_;
  prometheus::Family<prometheus::Counter>& started_;
  prometheus::Family<prometheus::Counter>& handled_;
  prometheus::Family<prometheus::Counter>& received_;
  prometheus::Family<prometheus::Counter>& sent_;
  prometheus::Family<prometheus::Counter>& pairs_;
  prometheus::Family<prometheus::Counter>& rejected_;
  prometheus::Gauge& in_flight_;
  prometheus::Gauge& connections_;
  prometheus::Gauge& transport_held_;
  prometheus::Gauge& scenes_;
  prometheus::Gauge& scene_entities_;
  prometheus::Family<prometheus::Counter>& scene_queries_;
  std::shared_ptr<HistogramFamily> scene_message_;
  AtomicHistogram* scene_message_seconds_;
  std::shared_ptr<HistogramFamily> stream_message_;
  prometheus::Family<prometheus::Counter>& stream_messages_;
  std::array<StreamSeries, kStreamMethods.size()> stream_series_{};
  prometheus::Family<prometheus::Counter>& rewound_;
  prometheus::Counter& rewound_exact_;
  prometheus::Counter& rewound_clamped_;
  prometheus::Gauge& history_bytes_;
  prometheus::Gauge& scene_memory_;
  prometheus::Gauge& scene_reserved_;
  std::array<prometheus::Counter*, 4> known_scene_queries_{};

  // Written once in the constructor, read-only afterwards.
  std::array<MethodSeries, kKnownMethods.size()> known_methods_;
  std::array<prometheus::Counter*, kKnownKinds.size()> known_pairs_{};
  std::array<prometheus::Counter*, kKnownReasons.size()> known_rejected_{};

  std::mutex other_methods_mu_;
  std::map<std::pair<std::string, std::string>, std::unique_ptr<MethodSeries>>
      other_methods_;  // guarded by other_methods_mu_

  int port_ = 0;
  const std::shared_ptr<ProcessCollector> process_ =
      std::make_shared<ProcessCollector>();
  std::unique_ptr<prometheus::Exposer> exposer_;
};

}  // namespace

std::unique_ptr<Metrics> MakeNullMetrics() {
  return std::make_unique<NullMetrics>();
}

absl::StatusOr<std::unique_ptr<PrometheusMetrics>> PrometheusMetrics::Start(
    const PrometheusOptions& options) {
  auto metrics = std::make_unique<PrometheusMetricsImpl>(options);
  absl::Status status = metrics->Listen(options.address);
  if (!status.ok()) return status;
  return std::unique_ptr<PrometheusMetrics>(std::move(metrics));
}

}  // namespace collision::server
