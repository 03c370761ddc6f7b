// The scene against brute force: every overlap, nearest and cast answer must
// equal, bit for bit, the pairwise scalar answer over every entity
// (Intersect, ClosestPoint, RayCast / SweepCircle / SweepSphere), through
// movement, insertions, removals, kind changes and rebuilds.
#include "collision/core/scene.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"
#include "scene_testing.h"

namespace collision {
namespace {

using namespace scene_testing;  // NOLINT: the shared test helpers

// One random history: ticks of moves, insertions, removals and kind
// changes, each followed by a batch of every query kind checked against
// brute force.
void RunRandomScene(uint32_t seed, Mix mix, int entities, int ticks) {
  Generator g(seed, mix);
  const bool flat = mix != Mix::k3D;
  Scene scene(flat ? SceneDimension::k2D : SceneDimension::k3D);
  World world;
  uint64_t next_id = 1;
  auto upsert = [&](uint64_t id, Shape s, uint32_t cat) {
    scene.Upsert(id, s, cat);
    world[id] = Entity{s, cat};
  };
  for (int i = 0; i < entities; ++i) {
    upsert(next_id++ * 7919, g.EntityShape(), g.Category());
  }
  for (int tick = 0; tick < ticks; ++tick) {
    // Move about a third, insert and remove a few, re-kind one.
    for (auto& [id, e] : world) {
      if (g.Chance(0.3)) {
        const Shape s = g.EntityShape();
        scene.Upsert(id, s, e.category);
        e.shape = s;
      }
    }
    const int inserts = g.Int(0, entities / 10 + 1);
    for (int i = 0; i < inserts; ++i) {
      upsert(next_id++ * 7919, g.EntityShape(), g.Category());
    }
    const int removals = g.Int(0, entities / 10 + 1);
    for (int i = 0; i < removals && !world.empty(); ++i) {
      auto it = world.begin();
      std::advance(it, g.Int(0, static_cast<int>(world.size()) - 1));
      EXPECT_TRUE(scene.Remove(it->first));
      world.erase(it);
    }
    EXPECT_FALSE(scene.Remove(3));  // never an id (not a multiple of 7919)
    scene.Commit();
    ASSERT_EQ(scene.size(), world.size());

    const std::string where =
        "seed " + std::to_string(seed) + " tick " + std::to_string(tick);
    for (int q = 0; q < 20; ++q) {
      const Boundary b = g.AnyBoundary();
      const EntityFilter f = g.Filter(world);
      const Shape oq = g.OverlapQuery();
      std::vector<OverlapHit> overlap;
      ShapeKind blocking;
      if (scene.CanOverlap(KindOf(oq), &blocking)) {
        const size_t max_hits = g.Chance(0.2) ? 2 : 1000000;
        std::vector<OverlapHit> want = BruteOverlap(world, oq, b, f);
        const bool truncated = scene.Overlap(oq, b, f, max_hits, &overlap);
        EXPECT_EQ(truncated, want.size() > max_hits) << where;
        if (want.size() > max_hits) want.resize(max_hits);
        ExpectSameOverlap(overlap, want, where + " overlap");
      }

      const Shape nq = g.BallQuery();
      const size_t k = static_cast<size_t>(g.Int(1, 5));
      const float max_gap = g.Chance(0.5) ? 1e30f : g.Size();
      std::vector<NearestHit> want_near =
          BruteNearest(world, nq, max_gap, b, f);
      std::vector<NearestHit> nearest;
      EXPECT_EQ(scene.Nearest(nq, k, max_gap, b, f, &nearest),
                want_near.size() > k)
          << where;
      if (want_near.size() > k) want_near.resize(k);
      ExpectSameNearest(nearest, want_near, where + " nearest");

      const CastQuery c = RandomCast(g, flat, g.Chance(0.5));
      std::vector<CastHit> want_cast = BruteCast(world, c, flat, b, f);
      std::vector<CastHit> all;
      const size_t max_hits = g.Chance(0.2) ? 1 : 1000000;
      EXPECT_EQ(scene.Cast(c, b, f, true, max_hits, &all),
                want_cast.size() > max_hits)
          << where;
      std::vector<CastHit> want_all = want_cast;
      if (want_all.size() > max_hits) want_all.resize(max_hits);
      ExpectSameCast(all, want_all, where + " cast all");
      std::vector<CastHit> first;
      scene.Cast(c, b, f, false, 1, &first);
      if (want_cast.size() > 1) want_cast.resize(1);
      ExpectSameCast(first, want_cast, where + " cast first");
    }
  }
}

TEST(Scene, Mixed2DAnswersEqualBruteForce) {
  for (uint32_t seed = 1; seed <= 4; ++seed) {
    RunRandomScene(seed, Mix::kAll2D, 300, 8);
  }
}

TEST(Scene, BallsAndRectsAnswerRectQueriesLikeBruteForce) {
  for (uint32_t seed = 11; seed <= 14; ++seed) {
    RunRandomScene(seed, Mix::kBallsAndRects, 300, 8);
  }
}

TEST(Scene, BallsOnlyAnswerRotatedRectQueriesLikeBruteForce) {
  for (uint32_t seed = 21; seed <= 23; ++seed) {
    RunRandomScene(seed, Mix::kBalls2D, 300, 8);
  }
}

TEST(Scene, ThreeDAnswersEqualBruteForce) {
  for (uint32_t seed = 31; seed <= 34; ++seed) {
    RunRandomScene(seed, Mix::k3D, 300, 8);
  }
}

TEST(Scene, LargeSceneThroughRebuildsEqualsBruteForce) {
  RunRandomScene(41, Mix::kAll2D, 3000, 4);
  RunRandomScene(42, Mix::k3D, 3000, 4);
}

TEST(Scene, EmptySceneAnswersNothing) {
  Scene scene(SceneDimension::k2D);
  std::vector<OverlapHit> overlap;
  EXPECT_FALSE(
      scene.Overlap(Circle{{0, 0}, 5}, Boundary::kInclusive, {}, 10, &overlap));
  EXPECT_TRUE(overlap.empty());
  std::vector<NearestHit> nearest;
  EXPECT_FALSE(
      scene.Nearest(Vec2{0, 0}, 3, 1e30f, Boundary::kInclusive, {}, &nearest));
  EXPECT_TRUE(nearest.empty());
  std::vector<CastHit> cast;
  EXPECT_FALSE(scene.Cast(CastQuery{{0, 0, 0}, {1, 0, 0}, 100, 0},
                          Boundary::kInclusive, {}, false, 1, &cast));
  EXPECT_TRUE(cast.empty());
}

TEST(Scene, TouchingEntityIsHitOnlyWhenInclusive) {
  Scene scene(SceneDimension::k2D);
  scene.Upsert(1, Circle{{0, 0}, 1}, 1);
  scene.Upsert(2, Rect{{3, -1}, {5, 1}}, 1);
  scene.Commit();
  std::vector<OverlapHit> hits;
  // Circle centred at (2, 0) radius 1 touches both exactly.
  scene.Overlap(Circle{{2, 0}, 1}, Boundary::kInclusive, {}, 10, &hits);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].id, 1u);
  EXPECT_EQ(hits[0].result.relation, Relation::kTouching);
  EXPECT_EQ(hits[1].id, 2u);
  scene.Overlap(Circle{{2, 0}, 1}, Boundary::kExclusive, {}, 10, &hits);
  EXPECT_TRUE(hits.empty());
}

