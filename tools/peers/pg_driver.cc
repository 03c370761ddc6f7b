#include "tools/peers/pg_driver.h"

#include <libpq-fe.h>

#include <cstdint>
#include <cstring>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace collision::peers {
namespace {

constexpr uint32_t kFloat8Oid = 701;
constexpr Oid kFloat8ArrayOid = 1022;
constexpr int kBinary = 1;

constexpr char kHitSql[] =
    "SELECT ST_DWithin(ST_MakePoint(x, y), ST_MakeEnvelope(x0, y0, x1, y1), r)"
    " FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::float8[],"
    " $5::float8[], $6::float8[], $7::float8[]) AS t(x, y, r, x0, y0, x1, y1)";
constexpr char kClosestSql[] =
    "SELECT ST_ClosestPoint(ST_MakeEnvelope(x0, y0, x1, y1), ST_MakePoint(x, "
    "y))"
    " FROM unnest($1::float8[], $2::float8[], $3::float8[], $4::float8[],"
    " $5::float8[], $6::float8[]) AS t(x, y, x0, y0, x1, y1)";

void PutBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

void PutBigEndian64(uint64_t v, std::string* out) {
  for (int shift = 56; shift >= 0; shift -= 8) {
    out->push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

uint64_t GetBigEndian64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

double GetLittleOrBig(const char* p, bool little) {
  uint64_t bits = 0;
  if (little) {
    for (int i = 7; i >= 0; --i) {
      bits = (bits << 8) | static_cast<unsigned char>(p[i]);
    }
  } else {
    bits = GetBigEndian64(p);
  }
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// RAII for a PGresult.
struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

absl::Status Error(const char* what, PGconn* conn) {
  return absl::UnavailableError(
      absl::StrCat("postgres: ", what, ": ", PQerrorMessage(conn)));
}

// The parameters of a statement, as libpq takes them.
struct Params {
  const char* values[7];
  int lengths[7];
  int formats[7];
  int count = 0;
};

Params ParamsOf(PgQuery query, const PgBatch& batch) {
  Params p;
  for (int i = 0; i < 7; ++i) {
    if (query == PgQuery::kClosest && i == 2) continue;  // no radius
    p.values[p.count] = batch.arrays[i].data();
    p.lengths[p.count] = static_cast<int>(batch.arrays[i].size());
    p.formats[p.count] = kBinary;
    ++p.count;
  }
  return p;
}

}  // namespace

std::string Float8ArrayBinary(const std::vector<double>& values) {
  std::string out;
  out.reserve(20 + 12 * values.size());
  PutBigEndian32(1, &out);  // ndim
  PutBigEndian32(0, &out);  // no NULLs
  PutBigEndian32(kFloat8Oid, &out);
  PutBigEndian32(static_cast<uint32_t>(values.size()), &out);
  PutBigEndian32(1, &out);  // lower bound
  for (double v : values) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    PutBigEndian32(8, &out);
    PutBigEndian64(bits, &out);
  }
  return out;
}

PgBatch MakePgBatch(absl::Span<const CircleRectPair> pairs) {
  std::array<std::vector<double>, 7> columns;
  for (const CircleRectPair& p : pairs) {
    const float fields[7] = {p.x, p.y, p.r, p.min_x, p.min_y, p.max_x, p.max_y};
    for (int i = 0; i < 7; ++i) columns[i].push_back(fields[i]);
  }
  PgBatch batch;
  batch.size = static_cast<int>(pairs.size());
  for (int i = 0; i < 7; ++i) batch.arrays[i] = Float8ArrayBinary(columns[i]);
  return batch;
}

PgConnection::~PgConnection() { PQfinish(conn_); }

absl::StatusOr<std::unique_ptr<PgConnection>> PgConnection::Connect(
    const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  std::unique_ptr<PgConnection> out(new PgConnection(conn));
  if (PQstatus(conn) != CONNECTION_OK) return Error("connect", conn);
  if (absl::Status s = out->Prepare(); !s.ok()) return s;
  return out;
}

absl::Status PgConnection::Prepare() {
  const Oid types[7] = {kFloat8ArrayOid, kFloat8ArrayOid, kFloat8ArrayOid,
                        kFloat8ArrayOid, kFloat8ArrayOid, kFloat8ArrayOid,
                        kFloat8ArrayOid};
  for (const auto& [name, sql, n] :
       {std::tuple<const char*, const char*, int>{"hit", kHitSql, 7},
        std::tuple<const char*, const char*, int>{"closest", kClosestSql, 6}}) {
    Result r(PQprepare(conn_, name, sql, n, types));
    if (PQresultStatus(r.get()) != PGRES_COMMAND_OK) {
      return Error(name, conn_);
    }
  }
  return absl::OkStatus();
}

namespace {

absl::StatusOr<Result> Exec(PGconn* conn, PgQuery query, const PgBatch& batch) {
  const Params p = ParamsOf(query, batch);
  Result r(PQexecPrepared(conn, query == PgQuery::kHit ? "hit" : "closest",
                          p.count, p.values, p.lengths, p.formats, kBinary));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    return Error("exec", conn);
  }
  if (PQntuples(r.get()) != batch.size || PQnfields(r.get()) != 1) {
    return absl::InternalError(absl::StrCat("postgres answered ",
                                            PQntuples(r.get()), " rows for ",
                                            batch.size, " pairs"));
  }
  return r;
}

}  // namespace

absl::Status PgConnection::Run(PgQuery query, const PgBatch& batch) {
  return Exec(conn_, query, batch).status();
}

absl::StatusOr<std::vector<bool>> PgConnection::Hits(const PgBatch& batch) {
  absl::StatusOr<Result> r = Exec(conn_, PgQuery::kHit, batch);
  if (!r.ok()) return r.status();
  std::vector<bool> hits(static_cast<size_t>(batch.size));
  for (int i = 0; i < batch.size; ++i) {
    if (PQgetlength(r->get(), i, 0) != 1) {
      return absl::InternalError(absl::StrCat("row ", i, ": not a bool"));
    }
    hits[static_cast<size_t>(i)] = PQgetvalue(r->get(), i, 0)[0] != 0;
  }
  return hits;
}

absl::StatusOr<std::vector<std::pair<double, double>>>
PgConnection::ClosestPoints(const PgBatch& batch) {
  absl::StatusOr<Result> r = Exec(conn_, PgQuery::kClosest, batch);
  if (!r.ok()) return r.status();
  std::vector<std::pair<double, double>> points;
  points.reserve(static_cast<size_t>(batch.size));
  for (int i = 0; i < batch.size; ++i) {
    // Binary geometry is EWKB: byte order (1 = little), uint32 type with
    // an SRID flag (0x20000000) and then the SRID, then x, y.
    const char* v = PQgetvalue(r->get(), i, 0);
    const int length = PQgetlength(r->get(), i, 0);
    if (length < 21) {
      return absl::InternalError(absl::StrCat("row ", i, ": short EWKB"));
    }
    const bool little = v[0] == 1;
    const unsigned char flag_byte =
        static_cast<unsigned char>(little ? v[4] : v[1]);
    const int offset = (flag_byte & 0x20) ? 9 : 5;
    if (length < offset + 16) {
      return absl::InternalError(absl::StrCat("row ", i, ": short EWKB"));
    }
    points.emplace_back(GetLittleOrBig(v + offset, little),
                        GetLittleOrBig(v + offset + 8, little));
  }
  return points;
}

absl::StatusOr<std::string> PgConnection::Versions() {
  Result r(PQexecParams(conn_,
                        "SELECT current_setting('server_version') || ', "
                        "PostGIS ' || postgis_lib_version()",
                        0, nullptr, nullptr, nullptr, nullptr, 0));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) {
    return Error("version", conn_);
  }
  return absl::StrCat("PostgreSQL ", PQgetvalue(r.get(), 0, 0));
}

}  // namespace collision::peers
