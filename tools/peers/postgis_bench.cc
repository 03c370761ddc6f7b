// PostgreSQL 15 + PostGIS 3.3 beside the service, on the same random
// circle-rect pairs: ST_DWithin against Intersect / IntersectColumns /
// QueryStream, ST_ClosestPoint against ClosestPoint / ClosestPointColumns.
// Prints pairs/s and the server's CPU per pair for each batch size in one
// table (medians of --passes, the systems alternated), then where the two
// disagree. scripts/bench-postgis.sh starts both servers and runs this.
//
//   collision_postgis_bench --target=127.0.0.1:PORT --server_pid=PID
//     --postgres="host=/tmp/d dbname=postgres user=postgres"
//     --postgres_pid=POSTMASTER_PID
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "tools/peers/agreement.h"
#include "tools/peers/grpc_driver.h"
#include "tools/peers/pairs.h"
#include "tools/peers/pg_driver.h"
#include "tools/peers/proc_cpu.h"

ABSL_FLAG(std::string, target, "", "the service, host:port");
ABSL_FLAG(int, server_pid, 0, "the service's pid (its CPU time); 0 = none");
ABSL_FLAG(std::string, postgres, "", "libpq conninfo of the PostGIS database");
ABSL_FLAG(int, postgres_pid, 0,
          "the postmaster's pid: its CPU time and its children's; 0 = none");
ABSL_FLAG(int, workers, 4,
          "concurrent workers per system: threads, each with its own "
          "connection");
ABSL_FLAG(int, depth, 4,
          "calls (stream messages) in flight per service worker; a libpq "
          "connection has one");
ABSL_FLAG(absl::Duration, duration, absl::Seconds(2), "measured time per cell");
ABSL_FLAG(absl::Duration, warmup, absl::Milliseconds(300),
          "unmeasured time per cell before the first pass");
ABSL_FLAG(int, passes, 3, "passes over every cell; the table shows medians");
ABSL_FLAG(std::vector<std::string>, batches,
          std::vector<std::string>({"64", "1024", "16384"}), "pairs per call");
ABSL_FLAG(bool, closest, true, "also ST_ClosestPoint against ClosestPoint*");
ABSL_FLAG(uint64_t, seed, 1, "seed of the pairs");
ABSL_FLAG(int, verify_pairs, 100000, "pairs of the agreement check; 0 = skip");
ABSL_FLAG(int, show, 0, "disagreeing pairs to print (verbose)");

