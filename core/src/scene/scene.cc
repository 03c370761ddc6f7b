// The scene: id map, staged updates, hierarchy upkeep and the four queries.
// The narrow phase calls the kernels of kernels.h (overlap, nearest) on a
// leaf's contiguous columns against the query broadcast into short columns
// (capsules and oriented boxes, which have no kernels: the scalar
// Intersect / ClosestPoint per entity), and the scalar casts of cast.h per
// candidate; the hierarchy only prunes.
#include "collision/core/scene.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "collision/core/kernels.h"
#include "collision/core/scalar.h"
#include "scene/bvh.h"
#include "scene/collectors.h"
#include "scene/moves.h"
#include "scene/query_util.h"
#include "scene/store.h"

namespace collision {
namespace {

using scene::Aabb;
using scene::BvhNode;
using scene::Family;
using scene::kWiden;
using scene::MakeSegment;
using scene::Pending;
using scene::Segment;
using scene::Store;

// Longest run handed to a kernel at once: a leaf (kLeafSize) or a chunk of
// the tail. One AVX-512 vector of floats.
constexpr size_t kRun = 16;
static_assert(scene::kLeafSize <= kRun, "a leaf must fit one run");

// Lanes a kernel runs for `n` stored entities: n rounded up to whole
// vectors (the columns' padding makes the extra lanes readable), so no run
// takes the kernels' tail path; their answers are ignored.
size_t Lanes(size_t n) {
  const size_t lanes = simd::FloatLanes();
  return std::min(kRun, (n + lanes - 1) / lanes * lanes);
}
static_assert(kRun <= scene::kColumnPadding, "runs read into the padding");

// Tail entries tolerated before a rebuild: a fixed floor plus 1/64 of the
// tree, so the tail's scan stays a small share of a query while insert-heavy
// ticks (projectiles spawning) do not rebuild every tick.
constexpr size_t kTailFloor = 32;

// The query's column values repeated kRun times: the kernels' `a` or `b`
// operand against a run of stored entities.
struct Broadcast {
  std::array<std::array<float, kRun>, scene::kMaxColumns> values;
  const float* cols[scene::kMaxColumns];

