// SceneHistory's upkeep: staged changes become poses on per-entity tracks,
// the open span's boxes grow with them, and ticks older than the window
// are forgotten (spans dropped, tracks trimmed, handles recycled).
#include "scene/history.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "collision/core/scalar.h"
#include "scene/query_util.h"

namespace collision {
namespace scene {

float InnerRadius(Family family, const float* v) {
  float r = 0.0f;
  switch (family) {
    case Family::kBall2:
      r = v[2];
      break;
    case Family::kBall3:
      r = v[3];
      break;
    case Family::kRect:
      r = 0.5f * std::min(v[2] - v[0], v[3] - v[1]);
      break;
    case Family::kRotatedRect:
      r = 0.5f * std::min(v[0], v[1]);
      break;
    case Family::kBox:
      r = 0.5f * std::min({v[3] - v[0], v[4] - v[1], v[5] - v[2]});
      break;
    case Family::kCapsule3:
      r = v[6];
      break;
    case Family::kOrientedBox:
      r = std::min({v[3], v[4], v[5]});
      break;
  }
  // (NaN becomes 0: max returns its first argument unless the second is
  // greater.)
  return std::max(0.0f, r);
}

Aabb PoseBox(Family family, const float* v) {
  if (family == Family::kOrientedBox) {
    // The ball about the centre through the corners holds every turn; a
    // centre lerped between two poses stays in their boxes' hull.
    const float r = std::sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
    const float m = std::fabs(v[0]) + std::fabs(v[1]) + std::fabs(v[2]) + r;
    const float eps = m * kWiden + 1e-30f;
    Aabb box;
    for (int a = 0; a < 3; ++a) {
      box.lo[a] = v[a] - r - eps;
      box.hi[a] = v[a] + r + eps;
    }
    return box;
  }
  if (family != Family::kRotatedRect) return BoundsOf(family, v);
  // Corners relative to the pivot are (-pivot) .. (size - pivot) per axis;
  // the farthest one bounds every rotation, and interpolation cannot leave
  // the box (a lerped corner is no farther than the farther end).
  const float dx = std::max(std::fabs(v[2]), std::fabs(v[0] - v[2]));
  const float dy = std::max(std::fabs(v[3]), std::fabs(v[1] - v[3]));
  const float r = std::sqrt(dx * dx + dy * dy);
  const float m = std::fabs(v[4]) + std::fabs(v[5]) + r + std::fabs(v[0]) +
                  std::fabs(v[1]) + std::fabs(v[2]) + std::fabs(v[3]);
  const float eps = m * kWiden + 1e-30f;
  Aabb box;
  box.lo[0] = v[4] - r - eps;
  box.lo[1] = v[5] - r - eps;
  box.lo[2] = -eps;
  box.hi[0] = v[4] + r + eps;
  box.hi[1] = v[5] + r + eps;
  box.hi[2] = eps;
  return box;
}

// A unit quaternion between a and b (w, x, y, z): the normalised lerp along
// the shorter way (b negated when a . b < 0: q and -q are the same turn), so
// the turn goes the shorter way round and never through a zero quaternion
// (|lerp| >= sqrt(1/2) once a . b >= 0). Unchanged turns stay exact.
void InterpolateQuaternion(const float* a, const float* b, float f,
                           float* out) {
  if (a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3]) {
    std::copy(a, a + 4, out);
    return;
  }
  const float dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const float sign = dot < 0.0f ? -1.0f : 1.0f;
  const float w = 1.0f - f;
  float q[4];
  float n2 = 0.0f;
  for (int i = 0; i < 4; ++i) {
    q[i] = w * a[i] + f * (sign * b[i]);
    n2 += q[i] * q[i];
  }
  const float len = std::sqrt(n2);
  for (int i = 0; i < 4; ++i) out[i] = q[i] / len;
}

void Interpolate(Family family, const float* a, const float* b, float f,
                 float* out) {
  const size_t n = ColumnCount(family);
  if (f == 0.0f) {
    std::copy(a, a + n, out);
    return;
  }
  // A value that did not change stays exact; the others are a convex
  // combination (monotone in each end, so min <= max survives up to the
  // rounding the max() below absorbs).
  const float w = 1.0f - f;
  for (size_t c = 0; c < n; ++c) {
    out[c] = a[c] == b[c] ? a[c] : w * a[c] + f * b[c];
  }
  if (family == Family::kRect) {
    out[2] = std::max(out[2], out[0]);
    out[3] = std::max(out[3], out[1]);
  } else if (family == Family::kBox) {
    for (int axis = 0; axis < 3; ++axis) {
      out[3 + axis] = std::max(out[3 + axis], out[axis]);
    }
  }
  if (family == Family::kOrientedBox) {
    InterpolateQuaternion(a + 6, b + 6, f, out + 6);
    return;
  }
  if (family != Family::kRotatedRect) return;
  if (a[6] == b[6] && a[7] == b[7]) return;  // the same turn
  // (cos, sin) along the shorter arc: the chord's point, renormalised.
  // Exactly opposite turns have no shorter arc: counter-clockwise then.
  const float dot = a[6] * b[6] + a[7] * b[7];
  if (dot <= -1.0f + 1e-6f) {
    const float angle = std::atan2(a[7], a[6]) + f * 3.14159265358979f;
    out[6] = std::cos(angle);
    out[7] = std::sin(angle);
    return;
  }
  const float len = std::sqrt(out[6] * out[6] + out[7] * out[7]);
  out[6] /= len;
  out[7] /= len;
}

size_t Track::Push(const Pose& pose, const Room& room) {
  size_t grown = 0;
  if (count >= 2 && count == ring.size()) {
    if (at(1).tick <= room.oldest) {
      DropOldest();
    } else if (ring.size() >= room.limit) {
      DropOldest();
      *room.floor = std::max(*room.floor, at(0).tick);
    }
  }
  if (count == ring.size()) {
    const size_t before = ring.size();
    size_t slots = before + before / 2 + 4;
    if (count >= 2 && last().tick + 1 == pose.tick &&
        at(count - 2).tick + 2 == pose.tick) {
      slots = std::max(slots, room.window);
    }
    // Under a budget a ring takes its whole share at once: growing in steps
    // leaves each step's old block behind in whichever malloc arena the
    // thread of that commit used, and the share is counted as spent anyway
    // (docs/decisions/0023-one-malloc-arena.md).
    if (room.limit != ~size_t{0}) slots = room.limit;
    slots = std::max<size_t>(count + 1, std::min(slots, room.limit));
    Resize(slots);
    grown = ring.size() - before;
  }
  at(count) = pose;
  ++count;
  return grown;
}

std::ptrdiff_t Track::Resize(size_t slots) {
  std::vector<Pose> next(slots);
  for (size_t i = 0; i < count; ++i) next[i] = at(i);
  const std::ptrdiff_t change = static_cast<std::ptrdiff_t>(slots) -
                                static_cast<std::ptrdiff_t>(ring.size());
  ring.swap(next);
  head = 0;
  return change;
}

}  // namespace scene

