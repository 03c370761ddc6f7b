// Each seed write-up's own formula, transcribed as the seed writes it, against
// the core's answer for the same shapes in the canonical form.
#include <cmath>
#include <random>

#include "collision/core/scalar.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

constexpr Boundary kIn = Boundary::kInclusive;
constexpr Boundary kEx = Boundary::kExclusive;

// Seed 000: rect = top-left corner + width/height, strict `<`.
bool Seed000(float cx, float cy, float r, float rx, float ry, float rw,
             float rh) {
  const float dx = cx - std::max(rx, std::min(cx, rx + rw));
  const float dy = cy - std::max(ry, std::min(cy, ry + rh));
  return (dx * dx + dy * dy) < (r * r);
}

// Seed 001 (PICO-8): mid() clamp, touching counts (`<=`).
float Mid(float a, float b, float c) {  // middle of three
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}
bool Seed001(float cx, float cy, float r, float rx, float ry, float rw,
             float rh) {
  const float dx = cx - Mid(cx, rx, rx + rw);
  const float dy = cy - Mid(cy, ry, ry + rh);
  return dx * dx + dy * dy <= r * r;
}

// Seed 002: centre + half-extents, u = max(abs(p - c) - h, 0).
bool Seed002(float px, float py, float r, float cx, float cy, float hx,
             float hy) {
  const float ux = std::max(std::fabs(px - cx) - hx, 0.0f);
  const float uy = std::max(std::fabs(py - cy) - hy, 0.0f);
  return ux * ux + uy * uy < r * r;
}

// Seed 002: Arvo's 3D test with `d <= r^2`.
bool Arvo(const float c[3], float r, const float mn[3], const float mx[3]) {
  float d = 0;
  for (int i = 0; i < 3; ++i) {
    if (c[i] < mn[i]) {
      const float e = c[i] - mn[i];
      d = d + e * e;
    } else if (c[i] > mx[i]) {
      const float e = c[i] - mx[i];
      d = d + e * e;
    }
  }
  return d <= r * r;
}

// Seed 003: point in a rectangle rotated about a pivot (inclusive bounds).
bool Seed003Point(float px, float py, float rect_x, float rect_y, float off_x,
                  float off_y, float w, float h, float rect_angle) {
  const float rel_x = px - rect_x;
  const float rel_y = py - rect_y;
  const float angle = -rect_angle;
  const float c = std::cos(angle);
  const float s = std::sin(angle);
  const float lx = c * rel_x - s * rel_y;
  const float ly = s * rel_x + c * rel_y;
  return lx >= -off_x && lx <= w - off_x && ly >= -off_y && ly <= h - off_y;
}

// Seed 003's circle test. The seed's snippet squares the clamped point
// instead of the offset from it (a typo); this is the intended formula.
bool Seed003Circle(float px, float py, float radius, float rect_x, float rect_y,
                   float off_x, float off_y, float w, float h,
                   float rect_angle) {
  const float rel_x = px - rect_x;
  const float rel_y = py - rect_y;
  const float angle = -rect_angle;
  const float c = std::cos(angle);
  const float s = std::sin(angle);
  const float lx = c * rel_x - s * rel_y;
  const float ly = s * rel_x + c * rel_y;
  const float dx = lx - std::max(-off_x, std::min(lx, w - off_x));
  const float dy = ly - std::max(-off_y, std::min(ly, h - off_y));
  return dx * dx + dy * dy < radius * radius;
}

// Seed 004 (Java, double): rect top-left + size rotated about its centre by
// theta, circle un-rotated with R(theta), strict `<`.
bool Seed004(double cx, double cy, double radius, double x, double y, double w,
             double h, double theta) {
  const double rcx = x + w / 2, rcy = y + h / 2;
  const double ux =
      std::cos(theta) * (cx - rcx) - std::sin(theta) * (cy - rcy) + rcx;
  const double uy =
      std::sin(theta) * (cx - rcx) + std::cos(theta) * (cy - rcy) + rcy;
  double closest_x = ux, closest_y = uy;
  if (ux < x)
    closest_x = x;
  else if (ux > x + w)
    closest_x = x + w;
  if (uy < y)
    closest_y = y;
  else if (uy > y + h)
    closest_y = y + h;
  const double d = std::hypot(ux - closest_x, uy - closest_y);
  return d < radius;
}

Rect CornerSize(float x, float y, float w, float h) {
  return Rect{{x, y}, {x + w, y + h}};
}

