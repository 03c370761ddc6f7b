// SceneHistory's named cases: clamping, births and deaths between ticks,
// skipped ticks, a history of one, turns, memory and the budget, and the
// nearest walk's fallback. The random histories checked against brute
// force are in scene_history_test.cc.
#include <malloc.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "collision/core/scene.h"
#include "collision/core/scene_history.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

std::vector<uint64_t> OverlapIds(const SceneHistory& h, SceneMoment at,
                                 const Shape& q) {
  std::vector<OverlapHit> hits;
  h.Overlap(at, q, Boundary::kInclusive, {}, 100, &hits);
  std::vector<uint64_t> ids;
  for (const OverlapHit& hit : hits) ids.push_back(hit.id);
  return ids;
}

TEST(SceneHistory, ClampsOldTicksAndRejectsTheFuture) {
  SceneHistory h(SceneDimension::k2D, 4);
  SceneMoment used;
  EXPECT_EQ(h.Resolve({1, 0.0f}, &used), MomentResolution::kNoTicks);
  for (uint64_t t = 10; t <= 20; ++t) {
    h.Upsert(1, Circle{{float(t), 0}, 0.5f}, 1);
    h.Commit(t);
  }
  EXPECT_EQ(h.oldest(), 17u);
  EXPECT_EQ(h.Resolve({5, 0.5f}, &used), MomentResolution::kClamped);
  EXPECT_EQ(used.tick, 17u);
  EXPECT_EQ(used.fraction, 0.0f);
  EXPECT_EQ(h.Resolve({17, 0.5f}, &used), MomentResolution::kExact);
  EXPECT_EQ(h.Resolve({20, 0.0f}, &used), MomentResolution::kExact);
  EXPECT_EQ(h.Resolve({20, 0.1f}, &used), MomentResolution::kFuture);
  EXPECT_EQ(h.Resolve({21, 0.0f}, &used), MomentResolution::kFuture);
  // The entity is where it was: x = 18.5 at (18, 0.5).
  EXPECT_EQ(OverlapIds(h, {18, 0.5f}, Vec2{18.5f, 0}).size(), 1u);
  EXPECT_EQ(OverlapIds(h, {18, 0.5f}, Vec2{18.0f, 0.6f}).size(), 0u);
  EXPECT_EQ(OverlapIds(h, {18, 0.0f}, Vec2{18.0f, 0.5f}).size(), 1u);
}

TEST(SceneHistory, BirthsAndDeathsBetweenTicks) {
  SceneHistory h(SceneDimension::k2D, 64);
  h.Upsert(1, Circle{{0, 0}, 1}, 1);  // dies at 11
  h.Upsert(3, Circle{{0, 0}, 1}, 1);  // becomes a rect at 11
  h.Commit(10);
  h.Remove(1);
  h.Upsert(2, Circle{{0, 0}, 1}, 1);  // born at 11
  h.Upsert(3, Rect{{10, 10}, {11, 11}}, 1);
  h.Commit(11);
  h.Commit(12);
  const Shape origin = Vec2{0, 0};
  EXPECT_EQ(OverlapIds(h, {10, 0.0f}, origin), (std::vector<uint64_t>{1, 3}));
  // Removed at 11: present (at its pose of 10) until then; the kind change
  // keeps the pose of 10 too.
  EXPECT_EQ(OverlapIds(h, {10, 0.9f}, origin), (std::vector<uint64_t>{1, 3}));
  // Born at 11: absent before.
  EXPECT_EQ(OverlapIds(h, {11, 0.0f}, origin), (std::vector<uint64_t>{2}));
  EXPECT_EQ(OverlapIds(h, {11, 0.5f}, Vec2{10.5f, 10.5f}),
            (std::vector<uint64_t>{3}));
}

