// What every driver of a load run shares (runner.cc's threads of blocking
// calls and callback pacer, cq_driver.cc's completion-queue threads): the
// schedule of calls, the per-interval series, each driver's counts, and the
// pause after UNAVAILABLE.
#ifndef COLLISION_TOOLS_RUN_STATE_H_
#define COLLISION_TOOLS_RUN_STATE_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "collision/client/client.h"
#include "tools/histogram.h"
#include "tools/runner.h"
#include "tools/workload.h"

namespace collision::load {

struct Ticket {
  bool stop = false;
  uint64_t index = 0;
  absl::Time due;
  bool measured = false;
};

// Hands out call numbers and, in open loop, the time each call is due.
class Scheduler {
 public:
  Scheduler(const RunOptions& o, absl::Time start)
      : o_(o),
        measure_start_(start + o.warmup),
        end_(measure_start_ + o.duration),
        next_due_(start),
        rng_(o.seed) {}

  Ticket Next() {
    absl::MutexLock lock(&mu_);
    Ticket t;
    Ticket stop;
    stop.stop = true;
    if (stopped_) return stop;
    t.index = next_index_++;
    if (o_.rate > 0) {
      t.due = next_due_;
      const double rate = RateAt(o_, next_due_ - measure_start_);
      const double gap = o_.poisson
                             ? std::exponential_distribution<double>(rate)(rng_)
                             : 1.0 / rate;
      next_due_ += absl::Seconds(gap);
    } else {
      t.due = absl::Now();
    }
    t.measured = t.due >= measure_start_;
    if (t.measured) {
      if (o_.requests > 0 ? measured_issued_ >= o_.requests : t.due >= end_) {
        stopped_ = true;
        return stop;
      }
      // Open loop for a duration: the run ends on time even when the
      // calls fall behind their schedule; what was due and not sent is
      // counted (unsent), not sent late past the end.
      if (o_.rate > 0 && o_.requests == 0 && absl::Now() >= end_) {
        stopped_ = true;
        return stop;
      }
      ++measured_issued_;
    }
    return t;
  }
  absl::Time measure_start() const { return measure_start_; }
  // Open loop for a duration: calls due in the measured window.
  int64_t due() const {
    if (o_.rate > 0 && o_.requests == 0 &&
        o_.schedule.kind != RunOptions::Schedule::Kind::kConst) {
      // The schedule's calls in the window, counted as it hands them out.
      int64_t n = 0;
      for (absl::Duration t; t < o_.duration;
           t += absl::Seconds(1.0 / RateAt(o_, t))) {
        ++n;
      }
      return n;
    }
    return o_.rate > 0 && o_.requests == 0
               ? static_cast<int64_t>(o_.rate *
                                      absl::ToDoubleSeconds(o_.duration))
               : 0;
  }
  int64_t issued() {
    absl::MutexLock lock(&mu_);
    return measured_issued_;
  }

 private:
  const RunOptions& o_;
  const absl::Time measure_start_;
  const absl::Time end_;
  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t next_index_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t measured_issued_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Time next_due_ ABSL_GUARDED_BY(mu_);
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
};

// Per-interval counts for the over-time charts; coarse histograms (sub_bits
// 4, ~6%) keep a long run's memory small.
class Series {
 public:
  Series(absl::Time start, absl::Duration interval)
      : start_(start), interval_(interval) {}
  void Record(absl::Time end, int64_t latency_ns, bool ok) {
    const auto i = static_cast<std::size_t>(
        std::max<int64_t>(0, (end - start_) / interval_));
    absl::MutexLock lock(&mu_);
    while (slots_.size() <= i) slots_.emplace_back();
    Slot& s = slots_[i];
    s.latency.Record(latency_ns);
    s.errors += !ok;
  }
  std::vector<Interval> Take() {
    absl::MutexLock lock(&mu_);
    std::vector<Interval> out;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      const Slot& s = slots_[i];
      out.push_back({absl::ToDoubleSeconds(interval_) * double(i),
                     s.latency.count(), s.errors, s.latency.Percentile(50),
                     s.latency.Percentile(99)});
    }
    return out;
  }

 private:
  struct Slot {
    Histogram latency{4};
    int64_t errors = 0;
  };
  const absl::Time start_;
  const absl::Duration interval_;
  absl::Mutex mu_;
  std::vector<Slot> slots_ ABSL_GUARDED_BY(mu_);
};

struct WorkerResult {
  Histogram latency;
  int64_t requests = 0, ok = 0, pairs = 0, backoffs = 0;
  double backoff_s = 0;
  int64_t verified = 0, verified_pairs = 0, mismatches = 0;
  std::map<std::string, int64_t> codes;
  std::map<std::string, std::string> first_error;
  absl::Time last_end = absl::InfinitePast();
  std::map<std::string, OpResult> by_op;
};

// Pause after a call: after UNAVAILABLE (gRPC has already retried within
// its budget) as long as the server's pushback asked, else exponentially
// longer from 10 ms to 1 s; nothing after other outcomes.
class Backoff {
 public:
  absl::Duration After(const absl::Status& s, WorkerResult* r) {
    if (s.code() != absl::StatusCode::kUnavailable) {
      if (s.ok()) next_ = absl::Milliseconds(10);
      return absl::ZeroDuration();
    }
    const absl::Duration pause = client::RetryPushback(s).value_or(next_);
    next_ = std::min(next_ * 2, absl::Seconds(1));
    ++r->backoffs;
    r->backoff_s += absl::ToDoubleSeconds(pause);
    return pause;
  }

 private:
  absl::Duration next_ = absl::Milliseconds(10);
};

// Counts one finished call into `r` (the driver's own) and the shared
// series; `verify`: whether its answers were checked (`mismatches`).
using RecordFn = std::function<void(
    WorkerResult& r, const Ticket& t, const Item& item, const absl::Status& s,
    bool verify, int64_t mismatches, absl::Time sent, absl::Time end)>;

}  // namespace collision::load

#endif  // COLLISION_TOOLS_RUN_STATE_H_
