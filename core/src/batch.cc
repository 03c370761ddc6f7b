// The dispatcher: a mixed batch is cut into chunks; each chunk is grouped by
// pair kind into struct-of-arrays columns (ball first, points as radius 0),
// every group runs its SIMD kernel, and the answers are scattered back so
// out[i] answers item i. Chunking bounds the per-thread scratch (reused via
// thread_local, so no allocation after a thread's first call) and keeps the
// columns in L1/L2 between the gather, the kernel and the scatter.
#include "collision/core/batch.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <utility>
#include <vector>

#include "collision/core/kernels.h"
#include "collision/core/scalar.h"

namespace collision {
namespace {

constexpr size_t kChunk = 2048;
constexpr size_t kMaxCols = 12;

bool IsBall(ShapeKind k) {
  return k == ShapeKind::kPoint2 || k == ShapeKind::kCircle ||
         k == ShapeKind::kPoint3 || k == ShapeKind::kSphere;
}

// Writes shapes into the group's columns at one slot.
class ColumnWriter {
 public:
  ColumnWriter(float* const* cols, size_t slot) : cols_(cols), slot_(slot) {}
  void Put(float v) { cols_[next_++][slot_] = v; }
  void Ball2(const Shape& s) {
    if (const auto* p = std::get_if<Vec2>(&s)) {
      Put(p->x), Put(p->y), Put(0.0f);
    } else {
      const Circle& c = *std::get_if<Circle>(&s);
      Put(c.center.x), Put(c.center.y), Put(c.radius);
    }
  }
  void Ball3(const Shape& s) {
    if (const auto* p = std::get_if<Vec3>(&s)) {
      Put(p->x), Put(p->y), Put(p->z), Put(0.0f);
    } else {
      const Sphere& c = *std::get_if<Sphere>(&s);
      Put(c.center.x), Put(c.center.y), Put(c.center.z), Put(c.radius);
    }
  }
  void RectShape(const Shape& s) {
    const Rect& r = *std::get_if<Rect>(&s);
    Put(r.min.x), Put(r.min.y), Put(r.max.x), Put(r.max.y);
  }
  void RotatedShape(const Shape& s) {
    const RotatedRect& r = *std::get_if<RotatedRect>(&s);
    Put(r.size.x), Put(r.size.y), Put(r.pivot.x), Put(r.pivot.y);
    Put(r.position.x), Put(r.position.y);
    Put(r.rotation.cos), Put(r.rotation.sin);
  }
  void BoxShape(const Shape& s) {
    const Box& b = *std::get_if<Box>(&s);
    Put(b.min.x), Put(b.min.y), Put(b.min.z);
    Put(b.max.x), Put(b.max.y), Put(b.max.z);
  }
  // Any shape, by kind.
  void Any(const Shape& s) {
    switch (KindOf(s)) {
      case ShapeKind::kPoint2:
      case ShapeKind::kCircle:
        return Ball2(s);
      case ShapeKind::kRect:
        return RectShape(s);
      case ShapeKind::kRotatedRect:
        return RotatedShape(s);
      case ShapeKind::kPoint3:
      case ShapeKind::kSphere:
        return Ball3(s);
      case ShapeKind::kBox:
        return BoxShape(s);
    }
  }

 private:
  float* const* cols_;
  size_t slot_;
  size_t next_ = 0;
};

// Groups: a kind id per item, the group sizes, and the column arena.
template <size_t kGroups>
struct Grouping {
  std::array<size_t, kGroups> count{};
  std::array<size_t, kGroups> start{};  // first slot of each group
  std::vector<uint8_t> group;           // per item of the chunk
  std::vector<uint32_t> item;           // per slot: item index in the chunk
  std::vector<float> arena;
  std::array<std::array<float*, kMaxCols>, kGroups> cols{};

