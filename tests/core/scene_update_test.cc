// Updates: upserts staged in the last commit's order (core/src/scene/moves.h)
// and the columnar form (Scene::UpsertColumns, SceneHistory::UpsertColumns).
// Whatever order upserts come in, and whatever interrupts that order within
// a tick, the world must be the one writing each upsert at once would give:
// checked against brute force (scene_testing.h) and, for the history,
// against the same upserts made one by one.
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "collision/core/scene.h"
#include "collision/core/scene_history.h"
#include "gtest/gtest.h"
#include "scene_testing.h"

namespace collision {
namespace {

using namespace scene_testing;  // NOLINT: the shared test helpers

// A shape of `kind` (a moving entity's next shape keeps its kind).
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
    case ShapeKind::kCapsule3:
      return g.Capsule();
    case ShapeKind::kOrientedBox:
      return g.Obb();
  }
  return Vec2{};
}

// Shape `s` as a row of its kind's columns (Scene::UpsertColumns's layout).
std::vector<float> KindColumns(const Shape& s) {
  if (const auto* p = std::get_if<Vec2>(&s)) return {p->x, p->y};
  if (const auto* c = std::get_if<Circle>(&s)) {
    return {c->center.x, c->center.y, c->radius};
  }
  if (const auto* r = std::get_if<Rect>(&s)) {
    return {r->min.x, r->min.y, r->max.x, r->max.y};
  }
  if (const auto* r = std::get_if<RotatedRect>(&s)) {
    return {r->size.x,     r->size.y,     r->pivot.x,      r->pivot.y,
            r->position.x, r->position.y, r->rotation.cos, r->rotation.sin};
  }
  if (const auto* p = std::get_if<Vec3>(&s)) return {p->x, p->y, p->z};
  if (const auto* c = std::get_if<Sphere>(&s)) {
    return {c->center.x, c->center.y, c->center.z, c->radius};
  }
  if (const auto* c = std::get_if<Capsule3>(&s)) {
    return {c->a.x, c->a.y, c->a.z, c->b.x, c->b.y, c->b.z, c->radius};
  }
  if (const auto* o = std::get_if<OrientedBox>(&s)) {
    return {o->center.x,       o->center.y,       o->center.z,
            o->half_extents.x, o->half_extents.y, o->half_extents.z,
            o->rotation.w,     o->rotation.x,     o->rotation.y,
            o->rotation.z};
  }
  const Box& b = std::get<Box>(s);
  return {b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z};
}

// Every entity's shape and category, through one overlap over the whole
// (small) world compared with brute force.
void ExpectEveryEntity(const Scene& scene, const World& world, bool flat,
                       const std::string& where) {
  const Shape all =
      flat ? Shape{Circle{{0, 0}, 100}} : Shape{Sphere{{0, 0, 0}, 100}};
  std::vector<OverlapHit> hits;
  scene.Overlap(all, Boundary::kInclusive, {}, 1000000, &hits);
  ExpectSameOverlap(hits, BruteOverlap(world, all, Boundary::kInclusive, {}),
                    where + " everything");
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
    ExpectEveryEntity(scene, world, true,
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
          upsert(id, OfKind(g, KindOf(gone.at(id))), g.Category());
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
        const Shape s = event(2) ? g.EntityShape() : OfKind(g, KindOf(e.shape));
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
      // Every entity's shape and category, then the hierarchy's boxes.
      ExpectEveryEntity(scene, world, true, where);
      std::vector<OverlapHit> hits;
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
        const std::vector<float> row = KindColumns(s);
        columns.resize(row.size());
        for (size_t c = 0; c < row.size(); ++c) columns[c].push_back(row[c]);
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
    ExpectEveryEntity(scene, world, flat, where);
    for (int q = 0; q < 5; ++q) {
      const CastQuery c = RandomCast(g, flat, g.Chance(0.5));
      std::vector<CastHit> cast;
      scene.Cast(c, Boundary::kInclusive, {}, true, 1000000, &cast);
      ExpectSameCast(cast, BruteCast(world, c, flat, Boundary::kInclusive, {}),
                     where + " cast");
    }
  }
}

