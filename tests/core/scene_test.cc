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
#include <type_traits>
#include <variant>
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

// Ten circles moved in id order for two ticks; in the third, `during(id)`
// runs after id's upsert; the next ticks repeat the third's upserts in its
// order, moved (what a game does: removed ids come back at their place).
// Every tick's world must equal brute force.
template <typename During>
void RunOrderedTicks(const std::string& name, During during) {
  Scene scene(SceneDimension::k2D);
  World world;
  std::vector<std::pair<uint64_t, Shape>> third;
  auto upsert = [&](uint64_t id, const Shape& s) {
    scene.Upsert(id, s, 1);
    world[id] = Entity{s, 1};
    third.emplace_back(id, s);
  };
  auto remove = [&](uint64_t id) {
    ASSERT_TRUE(scene.Remove(id));
    world.erase(id);
  };
  for (int tick = 0; tick < 6; ++tick) {
    if (tick < 3) {
      third.clear();
      for (uint64_t id = 1; id <= 10; ++id) {
        const float x = static_cast<float>(id);
        upsert(id, Circle{{x, static_cast<float>(tick)}, 1});
        if (tick == 2) during(id, upsert, remove);
      }
    } else {
      for (const auto& [id, shape] : third) {
        Shape moved = shape;
        if (auto* c = std::get_if<Circle>(&moved)) c->center.y += 1.0f * tick;
        if (auto* r = std::get_if<Rect>(&moved))
          r->min.y += tick, r->max.y += tick;
        scene.Upsert(id, moved, 1);
        world[id] = Entity{moved, 1};
      }
    }
    scene.Commit();
    ASSERT_EQ(scene.size(), world.size()) << name << " tick " << tick;
    const Shape all = Circle{{0, 0}, 100};
    std::vector<OverlapHit> hits;
    scene.Overlap(all, Boundary::kInclusive, {}, 100, &hits);
    ExpectSameOverlap(hits, BruteOverlap(world, all, Boundary::kInclusive, {}),
                      name + " tick " + std::to_string(tick));
  }
}

TEST(Scene, AnEntityLeavingTheOrderMidTickIsNeverWrittenAtItsOldSlot) {
  // Removed after its upsert, while the order holds.
  RunOrderedTicks("removed", [](uint64_t id, auto&&, auto&& remove) {
    if (id == 5) remove(5);
  });
  // Removed after an upsert that went the hashed way (a new id came first).
  RunOrderedTicks("hashed then removed",
                  [](uint64_t id, auto&& upsert, auto&& remove) {
                    if (id == 1) upsert(100, Circle{{50, 50}, 1});
                    if (id == 5) remove(5);
                  });
  // Made a rect and a circle again within the tick, after the hashed way.
  RunOrderedTicks("re-kinded twice", [](uint64_t id, auto&& upsert, auto&&) {
    if (id == 1) upsert(100, Circle{{50, 50}, 1});
    if (id == 5) {
      upsert(5, Rect{{5, 5}, {6, 6}});
      upsert(5, Circle{{5, 7}, 2});
    }
  });
  // Upserted twice, the second time out of order.
  RunOrderedTicks("twice", [](uint64_t id, auto&& upsert, auto&&) {
    if (id == 7) upsert(3, Circle{{30, 3}, 3});
  });
}

// A shape of the same kind as `s` elsewhere (the upsert of a moving entity).
Shape SameKind(Generator& g, const Shape& s) {
  switch (KindOf(s)) {
    case ShapeKind::kPoint2:
      return g.Ball2(true);
    case ShapeKind::kCircle:
      return g.Ball2(false);
    case ShapeKind::kRect:
      return g.Rect2();
    default:
      return g.Rotated();
  }
}

