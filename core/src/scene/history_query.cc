// SceneHistory's queries and pose lookups: walk the span of the moment's tick,
// take each candidate's pose at that moment (interpolated), and answer it with
// the scalar pairwise functions, kept by the collectors scene.cc's queries
// keep theirs with (collectors.h: the orders and truncation of scene.h; the
// SIMD kernels scene.cc calls equal these functions bit for bit).
#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "collision/core/scalar.h"
#include "scene/collectors.h"
#include "scene/history.h"
#include "scene/query_util.h"

namespace collision {

using scene::Aabb;
using scene::BvhNode;
using scene::Family;
using scene::Pending;
using scene::Pose;
using scene::Span;
using scene::Track;

namespace {

uint8_t Bit(Family f) { return uint8_t(1u << static_cast<int>(f)); }

// Calls visit(item) for every item whose box overlaps `box`.
template <typename Visit>
void ForEachOverlappingItem(const Span& s, const Aabb& box, Visit&& visit) {
  scene::ForEachOverlappingLeaf(
      s.tree.nodes(), box, [&](uint32_t first, uint32_t count) {
        for (uint32_t i = first; i < first + count; ++i) {
          if (scene::Overlaps(s.boxes[i], box)) visit(i);
        }
      });
  for (size_t i = s.tree_size; i < s.handles.size(); ++i) {
    if (scene::Overlaps(s.boxes[i], box)) visit(static_cast<uint32_t>(i));
  }
}

}  // namespace

const Span& SceneHistory::Impl::SpanAt(uint64_t t) const {
  // The last span starting at or before t.
  size_t lo = 0, hi = spans.size();
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    if (spans[mid].first <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return spans[lo];
}

namespace {

// Where the moment's pose would be had the entity moved at every tick since
// its pose number `i` at the span's first tick: poses have increasing ticks,
// so if that pose is at or before the moment, none before it is the one.
size_t MoverGuess(const Track& t, size_t i, uint64_t span_first,
                  SceneMoment at) {
  const uint64_t ahead = at.tick > span_first ? at.tick - span_first : 0;
  return static_cast<size_t>(
      std::min<uint64_t>(i + ahead, uint64_t{t.count} - 1));
}

}  // namespace

void SceneHistory::Impl::PrefetchTrack(uint32_t handle) const {
  __builtin_prefetch(&tracks[handle]);
}

void SceneHistory::Impl::PrefetchFirstPose(const Span& span, uint32_t item,
                                           SceneMoment at) const {
  const Pose* first = span.first_poses[item];
  if (first == nullptr) return;
  // (The pose after it, which interpolation reads too, is left to
  // PrefetchPose: a second prefetch here was slower;
  // docs/decisions/0004-prefetch-pose-as-walk-meets-it.md.)
  const uint64_t ahead =
      (span.hints[item] & scene::kEveryTick) ? at.tick - span.first : 0;
  __builtin_prefetch(first + ahead);
}

void SceneHistory::Impl::PrefetchPose(uint32_t handle, uint64_t flagged_hint,
                                      uint64_t span_first,
                                      SceneMoment at) const {
  const Track& t = tracks[handle];
  const uint64_t hint = flagged_hint & ~scene::kEveryTick;
  const uint64_t mover = hint + (at.tick - span_first);
  if ((flagged_hint & scene::kEveryTick) && mover >= t.dropped &&
      mover - t.dropped < t.count) {
    // The slot PoseAt reads (and the one after it, to interpolate).
    const size_t i = static_cast<size_t>(mover - t.dropped);
    __builtin_prefetch(&t.at(i));
    __builtin_prefetch(&t.at(std::min<size_t>(i + 1, t.count - 1)));
    return;
  }
  const size_t i = static_cast<size_t>(hint - t.dropped);
  if (hint < t.dropped || i >= t.count) return;
  // The slots PoseAt reads first: the hint's pose and the one after it
  // (an entity still at the hint), or the mover's guess and the one after.
  const size_t guess = MoverGuess(t, i, span_first, at);
  __builtin_prefetch(&t.at(i));
  __builtin_prefetch(&t.at(std::min<size_t>(i + 1, t.count - 1)));
  __builtin_prefetch(&t.at(guess));
  __builtin_prefetch(&t.at(std::min<size_t>(guess + 1, t.count - 1)));
}

bool SceneHistory::Impl::PoseAt(uint32_t handle, uint64_t flagged_hint,
                                uint64_t span_first, SceneMoment at,
                                float* values, Family* family,
                                uint32_t* category) const {
  const Track& t = tracks[handle];
  // The last pose at or before at.tick: the slot an every-tick mover's
  // pose is in, if it is there; else from the span's hint, or the
  // mover's guess when the entity moved since (one slot read instead of a
  // scan across the span's poses), scanning forward; else searched.
  const uint64_t hint = flagged_hint & ~scene::kEveryTick;
  const uint64_t mover = hint + (at.tick - span_first);
  size_t i = static_cast<size_t>(hint - t.dropped);
  if ((flagged_hint & scene::kEveryTick) && mover >= t.dropped &&
      mover - t.dropped < t.count &&
      t.at(static_cast<size_t>(mover - t.dropped)).tick == at.tick) {
    // (A pose at the moment's very tick is the last one at or before it.)
    i = static_cast<size_t>(mover - t.dropped);
  } else if (hint >= t.dropped && i < t.count && t.at(i).tick <= at.tick) {
    if (i + 1 < t.count && t.at(i + 1).tick <= at.tick) {
      // Only an entity that moved at the next tick is guessed to move at
      // every tick (a wrong guess costs a read of its own).
      size_t guess = i + 1;
      if (t.at(i + 1).tick == t.at(i).tick + 1) {
        guess = MoverGuess(t, i, span_first, at);
      }
      i = guess > i + 1 && t.at(guess).tick <= at.tick ? guess : i + 1;
      while (i + 1 < t.count && t.at(i + 1).tick <= at.tick) ++i;
    }
  } else {
    size_t lo = 0, hi = t.count;  // the first pose after at.tick
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (t.at(mid).tick <= at.tick) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == 0) return false;
    i = lo - 1;
  }
  const Pose& p = t.at(i);
  if (!p.alive) return false;
  *family = p.family;
  *category = p.category;
  const Pose* next = i + 1 < t.count ? &t.at(i + 1) : nullptr;
  if (at.fraction > 0.0f && next != nullptr && next->tick == at.tick + 1 &&
      next->alive && next->family == p.family) {
    scene::Interpolate(p.family, p.values, next->values, at.fraction, values);
  } else {
    std::copy(p.values, p.values + scene::ColumnCount(p.family), values);
  }
  return true;
}

void SceneHistory::Impl::PrefetchPoses(const Span& span, SceneMoment at,
                                       const Pending* items, size_t n) const {
  for (size_t j = 0; j < n; ++j) {
    const uint32_t item = items[j].node;
    PrefetchPose(span.handles[item], span.hints[item], span.first, at);
  }
}

bool SceneHistory::Impl::Candidate(const Span& span, uint32_t item,
                                   SceneMoment at, const EntityFilter& filter,
                                   uint64_t* id, Shape* shape) const {
  const uint32_t handle = span.handles[item];
  float v[scene::kMaxColumns];
  Family family;
  uint32_t category;
  if (!PoseAt(handle, span.hints[item], span.first, at, v, &family,
              &category)) {
    return false;
  }
  *id = tracks[handle].id;
  if ((category & filter.mask) == 0 ||
      (filter.exclude && *id == filter.exclude_id)) {
    return false;
  }
  *shape = scene::ShapeFromColumns(family, v);
  return true;
}

bool SceneHistory::CanOverlap(SceneMoment at, ShapeKind query,
                              ShapeKind* blocking_kind) const {
  const uint8_t families = impl_->SpanAt(at.tick).families;
  const Family qf = scene::FamilyOf(query);
  if (qf == Family::kRotatedRect && (families & Bit(Family::kRect))) {
    if (blocking_kind != nullptr) *blocking_kind = ShapeKind::kRect;
    return false;
  }
  if ((qf == Family::kRect || qf == Family::kRotatedRect) &&
      (families & Bit(Family::kRotatedRect))) {
    if (blocking_kind != nullptr) *blocking_kind = ShapeKind::kRotatedRect;
    return false;
  }
  return true;
}

bool SceneHistory::Overlap(SceneMoment at, const Shape& query,
                           Boundary boundary, const EntityFilter& filter,
                           size_t max_hits,
                           std::vector<OverlapHit>* hits) const {
  assert(CanOverlap(at, KindOf(query), nullptr));
  scene::OverlapCollector collector(hits);
  const Impl& h = *impl_;
  float values[scene::kMaxColumns] = {};
  scene::ShapeColumns(query, values);
  const Aabb qbox = scene::BoundsOf(scene::FamilyOf(KindOf(query)), values);
  const Span& span = h.SpanAt(at.tick);
  // (Gathering the few candidates and loading their poses together, as
  // Nearest does, made no difference here.)
  ForEachOverlappingItem(span, qbox, [&](uint32_t item) {
    uint64_t id;
    Shape target;
    if (!h.Candidate(span, item, at, filter, &id, &target)) return;
    const IntersectResult r = Intersect(query, target, boundary);
    if (r.hit) collector.Add(id, r);
  });
  return collector.Finish(max_hits);
}

namespace {

// Upper bound of the ClosestPoint gap from the ball (c, radius) to a shape
// in the box that holds a ball of radius `inner`: that ball's centre lies in
// the box shrunk by `inner`, at most as far as its farthest corner.
template <int kDims>
float GapUpperBound(const Aabb& box, float inner, const float* c,
                    float radius) {
  float d2 = 0.0f;
  for (int a = 0; a < kDims; ++a) {
    const float d =
        std::max(c[a] - (box.lo[a] + inner), (box.hi[a] - inner) - c[a]);
    d2 += d * d;
  }
  return std::sqrt(d2) - inner - radius;
}

}  // namespace

bool SceneHistory::Nearest(SceneMoment at, const Shape& query, size_t k,
                           float max_gap, Boundary boundary,
                           const EntityFilter& filter,
                           std::vector<NearestHit>* hits) const {
  hits->clear();
  if (k == 0) return false;
  const Impl& h = *impl_;
  float values[scene::kMaxColumns] = {};
  scene::ShapeColumns(query, values);
  const bool flat = scene::FamilyOf(KindOf(query)) == Family::kBall2;
  const float center[3] = {values[0], values[1], flat ? 0.0f : values[2]};
  const float radius = flat ? values[2] : values[3];

  scene::NearestCollector best(k, max_gap);
  const float scale = std::fabs(center[0]) + std::fabs(center[1]) +
                      std::fabs(center[2]) + radius;
  auto widened = [&](float b) {
    return b + (scale + std::fabs(b)) * scene::kWiden;
  };
  auto bound = [&] { return widened(best.Bound()); };
  const Span& span = h.SpanAt(at.tick);
  // Each candidate looked at costs a pose lookup, a cache miss or two in a
  // history larger than the caches; one after the other they were most of
  // a rewound nearest. So the walk first gathers every item that can
  // matter, pruned by the (k + 1)-th smallest upper bound of the items'
  // gaps (each entity lies in its span box and holds a ball of the item's
  // inner radius), then loads their poses together and looks at them by
  // lower bound. The upper bounds do not have to hold (an item may not
  // exist at the moment, or be filtered out): if the answer's bound ends
  // above the gathering's, the ordinary walk below answers instead
  // (docs/decisions/0003-rewound-nearest-gathers-then-looks.md).
  static thread_local std::vector<Pending> gathered;
  static thread_local std::vector<float> uppers;  // max-heap, k + 1 smallest
  gathered.clear();
  uppers.clear();
  auto gather_bound = [&] {
    const float u = uppers.size() > k ? uppers.front() : INFINITY;
    return widened(std::min(u, max_gap));
  };
  auto consider = [&](uint32_t item) {
    uint64_t id;
    Shape target;
    if (!h.Candidate(span, item, at, filter, &id, &target)) return;
    best.Add(NearestHit{id, ClosestPoint(query, target, boundary)});
  };
  scene::WithDims(flat, [&](auto dims_case) {
    constexpr int kDims = decltype(dims_case)::value;
    auto gather = [&](uint32_t item) {
      const Aabb& box = span.boxes[item];
      const float lower = scene::GapLowerBound<kDims>(box, center, radius);
      if (lower > gather_bound()) return;
      gathered.push_back({lower, item});
      h.PrefetchTrack(span.handles[item]);
      h.PrefetchFirstPose(span, item, at);
      const float upper =
          GapUpperBound<kDims>(box, span.inner[item], center, radius);
      if (uppers.size() <= k) {
        uppers.push_back(upper);
        std::push_heap(uppers.begin(), uppers.end());
      } else if (upper < uppers.front()) {
        std::pop_heap(uppers.begin(), uppers.end());
        uppers.back() = upper;
        std::push_heap(uppers.begin(), uppers.end());
      }
    };
    scene::WalkNearest<kDims>(span.tree.nodes(), center, radius, gather_bound,
                              [&](const BvhNode& leaf) {
                                for (uint32_t i = leaf.first;
                                     i < leaf.first + leaf.count; ++i) {
                                  gather(i);
                                }
                              });
    for (size_t i = span.tree_size; i < span.handles.size(); ++i) {
      gather(static_cast<uint32_t>(i));
    }
  });
  const float gathered_to = gather_bound();
  std::sort(gathered.begin(), gathered.end(),
            [](const Pending& a, const Pending& b) { return a.key < b.key; });
  // Only what the gathering bound lets in (items gathered early, under a
  // looser bound, are not worth a load).
  size_t n = 0;
  while (n < gathered.size() && gathered[n].key <= gathered_to) ++n;
  h.PrefetchPoses(span, at, gathered.data(), n);
  for (size_t j = 0; j < n && gathered[j].key <= bound(); ++j) {
    consider(gathered[j].node);
  }
  if (bound() > gathered_to) {
    // Some upper bound did not hold: answer with the ordinary walk.
    best.Clear();
    scene::WithDims(flat, [&](auto dims_case) {
      constexpr int kDims = decltype(dims_case)::value;
      scene::WalkNearest<kDims>(
          span.tree.nodes(), center, radius, bound, [&](const BvhNode& leaf) {
            // The leaf's entities nearest first: the first ones tighten the
            // bound for the rest.
            Pending order[scene::kLeafSize];
            uint32_t m = 0;
            for (uint32_t i = leaf.first; i < leaf.first + leaf.count; ++i) {
              order[m++] = {
                  scene::GapLowerBound<kDims>(span.boxes[i], center, radius),
                  i};
            }
            scene::SortByKey(order, m);
            for (uint32_t j = 0; j < m && order[j].key <= bound(); ++j) {
              consider(order[j].node);
            }
          });
      for (size_t i = span.tree_size; i < span.handles.size(); ++i) {
        if (scene::GapLowerBound<kDims>(span.boxes[i], center, radius) <=
            bound()) {
          consider(static_cast<uint32_t>(i));
        }
      }
    });
  }
  return best.Finish(hits);
}

bool SceneHistory::Cast(SceneMoment at, const CastQuery& cast,
                        Boundary boundary, const EntityFilter& filter,
                        bool all_hits, size_t max_hits,
                        std::vector<CastHit>* hits) const {
  scene::CastCollector collector(all_hits, hits);
  const Impl& h = *impl_;
  const bool flat = h.dimension == SceneDimension::k2D;
  const int dims = flat ? 2 : 3;
  const scene::Segment segment = scene::CastSegment(cast, dims);

  const Span& span = h.SpanAt(at.tick);
  // An entity whose box the segment enters no later than the best hit.
  auto consider = [&](uint32_t item) {
    uint64_t id;
    Shape target;
    if (!h.Candidate(span, item, at, filter, &id, &target)) return;
    const CastResult r = scene::CastAgainst(cast, flat, target, boundary);
    if (r.hit) collector.Add(CastHit{id, r});
  };
  auto limit = [&] { return collector.Limit(); };

  scene::WithSegmentCase(segment, [&](auto dims_case, auto parallel_case) {
    constexpr int kDims = decltype(dims_case)::value;
    constexpr bool kParallel = decltype(parallel_case)::value;
    scene::WalkSegment<kDims, kParallel>(
        span.tree.nodes(), segment, limit, [&](const BvhNode& leaf) {
          // The leaf's entities in the order the segment enters their
          // boxes: each one looked at costs a pose lookup, and a first hit
          // found early spares the ones behind it.
          scene::Pending order[scene::kLeafSize];
          uint32_t n = 0;
          for (uint32_t i = leaf.first; i < leaf.first + leaf.count; ++i) {
            const float t =
                scene::EntryOf<kDims, kParallel>(span.boxes[i], segment);
            if (t != INFINITY) order[n++] = {t, i};
          }
          scene::SortByKey(order, n);
          for (uint32_t j = 0; j < n && order[j].key <= limit(); ++j) {
            consider(order[j].node);
          }
        });
    for (size_t i = span.tree_size; i < span.handles.size(); ++i) {
      const float t = scene::EntryOf<kDims, kParallel>(span.boxes[i], segment);
      if (t != INFINITY && t <= limit()) consider(static_cast<uint32_t>(i));
    }
  });
  return collector.Finish(max_hits);
}

}  // namespace collision