  void Reset(size_t n) {
    count.fill(0);
    group.resize(n);
    item.resize(n);
  }
  // After counting: lays out the slots and the columns.
  void Layout(const std::array<size_t, kGroups>& num_cols) {
    size_t slot = 0;
    size_t floats = 0;
    for (size_t g = 0; g < kGroups; ++g) {
      start[g] = slot;
      slot += count[g];
      floats += count[g] * num_cols[g];
    }
    if (arena.size() < floats) arena.resize(floats);
    float* base = arena.data();
    for (size_t g = 0; g < kGroups; ++g) {
      for (size_t c = 0; c < num_cols[g]; ++c) {
        cols[g][c] = base;
        base += count[g];
      }
    }
  }
};

// ---- Intersect -------------------------------------------------------------

enum IntersectGroup : uint8_t { kCC, kCR, kCRR, kRR, kSS, kSB, kBB, kNumI };
constexpr std::array<size_t, kNumI> kICols = {6, 7, 11, 8, 8, 10, 12};

// The group of a supported pair; `swap` says the ball is b.
IntersectGroup GroupOf(ShapeKind a, ShapeKind b, bool& swap) {
  swap = !IsBall(a) && IsBall(b);
  if (swap) std::swap(a, b);
  switch (b) {
    case ShapeKind::kPoint2:
    case ShapeKind::kCircle:
      return kCC;
    case ShapeKind::kRect:
      return a == ShapeKind::kRect ? kRR : kCR;
    case ShapeKind::kRotatedRect:
      return kCRR;
    case ShapeKind::kPoint3:
    case ShapeKind::kSphere:
      return kSS;
    case ShapeKind::kBox:
      return a == ShapeKind::kBox ? kBB : kSB;
  }
  return kCC;
}

struct IntersectScratch {
  Grouping<kNumI> grouping;
  std::vector<uint8_t> hit;
  std::vector<Relation> relation;
  std::vector<float> separation;
};

void RunIntersectGroup(IntersectGroup g, float* const* c, size_t n,
                       Boundary boundary, const simd::IntersectOutputs& out) {
  if (n == 0) return;
  const simd::BallColumns2 b2{c[0], c[1], c[2]};
  const simd::BallColumns3 b3{c[0], c[1], c[2], c[3]};
  switch (g) {
    case kCC:
      return simd::IntersectCircleCircle(b2, {c[3], c[4], c[5]}, n, boundary,
                                         out);
    case kCR:
      return simd::IntersectCircleRect(b2, {c[3], c[4], c[5], c[6]}, n,
                                       boundary, out);
    case kCRR:
      return simd::IntersectCircleRotatedRect(
          b2, {c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]}, n, boundary,
          out);
    case kRR:
      return simd::IntersectRectRect(
          {c[0], c[1], c[2], c[3]}, {c[4], c[5], c[6], c[7]}, n, boundary, out);
    case kSS:
      return simd::IntersectSphereSphere(b3, {c[4], c[5], c[6], c[7]}, n,
                                         boundary, out);
    case kSB:
      return simd::IntersectSphereBox(b3, {c[4], c[5], c[6], c[7], c[8], c[9]},
                                      n, boundary, out);
    case kBB:
      return simd::IntersectBoxBox({c[0], c[1], c[2], c[3], c[4], c[5]},
                                   {c[6], c[7], c[8], c[9], c[10], c[11]}, n,
                                   boundary, out);
    case kNumI:
      break;
  }
}

void IntersectChunk(absl::Span<const ShapePair> pairs, Boundary boundary,
                    absl::Span<IntersectResult> out, IntersectScratch& s) {
  Grouping<kNumI>& gr = s.grouping;
  const size_t n = pairs.size();
  gr.Reset(n);
  for (size_t i = 0; i < n; ++i) {
    assert(IsSupportedIntersectPair(KindOf(pairs[i].a), KindOf(pairs[i].b)));
    bool swap = false;
    const IntersectGroup g =
        GroupOf(KindOf(pairs[i].a), KindOf(pairs[i].b), swap);
    gr.group[i] = static_cast<uint8_t>(g | (swap ? 0x80 : 0));
    ++gr.count[g];
  }
  gr.Layout(kICols);
  std::array<size_t, kNumI> fill = gr.start;
  for (size_t i = 0; i < n; ++i) {
    const size_t g = gr.group[i] & 0x7f;
    const bool swap = (gr.group[i] & 0x80) != 0;
    const size_t slot = fill[g]++;
    gr.item[slot] = static_cast<uint32_t>(i);
    ColumnWriter w(gr.cols[g].data(), slot - gr.start[g]);
    w.Any(swap ? pairs[i].b : pairs[i].a);
    w.Any(swap ? pairs[i].a : pairs[i].b);
  }
  s.hit.resize(n);
  s.relation.resize(n);
  s.separation.resize(n);
  for (size_t g = 0; g < kNumI; ++g) {
    const size_t at = gr.start[g];
    simd::IntersectOutputs o;
    o.hit = s.hit.data() + at;
    o.relation = s.relation.data() + at;
    o.separation = s.separation.data() + at;
    RunIntersectGroup(static_cast<IntersectGroup>(g), gr.cols[g].data(),
                      gr.count[g], boundary, o);
  }
  for (size_t slot = 0; slot < n; ++slot) {
    IntersectResult& r = out[gr.item[slot]];
    r.hit = s.hit[slot] != 0;
    r.relation = s.relation[slot];
    r.separation = s.separation[slot];
  }
}

// ---- ClosestPoint ----------------------------------------------------------

enum ClosestGroup : uint8_t {
  kOnCircle,
  kOnRect,
  kOnRotated,
  kOnSphere,
  kOnBox,
  kNumC
};
constexpr std::array<size_t, kNumC> kCCols = {6, 7, 11, 8, 10};
constexpr size_t kClosestFloats = 11;

ClosestGroup ClosestGroupOf(ShapeKind target) {
  switch (target) {
    case ShapeKind::kPoint2:
    case ShapeKind::kCircle:
      return kOnCircle;
    case ShapeKind::kRect:
      return kOnRect;
    case ShapeKind::kRotatedRect:
      return kOnRotated;
    case ShapeKind::kPoint3:
    case ShapeKind::kSphere:
      return kOnSphere;
    case ShapeKind::kBox:
      return kOnBox;
  }
  return kOnCircle;
}

struct ClosestScratch {
  Grouping<kNumC> grouping;
  std::vector<float> f;  // kClosestFloats columns of the chunk size
  std::vector<uint8_t> inside;
};

void RunClosestGroup(ClosestGroup g, float* const* c, size_t n,
                     Boundary boundary, const simd::ClosestPointOutputs& out) {
  if (n == 0) return;
  const simd::BallColumns2 q2{c[0], c[1], c[2]};
  const simd::BallColumns3 q3{c[0], c[1], c[2], c[3]};
  switch (g) {
    case kOnCircle:
      return simd::ClosestPointOnCircle(q2, {c[3], c[4], c[5]}, n, boundary,
                                        out);
    case kOnRect:
      return simd::ClosestPointOnRect(q2, {c[3], c[4], c[5], c[6]}, n, boundary,
                                      out);
    case kOnRotated:
      return simd::ClosestPointOnRotatedRect(
          q2, {c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]}, n, boundary,
          out);
    case kOnSphere:
      return simd::ClosestPointOnSphere(q3, {c[4], c[5], c[6], c[7]}, n,
                                        boundary, out);
    case kOnBox:
      return simd::ClosestPointOnBox(q3, {c[4], c[5], c[6], c[7], c[8], c[9]},
                                     n, boundary, out);
    case kNumC:
      break;
  }
}