  Broadcast(const float* v, size_t n) {
    for (size_t c = 0; c < n; ++c) {
      values[c].fill(v[c]);
      cols[c] = values[c].data();
    }
  }
};

// Column pointers of a stored run starting at `slot`.
struct Run {
  const float* cols[scene::kMaxColumns];
  Run(const Store& s, size_t slot) {
    for (size_t c = 0; c < scene::ColumnCount(s.family); ++c) {
      cols[c] = s.column(c, slot);
    }
  }
};

simd::BallColumns2 Ball2(const float* const* c) { return {c[0], c[1], c[2]}; }
simd::RectColumns Rect4(const float* const* c) {
  return {c[0], c[1], c[2], c[3]};
}
simd::RotatedRectColumns Rotated(const float* const* c) {
  return {c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]};
}
simd::BallColumns3 Ball3(const float* const* c) {
  return {c[0], c[1], c[2], c[3]};
}
simd::BoxColumns Box6(const float* const* c) {
  return {c[0], c[1], c[2], c[3], c[4], c[5]};
}

// Intersect(query, entity) for n entities of family `ef` from `e`; the
// kernels take the ball first and are symmetric otherwise (scalar.h).
void IntersectRun(Family qf, const float* const* q, Family ef,
                  const float* const* e, size_t n, Boundary b,
                  const simd::IntersectOutputs& out) {
  switch (qf) {
    case Family::kBall2:
      if (ef == Family::kBall2) {
        simd::IntersectCircleCircleColumns(Ball2(q), Ball2(e), n, b, out);
      } else if (ef == Family::kRect) {
        simd::IntersectCircleRectColumns(Ball2(q), Rect4(e), n, b, out);
      } else {
        simd::IntersectCircleRotatedRectColumns(Ball2(q), Rotated(e), n, b,
                                                out);
      }
      return;
    case Family::kRect:
      if (ef == Family::kBall2) {
        simd::IntersectCircleRectColumns(Ball2(e), Rect4(q), n, b, out);
      } else {
        simd::IntersectRectRectColumns(Rect4(q), Rect4(e), n, b, out);
      }
      return;
    case Family::kRotatedRect:
      simd::IntersectCircleRotatedRectColumns(Ball2(e), Rotated(q), n, b, out);
      return;
    case Family::kBall3:
      if (ef == Family::kBall3) {
        simd::IntersectSphereSphereColumns(Ball3(q), Ball3(e), n, b, out);
      } else {
        simd::IntersectSphereBoxColumns(Ball3(q), Box6(e), n, b, out);
      }
      return;
    case Family::kBox:
      if (ef == Family::kBall3) {
        simd::IntersectSphereBoxColumns(Ball3(e), Box6(q), n, b, out);
      } else {
        simd::IntersectBoxBoxColumns(Box6(q), Box6(e), n, b, out);
      }
      return;
    case Family::kCapsule3:
    case Family::kOrientedBox:
      assert(false && "scalar families: ScalarIntersectRun");
      return;
  }
}

void ClosestPointRun(Family qf, const float* const* q, Family ef,
                     const float* const* e, size_t n, Boundary b,
                     const simd::ClosestPointOutputs& out) {
  if (qf == Family::kBall2) {
    if (ef == Family::kBall2) {
      simd::ClosestPointOnCircleColumns(Ball2(q), Ball2(e), n, b, out);
    } else if (ef == Family::kRect) {
      simd::ClosestPointOnRectColumns(Ball2(q), Rect4(e), n, b, out);
    } else {
      simd::ClosestPointOnRotatedRectColumns(Ball2(q), Rotated(e), n, b, out);
    }
  } else if (ef == Family::kBall3) {
    simd::ClosestPointOnSphereColumns(Ball3(q), Ball3(e), n, b, out);
  } else {
    simd::ClosestPointOnBoxColumns(Ball3(q), Box6(e), n, b, out);
  }
}

// The shape stored in `slot`, as the scalar functions take it.
Shape StoredShape(const Store& s, size_t slot) {
  float v[scene::kMaxColumns];
  for (size_t c = 0; c < scene::ColumnCount(s.family); ++c) {
    v[c] = s.columns[c][slot];
  }
  return scene::ShapeFromColumns(s.family, v);
}

// IntersectRun and ClosestPointRun where the query or the stored family has
// no kernel (capsules, oriented boxes): the scalar answer per entity.
void ScalarIntersectRun(const Shape& query, const Store& s, size_t slot,
                        size_t n, Boundary b,
                        const simd::IntersectOutputs& out) {
  for (size_t i = 0; i < n; ++i) {
    const IntersectResult r = Intersect(query, StoredShape(s, slot + i), b);
    out.hit[i] = r.hit ? 1 : 0;
    out.relation[i] = r.relation;
    out.separation[i] = r.separation;
  }
}
void ScalarClosestPointRun(const Shape& query, const Store& s, size_t slot,
                           size_t n, Boundary b,
                           const simd::ClosestPointOutputs& out) {
  for (size_t i = 0; i < n; ++i) {
    const ClosestPointResult r =
        ClosestPoint(query, StoredShape(s, slot + i), b);
    out.closest_x[i] = r.closest_point.x;
    out.closest_y[i] = r.closest_point.y;
    out.closest_z[i] = r.closest_point.z;
    out.surface_x[i] = r.surface_point.x;
    out.surface_y[i] = r.surface_point.y;
    out.surface_z[i] = r.surface_point.z;
    out.normal_x[i] = r.normal.x;
    out.normal_y[i] = r.normal.y;
    out.normal_z[i] = r.normal.z;
    out.signed_distance[i] = r.signed_distance;
    out.gap[i] = r.gap;
    out.inside[i] = r.inside ? 1 : 0;
  }
}

bool Passes(const Store& s, size_t slot, const EntityFilter& f) {
  return (s.categories[slot] & f.mask) != 0 &&
         !(f.exclude && s.ids[slot] == f.exclude_id);
}

// Calls visit(first, count) for every leaf whose box overlaps `box`, then
// for the tail in runs.
template <typename Visit>
void ForEachOverlappingRun(const Store& s, const Aabb& box, Visit&& visit) {
  scene::ForEachOverlappingLeaf(s.tree.nodes(), box, visit);
  for (size_t b = s.tree_size; b < s.size(); b += kRun) {
    visit(b, std::min(kRun, s.size() - b));
  }
}

}  // namespace

