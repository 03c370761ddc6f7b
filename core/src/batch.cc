// The dispatcher: a mixed batch is cut into chunks; each chunk is grouped by
// pair kind into struct-of-arrays columns (ball first, points as radius 0),
// every group runs its SIMD kernel, and the answers are scattered back so
// out[i] answers item i.
//
// Grouping is a counting sort on the exact (kind a, kind b) combination,
// computed from the variant indices without branching; the columns are then
// filled one combination at a time with fully typed code, so a shuffled
// batch costs no branch mispredictions per item (a per-item switch was
// slower than the scalar loop:
// docs/decisions/0025-dispatcher-groups-by-kind.md). Chunking bounds the
// per-thread scratch, which is reused through thread_local (no allocation
// after a thread's first call), and keeps the columns in L1/L2 between the
// gather, the kernels and the scatter. Pairings without a kernel (the
// hitbox kinds, kinds.h) form one more group that the scalar functions
// answer one pair at a time, after the kernels.
#include "collision/core/batch.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "collision/core/kernels.h"
#include "collision/core/kinds.h"
#include "collision/core/scalar.h"

namespace collision {
namespace {

constexpr size_t kChunk = 1024;
constexpr int kNumKinds = kShapeKinds;
constexpr int kNumCombos = kNumKinds * kNumKinds;
constexpr size_t kMaxCols = 12;
constexpr bool PairsFitMaxCols() {
  for (const WorkKindInfo& info : kWorkKindTable) {
    if (info.kernel &&
        ComputedColumns(info.first) + ComputedColumns(info.second) >
            static_cast<int>(kMaxCols)) {
      return false;
    }
  }
  return true;
}
static_assert(PairsFitMaxCols(), "a pair's columns must fit kMaxCols");

constexpr ShapeKind KindA(int combo) {
  return static_cast<ShapeKind>(combo / kNumKinds);
}
constexpr ShapeKind KindB(int combo) {
  return static_cast<ShapeKind>(combo % kNumKinds);
}

// Columns a shape occupies (balls: centre and radius, 0 for points).
constexpr size_t Width(ShapeKind k) {
  return static_cast<size_t>(ComputedColumns(k));
}

// Writes a shape of the known kind K into cols[0..Width(K)) at `slot`.
template <ShapeKind K>
void Write(const Shape& s, float* const* c, size_t slot) {
  if constexpr (K == ShapeKind::kPoint2) {
    const Vec2& p = *std::get_if<Vec2>(&s);
    c[0][slot] = p.x, c[1][slot] = p.y, c[2][slot] = 0.0f;
  } else if constexpr (K == ShapeKind::kCircle) {
    const Circle& b = *std::get_if<Circle>(&s);
    c[0][slot] = b.center.x, c[1][slot] = b.center.y, c[2][slot] = b.radius;
  } else if constexpr (K == ShapeKind::kRect) {
    const Rect& r = *std::get_if<Rect>(&s);
    c[0][slot] = r.min.x, c[1][slot] = r.min.y;
    c[2][slot] = r.max.x, c[3][slot] = r.max.y;
  } else if constexpr (K == ShapeKind::kRotatedRect) {
    const RotatedRect& r = *std::get_if<RotatedRect>(&s);
    c[0][slot] = r.size.x, c[1][slot] = r.size.y;
    c[2][slot] = r.pivot.x, c[3][slot] = r.pivot.y;
    c[4][slot] = r.position.x, c[5][slot] = r.position.y;
    c[6][slot] = r.rotation.cos, c[7][slot] = r.rotation.sin;
  } else if constexpr (K == ShapeKind::kPoint3) {
    const Vec3& p = *std::get_if<Vec3>(&s);
    c[0][slot] = p.x, c[1][slot] = p.y, c[2][slot] = p.z, c[3][slot] = 0.0f;
  } else if constexpr (K == ShapeKind::kSphere) {
    const Sphere& b = *std::get_if<Sphere>(&s);
    c[0][slot] = b.center.x, c[1][slot] = b.center.y;
    c[2][slot] = b.center.z, c[3][slot] = b.radius;
  } else {
    static_assert(K == ShapeKind::kBox, "a kind without kernel columns");
    const Box& b = *std::get_if<Box>(&s);
    c[0][slot] = b.min.x, c[1][slot] = b.min.y, c[2][slot] = b.min.z;
    c[3][slot] = b.max.x, c[4][slot] = b.max.y, c[5][slot] = b.max.z;
  }
}

// Per-chunk grouping by combination: bucket order groups the combinations
// of one kernel together, so each kernel's rows are one contiguous range.
template <size_t kGroups>
struct Grouping {
  std::array<uint32_t, kNumCombos> count{};
  std::array<uint32_t, kNumCombos> start{};  // first slot of each combination
  std::array<size_t, kGroups> group_start{};
  std::array<size_t, kGroups> group_count{};
  std::vector<uint8_t> combo;  // per item of the chunk
  std::vector<uint32_t> item;  // per slot: the item it holds
  std::vector<uint32_t> slot;  // per item: its slot (inverse of `item`)
  std::vector<float> arena;    // the columns of every group
  std::array<std::array<float*, kMaxCols>, kGroups> cols{};