void ClosestChunk(absl::Span<const ClosestPointItem> items, Boundary boundary,
                  absl::Span<ClosestPointResult> out, ClosestScratch& s) {
  Grouping<kNumC>& gr = s.grouping;
  const size_t n = items.size();
  gr.Reset(n);
  for (size_t i = 0; i < n; ++i) {
    assert(IsSupportedClosestPointPair(KindOf(items[i].query),
                                       KindOf(items[i].target)));
    const ClosestGroup g = ClosestGroupOf(KindOf(items[i].target));
    gr.group[i] = g;
    ++gr.count[g];
  }
  gr.Layout(kCCols);
  std::array<size_t, kNumC> fill = gr.start;
  for (size_t i = 0; i < n; ++i) {
    const size_t g = gr.group[i];
    const size_t slot = fill[g]++;
    gr.item[slot] = static_cast<uint32_t>(i);
    ColumnWriter w(gr.cols[g].data(), slot - gr.start[g]);
    w.Any(items[i].query);
    w.Any(items[i].target);
  }
  s.f.resize(kClosestFloats * n);
  s.inside.resize(n);
  float* f[kClosestFloats];
  for (size_t k = 0; k < kClosestFloats; ++k) f[k] = s.f.data() + k * n;
  for (size_t g = 0; g < kNumC; ++g) {
    const size_t at = gr.start[g];
    simd::ClosestPointOutputs o;
    o.closest_x = f[0] + at, o.closest_y = f[1] + at, o.closest_z = f[2] + at;
    o.surface_x = f[3] + at, o.surface_y = f[4] + at, o.surface_z = f[5] + at;
    o.normal_x = f[6] + at, o.normal_y = f[7] + at, o.normal_z = f[8] + at;
    o.signed_distance = f[9] + at;
    o.gap = f[10] + at;
    o.inside = s.inside.data() + at;
    RunClosestGroup(static_cast<ClosestGroup>(g), gr.cols[g].data(),
                    gr.count[g], boundary, o);
  }
  // 2D kernels leave z alone: the scalar reference reports z = 0.
  const size_t end_2d = gr.start[kOnSphere];
  for (size_t slot = 0; slot < end_2d; ++slot) {
    f[2][slot] = f[5][slot] = f[8][slot] = 0.0f;
  }
  for (size_t slot = 0; slot < n; ++slot) {
    ClosestPointResult& r = out[gr.item[slot]];
    r.closest_point = {f[0][slot], f[1][slot], f[2][slot]};
    r.surface_point = {f[3][slot], f[4][slot], f[5][slot]};
    r.normal = {f[6][slot], f[7][slot], f[8][slot]};
    r.signed_distance = f[9][slot];
    r.gap = f[10][slot];
    r.inside = s.inside[slot] != 0;
  }
}

}  // namespace

void IntersectBatch(absl::Span<const ShapePair> pairs, Boundary boundary,
                    absl::Span<IntersectResult> out) {
  assert(out.size() == pairs.size());
  thread_local IntersectScratch scratch;
  for (size_t i = 0; i < pairs.size(); i += kChunk) {
    const size_t n = std::min(kChunk, pairs.size() - i);
    IntersectChunk(pairs.subspan(i, n), boundary, out.subspan(i, n), scratch);
  }
}

void ClosestPointBatch(absl::Span<const ClosestPointItem> items,
                       Boundary boundary, absl::Span<ClosestPointResult> out) {
  assert(out.size() == items.size());
  thread_local ClosestScratch scratch;
  for (size_t i = 0; i < items.size(); i += kChunk) {
    const size_t n = std::min(kChunk, items.size() - i);
    ClosestChunk(items.subspan(i, n), boundary, out.subspan(i, n), scratch);
  }
}

const char* SimdTargetName() { return simd::TargetName(); }

}  // namespace collision