TEST(Scene, UpsertsInLastTicksOrderStayExactThroughEveryInterruption) {
  // A game upserts the same ids in the same order every tick; the scene
  // stages those and writes them at the commit (moves.h). Every way out of
  // that order, at any point of a tick, must leave the same world as
  // writing each upsert at once: removals before and after an id's upsert,
  // an id upserted twice, kind changes, new ids in the middle, skipped ids,
  // ticks that stop early, and ticks that rebuild.
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    Generator g(seed, Mix::kAll2D);
    Scene scene(SceneDimension::k2D);
    World world;
    std::vector<uint64_t> order;
    std::map<uint64_t, Shape> gone;  // removed ids' last shapes
    uint64_t next_id = 1;
    auto upsert = [&](uint64_t id, const Shape& s, uint32_t cat) {
      scene.Upsert(id, s, cat);
      world[id] = Entity{s, cat};
    };
    for (int i = 0; i < 300; ++i) {
      order.push_back(next_id);
      upsert(next_id++, g.EntityShape(), g.Category());
    }
    scene.Commit();
    for (int tick = 0; tick < 90; ++tick) {
      // Two ticks in three keep to the order exactly; the others leave it
      // once or twice (more would hide how the next tick follows the new
      // order).
      const bool clean = tick % 3 != 2;
      const int events = clean ? 0 : g.Int(1, 2);
      std::vector<std::pair<size_t, int>> at;  // (position, what)
      for (int k = 0; k < events; ++k) {
        at.emplace_back(g.Int(0, static_cast<int>(order.size()) - 1),
                        g.Int(0, 5));
      }
      size_t i = 0;
      auto event = [&](int what) {
        for (const auto& [pos, w] : at) {
          if (pos == i && w == what) return true;
        }
        return false;
      };
      const size_t stop =
          clean || !g.Chance(0.3)
              ? order.size()
              : static_cast<size_t>(g.Int(0, static_cast<int>(order.size())));
      std::vector<uint64_t> next_order;
      std::vector<uint64_t> done;
      for (i = 0; i < stop; ++i) {
        const uint64_t id = order[i];
        if (world.count(id) == 0) {  // removed last tick, back at its place
          // Of the same kind: an entry of the last order must not be taken
          // for it (its slot is dead).
          upsert(id, SameKind(g, gone.at(id)), g.Category());
          next_order.push_back(id);
          continue;
        }
        if (event(0)) {  // skipped this tick
          next_order.push_back(id);
          continue;
        }
        if (event(1)) {  // removed before its upsert, maybe back later
          gone[id] = world.at(id).shape;
          ASSERT_TRUE(scene.Remove(id));
          world.erase(id);
          if (g.Chance(0.5)) next_order.push_back(id);
          continue;
        }
        const Entity& e = world.at(id);
        const Shape s = event(2) ? g.EntityShape() : SameKind(g, e.shape);
        upsert(id, s, g.Chance(0.05) ? g.Category() : e.category);
        next_order.push_back(id);
        done.push_back(id);
        if (event(3)) {  // an earlier id once more (maybe removed)
          const int last = static_cast<int>(done.size()) - 1;
          upsert(done[static_cast<size_t>(g.Int(0, last))], g.EntityShape(), 1);
        }
        if (event(4)) {  // removed after its upsert, maybe back later
          gone[id] = world.at(id).shape;
          ASSERT_TRUE(scene.Remove(id));
          world.erase(id);
          if (g.Chance(0.5)) next_order.pop_back();
        }
        if (event(5)) {  // a new id in the middle
          next_order.push_back(next_id);
          upsert(next_id++, g.EntityShape(), g.Category());
        }
      }
      next_order.insert(next_order.end(), order.begin() + stop, order.end());
      order = next_order;
      scene.Commit();
      ASSERT_EQ(scene.size(), world.size());

      const std::string where =
          "seed " + std::to_string(seed) + " tick " + std::to_string(tick);
      // A circle over the whole world checks every entity's shape and
      // category; random ones check the hierarchy's boxes.
      const Shape all = Circle{{0, 0}, 100};
      std::vector<OverlapHit> hits;
      scene.Overlap(all, Boundary::kInclusive, {}, 1000000, &hits);
      ExpectSameOverlap(hits,
                        BruteOverlap(world, all, Boundary::kInclusive, {}),
                        where + " everything");
      for (int q = 0; q < 10; ++q) {
        const Shape ball = g.BallQuery();
        const Boundary b = g.AnyBoundary();
        scene.Overlap(ball, b, {}, 1000000, &hits);
        ExpectSameOverlap(hits, BruteOverlap(world, ball, b, {}), where);
        const CastQuery c = RandomCast(g, true, g.Chance(0.5));
        std::vector<CastHit> cast;
        scene.Cast(c, b, {}, true, 1000000, &cast);
        ExpectSameCast(cast, BruteCast(world, c, true, b, {}), where + " cast");
      }
      if (tick == 60) {  // and from nothing again
        scene.Clear();
        world.clear();
        for (uint64_t id : order) upsert(id, g.EntityShape(), g.Category());
        scene.Commit();
      }
    }
    EXPECT_GT(scene.Stats().rebuilds, 0u);
  }
}

// The columns of shape `s` (ColumnsOf(KindOf(s)) of them) appended to `out`.
void AppendColumns(const Shape& s, std::vector<std::vector<float>>* out) {
  std::vector<float> v;
  std::visit(
      [&](const auto& shape) {
        using T = std::decay_t<decltype(shape)>;
        if constexpr (std::is_same_v<T, Vec2>) {
          v = {shape.x, shape.y};
        } else if constexpr (std::is_same_v<T, Circle>) {
          v = {shape.center.x, shape.center.y, shape.radius};
        } else if constexpr (std::is_same_v<T, Rect>) {
          v = {shape.min.x, shape.min.y, shape.max.x, shape.max.y};
        } else if constexpr (std::is_same_v<T, RotatedRect>) {
          v = {shape.size.x,       shape.size.y,      shape.pivot.x,
               shape.pivot.y,      shape.position.x,  shape.position.y,
               shape.rotation.cos, shape.rotation.sin};
        } else if constexpr (std::is_same_v<T, Vec3>) {
          v = {shape.x, shape.y, shape.z};
        } else if constexpr (std::is_same_v<T, Sphere>) {
          v = {shape.center.x, shape.center.y, shape.center.z, shape.radius};
        } else {
          v = {shape.min.x, shape.min.y, shape.min.z,
               shape.max.x, shape.max.y, shape.max.z};
        }
      },
      s);
  ASSERT_EQ(v.size(), ColumnsOf(KindOf(s)));
  out->resize(v.size());
  for (size_t c = 0; c < v.size(); ++c) (*out)[c].push_back(v[c]);
}