  // `group_of[c]` is the kernel group of combination c (kGroups: none);
  // `rank` lists the combinations group by group.
  template <class Items, class ComboOf>
  void Build(const Items& items, ComboOf combo_of,
             const std::array<uint8_t, kNumCombos>& group_of,
             const std::array<uint8_t, kNumCombos>& rank, size_t num_ranked,
             const std::array<size_t, kGroups>& num_cols) {
    const size_t n = items.size();
    count.fill(0);
    combo.resize(n);
    item.resize(n);
    slot.resize(n);
    for (size_t i = 0; i < n; ++i) {
      const int c = combo_of(items[i]);
      assert(group_of[c] < kGroups && "unsupported pair");
      combo[i] = static_cast<uint8_t>(c);
      ++count[c];
    }
    group_count.fill(0);
    uint32_t pos = 0;
    for (size_t r = 0; r < num_ranked; ++r) {
      const int c = rank[r];
      const size_t g = group_of[c];
      if (group_count[g] == 0) group_start[g] = pos;
      start[c] = pos;
      pos += count[c];
      group_count[g] += count[c];
    }
    std::array<uint32_t, kNumCombos> fill = start;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t at = fill[combo[i]]++;
      item[at] = static_cast<uint32_t>(i);
      slot[i] = at;
    }
    size_t floats = 0;
    for (size_t g = 0; g < kGroups; ++g) floats += group_count[g] * num_cols[g];
    if (arena.size() < floats) arena.resize(floats);
    float* base = arena.data();
    for (size_t g = 0; g < kGroups; ++g) {
      for (size_t k = 0; k < num_cols[g]; ++k) {
        cols[g][k] = base;
        base += group_count[g];
      }
    }
  }
};

// Lists the combinations with a group, group by group.
template <size_t kGroups>
constexpr std::pair<std::array<uint8_t, kNumCombos>, size_t> RankOf(
    const std::array<uint8_t, kNumCombos>& group_of) {
  std::array<uint8_t, kNumCombos> rank{};
  size_t n = 0;
  for (size_t g = 0; g < kGroups; ++g) {
    for (int c = 0; c < kNumCombos; ++c) {
      if (group_of[c] == g) rank[n++] = static_cast<uint8_t>(c);
    }
  }
  return {rank, n};
}

// ---- Intersect -------------------------------------------------------------

// One group per kernel, then kIScalar: the pairings without a kernel
// (kinds.h), answered one pair at a time by the scalar Intersect.
enum IntersectGroup : uint8_t {
  kCC,
  kCR,
  kCRR,
  kRR,
  kSS,
  kSB,
  kBB,
  kIScalar,
  kNumI
};
constexpr std::array<size_t, kNumI> kICols = {6, 7, 11, 8, 8, 10, 12, 0};

// The pair goes into its row's columns in the row's order (kinds.h).
constexpr bool Swapped(int c) {
  const std::optional<WorkKind> kind = IntersectWorkKind(KindA(c), KindB(c));
  return kind && InfoOf(*kind).first != ComputedAs(KindA(c));
}

// The kernel groups are the work kinds with a kernel, which come first
// among the table's rows [begin, end), in its order (kinds.h).
constexpr bool KernelRowsFirst(int begin, int end, int kernels) {
  for (int k = begin; k < end; ++k) {
    if (kWorkKindTable[k].kernel != (k - begin < kernels)) return false;
  }
  return true;
}
static_assert(kCC == static_cast<int>(WorkKind::kCircleCircle) &&
              kBB == static_cast<int>(WorkKind::kBoxBox) &&
              KernelRowsFirst(0, kIntersectWorkKinds, kIScalar));
constexpr uint8_t IntersectGroupOf(int c) {
  const std::optional<WorkKind> kind = IntersectWorkKind(KindA(c), KindB(c));
  if (!kind) return kNumI;
  if (!InfoOf(*kind).kernel) return kIScalar;
  return static_cast<uint8_t>(*kind);
}

constexpr std::array<uint8_t, kNumCombos> kIGroupOf = [] {
  std::array<uint8_t, kNumCombos> g{};
  for (int c = 0; c < kNumCombos; ++c) g[c] = IntersectGroupOf(c);
  return g;
}();
constexpr auto kIRank = RankOf<kNumI>(kIGroupOf);

using IntersectFill = void (*)(const ShapePair*, const uint32_t*, size_t,
                               float* const*, size_t);

template <int C>
void FillIntersect(const ShapePair* pairs, const uint32_t* items, size_t n,
                   float* const* cols, size_t first_slot) {
  if constexpr (IntersectGroupOf(C) < kIScalar) {
    constexpr bool kSwap = Swapped(C);
    constexpr ShapeKind k0 = kSwap ? KindB(C) : KindA(C);
    constexpr ShapeKind k1 = kSwap ? KindA(C) : KindB(C);
    for (size_t j = 0; j < n; ++j) {
      const ShapePair& p = pairs[items[j]];
      Write<k0>(kSwap ? p.b : p.a, cols, first_slot + j);
      Write<k1>(kSwap ? p.a : p.b, cols + Width(k0), first_slot + j);
    }
  }
}

template <int... C>
constexpr std::array<IntersectFill, kNumCombos> IntersectFills(
    std::integer_sequence<int, C...>) {
  return {&FillIntersect<C>...};
}
constexpr auto kIntersectFill =
    IntersectFills(std::make_integer_sequence<int, kNumCombos>());

void RunIntersectGroup(size_t g, float* const* c, size_t n, Boundary boundary,
                       const simd::IntersectOutputs& out) {
  if (n == 0) return;
  const simd::BallColumns2 b2{c[0], c[1], c[2]};
  const simd::BallColumns3 b3{c[0], c[1], c[2], c[3]};
  switch (g) {
    case kCC:
      return simd::IntersectCircleCircleColumns(b2, {c[3], c[4], c[5]}, n,
                                                boundary, out);
    case kCR:
      return simd::IntersectCircleRectColumns(b2, {c[3], c[4], c[5], c[6]}, n,
                                              boundary, out);
    case kCRR:
      return simd::IntersectCircleRotatedRectColumns(
          b2, {c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]}, n, boundary,
          out);
    case kRR:
      return simd::IntersectRectRectColumns(
          {c[0], c[1], c[2], c[3]}, {c[4], c[5], c[6], c[7]}, n, boundary, out);
    case kSS:
      return simd::IntersectSphereSphereColumns(b3, {c[4], c[5], c[6], c[7]}, n,
                                                boundary, out);
    case kSB:
      return simd::IntersectSphereBoxColumns(
          b3, {c[4], c[5], c[6], c[7], c[8], c[9]}, n, boundary, out);
    case kBB:
      return simd::IntersectBoxBoxColumns(
          {c[0], c[1], c[2], c[3], c[4], c[5]},
          {c[6], c[7], c[8], c[9], c[10], c[11]}, n, boundary, out);
  }
}

