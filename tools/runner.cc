#include "tools/runner.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "tools/verify.h"

namespace collision::load {
namespace {

double CpuSeconds(const timeval& t) {
  return double(t.tv_sec) + t.tv_usec * 1e-6;
}

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
      const double gap =
          o_.poisson ? std::exponential_distribution<double>(o_.rate)(rng_)
                     : 1.0 / o_.rate;
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
};

// One call of `item`; sets *mismatches when `verify`.
absl::Status Call(const Item& item, const client::Client& c,
                  std::unique_ptr<client::QuerySession>* session,
                  uint64_t sequence, bool verify, int64_t* mismatches) {
  *mismatches = 0;
  if (item.op.wire == Wire::kStream) {
    if (*session == nullptr) {
      auto s = c.OpenSession();
      if (!s.ok()) return s.status();
      *session = *std::move(s);
    }
    absl::Status sent =
        item.op.rpc == Rpc::kIntersect
            ? (*session)->Send(sequence, item.intersect_columns->request())
            : (*session)->Send(sequence, item.closest_columns->request());
    absl::StatusOr<client::StreamReply> reply =
        sent.ok() ? (*session)->Receive()
                  : absl::StatusOr<client::StreamReply>(sent);
    if (!reply.ok()) {
      session->reset();  // the stream is over: the next call opens another
      return reply.status();
    }
    if (reply->status.ok() && verify) {
      *mismatches = CountMismatches(item, reply->response);
    }
    return reply->status;
  }
  absl::Status status;
  auto check = [&](auto r) {
    status = r.status();
    if (r.ok() && verify) *mismatches = CountMismatches(item, *r);
  };
  if (item.op.rpc == Rpc::kIntersect) {
    if (item.op.wire == Wire::kPairs) {
      check(c.Intersect(*item.intersect));
    } else {
      check(c.IntersectColumns(item.intersect_columns->request()));
    }
  } else if (item.op.wire == Wire::kPairs) {
    check(c.ClosestPoint(*item.closest));
  } else {
    check(c.ClosestPointColumns(item.closest_columns->request()));
  }
  return status;
}

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

// Starts one unary call of `item` with the callback API; `done` gets the
// status and, with `verify`, the number of mismatching answers.
void StartCall(const Item& item, const client::Client& c, bool verify,
               std::function<void(absl::Status, int64_t)> done) {
  auto finish = [&item, verify, done = std::move(done)](auto r) {
    done(r.status(), r.ok() && verify ? CountMismatches(item, *r) : 0);
  };
  if (item.op.rpc == Rpc::kIntersect && item.op.wire == Wire::kPairs) {
    c.IntersectAsync(item.intersect, finish);
  } else if (item.op.rpc == Rpc::kIntersect) {
    c.IntersectColumnsAsync(
        std::shared_ptr<const v1::IntersectColumnsRequest>(
            item.intersect_columns, &item.intersect_columns->request()),
        finish);
  } else if (item.op.wire == Wire::kPairs) {
    c.ClosestPointAsync(item.closest, finish);
  } else {
    c.ClosestPointColumnsAsync(
        std::shared_ptr<const v1::ClosestPointColumnsRequest>(
            item.closest_columns, &item.closest_columns->request()),
        finish);
  }
}

}  // namespace

