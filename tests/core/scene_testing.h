// Shared by the scene tests: random worlds (Generator), the brute-force
// answers every scene query must equal bit for bit, and their comparisons.
#ifndef COLLISION_TESTS_CORE_SCENE_TESTING_H_
#define COLLISION_TESTS_CORE_SCENE_TESTING_H_

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "collision/core/scene.h"
#include "gtest/gtest.h"

namespace collision {
namespace scene_testing {

struct Entity {
  Shape shape;
  uint32_t category;
};
using World = std::map<uint64_t, Entity>;

inline uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline bool Same(Vec3 a, Vec3 b) {
  return Bits(a.x) == Bits(b.x) && Bits(a.y) == Bits(b.y) &&
         Bits(a.z) == Bits(b.z);
}

inline bool Passes(uint64_t id, const Entity& e, const EntityFilter& f) {
  return (e.category & f.mask) != 0 && !(f.exclude && f.exclude_id == id);
}

// Which entity kinds a generated world holds.
enum class Mix { kAll2D, kBallsAndRects, kBalls2D, k3D };

class Generator {
 public:
  Generator(uint32_t seed, Mix mix) : rng_(seed), mix_(mix) {}

  // Coordinates mostly on a small integer grid, so that exact touches,
  // shared edges and coincident points are common; some arbitrary floats.
  float Coord() {
    if (Chance(0.7)) return static_cast<float>(Int(-20, 20));
    return std::uniform_real_distribution<float>(-20.0f, 20.0f)(rng_);
  }
  float Size() {
    if (Chance(0.1)) return 0.0f;
    if (Chance(0.6)) return static_cast<float>(Int(1, 4));
    return std::uniform_real_distribution<float>(0.0f, 4.0f)(rng_);
  }
  float Angle() {
    if (Chance(0.4)) return static_cast<float>(Int(-4, 4)) * 1.57079637f;
    return std::uniform_real_distribution<float>(-7.0f, 7.0f)(rng_);
  }

  Shape Ball2(bool point) {
    const Vec2 c{Coord(), Coord()};
    if (point) return c;
    return Circle{c, Size()};
  }
  Shape Rect2() {
    const Vec2 min{Coord(), Coord()};
    return Rect{min, {min.x + Size(), min.y + Size()}};
  }
  Shape Rotated() {
    RotatedRect r;
    r.size = {Size(), Size()};
    r.pivot = Chance(0.5) ? Vec2{r.size.x / 2, r.size.y / 2} : Vec2{0, 0};
    r.position = {Coord(), Coord()};
    r.rotation = RotationFromAngle(Angle());
    return r;
  }
  Shape Ball3(bool point) {
    const Vec3 c{Coord(), Coord(), Coord()};
    if (point) return c;
    return Sphere{c, Size()};
  }
  Shape Box3() {
    const Vec3 min{Coord(), Coord(), Coord()};
    return Box{min, {min.x + Size(), min.y + Size(), min.z + Size()}};
  }
  // Limbs: integer ends now and then (exact touches), zero-length ones
  // (spheres) and bare segments.
  Shape Capsule() {
    const Vec3 a{Coord(), Coord(), Coord()};
    const Vec3 b = Chance(0.1) ? a
                               : Vec3{a.x + Size() - 2, a.y + Size() - 2,
                                      a.z + Size() - 2};
    return Capsule3{a, b, Size()};
  }
  // Unit quaternions: none, quarter turns about an axis, arbitrary.
  Quat Turn() {
    if (Chance(0.2)) return Quat{};
    if (Chance(0.3)) {
      const float h = 0.70710678f;
      Quat q{h, 0, 0, 0};
      const int axis = Int(0, 2);
      (axis == 0 ? q.x : axis == 1 ? q.y : q.z) = Chance(0.5) ? h : -h;
      return q;
    }
    std::normal_distribution<double> g;
    double q[4], n = 0;
    for (double& v : q) v = g(rng_), n += v * v;
    n = std::sqrt(n);
    return Quat{float(q[0] / n), float(q[1] / n), float(q[2] / n),
                float(q[3] / n)};
  }
  Shape Obb() {
    return OrientedBox{{Coord(), Coord(), Coord()},
                       {Size() / 2, Size() / 2, Size() / 2},
                       Turn()};
  }