// CountAbsent is !Contains counted, whatever the order of the ids: the last
// commit's order (the fast path), that order cut short, shuffled, with
// entities removed or turned into another family since, and unknown ids.
TEST(Scene, CountAbsentIsContainsCountedInAnyOrder) {
  std::mt19937 rng(9);
  Scene scene(SceneDimension::k2D);
  std::vector<uint64_t> ids;
  for (uint64_t id = 1; id <= 300; ++id) ids.push_back(id * 7);
  auto commit = [&](const std::vector<uint64_t>& order) {
    std::vector<float> x(order.size(), 1.0f), y(order.size(), 2.0f),
        r(order.size(), 0.5f);
    const float* columns[3] = {x.data(), y.data(), r.data()};
    scene.UpsertColumns(ShapeKind::kCircle, order.size(), order.data(), columns,
                        nullptr);
    scene.Commit();
  };
  commit(ids);
  commit(ids);  // the order is now ids'
  auto brute = [&](const std::vector<uint64_t>& asked) {
    size_t absent = 0;
    for (uint64_t id : asked) absent += scene.Contains(id) ? 0 : 1;
    return absent;
  };
  auto check = [&](const std::vector<uint64_t>& asked, const char* what) {
    EXPECT_EQ(scene.CountAbsent(ShapeKind::kCircle, asked.data(), asked.size()),
              brute(asked))
        << what;
    EXPECT_EQ(scene.CountAbsent(ShapeKind::kRect, asked.data(), asked.size()),
              brute(asked))
        << what << " (another family's order)";
  };
  check(ids, "the last order");
  check(std::vector<uint64_t>(ids.begin(), ids.begin() + 100), "its start");
  std::vector<uint64_t> more = ids;
  for (uint64_t id = 1; id <= 50; ++id) more.push_back(id * 7 + 1);
  check(more, "the order, then new ids");
  std::vector<uint64_t> shuffled = more;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  check(shuffled, "shuffled");
  // Entities removed, and one turned into a rect, after the order was set.
  scene.Remove(ids[0]);
  scene.Remove(ids[150]);
  scene.Upsert(ids[10], Rect{{0, 0}, {1, 1}}, 1);
  scene.Commit();
  check(ids, "with entities gone or changed since");
  check(shuffled, "shuffled, with entities gone or changed since");
}

TEST(Scene, UpsertColumnsIsUpsertRowByRow) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    RunColumnsAgainstEach(seed, Mix::kAll2D);
    RunColumnsAgainstEach(seed, Mix::k3D);
  }
}

// A history fed by UpsertColumns (one group per kind and tick) answers
// exactly as one fed the same upserts one by one.
void RunHistoryColumnsAgainstEach(uint32_t seed, Mix mix) {
  Generator g(seed, mix);
  const bool flat = mix != Mix::k3D;
  const SceneDimension dim = flat ? SceneDimension::k2D : SceneDimension::k3D;
  SceneHistory each(dim, 16);
  SceneHistory columns(dim, 16);
  std::map<uint64_t, bool> alive;
  for (uint64_t tick = 1; tick <= 40; ++tick) {
    std::map<ShapeKind, std::vector<std::pair<uint64_t, Shape>>> groups;
    std::map<ShapeKind, std::vector<uint32_t>> cats;
    for (uint64_t id = 1; id <= 120; ++id) {
      if (tick > 1 && !g.Chance(0.4)) continue;
      if (alive[id] && g.Chance(0.05)) {
        each.Remove(id);
        columns.Remove(id);
        alive[id] = false;
        continue;
      }
      const Shape s = g.EntityShape();
      const uint32_t cat = g.Category();
      each.Upsert(id, s, cat);
      groups[KindOf(s)].emplace_back(id, s);
      cats[KindOf(s)].push_back(cat);
      alive[id] = true;
    }
    for (const auto& [kind, rows] : groups) {
      std::vector<uint64_t> ids;
      std::vector<std::vector<float>> cols(ColumnsOf(kind));
      for (const auto& [id, shape] : rows) {
        ids.push_back(id);
        const std::vector<float> v = KindColumns(shape);
        for (size_t c = 0; c < v.size(); ++c) cols[c].push_back(v[c]);
      }
      std::vector<const float*> pointers;
      for (const auto& c : cols) pointers.push_back(c.data());
      const bool given = g.Chance(0.5);
      const bool all_one = std::all_of(cats[kind].begin(), cats[kind].end(),
                                       [](uint32_t c) { return c == 1; });
      columns.UpsertColumns(kind, ids.size(), ids.data(), pointers.data(),
                            given || !all_one ? cats[kind].data() : nullptr);
    }
    each.Commit(tick);
    columns.Commit(tick);
    for (int q = 0; q < 10; ++q) {
      const SceneMoment at{
          static_cast<uint64_t>(
              g.Int(static_cast<int>(each.oldest()), static_cast<int>(tick))),
          g.Chance(0.5) ? 0.0f : 0.5f};
      const Shape all =
          flat ? Shape{Circle{{0, 0}, 100}} : Shape{Sphere{{0, 0, 0}, 100}};
      std::vector<OverlapHit> want, got;
      each.Overlap(at, all, Boundary::kInclusive, {}, 100000, &want);
      columns.Overlap(at, all, Boundary::kInclusive, {}, 100000, &got);
      ExpectSameOverlap(
          got, want,
          "seed " + std::to_string(seed) + " tick " + std::to_string(tick));
    }
  }
}

TEST(SceneHistory, UpsertColumnsIsUpsertRowByRow) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    RunHistoryColumnsAgainstEach(seed, Mix::kAll2D);
    RunHistoryColumnsAgainstEach(seed, Mix::kBallsAndRects);
    RunHistoryColumnsAgainstEach(seed, Mix::k3D);
  }
}

}  // namespace
}  // namespace collision