struct IntersectScratch {
  Grouping<kNumI> grouping;
  std::vector<uint8_t> hit;
  std::vector<Relation> relation;
  std::vector<float> separation;
};

void IntersectChunk(absl::Span<const ShapePair> pairs, Boundary boundary,
                    absl::Span<IntersectResult> out, IntersectScratch& s) {
  Grouping<kNumI>& gr = s.grouping;
  const size_t n = pairs.size();
  gr.Build(
      pairs,
      [](const ShapePair& p) {
        return static_cast<int>(p.a.index() * kNumKinds + p.b.index());
      },
      kIGroupOf, kIRank.first, kIRank.second, kICols);
  for (size_t r = 0; r < kIRank.second; ++r) {
    const int c = kIRank.first[r];
    if (gr.count[c] == 0) continue;
    const size_t g = kIGroupOf[c];
    kIntersectFill[c](pairs.data(), gr.item.data() + gr.start[c], gr.count[c],
                      gr.cols[g].data(), gr.start[c] - gr.group_start[g]);
  }
  s.hit.resize(n);
  s.relation.resize(n);
  s.separation.resize(n);
  for (size_t g = 0; g < kIScalar; ++g) {
    const size_t at = gr.group_start[g];
    RunIntersectGroup(g, gr.cols[g].data(), gr.group_count[g], boundary,
                      {s.hit.data() + at, nullptr, s.relation.data() + at,
                       s.separation.data() + at});
  }
  const size_t scalar_at = gr.group_start[kIScalar];
  for (size_t j = 0; j < gr.group_count[kIScalar]; ++j) {
    const size_t at = scalar_at + j;
    const ShapePair& p = pairs[gr.item[at]];
    const IntersectResult r = Intersect(p.a, p.b, boundary);
    s.hit[at] = r.hit ? 1 : 0;
    s.relation[at] = r.relation;
    s.separation[at] = r.separation;
  }
  // In item order: the results are written sequentially.
  for (size_t i = 0; i < n; ++i) {
    const size_t at = gr.slot[i];
    out[i] = IntersectResult{s.hit[at] != 0, s.relation[at], s.separation[at]};
  }
}