// Rewound nearest gathers its candidates up to the (k + 1)-th smallest
// upper bound of their span boxes' gaps, which holds only for entities that
// exist at the moment and pass the filter. Here the nearest boxes hold
// entities that are filtered out, removed, or not yet born: the answer must
// still be the entities further away.
TEST(SceneHistory, NearestLooksPastBoxesWhoseEntitiesDoNotCount) {
  SceneHistory h(SceneDimension::k2D, 64);
  // Near the origin: 6 circles of category 2, one that dies at 11, one
  // born at 11 (all within the first span: their boxes are in its index).
  for (uint64_t id = 1; id <= 6; ++id) {
    h.Upsert(id, Circle{{float(id), 0}, 0.5f}, 2);
  }
  h.Upsert(7, Circle{{0, 1}, 0.5f}, 1);
  // Far away, category 1: the answers.
  for (uint64_t id = 10; id < 16; ++id) {
    h.Upsert(id, Circle{{100.0f + float(id), 0}, 0.5f}, 1);
  }
  h.Commit(10);
  h.Remove(7);
  h.Upsert(8, Circle{{0, -1}, 0.5f}, 1);
  h.Commit(11);
  h.Commit(12);
  // The ids answered, and whether the answer was truncated.
  auto nearest = [&h](SceneMoment at, size_t k, float max_gap,
                      const EntityFilter& filter) {
    std::vector<NearestHit> hits;
    const bool truncated = h.Nearest(at, Vec2{0, 0}, k, max_gap,
                                     Boundary::kInclusive, filter, &hits);
    std::vector<uint64_t> ids;
    for (const NearestHit& hit : hits) ids.push_back(hit.id);
    return std::make_pair(ids, truncated);
  };
  using Ids = std::vector<uint64_t>;
  EntityFilter only_1;
  only_1.mask = 1;
  // At 11 entity 7 is gone and 8 is there; at 10 the reverse.
  EXPECT_EQ(nearest({11, 0.0f}, 3, 1e30f, only_1),
            std::make_pair(Ids{8, 10, 11}, true));
  EXPECT_EQ(nearest({10, 0.5f}, 3, 1e30f, only_1),
            std::make_pair(Ids{7, 10, 11}, true));
  // Excluding the one near entity of category 1 as the shooter.
  EntityFilter not_8 = only_1;
  not_8.exclude = true;
  not_8.exclude_id = 8;
  EXPECT_EQ(nearest({12, 0.0f}, 6, 1e30f, not_8),
            std::make_pair(Ids{10, 11, 12, 13, 14, 15}, false));
  // And within a gap that the far ones exceed: nothing, not a wrong answer.
  EXPECT_EQ(nearest({12, 0.0f}, 2, 50.0f, not_8), std::make_pair(Ids{}, false));
}

TEST(SceneHistory, SkippedTicksRepeatTheWorldBeforeThem) {
  SceneHistory h(SceneDimension::k2D, 64);
  h.Upsert(1, Circle{{0, 0}, 0.25f}, 1);
  h.Commit(10);
  h.Upsert(1, Circle{{8, 0}, 0.25f}, 1);
  h.Commit(14);
  EXPECT_EQ(OverlapIds(h, {12, 0.5f}, Vec2{0, 0}).size(), 1u);
  EXPECT_EQ(OverlapIds(h, {13, 0.5f}, Vec2{4, 0}).size(), 1u);
  EXPECT_EQ(OverlapIds(h, {13, 0.5f}, Vec2{0, 0}).size(), 0u);
}

TEST(SceneHistory, HistoryOfOneKeepsOnlyTheLatestTick) {
  SceneHistory h(SceneDimension::k2D, 1);
  for (uint64_t t = 1; t <= 20; ++t) {
    h.Upsert(7, Circle{{float(t), 0}, 0.25f}, 1);
    h.Commit(t);
    ASSERT_EQ(h.oldest(), t);
  }
  SceneMoment used;
  EXPECT_EQ(h.Resolve({19, 0.5f}, &used), MomentResolution::kClamped);
  EXPECT_EQ(used.tick, 20u);
  EXPECT_EQ(OverlapIds(h, used, Vec2{20, 0}).size(), 1u);
  // Older poses go a span at a time.
  EXPECT_LE(h.Stats().poses, SceneHistory::kSpanTicks + 1);
}

TEST(SceneHistory, QuarterTurnsStayExactAndOppositeTurnsGoCounterClockwise) {
  SceneHistory h(SceneDimension::k2D, 8);
  RotatedRect r;
  r.size = {4, 2};
  r.pivot = {0, 0};
  r.position = {0, 0};
  r.rotation = RotationFromAngle(0);
  h.Upsert(1, r, 1);
  h.Commit(1);
  r.rotation = RotationFromAngle(3.14159274f);  // (-1, 0) exactly
  h.Upsert(1, r, 1);
  h.Commit(2);
  // Halfway, counter-clockwise: the rect spans x in [-2, 0], y in [0, 4].
  EXPECT_EQ(OverlapIds(h, {1, 0.5f}, Vec2{-1, 3}).size(), 1u);
  EXPECT_EQ(OverlapIds(h, {1, 0.5f}, Vec2{1, 1}).size(), 0u);
  EXPECT_EQ(OverlapIds(h, {1, 0.0f}, Vec2{3, 1}).size(), 1u);
  EXPECT_EQ(OverlapIds(h, {2, 0.0f}, Vec2{-3, -1}).size(), 1u);
}

TEST(SceneHistory, MemoryGrowsWithChangesOnly) {
  SceneHistory h(SceneDimension::k2D, 64);
  for (uint64_t id = 0; id < 1000; ++id) {
    h.Upsert(id, Circle{{float(id % 100), float(id / 100)}, 0.5f}, 1);
  }
  h.Commit(1);
  for (uint64_t t = 2; t <= 200; ++t) {
    for (uint64_t id = 0; id < 10; ++id) {  // 1% moves
      h.Upsert(id, Circle{{float(t % 50), float(id)}, 0.5f}, 1);
    }
    h.Commit(t);
  }
  const SceneHistoryStats s = h.Stats();
  EXPECT_EQ(s.entities, 1000u);
  // 990 still entities: one pose each; the 10 movers: the window's 64 plus
  // at most two spans' before it (older poses go as their ring fills).
  EXPECT_LE(s.poses, 990u + 10u * (64u + 2 * SceneHistory::kSpanTicks + 2));
  EXPECT_GE(s.poses, 990u + 10u * 64u);
  EXPECT_EQ(s.oldest, 137u);
}