struct Scene::Impl {
  struct Location {
    uint32_t slot;
    Family family;
  };

  explicit Impl(SceneDimension d) : dimension(d) {
    for (int f = 0; f < scene::kNumFamilies; ++f) {
      stores.emplace_back(static_cast<Family>(f));
      moves.emplace_back(static_cast<Family>(f));
    }
  }

  Store& store(Family f) { return stores[static_cast<int>(f)]; }
  const Store& store(Family f) const { return stores[static_cast<int>(f)]; }
  // The families a query of this dimension can meet.
  std::pair<int, int> FamilyRange() const {
    return dimension == SceneDimension::k2D
               ? std::make_pair(0, scene::kFirst3DFamily)
               : std::make_pair(scene::kFirst3DFamily, scene::kNumFamilies);
  }

  void Maintain(Store& s);
  void Rebuild(Store& s);
  // An upsert out of the last commit's order: applies the staged ones, then
  // finds the entity by its id.
  void UpsertHashed(uint64_t id, Family family, const float* values,
                    uint32_t category);

  // Writes every family's staged upserts (before anything out of order).
  void ApplyMoves() {
    for (int f = 0; f < scene::kNumFamilies; ++f) moves[f].Apply(&stores[f]);
  }
  void Kill(const Location& at) {
    store(at.family).Kill(at.slot);
    moves[static_cast<int>(at.family)].Forget(at.slot);
  }

  SceneDimension dimension;
  std::vector<Store> stores;
  absl::flat_hash_map<uint64_t, Location> where;
  std::vector<scene::MoveOrder> moves;  // per family (moves.h)
  bool staged = false;
  uint64_t rebuilds = 0;
  uint64_t refits = 0;
};

void Scene::Impl::Maintain(Store& s) {
  const size_t tail = s.size() - s.tree_size;
  bool rebuild = tail > kTailFloor + s.tree_size / 64 ||
                 (s.dead > kTailFloor && s.dead * 4 > s.size());
  if (!rebuild && s.moved) {
    const float cost = s.tree.Refit(s.boxes.data());
    s.moved = false;
    ++refits;
    // Movement loosens a refitted tree; rebuild once its leaves cover twice
    // the area they did when built.
    rebuild = cost > 2.0f * s.built_cost;
  }
  if (rebuild) Rebuild(s);
}

void Scene::Impl::Rebuild(Store& s) {
  std::vector<uint32_t> live;
  live.reserve(s.size() - s.dead);
  for (size_t slot = 0; slot < s.size(); ++slot) {
    if (s.alive[slot]) live.push_back(static_cast<uint32_t>(slot));
  }
  std::vector<Aabb> boxes(live.size());
  for (size_t i = 0; i < live.size(); ++i) boxes[i] = s.boxes[live[i]];
  std::vector<uint32_t> order;
  s.tree.Build(boxes, &order);

  Store next(s.family);
  const size_t ncols = scene::ColumnCount(s.family);
  for (size_t c = 0; c < ncols; ++c) {
    next.columns[c].resize(live.size() + scene::kColumnPadding, 0.0f);
  }
  next.ids.resize(live.size());
  next.categories.resize(live.size());
  next.alive.assign(live.size(), 1);
  next.boxes.resize(live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    const size_t from = live[order[i]];
    for (size_t c = 0; c < ncols; ++c) next.columns[c][i] = s.columns[c][from];
    next.ids[i] = s.ids[from];
    next.categories[i] = s.categories[from];
    next.boxes[i] = s.boxes[from];
    where[next.ids[i]].slot = static_cast<uint32_t>(i);
  }
  std::vector<uint32_t> new_slot(s.size(), scene::MoveOrder::kNone);
  for (size_t i = 0; i < live.size(); ++i) {
    new_slot[live[order[i]]] = static_cast<uint32_t>(i);
  }
  moves[static_cast<int>(s.family)].Remap(new_slot, live.size());
  next.tree = std::move(s.tree);
  next.tree_size = live.size();
  next.built_cost = next.tree.LeafCost();
  s = std::move(next);
  ++rebuilds;
}