using scene::Aabb;
using scene::Family;
using scene::Pose;
using scene::Span;
using scene::Track;

SceneHistory::SceneHistory(SceneDimension dimension, uint32_t ticks,
                           size_t max_bytes)
    : impl_(std::make_unique<Impl>(dimension, std::max<uint32_t>(1, ticks),
                                   max_bytes)) {}
SceneHistory::~SceneHistory() = default;
SceneHistory::SceneHistory(SceneHistory&&) noexcept = default;
SceneHistory& SceneHistory::operator=(SceneHistory&&) noexcept = default;

void SceneHistory::Upsert(uint64_t id, const Shape& shape, uint32_t category) {
  assert(Is3D(KindOf(shape)) == (impl_->dimension == SceneDimension::k3D));
  // Written in place: a Staged built on the stack and copied in is reloaded
  // wide right after its narrow stores (a store-forwarding stall apiece).
  Impl::Staged& s = impl_->staged.emplace_back();
  s.id = id;
  scene::ShapeColumns(shape, s.pose.values);
  s.pose.family = scene::FamilyOf(KindOf(shape));
  s.pose.category = category;
  s.pose.alive = true;
}

void SceneHistory::UpsertColumns(ShapeKind kind, size_t n, const uint64_t* ids,
                                 const float* const* columns,
                                 const uint32_t* categories) {
  assert(Is3D(kind) == (impl_->dimension == SceneDimension::k3D));
  const size_t given = ColumnsOf(kind);
  const Family family = scene::FamilyOf(kind);
  const size_t first = impl_->staged.size();
  impl_->staged.resize(first + n);
  Impl::Staged* out = impl_->staged.data() + first;
  // Column by column into the staged poses (a point's radius stays 0).
  for (size_t c = 0; c < given; ++c) {
    const float* in = columns[c];
    for (size_t i = 0; i < n; ++i) out[i].pose.values[c] = in[i];
  }
  for (size_t i = 0; i < n; ++i) {
    out[i].id = ids[i];
    out[i].pose.family = family;
    out[i].pose.category = categories == nullptr ? 1u : categories[i];
    out[i].pose.alive = true;
  }
}

