// SceneHistory's state: per-entity pose tracks and the time index of spans
// (scene_history.h has the model). history.cc keeps them; history_query.cc
// answers from them.
#ifndef COLLISION_CORE_SRC_SCENE_HISTORY_H_
#define COLLISION_CORE_SRC_SCENE_HISTORY_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "collision/core/scene_history.h"
#include "scene/bvh.h"
#include "scene/store.h"

namespace collision {
namespace scene {

struct Pending;  // query_util.h

// The entity from `tick` on (until its next pose): its shape's columns
// (store.h), or its removal.
struct Pose {
  uint64_t tick = 0;
  float values[kMaxColumns];
  uint32_t category = 0;
  Family family = Family::kBall2;
  bool alive = false;
};

// One entity's poses in tick order, from the last one at or before the
// oldest kept tick: a ring, so that forgetting the oldest pose and adding a
// new one move nothing, and a moving entity's ring stops growing once it
// holds the window. A pose's number (dropped + its index) never changes.
struct Track {
  uint64_t id = 0;
  std::vector<Pose> ring;  // every slot allocated; `count` from `head` used
  uint32_t head = 0;
  uint32_t count = 0;
  uint64_t dropped = 0;  // poses forgotten, ever
  bool tracked = false;  // `id` maps to this track (else a free handle)

  bool empty() const { return count == 0; }
  // The i-th kept pose, oldest first.
  const Pose& at(size_t i) const { return ring[Slot(i)]; }
  Pose& at(size_t i) { return ring[Slot(i)]; }
  const Pose& last() const { return at(count - 1); }
  uint64_t last_number() const { return dropped + count - 1; }
  size_t capacity() const { return ring.size(); }
  // Where the next pose goes (when the ring has room, or its oldest is
  // dropped first).
  const Pose* slot_after_last() const {
    return ring.empty() ? nullptr
                        : &ring[Slot(count == ring.size() ? 0 : count)];
  }

  // How Push treats a full ring.
  struct Room {
    size_t window = 0;          // slots to grow to at once for a steady mover
    uint64_t oldest = 0;        // the oldest tick the history keeps
    size_t limit = ~size_t{0};  // slots a ring may have (the memory budget)
    uint64_t* floor = nullptr;  // raised to the oldest tick a forced drop
                                // leaves this track able to answer
  };
  // Appends a pose; returns how many slots the ring grew by. A ring that
  // fills up grows by half, or at once to `room.window` slots when the
  // entity moves tick after tick (it will need them, and each growth is an
  // allocation and a copy), never past `room.limit`.
  // A full ring first forgets its oldest pose when the next one is at or
  // before `room.oldest` (the slot it frees is the one written next, so
  // this touches no other memory), or when it is at its limit: then the
  // track answers from its new first pose's tick on (`room.floor`).
  size_t Push(const Pose& pose, const Room& room);
  void DropOldest() {
    head = static_cast<uint32_t>(Slot(1));
    --count;
    ++dropped;
  }
  // Reallocates to `slots` (>= count), the kept poses first. Returns the
  // change in slots.
  std::ptrdiff_t Resize(size_t slots);

 private:
  size_t Slot(size_t i) const {
    const size_t s = head + i;
    return s < ring.size() ? s : s - ring.size();
  }
};

// The time index over ticks [first, last]: a hierarchy whose items are
// entities (track handles), each boxed over every pose it has in the span.
// Items [0, tree_size) are in leaf order; the rest is an unsorted tail of
// entities that appeared while the span was open.
struct Span {
  uint64_t first = 0;
  uint64_t last = 0;
  Bvh tree;
  size_t tree_size = 0;
  std::vector<uint32_t> handles;
  std::vector<Aabb> boxes;
  // Per item: the number of its entity's pose at the span's first tick (or
  // when it appeared), where a pose lookup starts scanning; with
  // kEveryTick when that pose is at the span's first tick and the entity
  // has had a pose at every tick of the span since (as far as commits have
  // shown: one that stopped keeps the bit).
  std::vector<uint64_t> hints;
  // Per item: where that pose sat when the span took it, for prefetching
  // only, before the track is read (its ring may since have moved, or the
  // slots wrapped: a prefetch of a stale address costs a wasted load and
  // never a wrong answer).
  std::vector<const Pose*> first_poses;
  // Per item: the least radius of a ball its entity holds in any pose of
  // the span (InnerRadius), for the nearest gathering's upper bounds.
  std::vector<float> inner;
  uint8_t families = 0;  // bit per Family with a live pose in the span
  float built_cost = 0;
  size_t dead = 0;  // items opened without a live entity
  bool moved = false;
  size_t memory_bytes() const;
};

// A span hint's flag (Span::hints): its entity's pose at tick t of the span
// is most likely pose number hint + (t - first), one slot read where a scan
// would read the span's first pose and the one after it first.
constexpr uint64_t kEveryTick = uint64_t{1} << 63;

// A pose's box, grown to hold every interpolated pose between it and
// another pose's box: the store's box, except for a rotated rect, boxed by
// the disc about its position through its farthest corner, and an oriented
// box, by the ball about its centre through its corners.
Aabb PoseBox(Family family, const float* values);

// The radius of a ball the shape holds about its centre (0 for a point; a
// degenerate or NaN shape, 0). Interpolated poses hold the lesser of their
// ends' (sizes and radii interpolate linearly).
float InnerRadius(Family family, const float* values);

// `at`'s values interpolated towards `next` by `fraction` (the formula of
// scene_history.h), in place in `out`.
void Interpolate(Family family, const float* at, const float* next,
                 float fraction, float* out);

}  // namespace scene

struct SceneHistory::Impl {
  static constexpr uint32_t kNoItem = 0xFFFFFFFFu;