Scene::Scene(SceneDimension dimension)
    : impl_(std::make_unique<Impl>(dimension)) {}
Scene::~Scene() = default;
Scene::Scene(Scene&&) noexcept = default;
Scene& Scene::operator=(Scene&&) noexcept = default;

SceneDimension Scene::dimension() const { return impl_->dimension; }

void Scene::Upsert(uint64_t id, const Shape& shape, uint32_t category) {
  assert(Is3D(KindOf(shape)) == (impl_->dimension == SceneDimension::k3D));
  const Family family = scene::FamilyOf(KindOf(shape));
  impl_->staged = true;
  if (impl_->moves[static_cast<int>(family)].TryStage(id, shape, category)) {
    return;
  }
  float values[scene::kMaxColumns];
  scene::ShapeColumns(shape, values);
  impl_->UpsertHashed(id, family, values, category);
}

void Scene::UpsertColumns(ShapeKind kind, size_t n, const uint64_t* ids,
                          const float* const* columns,
                          const uint32_t* categories) {
  assert(Is3D(kind) == (impl_->dimension == SceneDimension::k3D));
  if (n == 0) return;
  const Family family = scene::FamilyOf(kind);
  const size_t given = ColumnsOf(kind);  // points: the family's radius is 0
  impl_->staged = true;
  size_t i = impl_->moves[static_cast<int>(family)].StageColumns(
      &impl_->store(family), n, ids, columns, given, categories);
  for (; i < n; ++i) {
    float values[scene::kMaxColumns] = {};
    for (size_t c = 0; c < given; ++c) values[c] = columns[c][i];
    impl_->UpsertHashed(ids[i], family, values,
                        categories == nullptr ? 1u : categories[i]);
  }
}

void Scene::Impl::UpsertHashed(uint64_t id, Family family, const float* values,
                               uint32_t category) {
  ApplyMoves();
  scene::MoveOrder& order = moves[static_cast<int>(family)];
  auto [it, inserted] = where.try_emplace(id);
  if (!inserted) {
    Location& at = it->second;
    if (at.family == family) {
      store(family).Write(at.slot, values, category);
      order.Record(id, at.slot);
      return;
    }
    Kill(at);
  }
  const size_t slot = store(family).Append(id, values, category);
  it->second = Location{static_cast<uint32_t>(slot), family};
  order.Record(id, static_cast<uint32_t>(slot));
}

bool Scene::Remove(uint64_t id) {
  auto it = impl_->where.find(id);
  if (it == impl_->where.end()) return false;
  impl_->ApplyMoves();
  impl_->Kill(it->second);
  impl_->where.erase(it);
  impl_->staged = true;
  return true;
}

void Scene::Clear() {
  for (Store& s : impl_->stores) s = Store(s.family);
  for (scene::MoveOrder& m : impl_->moves) m.Clear();
  impl_->where.clear();
  impl_->staged = false;
}

void Scene::Commit() {
  if (!impl_->staged) return;
  for (int f = 0; f < scene::kNumFamilies; ++f) {
    impl_->moves[f].Commit(&impl_->stores[f]);
    impl_->Maintain(impl_->stores[f]);
  }
  impl_->staged = false;
}

size_t Scene::size() const { return impl_->where.size(); }

bool Scene::Contains(uint64_t id) const { return impl_->where.contains(id); }

size_t Scene::CountAbsent(ShapeKind kind, const uint64_t* ids, size_t n) const {
  const size_t known =
      impl_->moves[static_cast<int>(scene::FamilyOf(kind))].MatchingPrefix(ids,
                                                                           n);
  size_t absent = 0;
  for (size_t i = known; i < n; ++i) absent += Contains(ids[i]) ? 0 : 1;
  return absent;
}

SceneStats Scene::Stats() const {
  SceneStats stats;
  stats.entities = impl_->where.size();
  stats.memory_bytes =
      impl_->where.capacity() * (sizeof(uint64_t) + sizeof(Impl::Location) + 1);
  for (const Store& s : impl_->stores) stats.memory_bytes += s.memory_bytes();
  for (const scene::MoveOrder& m : impl_->moves) {
    stats.memory_bytes += m.memory_bytes();
  }
  stats.rebuilds = impl_->rebuilds;
  stats.refits = impl_->refits;
  return stats;
}