void SceneHistory::Remove(uint64_t id) { impl_->staged.emplace_back().id = id; }

void SceneHistory::Clear() {
  impl_->staged.clear();
  impl_->clear = true;
}

bool SceneHistory::has_ticks() const { return impl_->has_ticks; }
uint64_t SceneHistory::latest() const { return impl_->latest; }
uint64_t SceneHistory::oldest() const { return impl_->oldest; }
uint32_t SceneHistory::ticks() const { return impl_->ticks; }

namespace {

// Sets the entity's pose from `tick` on, replacing one set at that tick.
void SetPose(Track* track, const Pose& pose, const Track::Room& room,
             size_t* poses, size_t* capacity) {
  if (!track->empty() && track->last().tick == pose.tick) {
    track->at(track->count - 1) = pose;
    return;
  }
  const uint32_t before = track->count;
  *capacity += track->Push(pose, room);
  *poses += track->count - before;
}

bool Alive(const Track& t) { return !t.empty() && t.last().alive; }

}  // namespace

void SceneHistory::Commit(uint64_t tick) {
  Impl& h = *impl_;
  assert(!h.has_ticks || tick > h.latest);
  if (h.has_ticks) h.OpenSpanIfDue(tick);
  // The oldest tick kept after this commit (Forget() settles it): poses
  // before the last one at or before it can go as rings fill up.
  const uint64_t oldest = h.has_ticks ? h.WindowStart(tick) : tick;

  if (h.clear) {
    for (const auto& [id, handle] : h.handle_of) {
      Track& t = h.tracks[handle];
      if (!Alive(t)) continue;
      Pose gone;
      gone.tick = tick;
      SetPose(&t, gone, Track::Room{h.window_slots(), oldest}, &h.poses,
              &h.pose_capacity);
    }
    h.clear = false;
  }
  // Handles first (a hash map small enough to stay cached), then the poses,
  // each at the end of its own track: a cache miss apiece for a large
  // history, so the tracks a few changes ahead are prefetched.
  h.last_handles.swap(h.handles);
  std::vector<uint32_t>& handles = h.handles;
  handles.resize(h.staged.size());
  for (size_t i = 0; i < h.staged.size(); ++i) {
    const Impl::Staged& s = h.staged[i];
    if (i < h.last_handles.size()) {
      // The same entity as the last commit's i-th change?
      const uint32_t guess = h.last_handles[i];
      if (guess < h.tracks.size() && h.tracks[guess].tracked &&
          h.tracks[guess].id == s.id) {
        handles[i] = guess;
        continue;
      }
    }
    auto it = h.handle_of.find(s.id);
    if (!s.pose.alive) {
      handles[i] = it == h.handle_of.end() ? Impl::kNoItem : it->second;
      continue;
    }
    if (it != h.handle_of.end()) {
      handles[i] = it->second;
      continue;
    }
    uint32_t handle;
    if (!h.free_handles.empty()) {
      handle = h.free_handles.back();
      h.free_handles.pop_back();
    } else {
      handle = static_cast<uint32_t>(h.tracks.size());
      h.tracks.emplace_back();
    }
    h.tracks[handle].id = s.id;
    h.tracks[handle].tracked = true;
    h.handle_of.emplace(s.id, handle);
    handles[i] = handle;
  }
  // Every track this commit writes exists now: the budget's share is theirs.
  h.BudgetRings();
  const Track::Room room{h.window_slots(), oldest, h.ring_limit, &h.drop_floor};
  constexpr size_t kAhead = 8;
  for (size_t i = 0; i < h.staged.size(); ++i) {
    if (i + 2 * kAhead < handles.size() &&
        handles[i + 2 * kAhead] != Impl::kNoItem) {
      __builtin_prefetch(&h.tracks[handles[i + 2 * kAhead]]);
    }
    if (i + kAhead < handles.size() && handles[i + kAhead] != Impl::kNoItem) {
      // SetPose reads the last pose, writes the slot after it and, in a
      // full ring, reads the one after that: three neighbouring slots.
      const Track& ahead = h.tracks[handles[i + kAhead]];
      if (const Pose* next = ahead.slot_after_last()) {
        const char* bytes = reinterpret_cast<const char*>(next);
        if (!ahead.empty()) __builtin_prefetch(&ahead.last());
        __builtin_prefetch(bytes, 1);
        __builtin_prefetch(bytes + 2 * sizeof(Pose) - 1);
      }
    }
    const uint32_t handle = handles[i];
    if (handle == Impl::kNoItem) continue;
    Track& t = h.tracks[handle];
    Impl::Staged& s = h.staged[i];
    if (!s.pose.alive && !Alive(t)) continue;
    s.pose.tick = tick;
    SetPose(&t, s.pose, room, &h.poses, &h.pose_capacity);
    // Grown from the staged pose while it is at hand (reading it back
    // from the track later is a cache miss per entity).
    if (s.pose.alive && h.has_ticks) h.GrowOpenSpan(handle, s.pose);
  }
  h.staged.clear();

  if (!h.has_ticks) {
    h.has_ticks = true;
    h.first_tick = tick;
    h.latest = tick;
    h.spans.emplace_back();
    h.FillSpan(tick, &h.spans.back());
  } else {
    h.latest = tick;
    h.spans.back().last = tick;
  }
  h.Forget();
  Span& open = h.spans.back();
  if (open.moved) {
    open.tree.Refit(open.boxes.data());
    open.moved = false;
  }
}