TEST(SceneHistory, MemoryBudgetDropsTheOldestTicksFirst) {
  SceneHistory unbounded(SceneDimension::k2D, 256);
  SceneHistory bounded(SceneDimension::k2D, 256, 200000);
  for (uint64_t t = 1; t <= 256; ++t) {
    for (uint64_t id = 0; id < 100; ++id) {
      const Circle c{{float(t + id), 0}, 0.5f};
      unbounded.Upsert(id, c, 1);
      bounded.Upsert(id, c, 1);
    }
    unbounded.Commit(t);
    bounded.Commit(t);
    ASSERT_LE(bounded.Stats().memory_bytes, 200000u) << t;
  }
  EXPECT_EQ(unbounded.oldest(), 1u);
  EXPECT_GT(bounded.oldest(), 1u);
  SceneMoment used;
  EXPECT_EQ(bounded.Resolve({1, 0.0f}, &used), MomentResolution::kClamped);
  EXPECT_EQ(used.tick, bounded.oldest());
  // Within what it kept, it answers as the unbounded one.
  for (uint64_t t = bounded.oldest(); t < 256; t += 7) {
    EXPECT_EQ(OverlapIds(bounded, {t, 0.5f}, Vec2{float(t) + 20.5f, 0}),
              OverlapIds(unbounded, {t, 0.5f}, Vec2{float(t) + 20.5f, 0}));
  }
}

// What malloc has handed out and not had back: the heap the history really
// holds, measured beside its own accounting.
int64_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<int64_t>(m.uordblks + m.hblkhd);
}

// Every entity moving at every tick with the longest history: the window's
// rings (1,058 slots each) would be 1 GB for these 20k entities. The budget
// must hold from the first commits on, in memory malloc really handed out,
// and memory_bytes must tell that memory within 10%.
TEST(SceneHistory, TheBudgetBoundsTheHeapFromTheFirstCommitOn) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator does not report through mallinfo2";
#endif
  constexpr size_t kBudget = size_t{16} << 20;
  constexpr uint64_t kEntities = 20000;
  const int64_t before = HeapInUse();
  {
    SceneHistory h(SceneDimension::k2D, 1024, kBudget);
    for (uint64_t t = 1; t <= 60; ++t) {
      for (uint64_t id = 0; id < kEntities; ++id) {
        h.Upsert(
            id,
            Circle{{float(id % 200) + 0.01f * float(t), float(id / 200)}, 0.5f},
            1);
      }
      h.Commit(t);
      const int64_t heap = HeapInUse() - before;
      const size_t accounted = h.Stats().memory_bytes;
      ASSERT_LE(accounted, kBudget) << "tick " << t;
      ASSERT_LE(heap, static_cast<int64_t>(kBudget + kBudget / 10))
          << "tick " << t;
      if (t >= 20) {
        EXPECT_NEAR(static_cast<double>(accounted), static_cast<double>(heap),
                    0.1 * static_cast<double>(heap))
            << "tick " << t;
      }
    }
    EXPECT_GT(h.oldest(), 1u);  // the budget, not the window, set it
    EXPECT_GE(h.latest() - h.oldest(), 5u) << "the budget keeps some ticks";
  }
  EXPECT_LT(HeapInUse() - before, int64_t{1} << 20) << "freed on destruction";
}

// The admission estimate is an upper bound of what a scene and its
// unbudgeted history really hold with every entity moving at every tick,
// and not a loose one (within 1.5x, once the window is long enough for a
// steady mover's ring to grow to it).
TEST(SceneHistory, SceneBytesAtMostBoundsAMovingScene) {
  for (uint32_t ticks : {1u, 2u, 64u, 200u}) {
    for (size_t n : {size_t{10}, size_t{2000}}) {
      Scene scene(SceneDimension::k2D);
      SceneHistory h(SceneDimension::k2D, ticks);
      for (uint64_t t = 1; t <= ticks + 40; ++t) {
        for (uint64_t id = 0; id < n; ++id) {
          const Circle c{{float(id % 50) + 0.01f * float(t), float(id / 50)},
                         0.5f};
          scene.Upsert(id, c, 1);
          h.Upsert(id, c, 1);
        }
        scene.Commit();
        h.Commit(t);
      }
      const size_t held =
          scene.Stats().memory_bytes + (ticks > 1 ? h.Stats().memory_bytes : 0);
      SCOPED_TRACE(testing::Message() << n << " entities, H " << ticks);
      EXPECT_LE(held, SceneBytesAtMost(n, ticks));
      if (n >= 2000 && ticks >= 64) {
        EXPECT_GE(held * 3 / 2, SceneBytesAtMost(n, ticks));
      }
      EXPECT_LE(SceneBytesAtLeast(n, ticks > 1), SceneBytesAtMost(n, ticks));
    }
  }
}

}  // namespace
}  // namespace collision