TEST(Scene, FilterMaskAndExcludedIdAreNeverHit) {
  Scene scene(SceneDimension::k3D);
  scene.Upsert(10, Sphere{{0, 0, 0}, 1}, 0b01);
  scene.Upsert(20, Sphere{{0, 0, 0}, 1}, 0b10);
  scene.Upsert(30, Sphere{{0, 0, 0}, 1}, 0);
  scene.Commit();
  std::vector<OverlapHit> hits;
  EntityFilter f;
  f.mask = 0b10;
  scene.Overlap(Vec3{0, 0, 0}, Boundary::kInclusive, f, 10, &hits);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, 20u);
  f.mask = 0xFFFFFFFFu;
  f.exclude = true;
  f.exclude_id = 10;
  scene.Overlap(Vec3{0, 0, 0}, Boundary::kInclusive, f, 10, &hits);
  ASSERT_EQ(hits.size(), 1u);  // 30 has category 0: never hit
  EXPECT_EQ(hits[0].id, 20u);
}

TEST(Scene, RectQueriesAreBlockedOnlyWhileRotatedRectsExist) {
  Scene scene(SceneDimension::k2D);
  scene.Upsert(1, Rect{{0, 0}, {1, 1}}, 1);
  scene.Commit();
  ShapeKind blocking;
  EXPECT_TRUE(scene.CanOverlap(ShapeKind::kRect, &blocking));
  EXPECT_FALSE(scene.CanOverlap(ShapeKind::kRotatedRect, &blocking));
  EXPECT_EQ(blocking, ShapeKind::kRect);
  scene.Upsert(2, RotatedRect{{1, 1}, {0, 0}, {5, 5}, {1, 0}}, 1);
  scene.Commit();
  EXPECT_FALSE(scene.CanOverlap(ShapeKind::kRect, &blocking));
  EXPECT_EQ(blocking, ShapeKind::kRotatedRect);
  EXPECT_TRUE(scene.CanOverlap(ShapeKind::kCircle, &blocking));
  scene.Remove(2);
  scene.Commit();
  EXPECT_TRUE(scene.CanOverlap(ShapeKind::kRect, &blocking));
}

