// The scene's history against independent answers: at fraction 0 a rewound
// query equals, bit for bit, the same query against a Scene holding that
// tick's world; between ticks it equals brute force over the shapes
// interpolated by the documented formula, written again here on shapes.
// Plus clamping, the future, births and deaths between ticks, skipped
// ticks, a history of 1, memory that grows with changes only, and the
// memory budget.
#include "collision/core/scene_history.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "collision/core/scalar.h"
#include "collision/core/scene.h"
#include "gtest/gtest.h"
#include "scene_testing.h"

namespace collision {
namespace {

using namespace scene_testing;  // NOLINT: the shared test helpers

// ---- The formula of scene_history.h, on shapes ----

// Unchanged values stay exact.
float Lerp(float a, float b, float f) {
  return a == b ? a : (1.0f - f) * a + f * b;
}
Vec2 Lerp(Vec2 a, Vec2 b, float f) {
  return {Lerp(a.x, b.x, f), Lerp(a.y, b.y, f)};
}
Vec3 Lerp(Vec3 a, Vec3 b, float f) {
  return {Lerp(a.x, b.x, f), Lerp(a.y, b.y, f), Lerp(a.z, b.z, f)};
}

// Points are balls of radius 0 (the scene answers them identically).
bool AsCircle(const Shape& s, Circle* c) {
  if (const Vec2* p = std::get_if<Vec2>(&s)) {
    *c = Circle{*p, 0.0f};
    return true;
  }
  if (const Circle* x = std::get_if<Circle>(&s)) {
    *c = *x;
    return true;
  }
  return false;
}
bool AsSphere(const Shape& s, Sphere* c) {
  if (const Vec3* p = std::get_if<Vec3>(&s)) {
    *c = Sphere{*p, 0.0f};
    return true;
  }
  if (const Sphere* x = std::get_if<Sphere>(&s)) {
    *c = *x;
    return true;
  }
  return false;
}

// The pose between `a` (at tick t) and `b` (at t + 1); `a` itself at
// fraction 0 or when the two are of different families.
Shape Between(const Shape& a, const Shape& b, float f) {
  if (f == 0.0f) return a;
  Circle ca, cb;
  if (AsCircle(a, &ca) && AsCircle(b, &cb)) {
    return Circle{Lerp(ca.center, cb.center, f), Lerp(ca.radius, cb.radius, f)};
  }
  Sphere sa, sb;
  if (AsSphere(a, &sa) && AsSphere(b, &sb)) {
    return Sphere{Lerp(sa.center, sb.center, f), Lerp(sa.radius, sb.radius, f)};
  }
  if (std::holds_alternative<Rect>(a) && std::holds_alternative<Rect>(b)) {
    const Rect& x = std::get<Rect>(a);
    const Rect& y = std::get<Rect>(b);
    Rect r{Lerp(x.min, y.min, f), Lerp(x.max, y.max, f)};
    r.max = {std::max(r.max.x, r.min.x), std::max(r.max.y, r.min.y)};
    return r;
  }
  if (std::holds_alternative<Box>(a) && std::holds_alternative<Box>(b)) {
    const Box& x = std::get<Box>(a);
    const Box& y = std::get<Box>(b);
    Box r{Lerp(x.min, y.min, f), Lerp(x.max, y.max, f)};
    r.max = {std::max(r.max.x, r.min.x), std::max(r.max.y, r.min.y),
             std::max(r.max.z, r.min.z)};
    return r;
  }
  if (std::holds_alternative<RotatedRect>(a) &&
      std::holds_alternative<RotatedRect>(b)) {
    const RotatedRect& x = std::get<RotatedRect>(a);
    const RotatedRect& y = std::get<RotatedRect>(b);
    RotatedRect r;
    r.size = Lerp(x.size, y.size, f);
    r.pivot = Lerp(x.pivot, y.pivot, f);
    r.position = Lerp(x.position, y.position, f);
    const float dot =
        x.rotation.cos * y.rotation.cos + x.rotation.sin * y.rotation.sin;
    if (x.rotation.cos == y.rotation.cos && x.rotation.sin == y.rotation.sin) {
      r.rotation = x.rotation;
    } else if (dot <= -1.0f + 1e-6f) {  // opposite: counter-clockwise
      const float angle =
          std::atan2(x.rotation.sin, x.rotation.cos) + f * 3.14159265358979f;
      r.rotation = {std::cos(angle), std::sin(angle)};
    } else {
      const float c = Lerp(x.rotation.cos, y.rotation.cos, f);
      const float s = Lerp(x.rotation.sin, y.rotation.sin, f);
      const float len = std::sqrt(c * c + s * s);
      r.rotation = {c / len, s / len};
    }
    return r;
  }
  return a;
}

// The world at (tick, fraction) from the worlds at tick and tick + 1.
World WorldBetween(const World& at, const World* next, float f) {
  World out;
  for (const auto& [id, e] : at) {
    Entity moved = e;
    if (next != nullptr) {
      auto it = next->find(id);
      if (it != next->end())
        moved.shape = Between(e.shape, it->second.shape, f);
    }
    out[id] = moved;
  }
  return out;
}

// ---- A random history, recorded tick by tick ----

struct Recorded {
  std::map<uint64_t, World> worlds;  // by tick: the world after that commit
  // The world at tick t: after the last commit at or before t.
  const World& At(uint64_t t) const {
    return std::prev(worlds.upper_bound(t))->second;
  }
};

// Commits `ticks` random ticks (moves, births, deaths, kind changes; tick
// numbers with gaps) to `history`, calling check() after each and
// staged(g, rec, tick) with each tick's changes staged, before its commit.
template <typename Check, typename Staged>
void RandomHistory(uint32_t seed, Mix mix, int entities, int ticks,
                   SceneHistory* history, Check&& check, Staged&& staged) {
  Generator g(seed, mix);
  Recorded rec;
  World world;
  uint64_t next_id = 1;
  uint64_t tick = 100;
  for (int i = 0; i < entities; ++i) {
    const uint64_t id = next_id++ * 7919;
    world[id] = Entity{g.EntityShape(), g.Category()};
    history->Upsert(id, world[id].shape, world[id].category);
  }
  for (int n = 0; n < ticks; ++n) {
    if (n > 0) {
      for (auto& [id, e] : world) {
        if (g.Chance(0.3)) {
          e.shape = g.EntityShape();
          history->Upsert(id, e.shape, e.category);
        }
      }
      for (int i = g.Int(0, entities / 10 + 1); i > 0; --i) {
        const uint64_t id = next_id++ * 7919;
        world[id] = Entity{g.EntityShape(), g.Category()};
        history->Upsert(id, world[id].shape, world[id].category);
      }
      for (int i = g.Int(0, entities / 10 + 1); i > 0 && !world.empty(); --i) {
        auto it = world.begin();
        std::advance(it, g.Int(0, static_cast<int>(world.size()) - 1));
        history->Remove(it->first);
        world.erase(it);
      }
    }
    staged(g, rec, tick);
    history->Commit(tick);
    rec.worlds[tick] = world;
    check(g, rec, tick);
    tick += g.Chance(0.2) ? 3 : 1;  // skipped ticks repeat the world
  }
}

template <typename Check>
void RandomHistory(uint32_t seed, Mix mix, int entities, int ticks,
                   SceneHistory* history, Check&& check) {
  RandomHistory(seed, mix, entities, ticks, history, check,
                [](Generator&, const Recorded&, uint64_t) {});
}

// Every query kind at `at` against `want` (brute force over that world).
void ExpectAnswersOf(const SceneHistory& history, SceneMoment at,
                     const World& want, Generator& g, bool flat,
                     const std::string& where) {
  for (int q = 0; q < 8; ++q) {
    const Boundary b = g.AnyBoundary();
    const EntityFilter f = g.Filter(want);
    const Shape oq = g.OverlapQuery();
    if (history.CanOverlap(at, KindOf(oq), nullptr)) {
      const size_t max_hits = g.Chance(0.2) ? 2 : 1000000;
      std::vector<OverlapHit> expect = BruteOverlap(want, oq, b, f);
      std::vector<OverlapHit> got;
      EXPECT_EQ(history.Overlap(at, oq, b, f, max_hits, &got),
                expect.size() > max_hits)
          << where;
      if (expect.size() > max_hits) expect.resize(max_hits);
      ExpectSameOverlap(got, expect, where + " overlap");
    }
    const Shape nq = g.BallQuery();
    const size_t k = static_cast<size_t>(g.Int(1, 5));
    const float max_gap = g.Chance(0.5) ? 1e30f : g.Size();
    std::vector<NearestHit> expect_near = BruteNearest(want, nq, max_gap, b, f);
    std::vector<NearestHit> nearest;
    EXPECT_EQ(history.Nearest(at, nq, k, max_gap, b, f, &nearest),
              expect_near.size() > k)
        << where;
    if (expect_near.size() > k) expect_near.resize(k);
    ExpectSameNearest(nearest, expect_near, where + " nearest");

    const CastQuery c = RandomCast(g, flat, g.Chance(0.5));
    std::vector<CastHit> expect_cast = BruteCast(want, c, flat, b, f);
    std::vector<CastHit> all;
    const size_t max_hits = g.Chance(0.2) ? 1 : 1000000;
    EXPECT_EQ(history.Cast(at, c, b, f, true, max_hits, &all),
              expect_cast.size() > max_hits)
        << where;
    std::vector<CastHit> expect_all = expect_cast;
    if (expect_all.size() > max_hits) expect_all.resize(max_hits);
    ExpectSameCast(all, expect_all, where + " cast all");
    std::vector<CastHit> first;
    history.Cast(at, c, b, f, false, 1, &first);
    if (expect_cast.size() > 1) expect_cast.resize(1);
    ExpectSameCast(first, expect_cast, where + " cast first");
  }
}

void RunAtFractionZero(uint32_t seed, Mix mix) {
  const bool flat = mix != Mix::k3D;
  SceneHistory history(flat ? SceneDimension::k2D : SceneDimension::k3D, 20);
  RandomHistory(
      seed, mix, 60, 90, &history,
      [&](Generator& g, const Recorded& rec, uint64_t latest) {
        ASSERT_EQ(history.latest(), latest);
        for (int i = 0; i < 3; ++i) {
          const uint64_t t =
              history.oldest() +
              static_cast<uint64_t>(g.Int(0, int(latest - history.oldest())));
          SceneMoment used;
          ASSERT_EQ(history.Resolve({t, 0.0f}, &used),
                    MomentResolution::kExact);
          // The same queries against a Scene of that tick's world alone.
          Scene scene(flat ? SceneDimension::k2D : SceneDimension::k3D);
          for (const auto& [id, e] : rec.At(t))
            scene.Upsert(id, e.shape, e.category);
          scene.Commit();
          const std::string where = "seed " + std::to_string(seed) +
                                    " latest " + std::to_string(latest) +
                                    " at " + std::to_string(t);
          for (int q = 0; q < 6; ++q) {
            const Boundary b = g.AnyBoundary();
            const EntityFilter f = g.Filter(rec.At(t));
            const Shape oq = g.OverlapQuery();
            if (history.CanOverlap(used, KindOf(oq), nullptr)) {
              ASSERT_TRUE(scene.CanOverlap(KindOf(oq), nullptr)) << where;
              std::vector<OverlapHit> got, want;
              EXPECT_EQ(history.Overlap(used, oq, b, f, 3, &got),
                        scene.Overlap(oq, b, f, 3, &want));
              ExpectSameOverlap(got, want, where + " overlap");
            }
            const Shape nq = g.BallQuery();
            std::vector<NearestHit> got_n, want_n;
            EXPECT_EQ(history.Nearest(used, nq, 4, 1e30f, b, f, &got_n),
                      scene.Nearest(nq, 4, 1e30f, b, f, &want_n));
            ExpectSameNearest(got_n, want_n, where + " nearest");
            const CastQuery c = RandomCast(g, flat, g.Chance(0.5));
            const bool all = g.Chance(0.5);
            std::vector<CastHit> got_c, want_c;
            EXPECT_EQ(history.Cast(used, c, b, f, all, 5, &got_c),
                      scene.Cast(c, b, f, all, 5, &want_c));
            ExpectSameCast(got_c, want_c, where + " cast");
          }
        }
      });
}

TEST(SceneHistory, AtFractionZeroEqualsASceneOfThatTick2D) {
  RunAtFractionZero(1, Mix::kAll2D);
  RunAtFractionZero(2, Mix::kBallsAndRects);
}

TEST(SceneHistory, AtFractionZeroEqualsASceneOfThatTick3D) {
  RunAtFractionZero(3, Mix::k3D);
}

void RunInterpolated(uint32_t seed, Mix mix) {
  const bool flat = mix != Mix::k3D;
  SceneHistory history(flat ? SceneDimension::k2D : SceneDimension::k3D, 24);
  RandomHistory(
      seed, mix, 50, 80, &history,
      [&](Generator& g, const Recorded& rec, uint64_t latest) {
        if (latest == history.oldest()) return;
        for (int i = 0; i < 3; ++i) {
          const uint64_t t =
              history.oldest() + static_cast<uint64_t>(g.Int(
                                     0, int(latest - 1 - history.oldest())));
          static constexpr float kFractions[] = {0.5f, 0.25f, 0.999f, 1e-7f};
          const float f = g.Chance(0.5) ? kFractions[g.Int(0, 3)]
                                        : std::uniform_real_distribution<float>(
                                              0.0f, 1.0f)(g.rng());
          SceneMoment used;
          ASSERT_EQ(history.Resolve({t, f}, &used), MomentResolution::kExact);
          const World& next = rec.At(t + 1);
          const World want = WorldBetween(rec.At(t), &next, f);
          ExpectAnswersOf(history, used, want, g, flat,
                          "seed " + std::to_string(seed) + " at " +
                              std::to_string(t) + "+" + std::to_string(f));
        }
      });
}

TEST(SceneHistory, InterpolatedAnswersEqualBruteForce2D) {
  RunInterpolated(11, Mix::kAll2D);
  RunInterpolated(12, Mix::kBalls2D);
  RunInterpolated(13, Mix::kBallsAndRects);
}

TEST(SceneHistory, InterpolatedAnswersEqualBruteForce3D) {
  RunInterpolated(14, Mix::k3D);
}

// A server answers a message's rewound queries before recording its update
// when AnswerableBefore says so: such a moment then resolves as it will
// after the commit, and the answers already equal brute force over that
// moment's world; the moments it refuses are the ones that need the new
// tick or leave the window.
void RunAnswerableBefore(uint32_t seed, Mix mix) {
  const bool flat = mix != Mix::k3D;
  const uint32_t kTicks = 12;
  SceneHistory history(flat ? SceneDimension::k2D : SceneDimension::k3D,
                       kTicks);
  size_t answered_before = 0;
  RandomHistory(
      seed, mix, 40, 80, &history, [](Generator&, const Recorded&, uint64_t) {},
      [&](Generator& g, const Recorded& rec, uint64_t next) {
        if (!history.has_ticks()) {
          EXPECT_FALSE(history.AnswerableBefore(next, {next - 1, 0.0f}));
          return;
        }
        const uint64_t latest = history.latest();
        const uint64_t start = next >= kTicks - 1 ? next - (kTicks - 1) : 0;
        const uint64_t window_start =
            std::max(rec.worlds.begin()->first, start);
        for (int i = 0; i < 6; ++i) {
          const uint64_t t =
              history.oldest() +
              static_cast<uint64_t>(g.Int(0, int(latest - history.oldest())));
          const float f = g.Chance(0.3) ? 0.0f
                                        : std::uniform_real_distribution<float>(
                                              0.0f, 1.0f)(g.rng());
          const SceneMoment at{t, f};
          const bool needs_next = t == latest && f > 0.0f;
          const bool expected = !needs_next && t >= window_start;
          ASSERT_EQ(history.AnswerableBefore(next, at), expected)
              << "seed " << seed << " next " << next << " at " << t << "+" << f;
          if (!expected) continue;
          ++answered_before;
          SceneMoment used;
          ASSERT_EQ(history.Resolve(at, &used), MomentResolution::kExact);
          const World* after = t + 1 <= latest ? &rec.At(t + 1) : nullptr;
          const World want = WorldBetween(rec.At(t), after, f);
          ExpectAnswersOf(history, used, want, g, flat,
                          "seed " + std::to_string(seed) + " before " +
                              std::to_string(next) + " at " +
                              std::to_string(t) + "+" + std::to_string(f));
        }
        EXPECT_FALSE(history.AnswerableBefore(next, {latest, 0.5f}));
        EXPECT_FALSE(history.AnswerableBefore(next, {next, 0.0f}));
        if (window_start > history.oldest()) {
          EXPECT_FALSE(history.AnswerableBefore(next, {window_start - 1, 0}));
        }
      });
  EXPECT_GT(answered_before, 100u);
}

TEST(SceneHistory, AnswerableBeforeCommitMeansTheAnswerAfterIt2D) {
  RunAnswerableBefore(21, Mix::kAll2D);
}

TEST(SceneHistory, AnswerableBeforeCommitMeansTheAnswerAfterIt3D) {
  RunAnswerableBefore(22, Mix::k3D);
}

TEST(SceneHistory, NothingIsAnswerableBeforeCommitOnceTheBudgetIsReached) {
  SceneHistory h(SceneDimension::k2D, 256, 100000);
  uint64_t t = 1;
  for (; t <= 2; ++t) {
    for (uint64_t id = 0; id < 100; ++id) {
      h.Upsert(id, Circle{{float(t + id), 0}, 0.5f}, 1);
    }
    h.Commit(t);
  }
  ASSERT_EQ(h.oldest(), 1u);
  EXPECT_TRUE(h.AnswerableBefore(t, {t - 2, 0.5f}));
  for (; t <= 400 && h.oldest() == 1; ++t) {
    for (uint64_t id = 0; id < 100; ++id) {
      h.Upsert(id, Circle{{float(t + id), 0}, 0.5f}, 1);
    }
    h.Commit(t);
  }
  ASSERT_GT(h.oldest(), 1u) << "the budget was never reached";
  EXPECT_FALSE(h.AnswerableBefore(t, {t - 2, 0.5f}));
}

// ---- Named cases ----

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

}  // namespace
}  // namespace collision