  // A staged change: an upsert's pose (tick set at Commit) or a removal
  // (pose.alive false).
  struct Staged {
    uint64_t id = 0;
    scene::Pose pose;
  };

  Impl(SceneDimension d, uint32_t h, size_t budget)
      : dimension(d), ticks(h), max_bytes(budget) {}

  // The open span for commit `tick`: a new one at `latest` once the open
  // one would outgrow kSpanTicks.
  void OpenSpanIfDue(uint64_t tick);
  // Makes `out` (whose vectors' memory is reused) the span opened at
  // `first`, the latest tick.
  void FillSpan(uint64_t first, scene::Span* out) const;
  void BuildSpan(scene::Span* span) const;
  // Grows the open span's box of the entity by its new (live) pose.
  void GrowOpenSpan(uint32_t handle, const scene::Pose& pose);
  // The oldest tick kept once `tick` is the latest.
  uint64_t WindowStart(uint64_t tick) const;
  // Drops spans and poses before `oldest` (and more while over budget).
  void Forget();
  // Forgets poses before `oldest`; `shrink`: gives their memory back now.
  void Trim(bool shrink = false);
  void TrimRange(size_t first, size_t count, bool shrink);
  size_t MemoryBytes() const;

  // Poses a track kept for the whole window holds: the window's ticks, the
  // span's older ones not yet forgotten, and the one before them.
  // 0 once the memory budget has been reached.
  size_t window_slots() const { return limited ? 0 : full_window_slots(); }
  size_t full_window_slots() const { return ticks + 2 * kSpanTicks + 2; }
  // Sets ring_limit for a commit (once its tracks exist): what the poses
  // may hold once everything else the history holds (and a new span's
  // index) is counted, shared by every track. Leaves the rings limited
  // once the whole window does not fit.
  void BudgetRings();
  // Shrinks rings far above ring_limit (forgetting their oldest poses,
  // raising drop_floor), once ring_limit has fallen well below the size
  // they were last limited to.
  void LimitRings();
  // The span answering tick `t` (oldest <= t <= latest).
  const scene::Span& SpanAt(uint64_t t) const;
  // The entity's pose at `at`: false when it does not exist then.
  // (`span_first`: the first tick of the span `hint` comes from.)
  bool PoseAt(uint32_t handle, uint64_t hint, uint64_t span_first,
              SceneMoment at, float* values, scene::Family* family,
              uint32_t* category) const;
  // Start loading what PoseAt reads, so that several candidates' misses
  // overlap instead of following each other: the track first, then (once
  // it has arrived) its ring's slots.
  void PrefetchTrack(uint32_t handle) const;
  // Starts loading the slot PoseAt most likely reads for `span`'s `item`,
  // from the span alone (Span::first_poses): no track needed yet, so a
  // walk can issue it as it meets the item.
  void PrefetchFirstPose(const scene::Span& span, uint32_t item,
                         SceneMoment at) const;
  void PrefetchPose(uint32_t handle, uint64_t hint, uint64_t span_first,
                    SceneMoment at) const;
  // PrefetchPose for the span items `items[i].node`.
  void PrefetchPoses(const scene::Span& span, SceneMoment at,
                     const scene::Pending* items, size_t n) const;
  // The entity behind `span`'s item at `at` when it exists then and passes
  // `filter`: its id and its (interpolated) shape.
  bool Candidate(const scene::Span& span, uint32_t item, SceneMoment at,
                 const EntityFilter& filter, uint64_t* id, Shape* shape) const;

  SceneDimension dimension;
  uint32_t ticks;
  size_t max_bytes;
  std::vector<scene::Track> tracks;
  std::vector<uint32_t> free_handles;
  absl::flat_hash_map<uint64_t, uint32_t> handle_of;
  std::deque<scene::Span> spans;  // consecutive: spans[i].last == [i+1].first
  scene::Span spare;              // the last dropped span, for its memory
  std::vector<uint32_t> item_of;  // the open span's item of each handle
  uint64_t item_of_span = ~uint64_t{0};  // the span item_of indexes (first)
  std::vector<Staged> staged;
  // Commit's handles, by staged change; kept until the next commit, whose
  // changes usually come in the same order (a columnar update of the same
  // entities), so its handles are predicted from them without hashing.
  std::vector<uint32_t> handles;
  std::vector<uint32_t> last_handles;
  bool clear = false;
  bool has_ticks = false;
  uint64_t first_tick = 0;
  uint64_t latest = 0;
  uint64_t oldest = 0;
  uint64_t budget_floor = 0;       // oldest tick the memory budget left
  bool tight = false;              // the memory budget was reached
  bool limited = false;            // the window does not fit the budget
  size_t ring_limit = ~size_t{0};  // slots a ring may have (BudgetRings)
  size_t limited_to = ~size_t{0};  // the ring_limit LimitRings last applied
  uint64_t drop_floor = 0;         // oldest tick forced drops left every track
  size_t trim_cursor = 0;          // the next track Forget() trims
  size_t poses = 0;                // kept poses
  size_t pose_capacity = 0;        // poses the tracks' vectors hold room for
};

}  // namespace collision

#endif  // COLLISION_CORE_SRC_SCENE_HISTORY_H_