TEST(Scene, UpsertChangesKindAndRemoveForgets) {
  Scene scene(SceneDimension::k2D);
  scene.Upsert(5, Circle{{0, 0}, 1}, 1);
  scene.Commit();
  scene.Upsert(5, Rect{{10, 10}, {11, 11}}, 1);
  scene.Commit();
  EXPECT_EQ(scene.size(), 1u);
  std::vector<OverlapHit> hits;
  scene.Overlap(Vec2{0, 0}, Boundary::kInclusive, {}, 10, &hits);
  EXPECT_TRUE(hits.empty());
  scene.Overlap(Vec2{10.5f, 10.5f}, Boundary::kInclusive, {}, 10, &hits);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, 5u);
  EXPECT_TRUE(scene.Remove(5));
  EXPECT_FALSE(scene.Contains(5));
  scene.Commit();
  scene.Overlap(Vec2{10.5f, 10.5f}, Boundary::kInclusive, {}, 10, &hits);
  EXPECT_TRUE(hits.empty());
}

TEST(Scene, HugeCoordinatesStayExact) {
  Scene scene(SceneDimension::k2D);
  scene.Upsert(1, Circle{{1e9f, -1e9f}, 1e9f}, 1);
  scene.Upsert(2, Rect{{-1e9f, -1e9f}, {-1e9f + 64, -1e9f + 64}}, 1);
  scene.Commit();
  std::vector<OverlapHit> hits;
  scene.Overlap(Vec2{1e9f, 0.0f}, Boundary::kInclusive, {}, 10, &hits);
  ASSERT_EQ(hits.size(), 1u);  // exactly on the circle's edge
  EXPECT_EQ(hits[0].result.relation, Relation::kTouching);
  scene.Overlap(Vec2{-1e9f, -1e9f}, Boundary::kInclusive, {}, 10, &hits);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].id, 2u);
}