namespace collision::peers {
namespace {

constexpr char kService[] = "/collision.v1.CollisionService/";

// The flags, checked.
struct BenchOptions {
  std::string target;
  int server_pid = 0;
  std::string postgres;
  int postgres_pid = 0;
  int workers = 4;
  int depth = 4;
  absl::Duration duration;
  absl::Duration warmup;
  int passes = 3;
  std::vector<int> batches;
  bool closest = true;
  uint64_t seed = 1;
  int verify_pairs = 0;
  int show = 0;
};

// One line of the table, at every batch size. The service's rows compare
// with the PostGIS row above them.
struct Row {
  std::string name;
  bool postgres = false;
  PgQuery query = PgQuery::kHit;  // postgres rows
  std::string method;             // service rows
  bool stream = false;
};

Row PostgresRow(const char* name, PgQuery query) {
  return Row{name, true, query, "", false};
}

Row ServiceRow(const char* name, const char* method, bool stream = false) {
  return Row{name, false, PgQuery::kHit, method, stream};
}

std::vector<Row> Rows(bool closest) {
  std::vector<Row> rows = {
      PostgresRow("PostGIS ST_DWithin", PgQuery::kHit),
      ServiceRow("service Intersect (per pair)", "Intersect"),
      ServiceRow("service IntersectColumns", "IntersectColumns"),
      ServiceRow("service QueryStream (columns)", "QueryStream", true),
  };
  if (closest) {
    rows.push_back(PostgresRow("PostGIS ST_ClosestPoint", PgQuery::kClosest));
    rows.push_back(
        ServiceRow("service ClosestPoint (per pair)", "ClosestPoint"));
    rows.push_back(
        ServiceRow("service ClosestPointColumns", "ClosestPointColumns"));
  }
  return rows;
}

// The requests of one batch size, built once.
struct Prepared {
  int size = 0;
  PgBatch pg;
  std::vector<PreparedCall> calls;  // by row (empty for postgres rows)
};

Prepared Prepare(const std::vector<CircleRectPair>& all, int size,
                 const std::vector<Row>& rows) {
  const absl::Span<const CircleRectPair> pairs(all.data(),
                                               static_cast<size_t>(size));
  Prepared p;
  p.size = size;
  p.pg = MakePgBatch(pairs);
  const v1::IntersectColumnsRequest columns = MakeIntersectColumns(pairs);
  for (const Row& row : rows) {
    PreparedCall call;
    call.method = absl::StrCat(kService, row.method);
    call.stream = row.stream;
    if (row.method == "Intersect") {
      call.body = Serialize(MakeIntersect(pairs));
    } else if (row.method == "IntersectColumns") {
      call.body = Serialize(columns);
    } else if (row.method == "QueryStream") {
      v1::QueryStreamRequest message;
      message.set_sequence(1);
      *message.mutable_intersect_columns() = columns;
      call.body = Serialize(message);
    } else if (row.method == "ClosestPoint") {
      call.body = Serialize(MakeClosestPoint(pairs));
    } else if (row.method == "ClosestPointColumns") {
      call.body = Serialize(MakeClosestPointColumns(pairs));
    }
    p.calls.push_back(std::move(call));
  }
  return p;
}

struct Cell {
  double pairs_per_s = 0;
  double server_us_per_pair = -1;  // -1: no pid given
  double server_cores = -1;
  double client_cores = 0;
  // Busy cores of the machine that were neither (other processes, steal).
  double other_cores = 0;
  // Cores nobody used.
  double idle_cores = 0;
};

// K threads, each on its own connection, one call at a time.
LoadResult RunPostgres(std::vector<std::unique_ptr<PgConnection>>& conns,
                       PgQuery query, const PgBatch& batch,
                       absl::Duration duration) {
  std::vector<LoadResult> results(conns.size());
  std::vector<std::thread> threads;
  const absl::Time start = absl::Now();
  const absl::Time end = start + duration;
  for (size_t i = 0; i < conns.size(); ++i) {
    threads.emplace_back([&, i] {
      while (absl::Now() < end) {
        absl::Status s = conns[i]->Run(query, batch);
        if (s.ok()) {
          ++results[i].calls;
        } else if (++results[i].errors == 1) {
          results[i].first_error = s.ToString();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  LoadResult total;
  total.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  for (const LoadResult& r : results) {
    total.calls += r.calls;
    total.errors += r.errors;
    if (total.first_error.empty()) total.first_error = r.first_error;
  }
  return total;
}

double ServerCpu(const Row& row, const BenchOptions& bench) {
  const int pid = row.postgres ? bench.postgres_pid : bench.server_pid;
  if (pid == 0) return -1;
  absl::StatusOr<double> cpu =
      row.postgres ? ProcessTreeCpuSeconds(pid) : ProcessCpuSeconds(pid);
  return cpu.ok() ? *cpu : -1;
}

absl::StatusOr<Cell> Measure(
    const Row& row, size_t row_index, const Prepared& prepared,
    std::vector<std::unique_ptr<PgConnection>>& conns,
    const std::vector<std::shared_ptr<grpc::Channel>>& channels,
    const BenchOptions& bench, absl::Duration duration) {
  const double server_before = ServerCpu(row, bench);
  const double client_before = SelfCpuSeconds();
  const double machine_before = MachineBusySeconds();
  LoadResult r;
  if (row.postgres) {
    r = RunPostgres(conns, row.query, prepared.pg, duration);
  } else {
    LoadOptions options;
    options.depth = bench.depth;
    options.duration = duration;
    r = RunLoad(channels, prepared.calls[row_index], options);
  }
  const double server_after = ServerCpu(row, bench);
  const double client_after = SelfCpuSeconds();
  const double machine_after = MachineBusySeconds();
  if (r.errors > 0 || r.calls == 0) {
    return absl::InternalError(absl::StrCat(row.name, ", batch ", prepared.size,
                                            ": ", r.errors,
                                            " errors, first: ", r.first_error));
  }
  const double pairs = static_cast<double>(r.calls) * prepared.size;
  Cell cell;
  cell.pairs_per_s = pairs / r.seconds;
  cell.client_cores = (client_after - client_before) / r.seconds;
  if (server_before >= 0 && server_after >= 0) {
    cell.server_us_per_pair = (server_after - server_before) * 1e6 / pairs;
    cell.server_cores = (server_after - server_before) / r.seconds;
  }
  const double busy = (machine_after - machine_before) / r.seconds;
  cell.other_cores = std::max(
      0.0, busy - cell.client_cores - std::max(0.0, cell.server_cores));
  cell.idle_cores = std::max(
      0.0, static_cast<double>(std::thread::hardware_concurrency()) - busy);
  return cell;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Cell MedianCell(const std::vector<Cell>& passes) {
  std::vector<double> rate, cpu, server, client, other, idle;
  for (const Cell& c : passes) {
    rate.push_back(c.pairs_per_s);
    cpu.push_back(c.server_us_per_pair);
    server.push_back(c.server_cores);
    client.push_back(c.client_cores);
    other.push_back(c.other_cores);
    idle.push_back(c.idle_cores);
  }
  return Cell{Median(rate),   Median(cpu),   Median(server),
              Median(client), Median(other), Median(idle)};
}

// What held pairs/s back, from where the machine's CPU went: >= 0.3 core
// idle means nobody saturated the CPU (round trips: "latency"); else the
// client when it burned at least half the server's CPU (without it the
// server would have had >= 1.5x the CPU); else the server. Other processes
// (column "other cores") take their share first on a shared machine.
const char* Limit(const Cell& c) {
  if (c.idle_cores >= 0.3) return "latency";
  if (c.client_cores >= 0.5 * c.server_cores) return "client";
  return "server";
}

std::string Rate(double pairs_per_s) {
  return pairs_per_s >= 1e6 ? absl::StrFormat("%.2f M", pairs_per_s / 1e6)
                            : absl::StrFormat("%.0f k", pairs_per_s / 1e3);
}

void PrintTable(const std::vector<Row>& rows, const std::vector<int>& batches,
                const std::vector<std::vector<Cell>>& medians) {
  std::cout << "| batch | system, path | pairs/s | x PostGIS pairs/s | server "
               "CPU us/pair | PostGIS CPU / this | server cores | client "
               "cores | other cores | limit |\n"
               "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
               "| --- |\n";
  for (size_t b = 0; b < batches.size(); ++b) {
    const Cell* base = nullptr;
    for (size_t i = 0; i < rows.size(); ++i) {
      const Cell& c = medians[b][i];
      if (rows[i].postgres) base = &c;
      const bool own = rows[i].postgres;
      const bool cpu = c.server_us_per_pair >= 0;
      std::cout << absl::StrFormat(
          "| %d | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s |\n",
          batches[b], rows[i].name, Rate(c.pairs_per_s),
          own ? "1"
              : absl::StrFormat("%.1f", c.pairs_per_s / base->pairs_per_s),
          cpu ? absl::StrFormat("%.3f", c.server_us_per_pair) : "-",
          own || !cpu || base->server_us_per_pair < 0
              ? (own ? "1" : "-")
              : absl::StrFormat(
                    "%.1f", base->server_us_per_pair / c.server_us_per_pair),
          cpu ? absl::StrFormat("%.2f", c.server_cores) : "-", c.client_cores,
          c.other_cores, Limit(c));
    }
  }
}

absl::StatusOr<BenchOptions> OptionsFromFlags() {
  BenchOptions o;
  o.target = absl::GetFlag(FLAGS_target);
  o.server_pid = absl::GetFlag(FLAGS_server_pid);
  o.postgres = absl::GetFlag(FLAGS_postgres);
  o.postgres_pid = absl::GetFlag(FLAGS_postgres_pid);
  o.workers = absl::GetFlag(FLAGS_workers);
  o.depth = absl::GetFlag(FLAGS_depth);
  o.duration = absl::GetFlag(FLAGS_duration);
  o.warmup = absl::GetFlag(FLAGS_warmup);
  o.passes = absl::GetFlag(FLAGS_passes);
  o.closest = absl::GetFlag(FLAGS_closest);
  o.seed = absl::GetFlag(FLAGS_seed);
  o.verify_pairs = absl::GetFlag(FLAGS_verify_pairs);
  o.show = absl::GetFlag(FLAGS_show);
  if (o.target.empty() || o.postgres.empty() || o.workers < 1 || o.depth < 1 ||
      o.passes < 1 || o.verify_pairs < 0 ||
      o.duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        "need --target, --postgres, --workers >= 1, --depth >= 1, "
        "--passes >= 1, --verify_pairs >= 0, --duration > 0");
  }
  for (const std::string& b : absl::GetFlag(FLAGS_batches)) {
    int n = 0;
    if (!absl::SimpleAtoi(b, &n) || n < 1) {
      return absl::InvalidArgumentError(absl::StrCat("--batches: ", b));
    }
    o.batches.push_back(n);
  }
  if (o.batches.empty()) return absl::InvalidArgumentError("--batches empty");
  return o;
}

absl::Status Run(const BenchOptions& o) {
  const std::vector<Row> rows = Rows(o.closest);
  const int largest = *std::max_element(o.batches.begin(), o.batches.end());
  const std::vector<CircleRectPair> pairs =
      MakePairs(o.seed, std::max(largest, o.verify_pairs));

  std::vector<std::unique_ptr<PgConnection>> conns;
  for (int i = 0; i < o.workers; ++i) {
    absl::StatusOr<std::unique_ptr<PgConnection>> c =
        PgConnection::Connect(o.postgres);
    if (!c.ok()) return c.status();
    conns.push_back(*std::move(c));
  }
  absl::StatusOr<std::string> versions = conns[0]->Versions();
  if (!versions.ok()) return versions.status();
  const auto channels = MakeChannels(o.target, o.workers);

  std::vector<Prepared> prepared;
  for (int b : o.batches) prepared.push_back(Prepare(pairs, b, rows));

  std::cout << absl::StrFormat(
      "%s against the service at %s; %d workers per system (service: %d "
      "calls in flight each), %s per cell, medians of %d passes, seed %d\n\n",
      *versions, o.target, o.workers, o.depth, absl::FormatDuration(o.duration),
      o.passes, o.seed);
  std::cout.flush();

  // cells[batch][row][pass]
  std::vector<std::vector<std::vector<Cell>>> cells(
      o.batches.size(), std::vector<std::vector<Cell>>(rows.size()));
  for (int pass = -1; pass < o.passes; ++pass) {
    const bool warmup = pass < 0;
    const absl::Duration duration = warmup ? o.warmup : o.duration;
    if (duration <= absl::ZeroDuration()) continue;
    for (size_t b = 0; b < o.batches.size(); ++b) {
      // Alternate the systems, and reverse the order every other pass so
      // that drift on a noisy machine does not favour one side.
      for (size_t k = 0; k < rows.size(); ++k) {
        const size_t i = pass % 2 == 1 ? rows.size() - 1 - k : k;
        absl::StatusOr<Cell> cell =
            Measure(rows[i], i, prepared[b], conns, channels, o, duration);
        if (!cell.ok()) return cell.status();
        if (!warmup) cells[b][i].push_back(*cell);
      }
    }
    std::cerr << (warmup ? "warmup" : absl::StrCat("pass ", pass + 1))
              << " done\n";
  }
  std::vector<std::vector<Cell>> medians(o.batches.size());
  for (size_t b = 0; b < o.batches.size(); ++b) {
    for (size_t i = 0; i < rows.size(); ++i) {
      medians[b].push_back(MedianCell(cells[b][i]));
    }
  }
  PrintTable(rows, o.batches, medians);

  if (o.verify_pairs == 0) return absl::OkStatus();
  std::cout << "\n";
  AgreementOptions options;
  options.target = o.target;
  options.show = o.show;
  const std::vector<CircleRectPair> checked(pairs.begin(),
                                            pairs.begin() + o.verify_pairs);
  return CheckAgreement(checked, conns[0].get(), options, std::cout);
}

}  // namespace
}  // namespace collision::peers

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "PostGIS beside the service on the same circle-rect pairs; run by "
      "scripts/bench-postgis.sh");
  absl::ParseCommandLine(argc, argv);
  absl::StatusOr<collision::peers::BenchOptions> options =
      collision::peers::OptionsFromFlags();
  const absl::Status status =
      options.ok() ? collision::peers::Run(*options) : options.status();
  if (!status.ok()) {
    std::cerr << "collision_postgis_bench: " << status << "\n";
    return 1;
  }
  return 0;
}
