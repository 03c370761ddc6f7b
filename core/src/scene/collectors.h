// What a scene query keeps of the hits its walk finds, shared by the latest
// world (scene.cc) and the rewound one (history_query.cc), in the manner of
// Jolt's collide-shape collectors: the walk asks the collector how far it
// still has to look (the early-out bound it prunes by) and hands it every
// hit; Finish writes the answer in the order scene.h promises and says
// whether the answer was cut. Each query kind has one collector, so the two
// worlds cannot disagree on ties, truncation or the bound.
#ifndef COLLISION_CORE_SRC_SCENE_COLLECTORS_H_
#define COLLISION_CORE_SRC_SCENE_COLLECTORS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <queue>
#include <vector>

#include "collision/core/scene.h"
#include "scene/query_util.h"

namespace collision {
namespace scene {

// Overlap: every hit, answered by id, at most `max_hits` of them.
class OverlapCollector {
 public:
  explicit OverlapCollector(std::vector<OverlapHit>* hits) : hits_(hits) {
    hits_->clear();
  }
  void Add(uint64_t id, const IntersectResult& result) {
    hits_->push_back(OverlapHit{id, result});
  }
  // Sorts by id and keeps the first `max_hits`; true when some were cut.
  bool Finish(size_t max_hits) {
    std::sort(hits_->begin(), hits_->end(), IdLess);
    if (hits_->size() <= max_hits) return false;
    hits_->resize(max_hits);
    return true;
  }

 private:
  std::vector<OverlapHit>* hits_;
};

// Nearest: the k smallest gaps within `max_gap`, ties by id. It holds k + 1:
// the (k + 1)-th says the answer was truncated.
class NearestCollector {
 public:
  NearestCollector(size_t k, float max_gap)
      : k_(k), max_gap_(max_gap), best_(GapLess) {}

  // The gap beyond which a hit cannot enter the answer: `max_gap` until
  // k + 1 are held, then the worst of them.
  float Bound() const {
    return best_.size() > k_ ? best_.top().result.gap : max_gap_;
  }
  // Whether a hit at `gap` is kept at all (NaN is not).
  bool Admits(float gap) const { return gap <= max_gap_; }
  void Add(const NearestHit& hit) {
    if (!Admits(hit.result.gap)) return;
    if (best_.size() <= k_) {
      best_.push(hit);
    } else if (GapLess(hit, best_.top())) {
      best_.pop();
      best_.push(hit);
    }
  }
  // Forgets every hit (a walk that starts over).
  void Clear() {
    while (!best_.empty()) best_.pop();
  }
  // The hits nearest first; true when there were more than k.
  bool Finish(std::vector<NearestHit>* hits) {
    const bool truncated = best_.size() > k_;
    if (truncated) best_.pop();
    hits->resize(best_.size());
    for (size_t i = best_.size(); i-- > 0;) {
      (*hits)[i] = best_.top();
      best_.pop();
    }
    return truncated;
  }

 private:
  size_t k_;
  float max_gap_;
  // Worst on top.
  std::priority_queue<NearestHit, std::vector<NearestHit>, decltype(&GapLess)>
      best_;
};

// Cast: the first hit (smallest distance, ties by id) or, with `all_hits`,
// every hit by distance, at most `max_hits` of them.
class CastCollector {
 public:
  CastCollector(bool all_hits, std::vector<CastHit>* hits)
      : all_hits_(all_hits), hits_(hits) {
    hits_->clear();
    first_.result.distance = INFINITY;
  }
  // The distance beyond which no hit can change the answer: none for all
  // hits, else the first hit's once there is one.
  float Limit() const {
    return all_hits_ || !have_first_ ? INFINITY : first_.result.distance;
  }
  void Add(const CastHit& hit) {
    if (all_hits_) {
      hits_->push_back(hit);
    } else if (!have_first_ || DistanceLess(hit, first_)) {
      first_ = hit;
      have_first_ = true;
    }
  }
  // Writes the answer; true when hits were cut by `max_hits` (for a first
  // hit: max_hits 0 with a hit).
  bool Finish(size_t max_hits) {
    if (!all_hits_) {
      if (have_first_ && max_hits > 0) hits_->push_back(first_);
      return have_first_ && max_hits == 0;
    }
    std::sort(hits_->begin(), hits_->end(), DistanceLess);
    if (hits_->size() <= max_hits) return false;
    hits_->resize(max_hits);
    return true;
  }

 private:
  bool all_hits_;
  std::vector<CastHit>* hits_;
  CastHit first_;
  bool have_first_ = false;
};

}  // namespace scene
}  // namespace collision

#endif  // COLLISION_CORE_SRC_SCENE_COLLECTORS_H_
