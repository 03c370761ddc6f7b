// Validation and conversion of collision.v1 requests into core types, and of
// core results back into responses. This is the only layer that sees both the
// wire types and the core.
//
// Every check happens before any compute. A rejected request yields
// INVALID_ARGUMENT whose message lists the offending items by field path,
// e.g. "pairs[17].b.circle.radius must be >= 0, got -1"; at most
// kMaxListedViolations are listed, followed by how many more there were.
#ifndef COLLISION_WIRE_CONVERT_H_
#define COLLISION_WIRE_CONVERT_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "collision/core/batch.h"
#include "collision/core/kinds.h"
#include "collision/v1/collision.pb.h"

namespace collision::wire {

inline constexpr int kMaxListedViolations = 10;
// The status details list at most this many violations and about
// kMaxDetailBytes of them, so that the `grpc-status-details-bin` trailer
// stays well inside gRPC's default 8 KiB metadata limit (base64 adds a
// third); a last entry with an empty field then says how many more there were.
inline constexpr int kMaxDetailedViolations = 50;
inline constexpr std::size_t kMaxDetailBytes = 3072;
// The type URL of the v1::BadRequest payload of an INVALID_ARGUMENT status:
// google.rpc.BadRequest's, whose bytes v1::BadRequest shares.
inline constexpr char kBadRequestTypeUrl[] =
    "type.googleapis.com/google.rpc.BadRequest";

// Collects every violation of a request; the status lists the first
// kMaxListedViolations in its message and counts the rest, and carries the
// fields at fault as a v1::BadRequest payload (kBadRequestTypeUrl).
class Violations {
 public:
  // `field` is a path into the request ("pairs[3].a.circle.radius"), `why`
  // what is wrong with it ("must be >= 0, got -1"); the message reads
  // "pairs[3].a.circle.radius must be >= 0, got -1".
  void Add(std::string field, std::string why);
  // A fault of an item as a whole; the message reads "pairs[3]: why".
  void AddItem(std::string item, std::string why);
  bool empty() const { return count_ == 0; }
  std::size_t count() const { return count_; }
  absl::Status ToStatus() const;

 private:
  struct Entry {
    std::string field;
    std::string why;
    bool item;
  };
  std::vector<Entry> listed_;
  std::size_t count_ = 0;
};

// INVALID_ARGUMENT for one field, with its BadRequest payload.
absl::Status InvalidField(std::string field, std::string why);

// The fields at fault of a status made by Violations or InvalidField (empty
// for any other status).
v1::BadRequest BadRequestOf(const absl::Status& status);

// Work done by a request, counted by WorkKind (collision/core/kinds.h), as
// reported in metrics.
using KindCounts = std::array<uint64_t, kWorkKinds>;

struct RequestLimits {
  // Largest number of pairs or queries in one request.
  std::size_t max_batch = 100000;
};

struct ParsedIntersect {
  std::vector<ShapePair> pairs;
  Boundary boundary = Boundary::kInclusive;
  bool include_relation = false;
  bool include_separation = false;
  KindCounts counts{};
};

struct ParsedClosestPoint {
  std::vector<ClosestPointItem> items;
  Boundary boundary = Boundary::kInclusive;
  KindCounts counts{};
};

// What a request's boundary rule decides, for its error message: whether
// touching shapes hit (Intersect, scenes), or whether a query exactly on
// the target's boundary is inside (ClosestPoint).
enum class BoundaryUse { kHits, kInside };
// The boundary rule of a request; records a violation when it is
// unspecified or unknown.
std::optional<Boundary> ParseBoundary(v1::BoundaryRule rule, Violations* v,
                                      BoundaryUse use = BoundaryUse::kHits);

// An empty or oversized batch of `size` items in `field`.
absl::Status CheckBatchSize(std::size_t size, const char* field,
                            const RequestLimits& limits);

absl::StatusOr<ParsedIntersect> ParseIntersectRequest(
    const v1::IntersectRequest& request, const RequestLimits& limits);

absl::StatusOr<ParsedClosestPoint> ParseClosestPointRequest(
    const v1::ClosestPointRequest& request, const RequestLimits& limits);

// Core results as wire values (shared by every response writer).
v1::Relation ToProto(Relation r);
void SetVec3(const Vec3& v, v1::Vec3* out);
void SetClosestPointResult(const ClosestPointResult& r,
                           v1::ClosestPointResult* out);

// Writes results into `response` (which is cleared first).
void FillIntersectResponse(const ParsedIntersect& request,
                           const std::vector<IntersectResult>& results,
                           v1::IntersectResponse* response);
void FillClosestPointResponse(const std::vector<ClosestPointResult>& results,
                              v1::ClosestPointResponse* response);

}  // namespace collision::wire

#endif  // COLLISION_WIRE_CONVERT_H_
