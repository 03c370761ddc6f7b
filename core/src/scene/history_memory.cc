// What a SceneHistory holds and may come to hold: the reservation a scene
// makes when it opens (SceneBytesAtMost/AtLeast, which admission sums
// against the server's budget), the budget that bounds the pose rings
// before a commit writes, and the byte count Stats() and metrics report.
// Kept apart from the upkeep (history.cc) so that the estimate and the
// count it must stay above sit side by side.
#include <algorithm>

#include "collision/core/scene_history.h"
#include "scene/history.h"

namespace collision {
namespace scene {

namespace {

// A span's item: handle, box, hint, first pose, inner radius and its share
// of the span's hierarchy (Span::memory_bytes says ~64 bytes).
constexpr size_t kSpanBytesPerItem = 80;

}  // namespace

size_t Span::memory_bytes() const {
  return tree.memory_bytes() + handles.capacity() * sizeof(uint32_t) +
         boxes.capacity() * sizeof(Aabb) + hints.capacity() * sizeof(uint64_t) +
         first_poses.capacity() * sizeof(const Pose*) +
         inner.capacity() * sizeof(float);
}

}  // namespace scene

using scene::Pose;
using scene::Span;
using scene::Track;

namespace {
// A Scene's entity: its columns, box, leaf share of the hierarchy, slot in
// the id map and move order (Scene::Stats says 140-165 bytes).
constexpr size_t kSceneBytesPerEntity = 192;
// A track and its id's slot in the handle map, the staged change and its
// handles that a commit keeps.
constexpr size_t kTrackBytes = sizeof(Track) + 16 + 24 +
                               sizeof(SceneHistory::Impl::Staged) +
                               2 * sizeof(uint32_t);
constexpr size_t kFixedBytes = size_t{64} << 10;
}  // namespace

size_t SceneBytesAtMost(size_t entities, uint32_t history_ticks) {
  size_t per_entity = kSceneBytesPerEntity;
  if (history_ticks > 1) {
    const size_t slots = history_ticks + 2 * SceneHistory::kSpanTicks + 2;
    const size_t spans = history_ticks / SceneHistory::kSpanTicks + 2;
    per_entity += slots * sizeof(Pose) + spans * scene::kSpanBytesPerItem +
                  kTrackBytes + sizeof(uint32_t);  // + item_of
  }
  return kFixedBytes + entities * per_entity;
}

size_t SceneBytesAtLeast(size_t entities, bool history) {
  size_t per_entity = kSceneBytesPerEntity;
  if (history) {
    per_entity += 2 * sizeof(Pose) + 2 * scene::kSpanBytesPerItem +
                  kTrackBytes + sizeof(uint32_t);
  }
  return kFixedBytes + entities * per_entity;
}

void SceneHistory::SetMemoryBudget(size_t max_bytes) {
  impl_->max_bytes = max_bytes;
}

void SceneHistory::Impl::BudgetRings() {
  const size_t pose_bytes = pose_capacity * sizeof(Pose);
  // The next span's index: as large as the open one, or (before the first)
  // an item per track.
  const size_t open_span = spans.empty()
                               ? handle_of.size() * scene::kSpanBytesPerItem
                               : spans.back().memory_bytes();
  const size_t other = MemoryBytes() - pose_bytes + open_span;
  const size_t tracks_after = std::max<size_t>(1, handle_of.size());
  const size_t room = max_bytes > other ? max_bytes - other : 0;
  const size_t per_track = room / (tracks_after * sizeof(Pose));
  if (!limited && per_track >= full_window_slots()) {
    ring_limit = ~size_t{0};
    return;
  }
  // From now on rings grow only as needed, not to the window at once, and
  // never past the share of the budget every track can have.
  limited = true;
  ring_limit = std::max<size_t>(2, per_track);
}

void SceneHistory::Impl::LimitRings() {
  // Some slack, so that a budget shared by slowly more entities does not
  // reallocate every ring at every commit.
  if (ring_limit == ~size_t{0}) return;
  const size_t slack = ring_limit + ring_limit / 4 + 2;
  if (slack >= limited_to) return;
  for (Track& t : tracks) {
    if (t.capacity() <= ring_limit) continue;
    while (t.count > ring_limit) {
      t.DropOldest();
      --poses;
      drop_floor = std::max(drop_floor, t.at(0).tick);
    }
    tight = true;
    pose_capacity = static_cast<size_t>(
        static_cast<std::ptrdiff_t>(pose_capacity) + t.Resize(ring_limit));
  }
  limited_to = ring_limit;
}

size_t SceneHistory::Impl::MemoryBytes() const {
  // Every allocation's header and rounding, as glibc's malloc has them.
  constexpr size_t kPerAllocation = 16;
  size_t bytes =
      tracks.capacity() * sizeof(Track) + pose_capacity * sizeof(Pose) +
      (tracks.size() - free_handles.size()) * kPerAllocation +
      handle_of.capacity() * (sizeof(uint64_t) + sizeof(uint32_t) + 1) +
      item_of.capacity() * sizeof(uint32_t) +
      free_handles.capacity() * sizeof(uint32_t) +
      staged.capacity() * sizeof(Staged) +
      (handles.capacity() + last_handles.capacity()) * sizeof(uint32_t) +
      spare.memory_bytes() + spans.size() * sizeof(Span);
  for (const Span& s : spans) bytes += s.memory_bytes();
  return bytes;
}

SceneHistoryStats SceneHistory::Stats() const {
  const Impl& h = *impl_;
  SceneHistoryStats s;
  s.oldest = h.oldest;
  s.latest = h.latest;
  s.entities = h.handle_of.size();
  s.poses = h.poses;
  s.spans = h.spans.size();
  s.memory_bytes = h.MemoryBytes();
  for (const Span& span : h.spans) s.index_bytes += span.memory_bytes();
  return s;
}

}  // namespace collision