bool Scene::CanOverlap(ShapeKind query, ShapeKind* blocking_kind) const {
  const Family qf = scene::FamilyOf(query);
  Family blocked;
  if (qf == Family::kRect) {
    blocked = Family::kRotatedRect;
  } else if (qf == Family::kRotatedRect) {
    const bool rects =
        impl_->store(Family::kRect).size() > impl_->store(Family::kRect).dead;
    if (rects) {
      if (blocking_kind != nullptr) *blocking_kind = ShapeKind::kRect;
      return false;
    }
    blocked = Family::kRotatedRect;
  } else {
    return true;
  }
  const Store& s = impl_->store(blocked);
  if (s.size() > s.dead) {
    if (blocking_kind != nullptr) *blocking_kind = ShapeKind::kRotatedRect;
    return false;
  }
  return true;
}

bool Scene::Overlap(const Shape& query, Boundary boundary,
                    const EntityFilter& filter, size_t max_hits,
                    std::vector<OverlapHit>* hits) const {
  assert(!impl_->staged);
  assert(CanOverlap(KindOf(query), nullptr));
  scene::OverlapCollector collector(hits);
  float values[scene::kMaxColumns] = {};
  scene::ShapeColumns(query, values);
  const Family qf = scene::FamilyOf(KindOf(query));
  const Broadcast q(values, scene::ColumnCount(qf));
  const Aabb qbox = scene::BoundsOf(qf, values);

  uint8_t hit[kRun];
  Relation relation[kRun];
  float separation[kRun];
  const simd::IntersectOutputs out{hit, nullptr, relation, separation};
  const auto [first, last] = impl_->FamilyRange();
  for (int f = first; f < last; ++f) {
    const Store& s = impl_->stores[f];
    if (s.size() == s.dead) continue;
    const bool scalar =
        scene::IsScalarFamily(qf) || scene::IsScalarFamily(s.family);
    ForEachOverlappingRun(s, qbox, [&](size_t slot, size_t n) {
      if (scalar) {
        ScalarIntersectRun(query, s, slot, n, boundary, out);
      } else {
        const Run e(s, slot);
        IntersectRun(qf, q.cols, s.family, e.cols, Lanes(n), boundary, out);
      }
      for (size_t i = 0; i < n; ++i) {
        if (hit[i] && Passes(s, slot + i, filter)) {
          collector.Add(s.ids[slot + i],
                        IntersectResult{true, relation[i], separation[i]});
        }
      }
    });
  }
  return collector.Finish(max_hits);
}

