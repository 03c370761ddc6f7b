// PostgreSQL + PostGIS over libpq: the pairs go in as binary float8[]
// parameters of one prepared statement per batch, unnested into rows, and the
// answers come back as binary rows.
//
//   hit:     SELECT ST_DWithin(ST_MakePoint(x, y),
//                              ST_MakeEnvelope(x0, y0, x1, y1), r)
//            FROM unnest($1::float8[], ..., $7::float8[]) AS t(x, y, r, ...)
//   closest: SELECT ST_ClosestPoint(ST_MakeEnvelope(...), ST_MakePoint(x, y))
//            FROM unnest($1::float8[], ..., $6::float8[]) AS t(...)
//
// ST_DWithin is distance <= r, the service's inclusive rule; ST_ClosestPoint
// of a point inside the polygon is the point itself, as the service's
// closest_point.
#ifndef COLLISION_TOOLS_PEERS_PG_DRIVER_H_
#define COLLISION_TOOLS_PEERS_PG_DRIVER_H_

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tools/peers/pairs.h"

struct pg_conn;

namespace collision::peers {

// The seven binary float8[] parameters of one batch (x, y, r, min_x, min_y,
// max_x, max_y), encoded once and reused for every call.
struct PgBatch {
  int size = 0;
  std::array<std::string, 7> arrays;
};
PgBatch MakePgBatch(absl::Span<const CircleRectPair> pairs);

// PostgreSQL's binary send format of a one-dimensional float8[] without
// NULLs: ndim, has-null flag, element type (FLOAT8OID 701), then per
// dimension its length and lower bound, then per element its byte length
// and the value, all big-endian.
std::string Float8ArrayBinary(const std::vector<double>& values);

enum class PgQuery { kHit, kClosest };

class PgConnection {
 public:
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Connects (libpq conninfo, e.g. "host=/tmp/x dbname=postgres
  // user=postgres") and prepares both statements.
  static absl::StatusOr<std::unique_ptr<PgConnection>> Connect(
      const std::string& conninfo);

  // One call: fails unless the server answered with batch.size rows.
  absl::Status Run(PgQuery query, const PgBatch& batch);

  // The answers, decoded, in the order of the pairs.
  absl::StatusOr<std::vector<bool>> Hits(const PgBatch& batch);
  absl::StatusOr<std::vector<std::pair<double, double>>> ClosestPoints(
      const PgBatch& batch);

  // "PostgreSQL 15.x ..., PostGIS 3.3.x".
  absl::StatusOr<std::string> Versions();

 private:
  explicit PgConnection(pg_conn* conn) : conn_(conn) {}
  absl::Status Prepare();

  pg_conn* conn_;
};

}  // namespace collision::peers

#endif  // COLLISION_TOOLS_PEERS_PG_DRIVER_H_
