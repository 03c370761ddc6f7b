#include "collision/handlers/columns.h"

#include <algorithm>
#include <string>
#include <vector>

#include "collision/core/kernels.h"
#include "collision/wire/columns.h"

namespace collision::handlers {

using wire::ClosestGroupSize;
using wire::IntersectGroupSize;

// Protobuf's packed float column, as the validation sees it.
using Column = google::protobuf::RepeatedField<float>;

namespace {

// Pointer to element `offset` of a column; a zero column when it is empty
// (radius of points).
const float* At(const Column& c, std::size_t offset, const float* zeros) {
  return c.empty() ? zeros : c.data() + offset;
}

simd::BallColumns2 Ball2(const v1::BallColumns2& b, std::size_t o,
                         const float* zeros) {
  return {At(b.x(), o, zeros), At(b.y(), o, zeros), At(b.radius(), o, zeros)};
}
simd::BallColumns3 Ball3(const v1::BallColumns3& b, std::size_t o,
                         const float* zeros) {
  return {At(b.x(), o, zeros), At(b.y(), o, zeros), At(b.z(), o, zeros),
          At(b.radius(), o, zeros)};
}
simd::RectColumns Rect(const v1::RectColumns& r, std::size_t o,
                       const float* z) {
  return {At(r.min_x(), o, z), At(r.min_y(), o, z), At(r.max_x(), o, z),
          At(r.max_y(), o, z)};
}
simd::BoxColumns Box(const v1::BoxColumns& b, std::size_t o, const float* z) {
  return {At(b.min_x(), o, z), At(b.min_y(), o, z), At(b.min_z(), o, z),
          At(b.max_x(), o, z), At(b.max_y(), o, z), At(b.max_z(), o, z)};
}
simd::RotatedRectColumns Rotated(const v1::RotatedRectColumns& r, std::size_t o,
                                 const float* z) {
  return {At(r.size_x(), o, z),     At(r.size_y(), o, z),
          At(r.pivot_x(), o, z),    At(r.pivot_y(), o, z),
          At(r.position_x(), o, z), At(r.position_y(), o, z),
          At(r.cos(), o, z),        At(r.sin(), o, z)};
}
simd::RotatedRectAngleColumns RotatedAngle(const v1::RotatedRectColumns& r,
                                           std::size_t o, const float* z) {
  return {At(r.size_x(), o, z),     At(r.size_y(), o, z),
          At(r.pivot_x(), o, z),    At(r.pivot_y(), o, z),
          At(r.position_x(), o, z), At(r.position_y(), o, z),
          At(r.angle(), o, z)};
}

// kChunk zeros: the radius column of points, one chunk at a time.
const float* Zeros() {
  static const std::vector<float>* zeros = new std::vector<float>(kChunk, 0.0f);
  return zeros->data();
}

// One chunk [o, o + m) of a validated Intersect group.
void IntersectChunk(const v1::IntersectColumnGroup& g, std::size_t o,
                    std::size_t m, Boundary boundary,
                    const simd::IntersectOutputs& out) {
  const float* z = Zeros();
  switch (g.pairs_case()) {
    case v1::IntersectColumnGroup::kCircleCircle:
      simd::IntersectCircleCircleColumns(Ball2(g.circle_circle().a(), o, z),
                                         Ball2(g.circle_circle().b(), o, z), m,
                                         boundary, out);
      break;
    case v1::IntersectColumnGroup::kCircleRect:
      simd::IntersectCircleRectColumns(Ball2(g.circle_rect().a(), o, z),
                                       Rect(g.circle_rect().b(), o, z), m,
                                       boundary, out);
      break;
    case v1::IntersectColumnGroup::kCircleRotatedRect: {
      const auto& r = g.circle_rotated_rect();
      if (!r.b().angle().empty()) {
        simd::IntersectCircleRotatedRectAngleColumns(
            Ball2(r.a(), o, z), RotatedAngle(r.b(), o, z), m, boundary, out);
      } else {
        simd::IntersectCircleRotatedRectColumns(
            Ball2(r.a(), o, z), Rotated(r.b(), o, z), m, boundary, out);
      }
      break;
    }
    case v1::IntersectColumnGroup::kRectRect:
      simd::IntersectRectRectColumns(Rect(g.rect_rect().a(), o, z),
                                     Rect(g.rect_rect().b(), o, z), m, boundary,
                                     out);
      break;
    case v1::IntersectColumnGroup::kSphereSphere:
      simd::IntersectSphereSphereColumns(Ball3(g.sphere_sphere().a(), o, z),
                                         Ball3(g.sphere_sphere().b(), o, z), m,
                                         boundary, out);
      break;
    case v1::IntersectColumnGroup::kSphereBox:
      simd::IntersectSphereBoxColumns(Ball3(g.sphere_box().a(), o, z),
                                      Box(g.sphere_box().b(), o, z), m,
                                      boundary, out);
      break;
    case v1::IntersectColumnGroup::kBoxBox:
      simd::IntersectBoxBoxColumns(Box(g.box_box().a(), o, z),
                                   Box(g.box_box().b(), o, z), m, boundary,
                                   out);
      break;
    default:
      break;
  }
}

void ClosestChunk(const v1::ClosestPointColumnGroup& g, std::size_t o,
                  std::size_t m, Boundary boundary,
                  const simd::ClosestPointOutputs& out) {
  const float* z = Zeros();
  switch (g.targets_case()) {
    case v1::ClosestPointColumnGroup::kCircles:
      simd::ClosestPointOnCircleColumns(Ball2(g.queries2(), o, z),
                                        Ball2(g.circles(), o, z), m, boundary,
                                        out);
      break;
    case v1::ClosestPointColumnGroup::kRects:
      simd::ClosestPointOnRectColumns(Ball2(g.queries2(), o, z),
                                      Rect(g.rects(), o, z), m, boundary, out);
      break;
    case v1::ClosestPointColumnGroup::kRotatedRects: {
      const v1::RotatedRectColumns& r = g.rotated_rects();
      if (!r.angle().empty()) {
        // The ClosestPoint kernels take (cos, sin): turn this chunk's angles
        // into a rotation first (the same function the angle kernels use).
        thread_local std::vector<float> cs(2 * kChunk);
        simd::RotationFromAngleColumns(r.angle().data() + o, m, cs.data(),
                                       cs.data() + kChunk);
        simd::RotatedRectColumns cols = Rotated(r, o, z);
        cols.cos = cs.data();
        cols.sin = cs.data() + kChunk;
        simd::ClosestPointOnRotatedRectColumns(Ball2(g.queries2(), o, z), cols,
                                               m, boundary, out);
      } else {
        simd::ClosestPointOnRotatedRectColumns(
            Ball2(g.queries2(), o, z), Rotated(r, o, z), m, boundary, out);
      }
      break;
    }
    case v1::ClosestPointColumnGroup::kSpheres:
      simd::ClosestPointOnSphereColumns(Ball3(g.queries3(), o, z),
                                        Ball3(g.spheres(), o, z), m, boundary,
                                        out);
      break;
    case v1::ClosestPointColumnGroup::kBoxes:
      simd::ClosestPointOnBoxColumns(Ball3(g.queries3(), o, z),
                                     Box(g.boxes(), o, z), m, boundary, out);
      break;
    default:
      break;
  }
}

Boundary BoundaryOf(v1::BoundaryRule rule) {
  return rule == v1::BOUNDARY_RULE_EXCLUSIVE ? Boundary::kExclusive
                                             : Boundary::kInclusive;
}

float* Sized(Column* c, std::size_t n) {
  c->Resize(static_cast<int>(n), 0.0f);
  return c->mutable_data();
}

}  // namespace

bool ComputeIntersectColumns(const v1::IntersectColumnsRequest& req,
                             const ChunkRunner& run,
                             v1::IntersectColumnsResponse* response) {
  response->Clear();
  const Boundary boundary = BoundaryOf(req.boundary());
  for (const v1::IntersectColumnGroup& g : req.groups()) {
    const std::size_t n = IntersectGroupSize(g);
    v1::IntersectColumnsResult* r = response->add_groups();
    r->set_count(static_cast<uint32_t>(n));
    std::string* bits = r->mutable_hit_bits();
    bits->resize((n + 7) / 8);
    std::string* relations =
        req.include_relation() ? r->mutable_relations() : nullptr;
    if (relations != nullptr) relations->resize(n);
    float* separations =
        req.include_separation() ? Sized(r->mutable_separations(), n) : nullptr;
    const bool done = run(n, [&](std::size_t begin, std::size_t end) {
      simd::IntersectOutputs out;
      out.hit_bits = reinterpret_cast<uint8_t*>(bits->data()) + begin / 8;
      uint8_t* rel = nullptr;
      if (relations != nullptr) {
        rel = reinterpret_cast<uint8_t*>(relations->data()) + begin;
        out.relation = reinterpret_cast<Relation*>(rel);
      }
      if (separations != nullptr) out.separation = separations + begin;
      IntersectChunk(g, begin, end - begin, boundary, out);
      // Core relations are 0..2; the wire's are 1..3 (0 = unspecified).
      if (rel != nullptr) {
        for (std::size_t i = 0; i < end - begin; ++i) ++rel[i];
      }
    });
    if (!done) return false;
  }
  return true;
}

bool ComputeClosestPointColumns(const v1::ClosestPointColumnsRequest& req,
                                const ChunkRunner& run,
                                v1::ClosestPointColumnsResponse* response) {
  response->Clear();
  const Boundary boundary = BoundaryOf(req.boundary());
  for (const v1::ClosestPointColumnGroup& g : req.groups()) {
    const std::size_t n = ClosestGroupSize(g);
    const bool three_d =
        g.targets_case() == v1::ClosestPointColumnGroup::kSpheres ||
        g.targets_case() == v1::ClosestPointColumnGroup::kBoxes;
    v1::ClosestPointColumnsResult* r = response->add_groups();
    r->set_count(static_cast<uint32_t>(n));
    simd::ClosestPointOutputs all;
    all.closest_x = Sized(r->mutable_closest_x(), n);
    all.closest_y = Sized(r->mutable_closest_y(), n);
    all.surface_x = Sized(r->mutable_surface_x(), n);
    all.surface_y = Sized(r->mutable_surface_y(), n);
    all.normal_x = Sized(r->mutable_normal_x(), n);
    all.normal_y = Sized(r->mutable_normal_y(), n);
    if (three_d) {
      all.closest_z = Sized(r->mutable_closest_z(), n);
      all.surface_z = Sized(r->mutable_surface_z(), n);
      all.normal_z = Sized(r->mutable_normal_z(), n);
    }
    all.signed_distance = Sized(r->mutable_signed_distance(), n);
    all.gap = Sized(r->mutable_gap(), n);
    std::string* bits = r->mutable_inside_bits();
    bits->resize((n + 7) / 8);
    const bool done = run(n, [&](std::size_t begin, std::size_t end) {
      const auto at = [begin](float* p) { return p ? p + begin : nullptr; };
      simd::ClosestPointOutputs out;
      out.closest_x = at(all.closest_x);
      out.closest_y = at(all.closest_y);
      out.closest_z = at(all.closest_z);
      out.surface_x = at(all.surface_x);
      out.surface_y = at(all.surface_y);
      out.surface_z = at(all.surface_z);
      out.normal_x = at(all.normal_x);
      out.normal_y = at(all.normal_y);
      out.normal_z = at(all.normal_z);
      out.signed_distance = at(all.signed_distance);
      out.gap = at(all.gap);
      thread_local std::vector<uint8_t> inside(kChunk);
      out.inside = inside.data();
      const std::size_t m = end - begin;
      ClosestChunk(g, begin, m, boundary, out);
      // Pack the inside flags; chunks start on a byte boundary.
      uint8_t* dst = reinterpret_cast<uint8_t*>(bits->data()) + begin / 8;
      for (std::size_t i = 0; i < m; i += 8) {
        uint8_t byte = 0;
        for (std::size_t j = 0; j < 8 && i + j < m; ++j) {
          byte = static_cast<uint8_t>(byte | (inside[i + j] ? 1u : 0u) << j);
        }
        dst[i / 8] = byte;
      }
    });
    if (!done) return false;
  }
  return true;
}

ChunkRunner SequentialRunner() {
  return [](std::size_t n,
            const std::function<void(std::size_t, std::size_t)>& body) {
    for (std::size_t begin = 0; begin < n; begin += kChunk) {
      body(begin, std::min(n, begin + kChunk));
    }
    return true;
  };
}

}  // namespace collision::handlers
