// The load tool's workload: a pool of prepared requests generated from a
// seed, so that a run is reproducible (same seed and options, same bytes on
// the wire). Call i uses pool item i % pool size; each item's RPC and wire
// form are drawn from the operation mix and its pairs from the kind mix.
#ifndef COLLISION_TOOLS_WORKLOAD_H_
#define COLLISION_TOOLS_WORKLOAD_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "collision/client/columns.h"
#include "collision/core/kinds.h"
#include "collision/v1/collision.pb.h"
#include "grpcpp/support/byte_buffer.h"

namespace collision::load {

enum class Rpc { kIntersect, kClosestPoint };
// kStream sends the columnar request over one QueryStream per worker.
enum class Wire { kPairs, kColumns, kStream };
struct Op {
  Rpc rpc = Rpc::kIntersect;
  Wire wire = Wire::kPairs;
};
std::string OpName(Op op);  // "intersect_pairs", "closest_stream", ...

// Pair kinds the workload generates: the intersect pairings of the core's
// kind table (collision/core/kinds.h), named as there ("circle_rect"). For
// ClosestPoint each maps to (query, target): the ball kinds keep their
// shapes; rect_rect is point vs rect, box_box point3 vs box.
using PairKind = WorkKind;
inline constexpr int kPairKinds = kIntersectWorkKinds;
inline const char* PairKindName(PairKind kind) { return WorkKindName(kind); }

struct WorkloadOptions {
  uint64_t seed = 1;
  int batch = 100;  // pairs (or queries) per request
  int pool = 64;    // distinct requests
  std::vector<std::pair<Op, double>> ops = {{Op{}, 1.0}};
  std::vector<std::pair<PairKind, double>> kinds = {
      {PairKind::kCircleRect, 1.0}};
  bool exclusive = false;  // boundary rule
  bool verify = false;     // also compute the expected answers
};

// Parses "intersect_pairs:3,closest_columns" (weight defaults to 1).
absl::StatusOr<std::vector<std::pair<Op, double>>> ParseOpMix(
    const std::string& text);
// Parses "circle_rect:2,box_box" (weight defaults to 1).
absl::StatusOr<std::vector<std::pair<PairKind, double>>> ParseKindMix(
    const std::string& text);

struct Item {
  Op op;
  int pairs = 0;
  std::vector<std::pair<v1::Shape, v1::Shape>> shapes;  // what was asked
  // Exactly the one the op needs is set.
  std::shared_ptr<const v1::IntersectRequest> intersect;
  std::shared_ptr<const v1::ClosestPointRequest> closest;
  std::shared_ptr<const client::IntersectColumnsBatch> intersect_columns;
  std::shared_ptr<const client::ClosestPointColumnsBatch> closest_columns;
  // The unary RPC's full method path and its request serialised once, as
  // bytes and as the buffer the pre-serialised call path sends as is.
  std::string method;
  std::string serialized;
  std::shared_ptr<const grpc::ByteBuffer> serialized_buffer;
  // With verify: the scalar reference's answers, per pair in order.
  std::vector<uint8_t> expected_hit;  // Intersect
  struct Closest {
    std::array<float, 3> point;
    bool inside;
  };
  std::vector<Closest> expected_closest;  // ClosestPoint
};

class Workload {
 public:
  static absl::StatusOr<Workload> Create(const WorkloadOptions& options);
  // One request the user wrote, in proto JSON: an IntersectRequest or a
  // ClosestPointRequest for the one op of `options` (intersect_pairs or
  // closest_pairs); with options.verify its answers are computed too.
  static absl::StatusOr<Workload> FromJson(const WorkloadOptions& options,
                                           const std::string& json);
  const Item& Get(uint64_t call) const { return items_[call % items_.size()]; }
  std::size_t size() const { return items_.size(); }
  const WorkloadOptions& options() const { return options_; }

 private:
  WorkloadOptions options_;
  std::vector<Item> items_;
};

}  // namespace collision::load

#endif  // COLLISION_TOOLS_WORKLOAD_H_
