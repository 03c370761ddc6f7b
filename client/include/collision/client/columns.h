// Builders for the columnar (struct-of-arrays) requests IntersectColumns and
// ClosestPointColumns: add pairs one at a time, as shapes or as plain floats,
// and the builder files them into one column group per pair kind. Replies
// come back per group; Unpack() puts them back in the order you added.
//
//   IntersectColumnsBatch batch;
//   batch.AddCircleRect(5, 5, 2, /*min*/ 7, 0, /*max*/ 11, 10);
//   batch.Add(Point(0, 0), Circle(1, 0, 1));   // any supported Shape pair
//   auto r = client->IntersectColumns(batch);
//   auto answers = batch.Unpack(*r);            // answers[i] for pair i
#ifndef COLLISION_CLIENT_COLUMNS_H_
#define COLLISION_CLIENT_COLUMNS_H_

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "collision/v1/collision.pb.h"

namespace collision::client {

// Bit i of a packed bitset (least significant bit first within each byte),
// as in IntersectColumnsResult.hit_bits and .inside_bits. False past the end.
bool BitAt(const std::string& bits, std::size_t i);
// The first n bits.
std::vector<bool> UnpackBits(const std::string& bits, std::size_t n);
// Number of set bits among the first n.
std::size_t CountBits(const std::string& bits, std::size_t n);

struct IntersectAnswer {
  bool hit = false;
  v1::Relation relation = v1::RELATION_UNSPECIFIED;  // when requested
  float separation = 0;                              // when requested
};

class IntersectColumnsBatch {
 public:
  // Any supported pair (see ShapePair in the proto), either order; points
  // go in as zero-radius circles. A pair with no columnar form is left out
  // and makes status() INVALID_ARGUMENT naming it; Client calls then fail
  // with that status without sending.
  IntersectColumnsBatch& Add(const v1::Shape& a, const v1::Shape& b);

  // Typed adders: no protobuf shapes. Rotated rectangles as in RotatedRect.
  IntersectColumnsBatch& AddCircleCircle(float ax, float ay, float ar, float bx,
                                         float by, float br);
  IntersectColumnsBatch& AddCircleRect(float x, float y, float r, float min_x,
                                       float min_y, float max_x, float max_y);
  IntersectColumnsBatch& AddCircleRotatedRect(float x, float y, float r,
                                              float width, float height,
                                              float pivot_x, float pivot_y,
                                              float position_x,
                                              float position_y, float angle);
  IntersectColumnsBatch& AddCircleRotatedRectCosSin(
      float x, float y, float r, float width, float height, float pivot_x,
      float pivot_y, float position_x, float position_y, float cos, float sin);
  IntersectColumnsBatch& AddRectRect(float a_min_x, float a_min_y,
                                     float a_max_x, float a_max_y,
                                     float b_min_x, float b_min_y,
                                     float b_max_x, float b_max_y);
  IntersectColumnsBatch& AddSphereSphere(float ax, float ay, float az, float ar,
                                         float bx, float by, float bz,
                                         float br);
  IntersectColumnsBatch& AddSphereBox(float x, float y, float z, float r,
                                      float min_x, float min_y, float min_z,
                                      float max_x, float max_y, float max_z);
  IntersectColumnsBatch& AddBoxBox(float a_min_x, float a_min_y, float a_min_z,
                                   float a_max_x, float a_max_y, float a_max_z,
                                   float b_min_x, float b_min_y, float b_min_z,
                                   float b_max_x, float b_max_y, float b_max_z);

  IntersectColumnsBatch& Inclusive();
  IntersectColumnsBatch& Exclusive();
  IntersectColumnsBatch& WithRelation(bool on = true);
  IntersectColumnsBatch& WithSeparation(bool on = true);

  std::size_t size() const { return where_.size(); }
  const v1::IntersectColumnsRequest& request() const { return request_; }
  // OK, or the first Add that was left out.
  const absl::Status& status() const { return status_; }

  // Answers in the order the pairs were added. Fails when the response does
  // not have the request's shape (group count or counts differ).
  absl::StatusOr<std::vector<IntersectAnswer>> Unpack(
      const v1::IntersectColumnsResponse& response) const;

 private:
  enum Kind { kCC, kCR, kCRRAngle, kCRRCosSin, kRR, kSS, kSB, kBB, kKinds };
  v1::IntersectColumnGroup* Group(Kind kind);
  void Note(Kind kind);
  absl::Status AddShapes(const v1::Shape& a, const v1::Shape& b);
  void AddBoxes(const std::array<float, 6>& a, const std::array<float, 6>& b);

  absl::Status status_;

  v1::IntersectColumnsRequest request_ = MakeDefault();
  static v1::IntersectColumnsRequest MakeDefault();
  std::array<int, kKinds> group_of_kind_ = {-1, -1, -1, -1, -1, -1, -1, -1};
  std::vector<int> group_size_;
  // where_[i] = (group, index within the group) of pair i.
  std::vector<std::pair<int, int>> where_;
};

class ClosestPointColumnsBatch {
 public:
  // query: point or circle (2D targets), point3 or sphere (3D targets);
  // target: any shape of the same dimension. Anything else is left out and
  // makes status() INVALID_ARGUMENT naming it, as IntersectColumnsBatch.
  ClosestPointColumnsBatch& Add(const v1::Shape& query,
                                const v1::Shape& target);

  ClosestPointColumnsBatch& Inclusive();
  ClosestPointColumnsBatch& Exclusive();

  std::size_t size() const { return where_.size(); }
  const v1::ClosestPointColumnsRequest& request() const { return request_; }
  // OK, or the first Add that was left out.
  const absl::Status& status() const { return status_; }

  // Answers in the order the queries were added (2D answers have z = 0).
  absl::StatusOr<std::vector<v1::ClosestPointResult>> Unpack(
      const v1::ClosestPointColumnsResponse& response) const;

 private:
  enum Kind { kCircle, kRect, kRRAngle, kRRCosSin, kSphere, kBox, kKinds };
  v1::ClosestPointColumnGroup* Group(Kind kind);
  absl::Status AddShapes(const v1::Shape& query, const v1::Shape& target);

  absl::Status status_;

  v1::ClosestPointColumnsRequest request_ = MakeDefault();
  static v1::ClosestPointColumnsRequest MakeDefault();
  std::array<int, kKinds> group_of_kind_ = {-1, -1, -1, -1, -1, -1};
  std::vector<int> group_size_;
  std::vector<std::pair<int, int>> where_;
};

}  // namespace collision::client

#endif  // COLLISION_CLIENT_COLUMNS_H_