// ---- ClosestPoint ----------------------------------------------------------

// One group per kernel, then kOnScalar (the targets without a kernel).
enum ClosestGroup : uint8_t {
  kOnCircle,
  kOnRect,
  kOnRotated,
  kOnSphere,
  kOnBox,
  kOnScalar,
  kNumC
};
constexpr std::array<size_t, kNumC> kCCols = {6, 7, 11, 8, 10, 0};
constexpr size_t kClosestFloats = 11;

// The kernel groups are the closest-point work kinds with a kernel, in the
// table's order.
static_assert(static_cast<int>(WorkKind::kClosestCircle) + kOnBox ==
                  static_cast<int>(WorkKind::kClosestBox) &&
              KernelRowsFirst(kIntersectWorkKinds, kWorkKinds, kOnScalar));
constexpr uint8_t ClosestGroupOf(int c) {
  const std::optional<WorkKind> kind = ClosestWorkKind(KindA(c), KindB(c));
  if (!kind) return kNumC;
  if (!InfoOf(*kind).kernel) return kOnScalar;
  return static_cast<uint8_t>(static_cast<int>(*kind) - kIntersectWorkKinds);
}

constexpr std::array<uint8_t, kNumCombos> kCGroupOf = [] {
  std::array<uint8_t, kNumCombos> g{};
  for (int c = 0; c < kNumCombos; ++c) g[c] = ClosestGroupOf(c);
  return g;
}();
constexpr auto kCRank = RankOf<kNumC>(kCGroupOf);

using ClosestFill = void (*)(const ClosestPointItem*, const uint32_t*, size_t,
                             float* const*, size_t);

template <int C>
void FillClosest(const ClosestPointItem* items, const uint32_t* index, size_t n,
                 float* const* cols, size_t first_slot) {
  if constexpr (ClosestGroupOf(C) < kOnScalar) {
    for (size_t j = 0; j < n; ++j) {
      const ClosestPointItem& it = items[index[j]];
      Write<KindA(C)>(it.query, cols, first_slot + j);
      Write<KindB(C)>(it.target, cols + Width(KindA(C)), first_slot + j);
    }
  }
}

template <int... C>
constexpr std::array<ClosestFill, kNumCombos> ClosestFills(
    std::integer_sequence<int, C...>) {
  return {&FillClosest<C>...};
}
constexpr auto kClosestFill =
    ClosestFills(std::make_integer_sequence<int, kNumCombos>());

