#include "tools/verify.h"

#include <cmath>

#include "collision/core/scalar.h"
#include "collision/wire/shape_parser.h"

namespace collision::load {
Shape ToCoreShape(const v1::Shape& s) {
  Shape shape = Vec2{};
  if (!wire::FastShape(s, &shape)) return Vec2{};
  return shape;
}

namespace {

// A rotation computed from an angle may differ in the last bits between
// SIMD targets (proto/README.md, "Exactness across machines"): the tool and
// the server may run on different CPUs.
bool FromAngle(const v1::Shape& s) {
  return s.has_rotated_rect() &&
         s.rotated_rect().orientation_case() == v1::RotatedRect::kAngle;
}

bool Near(float got, float want) {
  return std::fabs(got - want) <= 1e-5f * (1.0f + std::fabs(want));
}

// Bit for bit, except near for a target rotated by an angle: the expected
// answers come from the service's own conversion and the scalar reference,
// which the SIMD kernels match exactly.
bool Same(const Item::Closest& want, const v1::ClosestPointResult& got,
          bool from_angle) {
  auto eq = [&](float g, float w) { return from_angle ? Near(g, w) : g == w; };
  return want.inside == got.inside() &&
         eq(got.closest_point().x(), want.point[0]) &&
         eq(got.closest_point().y(), want.point[1]) &&
         eq(got.closest_point().z(), want.point[2]);
}

int64_t CountClosest(const Item& item,
                     const std::vector<v1::ClosestPointResult>& got) {
  if (item.expected_closest.size() != got.size() ||
      item.shapes.size() != got.size()) {
    return item.pairs;
  }
  int64_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    bad += !Same(item.expected_closest[i], got[i],
                 FromAngle(item.shapes[i].second));
  }
  return bad;
}

}  // namespace

void ComputeExpected(Item* item, bool exclusive) {
  const Boundary b = exclusive ? Boundary::kExclusive : Boundary::kInclusive;
  item->expected_hit.clear();
  item->expected_closest.clear();
  for (const auto& [a, t] : item->shapes) {
    if (item->op.rpc == Rpc::kIntersect) {
      item->expected_hit.push_back(
          Intersect(ToCoreShape(a), ToCoreShape(t), b).hit);
    } else {
      ClosestPointResult r = ClosestPoint(ToCoreShape(a), ToCoreShape(t), b);
      item->expected_closest.push_back(
          {{r.closest_point.x, r.closest_point.y, r.closest_point.z},
           r.inside});
    }
  }
}

int64_t CountMismatches(const Item& item, const v1::IntersectResponse& r) {
  if (static_cast<std::size_t>(r.results_size()) != item.expected_hit.size()) {
    return item.pairs;
  }
  int64_t bad = 0;
  for (int i = 0; i < r.results_size(); ++i) {
    bad += r.results(i).hit() != bool(item.expected_hit[std::size_t(i)]);
  }
  return bad;
}

int64_t CountMismatches(const Item& item, const v1::ClosestPointResponse& r) {
  return CountClosest(item, {r.results().begin(), r.results().end()});
}

int64_t CountMismatches(const Item& item,
                        const v1::IntersectColumnsResponse& r) {
  if (item.intersect_columns == nullptr) return item.pairs;
  auto answers = item.intersect_columns->Unpack(r);
  if (!answers.ok() || answers->size() != item.expected_hit.size()) {
    return item.pairs;
  }
  int64_t bad = 0;
  for (std::size_t i = 0; i < answers->size(); ++i) {
    bad += (*answers)[i].hit != bool(item.expected_hit[i]);
  }
  return bad;
}

int64_t CountMismatches(const Item& item,
                        const v1::ClosestPointColumnsResponse& r) {
  if (item.closest_columns == nullptr) return item.pairs;
  auto answers = item.closest_columns->Unpack(r);
  if (!answers.ok()) return item.pairs;
  return CountClosest(item, *answers);
}

int64_t CountMismatches(const Item& item, const v1::QueryStreamResponse& r) {
  switch (r.answer_case()) {
    case v1::QueryStreamResponse::kIntersect:
      return CountMismatches(item, r.intersect());
    case v1::QueryStreamResponse::kClosestPoint:
      return CountMismatches(item, r.closest_point());
    case v1::QueryStreamResponse::kIntersectColumns:
      return CountMismatches(item, r.intersect_columns());
    case v1::QueryStreamResponse::kClosestPointColumns:
      return CountMismatches(item, r.closest_point_columns());
    case v1::QueryStreamResponse::ANSWER_NOT_SET:
      break;
  }
  return item.pairs;
}

namespace {
template <typename Response>
int64_t ParsedMismatches(const Item& item, absl::string_view bytes) {
  Response response;
  if (!response.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return item.pairs;
  }
  return CountMismatches(item, response);
}
}  // namespace

int64_t CountSerializedMismatches(const Item& item, absl::string_view message) {
  if (item.intersect) {
    return ParsedMismatches<v1::IntersectResponse>(item, message);
  }
  if (item.closest) {
    return ParsedMismatches<v1::ClosestPointResponse>(item, message);
  }
  if (item.intersect_columns) {
    return ParsedMismatches<v1::IntersectColumnsResponse>(item, message);
  }
  return ParsedMismatches<v1::ClosestPointColumnsResponse>(item, message);
}

int64_t CountSerializedMismatches(const Item& item,
                                  const grpc::ByteBuffer& response) {
  grpc::Slice slice;
  if (!response.DumpToSingleSlice(&slice).ok()) return item.pairs;
  return CountSerializedMismatches(
      item, absl::string_view(reinterpret_cast<const char*>(slice.begin()),
                              slice.size()));
}

}  // namespace collision::load