bool Scene::Nearest(const Shape& query, size_t k, float max_gap,
                    Boundary boundary, const EntityFilter& filter,
                    std::vector<NearestHit>* hits) const {
  assert(!impl_->staged);
  hits->clear();
  if (k == 0) return false;
  float values[scene::kMaxColumns] = {};
  scene::ShapeColumns(query, values);
  const Family qf = scene::FamilyOf(KindOf(query));
  const bool flat = qf == Family::kBall2;
  const float center[3] = {values[0], values[1], flat ? 0.0f : values[2]};
  const float radius = flat ? values[2] : values[3];
  const Broadcast q(values, scene::ColumnCount(qf));

  scene::NearestCollector best(k, max_gap);
  const float scale = std::fabs(center[0]) + std::fabs(center[1]) +
                      std::fabs(center[2]) + radius;
  // Prune a box only when its lower bound exceeds the bound by more than
  // the rounding of a float gap (relative to the coordinates' magnitude).
  auto bound = [&] {
    const float b = best.Bound();
    return b + (scale + std::fabs(b)) * kWiden;
  };

  float cx[kRun], cy[kRun], cz[kRun], sx[kRun], sy[kRun], sz[kRun];
  float nx[kRun], ny[kRun], nz[kRun], sd[kRun], gap[kRun];
  uint8_t inside[kRun];
  const simd::ClosestPointOutputs out{cx, cy, cz, sx, sy,  sz,
                                      nx, ny, nz, sd, gap, inside};
  auto leaf = [&](const Store& s, size_t slot, size_t n) {
    if (scene::IsScalarFamily(s.family)) {
      ScalarClosestPointRun(query, s, slot, n, boundary, out);
    } else {
      const Run e(s, slot);
      ClosestPointRun(qf, q.cols, s.family, e.cols, Lanes(n), boundary, out);
    }
    for (size_t i = 0; i < n; ++i) {
      if (!best.Admits(gap[i]) || !Passes(s, slot + i, filter)) continue;
      NearestHit h;
      h.id = s.ids[slot + i];
      h.result.closest_point = {cx[i], cy[i], flat ? 0.0f : cz[i]};
      h.result.surface_point = {sx[i], sy[i], flat ? 0.0f : sz[i]};
      h.result.normal = {nx[i], ny[i], flat ? 0.0f : nz[i]};
      h.result.signed_distance = sd[i];
      h.result.gap = gap[i];
      h.result.inside = inside[i] != 0;
      best.Add(h);
    }
  };

  // Not a structured binding: C++17 lambdas cannot capture one (clang).
  const std::pair<int, int> families = impl_->FamilyRange();
  scene::WithDims(flat, [&](auto dims_case) {
    constexpr int kDims = decltype(dims_case)::value;
    for (int f = families.first; f < families.second; ++f) {
      const Store& s = impl_->stores[f];
      if (s.size() == s.dead) continue;
      // Pruned by the k-th best gap.
      scene::WalkNearest<kDims>(
          s.tree.nodes(), center, radius, bound,
          [&](const BvhNode& node) { leaf(s, node.first, node.count); });
      for (size_t b = s.tree_size; b < s.size(); b += kRun) {
        leaf(s, b, std::min(kRun, s.size() - b));
      }
    }
  });
  return best.Finish(hits);
}

bool Scene::Cast(const CastQuery& cast, Boundary boundary,
                 const EntityFilter& filter, bool all_hits, size_t max_hits,
                 std::vector<CastHit>* hits) const {
  assert(!impl_->staged);
  scene::CastCollector collector(all_hits, hits);
  const bool flat = impl_->dimension == SceneDimension::k2D;
  const int dims = flat ? 2 : 3;
  const Segment segment = scene::CastSegment(cast, dims);

  // Each candidate's exact answer from cast.h.
  auto answer = [&](const Store& s, size_t slot) {
    return scene::CastAgainst(cast, flat, StoredShape(s, slot), boundary);
  };
  // A candidate whose box the segment enters no later than the best hit.
  auto consider = [&](const Store& s, size_t slot) {
    if (!Passes(s, slot, filter)) return;
    const CastResult r = answer(s, slot);
    if (r.hit) collector.Add(CastHit{s.ids[slot], r});
  };
  // Nodes farther than the best first hit cannot hold a nearer one.
  auto limit = [&] { return collector.Limit(); };

  // Not a structured binding: C++17 lambdas cannot capture one (clang).
  const std::pair<int, int> families = impl_->FamilyRange();
  scene::WithSegmentCase(segment, [&](auto dims_case, auto parallel_case) {
    constexpr int kDims = decltype(dims_case)::value;
    constexpr bool kParallel = decltype(parallel_case)::value;
    for (int f = families.first; f < families.second; ++f) {
      const Store& s = impl_->stores[f];
      if (s.size() == s.dead) continue;
      scene::WalkSegment<kDims, kParallel>(
          s.tree.nodes(), segment, limit, [&](const BvhNode& leaf) {
            for (uint32_t slot = leaf.first; slot < leaf.first + leaf.count;
                 ++slot) {
              const float t =
                  scene::EntryOf<kDims, kParallel>(s.boxes[slot], segment);
              if (t != INFINITY && t <= limit()) consider(s, slot);
            }
          });
      for (size_t slot = s.tree_size; slot < s.size(); ++slot) {
        const float t =
            scene::EntryOf<kDims, kParallel>(s.boxes[slot], segment);
        if (t != INFINITY && t <= limit()) consider(s, slot);
      }
    }
  });
  return collector.Finish(max_hits);
}

}  // namespace collision