  Shape EntityShape() {
    switch (mix_) {
      case Mix::kAll2D:
        switch (Int(0, 3)) {
          case 0:
            return Ball2(true);
          case 1:
            return Ball2(false);
          case 2:
            return Rect2();
          default:
            return Rotated();
        }
      case Mix::kBallsAndRects:
        return Chance(0.5) ? Ball2(Chance(0.3)) : Rect2();
      case Mix::kBalls2D:
        return Ball2(Chance(0.3));
      case Mix::k3D:
        switch (Int(0, 3)) {
          case 0:
            return Ball3(Chance(0.3));
          case 1:
            return Box3();
          case 2:
            return Capsule();
          default:
            return Obb();
        }
    }
    return Vec2{};
  }

  Shape OverlapQuery() {
    if (mix_ == Mix::k3D) {
      switch (Int(0, 4)) {
        case 0:
          return Ball3(true);
        case 1:
          return Ball3(false);
        case 2:
          return Box3();
        case 3:
          return Capsule();
        default:
          return Obb();
      }
    }
    switch (Int(0, 3)) {
      case 0:
        return Ball2(true);
      case 1:
        return Ball2(false);
      case 2:
        return Rect2();
      default:
        return Rotated();
    }
  }
  Shape BallQuery() {
    return mix_ == Mix::k3D ? Ball3(Chance(0.5)) : Ball2(Chance(0.5));
  }

  uint32_t Category() {
    static constexpr uint32_t kCats[] = {1, 2, 4, 3, 0xFFFFFFFFu, 0};
    return kCats[Int(0, 5)];
  }
  EntityFilter Filter(const World& world) {
    EntityFilter f;
    static constexpr uint32_t kMasks[] = {0xFFFFFFFFu, 1, 2, 6};
    f.mask = kMasks[Int(0, 3)];
    if (!world.empty() && Chance(0.3)) {
      auto it = world.begin();
      std::advance(it, Int(0, static_cast<int>(world.size()) - 1));
      f.exclude = true;
      f.exclude_id = it->first;
    }
    return f;
  }
  Boundary AnyBoundary() {
    return Chance(0.5) ? Boundary::kInclusive : Boundary::kExclusive;
  }

  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
  Mix mix_;
};

inline std::vector<OverlapHit> BruteOverlap(const World& world, const Shape& q,
                                            Boundary b, const EntityFilter& f) {
  std::vector<OverlapHit> hits;
  for (const auto& [id, e] : world) {
    if (!Passes(id, e, f)) continue;
    const IntersectResult r = Intersect(q, e.shape, b);
    if (r.hit) hits.push_back(OverlapHit{id, r});
  }
  return hits;  // std::map: already by id
}

inline std::vector<NearestHit> BruteNearest(const World& world, const Shape& q,
                                            float max_gap, Boundary b,
                                            const EntityFilter& f) {
  std::vector<NearestHit> hits;
  for (const auto& [id, e] : world) {
    if (!Passes(id, e, f)) continue;
    const ClosestPointResult r = ClosestPoint(q, e.shape, b);
    if (r.gap <= max_gap) hits.push_back(NearestHit{id, r});
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const NearestHit& x, const NearestHit& y) {
                     return x.result.gap < y.result.gap;
                   });
  return hits;
}

inline std::vector<CastHit> BruteCast(const World& world, const CastQuery& c,
                                      bool flat, Boundary b,
                                      const EntityFilter& f) {
  std::vector<CastHit> hits;
  for (const auto& [id, e] : world) {
    if (!Passes(id, e, f)) continue;
    CastResult r;
    if (flat) {
      const Vec2 o{c.origin.x, c.origin.y};
      const Vec2 d{c.direction.x, c.direction.y};
      r = c.radius > 0 ? SweepCircle(o, c.radius, d, c.max_distance, e.shape, b)
                       : RayCast(o, d, c.max_distance, e.shape, b);
    } else {
      r = c.radius > 0
              ? SweepSphere(c.origin, c.radius, c.direction, c.max_distance,
                            e.shape, b)
              : RayCast(c.origin, c.direction, c.max_distance, e.shape, b);
    }
    if (r.hit) hits.push_back(CastHit{id, r});
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const CastHit& x, const CastHit& y) {
                     return x.result.distance < y.result.distance;
                   });
  return hits;
}