void RunClosestGroup(size_t g, float* const* c, size_t n, Boundary boundary,
                     const simd::ClosestPointOutputs& out) {
  if (n == 0) return;
  const simd::BallColumns2 q2{c[0], c[1], c[2]};
  const simd::BallColumns3 q3{c[0], c[1], c[2], c[3]};
  switch (g) {
    case kOnCircle:
      return simd::ClosestPointOnCircleColumns(q2, {c[3], c[4], c[5]}, n,
                                               boundary, out);
    case kOnRect:
      return simd::ClosestPointOnRectColumns(q2, {c[3], c[4], c[5], c[6]}, n,
                                             boundary, out);
    case kOnRotated:
      return simd::ClosestPointOnRotatedRectColumns(
          q2, {c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]}, n, boundary,
          out);
    case kOnSphere:
      return simd::ClosestPointOnSphereColumns(q3, {c[4], c[5], c[6], c[7]}, n,
                                               boundary, out);
    case kOnBox:
      return simd::ClosestPointOnBoxColumns(
          q3, {c[4], c[5], c[6], c[7], c[8], c[9]}, n, boundary, out);
  }
}

struct ClosestScratch {
  Grouping<kNumC> grouping;
  std::vector<float> f;  // kClosestFloats columns of the chunk size
  std::vector<uint8_t> inside;
  std::vector<ClosestPointResult> scalar;  // the kOnScalar group's answers
};

void ClosestChunk(absl::Span<const ClosestPointItem> items, Boundary boundary,
                  absl::Span<ClosestPointResult> out, ClosestScratch& s) {
  Grouping<kNumC>& gr = s.grouping;
  const size_t n = items.size();
  gr.Build(
      items,
      [](const ClosestPointItem& it) {
        return static_cast<int>(it.query.index() * kNumKinds +
                                it.target.index());
      },
      kCGroupOf, kCRank.first, kCRank.second, kCCols);
  for (size_t r = 0; r < kCRank.second; ++r) {
    const int c = kCRank.first[r];
    if (gr.count[c] == 0) continue;
    const size_t g = kCGroupOf[c];
    kClosestFill[c](items.data(), gr.item.data() + gr.start[c], gr.count[c],
                    gr.cols[g].data(), gr.start[c] - gr.group_start[g]);
  }
  s.f.resize(kClosestFloats * n);
  s.inside.resize(n);
  float* f[kClosestFloats];
  for (size_t k = 0; k < kClosestFloats; ++k) f[k] = s.f.data() + k * n;
  // The 2D kernels leave z alone; the scalar reference reports z = 0.
  std::fill(f[2], f[2] + n, 0.0f);
  std::fill(f[5], f[5] + n, 0.0f);
  std::fill(f[8], f[8] + n, 0.0f);
  for (size_t g = 0; g < kOnScalar; ++g) {
    const size_t at = gr.group_start[g];
    simd::ClosestPointOutputs o;
    o.closest_x = f[0] + at, o.closest_y = f[1] + at, o.closest_z = f[2] + at;
    o.surface_x = f[3] + at, o.surface_y = f[4] + at, o.surface_z = f[5] + at;
    o.normal_x = f[6] + at, o.normal_y = f[7] + at, o.normal_z = f[8] + at;
    o.signed_distance = f[9] + at;
    o.gap = f[10] + at;
    o.inside = s.inside.data() + at;
    RunClosestGroup(g, gr.cols[g].data(), gr.group_count[g], boundary, o);
  }
  const size_t scalar_at = gr.group_start[kOnScalar];
  const size_t scalar_n = gr.group_count[kOnScalar];
  s.scalar.resize(scalar_n);
  for (size_t j = 0; j < scalar_n; ++j) {
    const ClosestPointItem& it = items[gr.item[scalar_at + j]];
    s.scalar[j] = ClosestPoint(it.query, it.target, boundary);
  }
  // In item order: the results are written sequentially.
  for (size_t i = 0; i < n; ++i) {
    const size_t at = gr.slot[i];
    if (at - scalar_at < scalar_n) {
      out[i] = s.scalar[at - scalar_at];
      continue;
    }
    ClosestPointResult& r = out[i];
    r.closest_point = {f[0][at], f[1][at], f[2][at]};
    r.surface_point = {f[3][at], f[4][at], f[5][at]};
    r.normal = {f[6][at], f[7][at], f[8][at]};
    r.signed_distance = f[9][at];
    r.gap = f[10][at];
    r.inside = s.inside[at] != 0;
    r.has_query_point = false;
    r.query_point = {};
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