TEST(Seed000, CornerSizeStrictMatchesExclusiveOnRandomFloats) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> pos(-100, 100), len(0, 50);
  for (int i = 0; i < 200000; ++i) {
    const float cx = pos(rng), cy = pos(rng), r = len(rng);
    const float rx = pos(rng), ry = pos(rng), rw = len(rng), rh = len(rng);
    ASSERT_EQ(
        Seed000(cx, cy, r, rx, ry, rw, rh),
        IntersectCircleRect({{cx, cy}, r}, CornerSize(rx, ry, rw, rh), kEx).hit)
        << i;
  }
}

TEST(Seed001, MidClampInclusiveMatchesOnIntegerPixels) {
  std::mt19937 rng(2);
  std::uniform_int_distribution<int> pos(-20, 20), len(0, 10);
  int touching = 0;
  for (int i = 0; i < 200000; ++i) {
    const float cx = pos(rng), cy = pos(rng), r = len(rng);
    const float rx = pos(rng), ry = pos(rng), rw = len(rng), rh = len(rng);
    const IntersectResult got =
        IntersectCircleRect({{cx, cy}, r}, CornerSize(rx, ry, rw, rh), kIn);
    ASSERT_EQ(Seed001(cx, cy, r, rx, ry, rw, rh), got.hit) << i;
    touching += got.relation == Relation::kTouching;
  }
  EXPECT_GT(touching, 1000);  // the integer grid really exercises touching
}

TEST(Seed001, ArkanoidExampleFromTheSeed) {
  // r = { x=10, y=20, w=10, h=10 }, c = { x=64, y=64, r=15 }
  EXPECT_FALSE(
      IntersectCircleRect({{64, 64}, 15}, CornerSize(10, 20, 10, 10), kIn).hit);
  EXPECT_TRUE(
      IntersectCircleRect({{25, 25}, 5}, CornerSize(10, 20, 10, 10), kIn).hit);
}

TEST(Seed002, CentreHalfExtentsMatchesOnHalfIntegers) {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> pos(-40, 40), len(0, 20);
  for (int i = 0; i < 200000; ++i) {
    // Halves are exact in float, so c - h and c + h are exact too.
    // r > 0: see PointStrictlyInsideIsAHitUnlikeTheSquaredFormula.
    const float px = pos(rng) * 0.5f, py = pos(rng) * 0.5f,
                r = (len(rng) + 1) * 0.5f;
    const float cx = pos(rng) * 0.5f, cy = pos(rng) * 0.5f;
    const float hx = len(rng) * 0.5f, hy = len(rng) * 0.5f;
    const Rect rect{{cx - hx, cy - hy}, {cx + hx, cy + hy}};
    ASSERT_EQ(Seed002(px, py, r, cx, cy, hx, hy),
              IntersectCircleRect({{px, py}, r}, rect, kEx).hit)
        << i;
  }
}

TEST(Seed002, PointStrictlyInsideIsAHitUnlikeTheSquaredFormula) {
  // With r = 0 the strict formulas (seeds 000 and 002) can never hit, even
  // for a point in the middle of the rectangle. We treat a point strictly
  // inside as overlapping under both boundary rules.
  EXPECT_FALSE(Seed002(0, 0, 0, 0, 0, 5, 5));
  EXPECT_TRUE(IntersectCircleRect({{0, 0}, 0}, {{-5, -5}, {5, 5}}, kEx).hit);
}

TEST(Seed002, ArvoSphereBoxMatchesInclusive) {
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> pos(-10, 10), len(0, 6);
  for (int i = 0; i < 100000; ++i) {
    const float c[3] = {float(pos(rng)), float(pos(rng)), float(pos(rng))};
    const float mn[3] = {float(pos(rng)), float(pos(rng)), float(pos(rng))};
    const float mx[3] = {mn[0] + len(rng), mn[1] + len(rng), mn[2] + len(rng)};
    const float r = len(rng);
    const Box box{{mn[0], mn[1], mn[2]}, {mx[0], mx[1], mx[2]}};
    ASSERT_EQ(Arvo(c, r, mn, mx),
              IntersectSphereBox({{c[0], c[1], c[2]}, r}, box, kIn).hit)
        << i;
  }
}