inline void ExpectSameOverlap(const std::vector<OverlapHit>& got,
                              const std::vector<OverlapHit>& want,
                              const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, want[i].id) << where << " hit " << i;
    EXPECT_EQ(got[i].result.relation, want[i].result.relation) << where;
    EXPECT_EQ(Bits(got[i].result.separation), Bits(want[i].result.separation))
        << where << " id " << got[i].id;
  }
}

inline void ExpectSameNearest(const std::vector<NearestHit>& got,
                              const std::vector<NearestHit>& want,
                              const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    const ClosestPointResult& g = got[i].result;
    const ClosestPointResult& w = want[i].result;
    EXPECT_EQ(got[i].id, want[i].id) << where << " hit " << i;
    EXPECT_TRUE(Same(g.closest_point, w.closest_point)) << where;
    EXPECT_TRUE(Same(g.surface_point, w.surface_point)) << where;
    EXPECT_TRUE(Same(g.normal, w.normal)) << where;
    EXPECT_EQ(Bits(g.signed_distance), Bits(w.signed_distance)) << where;
    EXPECT_EQ(Bits(g.gap), Bits(w.gap)) << where;
    EXPECT_EQ(g.inside, w.inside) << where;
  }
}

inline void ExpectSameCast(const std::vector<CastHit>& got,
                           const std::vector<CastHit>& want,
                           const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].id, want[i].id) << where << " hit " << i;
    EXPECT_EQ(Bits(got[i].result.distance), Bits(want[i].result.distance))
        << where;
    EXPECT_TRUE(Same(got[i].result.point, want[i].result.point)) << where;
    EXPECT_TRUE(Same(got[i].result.normal, want[i].result.normal)) << where;
  }
}

inline CastQuery RandomCast(Generator& g, bool flat, bool swept) {
  CastQuery c;
  c.origin = {g.Coord(), g.Coord(), flat ? 0.0f : g.Coord()};
  Vec3 d;
  if (g.Chance(0.4)) {  // axis-aligned: along edges and through corners
    const int axis = g.Int(0, flat ? 1 : 2);
    const float sign = g.Chance(0.5) ? 1.0f : -1.0f;
    d = {axis == 0 ? sign : 0.0f, axis == 1 ? sign : 0.0f,
         axis == 2 ? sign : 0.0f};
  } else {
    do {
      d = {g.Coord(), g.Coord(), flat ? 0.0f : g.Coord()};
    } while (d.x == 0 && d.y == 0 && d.z == 0);
    if (flat) {
      const Vec2 u = NormalizeDirection(Vec2{d.x, d.y});
      d = {u.x, u.y, 0.0f};
    } else {
      d = NormalizeDirection(d);
    }
  }
  c.direction = d;
  c.max_distance = g.Chance(0.2) ? 1e6f : static_cast<float>(g.Int(0, 50));
  c.radius = swept ? g.Size() : 0.0f;
  return c;
}

}  // namespace scene_testing
}  // namespace collision

#endif  // COLLISION_TESTS_CORE_SCENE_TESTING_H_
