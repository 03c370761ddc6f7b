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
#include "tools/cq_driver.h"
#include "tools/h2_driver.h"
#include "tools/run_state.h"
#include "tools/verify.h"

namespace collision::load {
namespace {

double CpuSeconds(const timeval& t) {
  return double(t.tv_sec) + t.tv_usec * 1e-6;
}

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

void PrintProgress(absl::Duration elapsed, const char* unit, int64_t done,
                   double per_second, int64_t errors, bool last) {
  std::fprintf(stderr, "\r  elapsed %6.1fs  %10lld %s  %9.0f/s  %lld errors%s",
               absl::ToDoubleSeconds(elapsed), static_cast<long long>(done),
               unit, per_second, static_cast<long long>(errors),
               last ? "\n" : " ");
  std::fflush(stderr);
}

double RateAt(const RunOptions& o, absl::Duration since) {
  using Kind = RunOptions::Schedule::Kind;
  const RunOptions::Schedule& s = o.schedule;
  if (s.kind == Kind::kConst || since <= absl::ZeroDuration()) return o.rate;
  const double steps = s.kind == Kind::kStep
                           ? std::floor(absl::FDivDuration(since, s.step_every))
                           : absl::ToDoubleSeconds(since);
  double rate = o.rate + s.step * steps;
  if (s.end > 0)
    rate = s.step >= 0 ? std::min(rate, s.end) : std::max(rate, s.end);
  return std::max(rate, 1.0);  // never a stop: at least a call a second
}

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
  if (o.schedule.kind != RunOptions::Schedule::Kind::kConst &&
      (o.rate <= 0 || o.requests > 0 ||
       o.schedule.step_every <= absl::ZeroDuration())) {
    return absl::InvalidArgumentError(
        "a load schedule needs an open loop (--rate = its start) for a "
        "--duration, and --load_step_every > 0");
  }
  bool any_stream = false;
  for (const auto& [op, weight] : workload.options().ops) {
    any_stream |= op.wire == Wire::kStream;
  }
  if (o.engine == RunOptions::Engine::kHttp2) {
    if (any_stream || o.blocking) {
      return absl::InvalidArgumentError(
          "--engine=http2 makes unary calls only: stream ops and --blocking "
          "need --engine=grpc");
    }
    if (o.client.tls.enabled) {
      return absl::InvalidArgumentError(
          "--engine=http2 is plaintext only: use --engine=grpc for TLS");
    }
    if (auto endpoints = Http2Endpoints(o.target); !endpoints.ok()) {
      return endpoints.status();
    }
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
  RecordFn record = [&](WorkerResult& r, const Ticket& t, const Item& item,
                        const absl::Status& s, bool verify, int64_t mismatches,
                        absl::Time sent, absl::Time end) {
    if (!t.measured) return;
    const int64_t ns = absl::ToInt64Nanoseconds(end - sent);
    r.latency.Record(ns);
    ++r.requests;
    OpResult& op = r.by_op[OpName(item.op)];
    op.latency.Record(ns);
    ++op.requests;
    if (s.ok()) {
      ++op.ok;
      op.pairs += item.pairs;
    }
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

  // Completion-queue drivers: one per core (at most one per slot), the
  // slots split between them.
  const CqDriverContext cq_run{o,      workload,     scheduler,
                               record, wants_verify, clients};
  auto cq_driver = [&](int index, int drivers) {
    const int slots =
        o.concurrency / drivers + (index < o.concurrency % drivers ? 1 : 0);
    DriveCompletionQueue(cq_run, slots,
                         &results[static_cast<std::size_t>(index)]);
    absl::MutexLock lock(&mu);
    --running;
  };

  H2DriverContext h2_run{o, workload, scheduler, record, wants_verify, {}};
  if (o.engine == RunOptions::Engine::kHttp2) {
    h2_run.endpoints = *Http2Endpoints(o.target);  // checked above
  }

  std::vector<std::thread> threads;
  if (any_stream || o.blocking) {
    for (int w = 0; w < o.concurrency; ++w) threads.emplace_back(worker, w);
  } else if (o.engine == RunOptions::Engine::kHttp2) {
    // One thread per core, each with its share of connections and slots.
    const int drivers =
        std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1,
                   std::min(o.concurrency, o.connections));
    running = drivers;
    int first = 0;
    for (int d = 0; d < drivers; ++d) {
      const int conns = o.connections / drivers + (d < o.connections % drivers);
      const int slots = o.concurrency / drivers + (d < o.concurrency % drivers);
      threads.emplace_back([&, d, first, conns, slots] {
        DriveHttp2(h2_run, first, conns, slots,
                   &results[static_cast<std::size_t>(d)]);
        absl::MutexLock lock(&mu);
        --running;
      });
      first += conns;
    }
  } else if (o.engine == RunOptions::Engine::kGrpc) {
    const int drivers =
        std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1,
                   o.concurrency);
    running = drivers;
    for (int d = 0; d < drivers; ++d)
      threads.emplace_back(cq_driver, d, drivers);
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
    bool over = false;
    while (!over) {
      over = mu.AwaitWithTimeout(absl::Condition(
                                     +[](int* n) { return *n == 0; }, &running),
                                 o.progress_interval);
      if (!o.progress) continue;
      // Every interval, and once at the end however short the run.
      const absl::Time now = absl::Now();
      const int64_t done = done_count.load();
      PrintProgress(now - measured_from, "requests", done,
                    double(done - last_done) /
                        std::max(1e-9, absl::ToDoubleSeconds(now - last)),
                    error_count.load(), over);
      last_done = done;
      last = now;
    }
  }
  for (std::thread& t : threads) t.join();
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
    for (const auto& [name, op] : r.by_op) {
      OpResult& to = out.by_op[name];
      to.requests += op.requests;
      to.ok += op.ok;
      to.pairs += op.pairs;
      to.latency.Merge(op.latency);
    }
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