TEST(Seed002, SeparatesIntersectionTangencyAndSeparation) {
  const Sphere s{{0, 0, 3}, 1};
  EXPECT_EQ(IntersectSphereBox(s, Box{{-2, -2, -2}, {2, 2, 2}}, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(
      IntersectSphereBox(s, Box{{-2, -2, -2}, {2, 2, 2.5f}}, kIn).relation,
      Relation::kOverlapping);
  EXPECT_EQ(
      IntersectSphereBox(s, Box{{-2, -2, -2}, {2, 2, 1.5f}}, kIn).relation,
      Relation::kDisjoint);
}

RotatedRect Seed003Rect(float x, float y, float ox, float oy, float w, float h,
                        float angle) {
  return RotatedRect{{w, h}, {ox, oy}, {x, y}, RotationFromAngle(angle)};
}

TEST(Seed003, PointInRotatedRectMatchesTheSeedFunction) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(-50, 50), len(0, 30), ang(-7, 7);
  for (int i = 0; i < 200000; ++i) {
    const float px = pos(rng), py = pos(rng);
    const float x = pos(rng), y = pos(rng), w = len(rng), h = len(rng);
    const float ox = len(rng) - 10, oy = len(rng) - 10, a = ang(rng);
    ASSERT_EQ(
        Seed003Point(px, py, x, y, ox, oy, w, h, a),
        Intersect(Vec2{px, py}, Seed003Rect(x, y, ox, oy, w, h, a), kIn).hit)
        << i;
  }
}

TEST(Seed003, CircleInRotatedRectMatchesTheSeedFormula) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> pos(-50, 50), len(0, 30), ang(-7, 7);
  for (int i = 0; i < 200000; ++i) {
    const float px = pos(rng), py = pos(rng), r = len(rng);
    const float x = pos(rng), y = pos(rng), w = len(rng), h = len(rng);
    const float ox = len(rng) - 10, oy = len(rng) - 10, a = ang(rng);
    ASSERT_EQ(Seed003Circle(px, py, r, x, y, ox, oy, w, h, a),
              IntersectCircleRotatedRect(
                  {{px, py}, r}, Seed003Rect(x, y, ox, oy, w, h, a), kEx)
                  .hit)
        << i;
  }
}

TEST(Seed003, PivotAtLeftEdgeCentreSpinsAboutIt) {
  // "if this is set to 0,h/2, the rectangle would spin around the centre of
  // its left edge": a 4x2 rect, pivot (0,1), at (10,10), turned a quarter.
  const RotatedRect r = Seed003Rect(10, 10, 0, 1, 4, 2, 1.57079637f);
  // Local x in [0,4] now points along world +y; local y in [-1,1] along -x.
  EXPECT_TRUE(Intersect(Vec2{10, 13}, r, kEx).hit);
  EXPECT_EQ(Intersect(Vec2{10, 14}, r, kIn).relation, Relation::kTouching);
  EXPECT_EQ(Intersect(Vec2{11, 12}, r, kIn).relation, Relation::kTouching);
  EXPECT_FALSE(Intersect(Vec2{12, 12}, r, kIn).hit);
  EXPECT_FALSE(Intersect(Vec2{10, 9}, r, kIn).hit);
}

TEST(Seed004, AboutCentreMatchesWithTheAngleNegated) {
  // Seed 004 un-rotates the circle with R(+theta), so its rectangle turns by
  // -theta in our convention. Compare away from the boundary, where float
  // and the seed's double cannot disagree.
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(-50, 50), len(0.5f, 30), ang(-7, 7);
  int compared = 0;
  for (int i = 0; i < 100000; ++i) {
    const float cx = pos(rng), cy = pos(rng), r = len(rng);
    const float x = pos(rng), y = pos(rng), w = len(rng), h = len(rng);
    const float theta = ang(rng);
    const RotatedRect ours{{w, h},
                           {w * 0.5f, h * 0.5f},
                           {x + w * 0.5f, y + h * 0.5f},
                           RotationFromAngle(-theta)};
    const IntersectResult got =
        IntersectCircleRotatedRect({{cx, cy}, r}, ours, kEx);
    if (std::fabs(got.separation) < 1e-3f) continue;
    ++compared;
    ASSERT_EQ(Seed004(cx, cy, r, x, y, w, h, theta), got.hit) << i;
  }
  EXPECT_GT(compared, 99000);
}

TEST(Seed004, DegreesPassedAsRadiansGiveADifferentAnswer) {
  // The readers' bug: 90 "radians" is not a quarter turn.
  const Circle c{{0, 3.5f}, 0.2f};
  const auto rect = [](float angle) {
    return RotatedRect{{8, 2}, {4, 1}, {0, 0}, RotationFromAngle(angle)};
  };
  EXPECT_TRUE(IntersectCircleRotatedRect(c, rect(1.57079637f), kIn).hit);
  EXPECT_FALSE(IntersectCircleRotatedRect(c, rect(90.0f), kIn).hit);
}

}  // namespace
}  // namespace collision