Shape OfKind(Generator& g, ShapeKind kind) {
  switch (kind) {
    case ShapeKind::kPoint2:
      return g.Ball2(true);
    case ShapeKind::kCircle:
      return g.Ball2(false);
    case ShapeKind::kRect:
      return g.Rect2();
    case ShapeKind::kRotatedRect:
      return g.Rotated();
    case ShapeKind::kPoint3:
      return g.Ball3(true);
    case ShapeKind::kSphere:
      return g.Ball3(false);
    case ShapeKind::kBox:
      return g.Box3();
  }
  return Vec2{};
}

// UpsertColumns must be Upsert row by row: groups of one kind, in the last
// tick's order or not, new ids, kind changes and removals between groups,
// categories given or not (1).
void RunColumnsAgainstEach(uint32_t seed, Mix mix) {
  Generator g(seed, mix);
  const bool flat = mix != Mix::k3D;
  Scene scene(flat ? SceneDimension::k2D : SceneDimension::k3D);
  World world;
  std::vector<uint64_t> ids;
  for (uint64_t id = 1; id <= 200; ++id) ids.push_back(id * 31);
  // Runs of one kind, as a caller groups its entities by kind; the same
  // runs in the same order for three ticks out of four.
  std::vector<std::pair<size_t, ShapeKind>> plan;
  for (int tick = 0; tick < 40; ++tick) {
    if (tick % 4 == 0) {
      if (tick > 0) std::shuffle(ids.begin(), ids.end(), g.rng());
      plan.clear();
      for (size_t planned = 0; planned < ids.size();) {
        const size_t run = static_cast<size_t>(g.Int(1, 80));
        plan.emplace_back(run, KindOf(g.EntityShape()));
        planned += run;
      }
    }
    size_t i = 0;
    for (const auto& [run, kind] : plan) {
      const bool categories = g.Chance(0.5);
      std::vector<uint64_t> group_ids;
      std::vector<uint32_t> cats;
      std::vector<std::vector<float>> columns;
      for (; i < ids.size() && group_ids.size() < run; ++i) {
        const Shape s = OfKind(g, kind);
        const uint32_t cat = categories ? g.Category() : 1u;
        group_ids.push_back(ids[i]);
        cats.push_back(cat);
        AppendColumns(s, &columns);
        world[ids[i]] = Entity{s, cat};
      }
      if (group_ids.empty()) break;
      std::vector<const float*> pointers;
      for (const auto& c : columns) pointers.push_back(c.data());
      scene.UpsertColumns(kind, group_ids.size(), group_ids.data(),
                          pointers.data(), categories ? cats.data() : nullptr);
      if (g.Chance(0.03)) {  // a removal between groups
        const uint64_t gone = group_ids[0];
        ASSERT_TRUE(scene.Remove(gone));
        world.erase(gone);
      }
    }
    scene.Commit();
    ASSERT_EQ(scene.size(), world.size());
    const std::string where =
        "seed " + std::to_string(seed) + " tick " + std::to_string(tick);
    const Shape all =
        flat ? Shape{Circle{{0, 0}, 100}} : Shape{Sphere{{0, 0, 0}, 100}};
    std::vector<OverlapHit> hits;
    scene.Overlap(all, Boundary::kInclusive, {}, 1000000, &hits);
    ExpectSameOverlap(hits, BruteOverlap(world, all, Boundary::kInclusive, {}),
                      where);
    for (int q = 0; q < 5; ++q) {
      const CastQuery c = RandomCast(g, flat, g.Chance(0.5));
      std::vector<CastHit> cast;
      scene.Cast(c, Boundary::kInclusive, {}, true, 1000000, &cast);
      ExpectSameCast(cast, BruteCast(world, c, flat, Boundary::kInclusive, {}),
                     where + " cast");
    }
  }
}

TEST(Scene, UpsertColumnsIsUpsertRowByRow) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    RunColumnsAgainstEach(seed, Mix::kAll2D);
    RunColumnsAgainstEach(seed, Mix::k3D);
  }
}

}  // namespace
}  // namespace collision