absl::StatusOr<RunResult> Run(const RunOptions& o, const Workload& workload) {
  if (o.concurrency < 1 || o.connections < 1) {
    return absl::InvalidArgumentError(
        "concurrency and connections must be >= 1");
  }
  if (o.requests <= 0 && o.duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("need requests > 0 or duration > 0");
  }
  if (o.rate < 0 || o.verify_fraction < 0 || o.verify_fraction > 1) {
    return absl::InvalidArgumentError("rate >= 0 and verify in [0, 1]");
  }
  std::vector<std::unique_ptr<client::Client>> clients;
  for (int i = 0; i < o.connections; ++i) {
    client::ClientOptions co = o.client;
    co.own_connection = o.connections > 1;
    auto c = client::Client::Create(o.target, co);
    if (!c.ok()) return c.status();
    clients.push_back(*std::move(c));
  }
  const int64_t verify_every =
      o.verify_fraction > 0
          ? std::max<int64_t>(1, std::llround(1.0 / o.verify_fraction))
          : 0;

  const absl::Time start = absl::Now();
  Scheduler scheduler(o, start);
  Series series(scheduler.measure_start(), o.progress_interval);
  std::vector<WorkerResult> results(static_cast<std::size_t>(o.concurrency));
  std::atomic<int64_t> done_count{0}, error_count{0};
  absl::Mutex mu;
  int running = o.concurrency;

  // Counts one finished call; `r` is the caller's (or locked).
  auto record = [&](WorkerResult& r, const Ticket& t, const Item& item,
                    const absl::Status& s, bool verify, int64_t mismatches,
                    absl::Time sent, absl::Time end) {
    if (!t.measured) return;
    const int64_t ns = absl::ToInt64Nanoseconds(end - sent);
    r.latency.Record(ns);
    ++r.requests;
    const std::string code = absl::StatusCodeToString(s.code());
    ++r.codes[code];
    if (s.ok()) {
      ++r.ok;
      r.pairs += item.pairs;
      if (verify) {
        ++r.verified;
        r.verified_pairs += item.pairs;
        r.mismatches += mismatches;
      }
    } else {
      r.first_error.emplace(code, std::string(s.message()));
      error_count.fetch_add(1, std::memory_order_relaxed);
    }
    r.last_end = std::max(r.last_end, end);
    series.Record(end, ns, s.ok());
    done_count.fetch_add(1, std::memory_order_relaxed);
  };
  auto wants_verify = [&](const Ticket& t) {
    return t.measured && verify_every > 0 &&
           t.index % static_cast<uint64_t>(verify_every) == 0;
  };

  // Blocking path (any stream op in the mix): one thread per slot.
  auto worker = [&](int w) {
    WorkerResult& r = results[static_cast<std::size_t>(w)];
    const client::Client& c =
        *clients[static_cast<std::size_t>(w % o.connections)];
    std::unique_ptr<client::QuerySession> session;
    Backoff backoff;
    for (Ticket t = scheduler.Next(); !t.stop; t = scheduler.Next()) {
      if (o.rate > 0) absl::SleepFor(t.due - absl::Now());
      const absl::Time sent = o.rate > 0 ? t.due : absl::Now();
      const Item& item = workload.Get(t.index);
      const bool verify = wants_verify(t);
      int64_t mismatches = 0;
      absl::Status s = Call(item, c, &session, t.index, verify, &mismatches);
      record(r, t, item, s, verify, mismatches, sent, absl::Now());
      const absl::Duration pause = backoff.After(s, &r);
      if (pause > absl::ZeroDuration()) absl::SleepFor(pause);
    }
    if (session != nullptr) session->Finish().IgnoreError();
    absl::MutexLock lock(&mu);
    --running;
  };

  // Callback path (unary ops only): one pacer thread starts each call when
  // it is due and one of `concurrency` slots is free; completions run on
  // gRPC's threads. Fewer threads, less client CPU than blocking calls.
  // Outlives the pacer: completions may still be unlocking slot_mu.
  absl::Mutex slot_mu;
  int free_slots = o.concurrency;
  absl::Time pause_until = absl::InfinitePast();
  Backoff shared_backoff;
  struct AllFree {
    const int* free;
    int total;
    bool Done() const { return *free == total; }
  } all_free{&free_slots, o.concurrency};
  auto pacer = [&]() {
    WorkerResult& r = results[0];
    Backoff& backoff = shared_backoff;
    for (Ticket t = scheduler.Next(); !t.stop; t = scheduler.Next()) {
      if (o.rate > 0) absl::SleepFor(t.due - absl::Now());
      absl::Time resume;
      {
        absl::MutexLock lock(&slot_mu);
        slot_mu.Await(absl::Condition(
            +[](int* n) { return *n > 0; }, &free_slots));
        --free_slots;
        resume = pause_until;
      }
      absl::SleepFor(resume - absl::Now());  // the whole client backs off
      const absl::Time sent = o.rate > 0 ? t.due : absl::Now();
      const Item& item = workload.Get(t.index);
      const bool verify = wants_verify(t);
      const client::Client& c =
          *clients[static_cast<std::size_t>(t.index % uint64_t(o.connections))];
      StartCall(item, c, verify,
                [&, t, sent, verify](absl::Status s, int64_t mismatches) {
                  const absl::Time end = absl::Now();
                  absl::MutexLock lock(&slot_mu);
                  record(r, t, workload.Get(t.index), s, verify, mismatches,
                         sent, end);
                  pause_until =
                      std::max(pause_until, end + backoff.After(s, &r));
                  ++free_slots;
                });
    }
    absl::MutexLock lock(&slot_mu);
    slot_mu.Await(absl::Condition(&all_free, &AllFree::Done));
    absl::MutexLock lock2(&mu);
    --running;
  };

  bool any_stream = false;
  for (const auto& [op, weight] : workload.options().ops) {
    any_stream |= op.wire == Wire::kStream;
  }
  std::vector<std::thread> threads;
  if (any_stream || !o.callback_api) {
    for (int w = 0; w < o.concurrency; ++w) threads.emplace_back(worker, w);
  } else {
    running = 1;
    threads.emplace_back(pacer);
  }

  // Main thread: CPU sample at the start of the measured window, progress.
  absl::SleepFor(scheduler.measure_start() - absl::Now());
  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const absl::Time measured_from =
      std::max(absl::Now(), scheduler.measure_start());
  {
    absl::MutexLock lock(&mu);
    int64_t last_done = 0;
    absl::Time last = absl::Now();
    while (!mu.AwaitWithTimeout(absl::Condition(
                                    +[](int* n) { return *n == 0; }, &running),
                                o.progress_interval)) {
      if (!o.progress) continue;
      const absl::Time now = absl::Now();
      const int64_t done = done_count.load();
      std::fprintf(stderr,
                   "\r%7.1fs  %10lld requests  %9.0f req/s  %lld errors ",
                   absl::ToDoubleSeconds(now - measured_from),
                   static_cast<long long>(done),
                   double(done - last_done) / absl::ToDoubleSeconds(now - last),
                   static_cast<long long>(error_count.load()));
      last_done = done;
      last = now;
    }
  }
  for (std::thread& t : threads) t.join();
  if (o.progress) std::fprintf(stderr, "\n");
  rusage after{};
  getrusage(RUSAGE_SELF, &after);

  RunResult out;
  absl::Time last_end = measured_from;
  for (const WorkerResult& r : results) {
    out.latency.Merge(r.latency);
    out.requests += r.requests;
    out.ok += r.ok;
    out.pairs += r.pairs;
    out.backoffs += r.backoffs;
    out.backoff_s += r.backoff_s;
    out.verified += r.verified;
    out.verified_pairs += r.verified_pairs;
    out.mismatches += r.mismatches;
    for (const auto& [code, n] : r.codes) out.status_counts[code] += n;
    for (const auto& [code, m] : r.first_error)
      out.first_error.emplace(code, m);
    last_end = std::max(last_end, r.last_end);
  }
  out.errors = out.requests - out.ok;
  out.seconds = std::max(1e-9, absl::ToDoubleSeconds(last_end - measured_from));
  out.cpu_user_s = CpuSeconds(after.ru_utime) - CpuSeconds(before.ru_utime);
  out.cpu_system_s = CpuSeconds(after.ru_stime) - CpuSeconds(before.ru_stime);
  out.cores = std::max(1u, std::thread::hardware_concurrency());
  out.series = series.Take();
  out.due = scheduler.due();
  out.unsent = std::max<int64_t>(0, out.due - scheduler.issued());
  return out;
}

}  // namespace collision::load
