// A Prometheus histogram whose Observe takes no lock (prometheus-cpp 1.0.1's
// Histogram::Observe takes a std::mutex), and the family that exports such
// histograms on scrape. Used by metrics.cc for the handling-time series.
#ifndef COLLISION_SERVER_OBSERVABILITY_ATOMIC_HISTOGRAM_H_
#define COLLISION_SERVER_OBSERVABILITY_ATOMIC_HISTOGRAM_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "prometheus/client_metric.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"

namespace collision::server {

// Handling time, seconds: 1-2.5-5 steps from 10 us to 10 s. Small batches
// are handled in tens of microseconds, large ones in milliseconds; anything
// near a second is a problem worth seeing, not resolving finely.
inline constexpr std::array<double, 19> kHandlingBuckets = {
    10e-6, 25e-6, 50e-6,  100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3,
    25e-3, 50e-3, 100e-3, 250e-3, 500e-3, 1.0,    2.5,  5.0,    10.0};

inline void AtomicAdd(std::atomic<double>& target, double v) {
  double old = target.load(std::memory_order_relaxed);
  while (
      !target.compare_exchange_weak(old, old + v, std::memory_order_relaxed)) {
  }
}

// A histogram over kHandlingBuckets whose Observe is a few relaxed atomic
// operations. A scrape racing with Observe may see _sum one observation
// ahead of or behind _count; _count always equals the +Inf bucket because
// both are computed from the same bucket snapshot.
class AtomicHistogram {
 public:
  AtomicHistogram() {
    for (auto& c : counts_) c.store(0, std::memory_order_relaxed);
  }

  void Observe(double value) {
    // Prometheus buckets are "less or equal": the first bound >= value.
    const auto it = std::lower_bound(kHandlingBuckets.begin(),
                                     kHandlingBuckets.end(), value);
    counts_[static_cast<std::size_t>(it - kHandlingBuckets.begin())].fetch_add(
        1, std::memory_order_relaxed);
    AtomicAdd(sum_, value);
  }

  prometheus::ClientMetric::Histogram Snapshot() const {
    prometheus::ClientMetric::Histogram h;
    h.bucket.reserve(counts_.size());
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      cumulative += counts_[i].load(std::memory_order_relaxed);
      prometheus::ClientMetric::Bucket b;
      b.cumulative_count = cumulative;
      b.upper_bound = i < kHandlingBuckets.size()
                          ? kHandlingBuckets[i]
                          : std::numeric_limits<double>::infinity();
      h.bucket.push_back(b);
    }
    h.sample_count = cumulative;
    h.sample_sum = sum_.load(std::memory_order_relaxed);
    return h;
  }

 private:
  // One counter per bucket (not cumulative) plus the +Inf bucket.
  std::array<std::atomic<std::uint64_t>, kHandlingBuckets.size() + 1> counts_;
  std::atomic<double> sum_{0.0};
};

// The grpc_server_handling_seconds family: its series live here, are never
// removed (so pointers handed out stay valid) and are exported on scrape.
class HistogramFamily : public prometheus::Collectable {
 public:
  HistogramFamily(std::string name, std::string help)
      : name_(std::move(name)), help_(std::move(help)) {}

  // Locks; call at setup or on the slow path. `labels` sorted by name.
  AtomicHistogram* Add(std::vector<prometheus::ClientMetric::Label> labels) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : series_) {
      if (s.labels == labels) return s.histogram.get();
    }
    series_.push_back({std::move(labels), std::make_unique<AtomicHistogram>()});
    return series_.back().histogram.get();
  }

  std::vector<prometheus::MetricFamily> Collect() const override {
    prometheus::MetricFamily family;
    family.name = name_;
    family.help = help_;
    family.type = prometheus::MetricType::Histogram;
    std::lock_guard<std::mutex> lock(mu_);
    family.metric.reserve(series_.size());
    for (const auto& s : series_) {
      prometheus::ClientMetric m;
      m.label = s.labels;
      m.histogram = s.histogram->Snapshot();
      family.metric.push_back(std::move(m));
    }
    std::vector<prometheus::MetricFamily> out;
    out.push_back(std::move(family));
    return out;
  }

 private:
  struct Series {
    std::vector<prometheus::ClientMetric::Label> labels;
    std::unique_ptr<AtomicHistogram> histogram;
  };
  const std::string name_;
  const std::string help_;
  mutable std::mutex mu_;
  std::vector<Series> series_;  // guarded by mu_
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_OBSERVABILITY_ATOMIC_HISTOGRAM_H_
