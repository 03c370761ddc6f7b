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
  if (std::holds_alternative<Capsule3>(a) &&
      std::holds_alternative<Capsule3>(b)) {
    const Capsule3& x = std::get<Capsule3>(a);
    const Capsule3& y = std::get<Capsule3>(b);
    return Capsule3{Lerp(x.a, y.a, f), Lerp(x.b, y.b, f),
                    Lerp(x.radius, y.radius, f)};
  }
  if (std::holds_alternative<OrientedBox>(a) &&
      std::holds_alternative<OrientedBox>(b)) {
    const OrientedBox& x = std::get<OrientedBox>(a);
    const OrientedBox& y = std::get<OrientedBox>(b);
    OrientedBox r{Lerp(x.center, y.center, f),
                  Lerp(x.half_extents, y.half_extents, f), x.rotation};
    const Quat& p = x.rotation;
    const Quat& q = y.rotation;
    if (p.w != q.w || p.x != q.x || p.y != q.y || p.z != q.z) {
      // Normalised lerp the shorter way (q and -q are one turn).
      const float s =
          p.w * q.w + p.x * q.x + p.y * q.y + p.z * q.z < 0.0f ? -1.0f : 1.0f;
      const float g = 1.0f - f;
      const float w = g * p.w + f * (s * q.w), i = g * p.x + f * (s * q.x),
                  j = g * p.y + f * (s * q.y), k = g * p.z + f * (s * q.z);
      const float len = std::sqrt(w * w + i * i + j * j + k * k);
      r.rotation = Quat{w / len, i / len, j / len, k / len};
    }
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

// How a random history moves: by default each entity moves at a tick with
// chance 0.3, and a fifth of the ticks skip two tick numbers.
struct Motion {
  // Share of the entities that move at nearly every tick (chance 0.97:
  // every-tick movers that now and then stop), sometimes twice in a tick.
  double steady = 0.0;
  double gap = 0.2;
};

// Commits `ticks` random ticks (moves, births, deaths, kind changes; tick
// numbers with gaps) to `history`, calling check() after each and
// staged(g, rec, tick) with each tick's changes staged, before its commit.
template <typename Check, typename Staged>
void RandomHistory(uint32_t seed, Mix mix, int entities, int ticks,
                   SceneHistory* history, Check&& check, Staged&& staged,
                   const Motion& motion = {}) {
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
        const bool steady = (id / 7919) % 100 < motion.steady * 100;
        if (g.Chance(steady ? 0.97 : 0.3)) {
          if (steady && g.Chance(0.05)) {
            history->Upsert(id, g.EntityShape(), e.category);  // replaced
          }
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
    tick += g.Chance(motion.gap) ? 3 : 1;  // skipped ticks repeat the world
  }
}

template <typename Check>
void RandomHistory(uint32_t seed, Mix mix, int entities, int ticks,
                   SceneHistory* history, Check&& check,
                   const Motion& motion = {}) {
  RandomHistory(
      seed, mix, entities, ticks, history, check,
      [](Generator&, const Recorded&, uint64_t) {}, motion);
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

// Returns the ticks the history kept at the end.
uint64_t RunInterpolated(uint32_t seed, Mix mix, const Motion& motion = {},
                         size_t budget = ~size_t{0}) {
  const bool flat = mix != Mix::k3D;
  SceneHistory history(flat ? SceneDimension::k2D : SceneDimension::k3D, 24,
                       budget);
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
      },
      motion);
  return history.latest() - history.oldest() + 1;
}

// A budget far below the window: every ring gets a share of it (forced
// drops raise the oldest tick kept), and whatever is kept still answers
// exactly.
TEST(SceneHistory, InterpolatedAnswersEqualBruteForceUnderATightBudget) {
  Motion steady;
  steady.steady = 0.8;
  EXPECT_LT(RunInterpolated(21, Mix::kAll2D, steady, 24000), 20u);
  EXPECT_LT(RunInterpolated(22, Mix::k3D, steady, 24000), 20u);
  EXPECT_LT(RunInterpolated(23, Mix::kBalls2D, {}, 16000), 20u);
}

TEST(SceneHistory, InterpolatedAnswersEqualBruteForce2D) {
  RunInterpolated(11, Mix::kAll2D);
  RunInterpolated(12, Mix::kBalls2D);
  RunInterpolated(13, Mix::kBallsAndRects);
}

// Entities that move at every tick are looked up where such a mover's pose
// would be (Span::hints): also when they stop, are moved twice in a tick,
// die and are born again, or the ticks skip.
TEST(SceneHistory, InterpolatedAnswersEqualBruteForceForEveryTickMovers) {
  RunInterpolated(14, Mix::kAll2D, Motion{0.5, 0.02});
  RunInterpolated(15, Mix::k3D, Motion{0.5, 0.02});
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

}  // namespace
}  // namespace collision