void SceneHistory::Impl::OpenSpanIfDue(uint64_t tick) {
  const Span& open = spans.back();
  if (tick - open.first <= kSpanTicks) return;
  Span next = std::move(spare);  // a dropped span's memory, reused
  spare = Span();
  FillSpan(latest, &next);
  spans.push_back(std::move(next));
}

// A span's hierarchy is rebuilt once the last one's leaves, refitted span
// after span, cover this much more than when it was built. Tighter than
// Scene's 2x: a rewound walk misses the caches at every level, so a loose
// tree costs it more (docs/decisions/0002-span-rebuild-threshold.md).
constexpr float kSpanRebuildAt = 1.1f;

// A span opened at `first` (the latest tick), boxing every live entity's
// current pose. It reuses the previous span's hierarchy, refitted, while
// that stays tight (kSpanRebuildAt), as Scene does.
void SceneHistory::Impl::FillSpan(uint64_t first, Span* out) const {
  Span& span = *out;
  span.tree_size = 0;
  span.families = 0;
  span.dead = 0;
  span.moved = false;
  span.handles.clear();
  span.boxes.clear();
  span.hints.clear();
  span.first_poses.clear();
  span.inner.clear();
  span.first = first;
  span.last = first;
  const Span* prev = spans.empty() ? nullptr : &spans.back();
  const bool reuse =
      prev != nullptr && !prev->tree.empty() &&
      prev->handles.size() - prev->tree_size <= 32 + prev->tree_size / 64 &&
      prev->dead * 4 <= prev->handles.size() &&
      prev->tree.LeafCost() <= kSpanRebuildAt * prev->built_cost;
  if (!reuse) {
    BuildSpan(&span);
    return;
  }
  span.tree = prev->tree;
  span.tree_size = prev->tree_size;
  span.built_cost = prev->built_cost;
  span.handles = prev->handles;
  span.boxes.resize(span.handles.size());
  span.hints.resize(span.handles.size());
  span.first_poses.resize(span.handles.size());
  span.inner.resize(span.handles.size());
  for (size_t i = 0; i < span.handles.size(); ++i) {
    const Track& t = tracks[span.handles[i]];
    span.hints[i] = t.empty() ? 0 : t.last_number();
    span.first_poses[i] = t.empty() ? nullptr : &t.last();
    span.inner[i] = 0.0f;
    if (Alive(t)) {
      const Pose& p = t.last();
      if (p.tick == first) span.hints[i] |= scene::kEveryTick;
      span.boxes[i] = scene::PoseBox(p.family, p.values);
      span.inner[i] = scene::InnerRadius(p.family, p.values);
      span.families |= uint8_t(1u << static_cast<int>(p.family));
    } else {
      span.boxes[i] = scene::EmptyAabb();
      ++span.dead;
    }
  }
  span.tree.Refit(span.boxes.data());
}