TEST(Scene, GrazingAndNearlyParallelRaysFarOutEqualBruteForce) {
  // The broadphase's slab test picks each axis's entry and exit face once
  // per ray and folds the grow into offsets: it must stay conservative for
  // rays along edges, through corners, with direction components that are
  // tiny, subnormal or of either sign, and at coordinates where a float's
  // step is 0.125 or more.
  for (const float offset : {0.0f, 3e4f, -1e6f, 4e6f}) {
    Scene scene(SceneDimension::k2D);
    World world;
    uint64_t id = 1;
    for (int i = 0; i < 24; ++i) {
      for (int j = 0; j < 24; ++j) {
        const float x = offset + static_cast<float>(i * 4);
        const float y = offset + static_cast<float>(j * 4);
        const Shape s = (i + j) % 3 == 0
                            ? Shape{Circle{{x, y}, 1.5f}}
                            : Shape{Rect{{x - 1, y - 1}, {x + 1, y + 1}}};
        scene.Upsert(id, s, 1);
        world[id++] = Entity{s, 1};
      }
    }
    scene.Commit();
    const float tiny[] = {0.0f, 1e-30f, -1e-30f, 1e-40f, -1e-40f, 1e-7f};
    int checked = 0;
    for (const float t : tiny) {
      for (const float sign : {1.0f, -1.0f}) {
        for (int lane = 0; lane < 24; ++lane) {
          // Along the edge line y = cell +- 1 (a rect's face), through a
          // row of corners, and from outside the grid in both directions.
          const float edge = offset + static_cast<float>(lane * 4) +
                             (lane % 2 == 0 ? 1.0f : -1.0f);
          const float start = sign > 0 ? offset - 10.0f : offset + 110.0f;
          for (const bool along_x : {true, false}) {
            CastQuery c;
            c.origin = along_x ? Vec3{start, edge, 0} : Vec3{edge, start, 0};
            c.direction = along_x ? Vec3{sign, t, 0} : Vec3{t, sign, 0};
            c.max_distance = 200.0f;
            for (const Boundary b :
                 {Boundary::kInclusive, Boundary::kExclusive}) {
              const std::string where = "offset " + std::to_string(offset) +
                                        " lane " + std::to_string(lane) +
                                        " t " + std::to_string(t);
              std::vector<CastHit> want = BruteCast(world, c, true, b, {});
              std::vector<CastHit> all;
              scene.Cast(c, b, {}, true, 1000000, &all);
              ExpectSameCast(all, want, where + " all");
              std::vector<CastHit> first;
              scene.Cast(c, b, {}, false, 1, &first);
              if (want.size() > 1) want.resize(1);
              ExpectSameCast(first, want, where + " first");
              checked += !want.empty();
            }
          }
        }
      }
    }
    EXPECT_GT(checked, 500) << "offset " << offset;  // the rays do hit
  }
}

TEST(Scene, MovingEveryEntityManyTicksKeepsTreeAnswersExact) {
  // Drift everything far from where the tree was built: refits loosen it
  // until the cost rule rebuilds; answers must never change.
  Generator g(77, Mix::kBalls2D);
  Scene scene(SceneDimension::k2D);
  World world;
  for (uint64_t id = 1; id <= 500; ++id) {
    const Shape s = g.Ball2(false);
    scene.Upsert(id, s, 1);
    world[id] = Entity{s, 1};
  }
  scene.Commit();
  for (int tick = 0; tick < 30; ++tick) {
    for (auto& [id, e] : world) {
      Circle c = std::get<Circle>(e.shape);
      c.center.x += static_cast<float>(g.Int(-3, 3));
      c.center.y += static_cast<float>(g.Int(-3, 3));
      e.shape = c;
      scene.Upsert(id, c, 1);
    }
    scene.Commit();
    const Shape q = Circle{{g.Coord(), g.Coord()}, 5};
    std::vector<OverlapHit> hits;
    scene.Overlap(q, Boundary::kInclusive, {}, 100000, &hits);
    ExpectSameOverlap(hits, BruteOverlap(world, q, Boundary::kInclusive, {}),
                      "tick " + std::to_string(tick));
  }
  EXPECT_GT(scene.Stats().refits, 0u);
}

}  // namespace
}  // namespace collision