void SceneHistory::Impl::BuildSpan(Span* span) const {
  std::vector<uint32_t> live;
  std::vector<Aabb> boxes;
  for (uint32_t handle = 0; handle < tracks.size(); ++handle) {
    const Track& t = tracks[handle];
    if (!Alive(t)) continue;
    const Pose& p = t.last();
    live.push_back(handle);
    boxes.push_back(scene::PoseBox(p.family, p.values));
    span->families |= uint8_t(1u << static_cast<int>(p.family));
  }
  std::vector<uint32_t> order;
  span->tree.Build(boxes, &order);
  span->handles.resize(live.size());
  span->boxes.resize(live.size());
  span->hints.resize(live.size());
  span->first_poses.resize(live.size());
  span->inner.resize(live.size());
  for (size_t i = 0; i < live.size(); ++i) {
    span->handles[i] = live[order[i]];
    span->boxes[i] = boxes[order[i]];
    const Track& t = tracks[span->handles[i]];
    span->hints[i] = t.last_number();
    span->first_poses[i] = &t.last();
    span->inner[i] = scene::InnerRadius(t.last().family, t.last().values);
    if (t.last().tick == span->first) span->hints[i] |= scene::kEveryTick;
  }
  span->tree_size = live.size();
  span->built_cost = span->tree.LeafCost();
}

void SceneHistory::Impl::GrowOpenSpan(uint32_t handle, const Pose& p) {
  Span& span = spans.back();
  if (item_of_span != span.first) {
    // A new span: index its items by handle.
    item_of.assign(tracks.size(), kNoItem);
    for (size_t i = 0; i < span.handles.size(); ++i) {
      item_of[span.handles[i]] = static_cast<uint32_t>(i);
    }
    item_of_span = span.first;
  }
  if (item_of.size() < tracks.size()) item_of.resize(tracks.size(), kNoItem);
  const Aabb box = scene::PoseBox(p.family, p.values);
  span.families |= uint8_t(1u << static_cast<int>(p.family));
  const uint32_t item = item_of[handle];
  if (item == kNoItem) {
    item_of[handle] = static_cast<uint32_t>(span.handles.size());
    span.handles.push_back(handle);
    span.boxes.push_back(box);
    span.hints.push_back(tracks[handle].last_number());
    span.first_poses.push_back(&tracks[handle].last());
    span.inner.push_back(scene::InnerRadius(p.family, p.values));
    return;
  }
  scene::Grow(&span.boxes[item], box);
  span.inner[item] =
      std::min(span.inner[item], scene::InnerRadius(p.family, p.values));
  if (item < span.tree_size) span.moved = true;
  // (The pose before, just read by SetPose, is still cached.)
  const Track& t = tracks[handle];
  if ((span.hints[item] & scene::kEveryTick) &&
      (t.count < 2 || t.at(t.count - 2).tick + 1 != p.tick)) {
    span.hints[item] &= ~scene::kEveryTick;
  }
}

uint64_t SceneHistory::Impl::WindowStart(uint64_t tick) const {
  const uint64_t start = tick >= ticks - 1 ? tick - (ticks - 1) : 0;
  return std::max({first_tick, start, budget_floor});
}

void SceneHistory::Impl::Forget() {
  LimitRings();
  if (drop_floor > budget_floor) {
    budget_floor = drop_floor;
    tight = true;  // a ring at its share forgot a pose the window keeps
  }
  oldest = WindowStart(latest);
  // The open span stays whatever its age: later commits grow it.
  while (spans.size() > 1 && spans.front().last <= oldest) {
    spare = std::move(spans.front());
    spans.pop_front();
  }
  // Rings forget their old poses as they fill up (Track::Push); what is
  // left is freeing removed entities and giving back unused slots, done
  // for a 64th of the tracks per commit (all of them every 64 commits),
  // so no tick pays for a sweep over every track.
  const size_t share = (tracks.size() + 63) / 64;
  TrimRange(trim_cursor, share, /*shrink=*/false);
  trim_cursor += share;
  if (trim_cursor >= tracks.size()) trim_cursor = 0;
  while (MemoryBytes() > max_bytes) {
    // From now on rings grow only as needed, not to the window at once.
    tight = true;
    limited = true;
    spare = Span();
    if (spans.size() == 1) {
      Trim(/*shrink=*/true);
      break;
    }
    budget_floor = spans[1].first;
    oldest = std::max(oldest, budget_floor);
    spans.pop_front();  // no spare: the budget wants the memory back
    Trim(/*shrink=*/true);
  }
}

// Poses before the last one at or before `oldest` are never read again; an
// entity removed by then is forgotten and its handle reused (a stale item
// of it in a kept span only adds a candidate that does not exist then).
void SceneHistory::Impl::Trim(bool shrink) {
  TrimRange(0, tracks.size(), shrink);
}

void SceneHistory::Impl::TrimRange(size_t first, size_t count, bool shrink) {
  const size_t end = std::min(tracks.size(), first + count);
  for (uint32_t handle = static_cast<uint32_t>(first); handle < end; ++handle) {
    Track& t = tracks[handle];
    if (t.empty()) continue;
    while (t.count > 1 && t.at(1).tick <= oldest) {
      t.DropOldest();
      --poses;
    }
    if (t.count == 1 && !t.last().alive) {
      handle_of.erase(t.id);
      t.tracked = false;
      t.DropOldest();
      --poses;
      pose_capacity -= t.capacity();
      std::vector<Pose>().swap(t.ring);
      t.head = 0;
      free_handles.push_back(handle);
      continue;
    }
    // Give memory back when far more is held than kept (an entity that
    // stopped moving), or at once under the budget.
    if (shrink ? t.capacity() > t.count
               : t.capacity() > 2 * size_t{t.count} + 16) {
      const size_t slots = shrink ? t.count : t.count + t.count / 2 + 4;
      pose_capacity = static_cast<size_t>(
          static_cast<std::ptrdiff_t>(pose_capacity) + t.Resize(slots));
    }
  }
}

MomentResolution SceneHistory::Resolve(SceneMoment asked,
                                       SceneMoment* used) const {
  const Impl& h = *impl_;
  if (!h.has_ticks) return MomentResolution::kNoTicks;
  if (asked.tick > h.latest ||
      (asked.tick == h.latest && asked.fraction > 0.0f)) {
    return MomentResolution::kFuture;
  }
  if (asked.tick < h.oldest) {
    *used = SceneMoment{h.oldest, 0.0f};
    return MomentResolution::kClamped;
  }
  *used = asked;
  return MomentResolution::kExact;
}

bool SceneHistory::AnswerableBefore(uint64_t next, SceneMoment asked) const {
  const Impl& h = *impl_;
  if (!h.has_ticks || h.tight || next <= h.latest) return false;
  const bool recorded =
      asked.tick < h.latest || (asked.tick == h.latest && asked.fraction == 0);
  return recorded && asked.tick >= h.WindowStart(next);
}

}  // namespace collision
