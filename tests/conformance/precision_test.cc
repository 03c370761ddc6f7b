// The precision contract of proto/README.md: the hit bit computed in float32
// may differ from the exact (real-number) answer for the same float inputs
// only inside the documented band around the boundary,
//   |d - r| <= 8u * max(d, r) + 2^-70                  balls vs balls/boxes
//   |d - r| <= 8u * (max(d, r) + |rx| + |ry| + H) + 2^-70   rotated rects
//   never                                               rect-rect, box-box
// with u = 2^-24, d the exact distance from the ball's centre to the other
// shape, r the exact radius (sum), (rx, ry) the centre relative to the
// rotated rectangle's position and H = max(|size - pivot|) per axis. The
// "exact" answer is computed in double from the same float inputs (its own
// error, ~2^-50 relative, is far inside the band). Cases are placed within a
// few band widths of the boundary, at every scale from 1e-20 to 5e8 away from
// the origin, and run through the scalar reference and the batch (SIMD) API.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "collision/core/batch.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

constexpr double kU = 1.0 / (1 << 24);  // unit roundoff of float32
constexpr double kFloor = 0x1p-70;      // squares below FLT_MIN underflow
constexpr int kCases = 100000;

struct Exact {
  double d;     // exact distance between the shapes (0 when overlapping)
  double r;     // exact radius (sum)
  double band;  // the documented band for this case
};

// One case: the shapes and the exact answer.
struct Case {
  Shape a, b;
  Exact exact;
};

std::string Describe(const Case& k) {
  char buf[512] = "";
  if (const auto* c = std::get_if<Circle>(&k.a)) {
    if (const auto* r = std::get_if<RotatedRect>(&k.b)) {
      std::snprintf(buf, sizeof buf,
                    " circle (%a, %a) r %a; rect size (%a, %a) pivot (%a, %a) "
                    "position (%a, %a) rotation (%a, %a)",
                    c->center.x, c->center.y, c->radius, r->size.x, r->size.y,
                    r->pivot.x, r->pivot.y, r->position.x, r->position.y,
                    r->rotation.cos, r->rotation.sin);
    }
  }
  return buf;
}

// Tallies disagreements between float and exact answers.
struct Tally {
  int cases = 0;
  int disagreements = 0;  // inside the band: allowed
  int outside_band = 0;   // contract violations
  double worst = 0;       // largest |d - r| / band among disagreements

  void Check(const Case& k, bool hit_inclusive, bool hit_exclusive) {
    ++cases;
    const Exact& e = k.exact;
    const bool want_in = e.d <= e.r;
    const bool want_ex = e.d < e.r;
    for (bool differs : {hit_inclusive != want_in, hit_exclusive != want_ex}) {
      if (!differs) continue;
      ++disagreements;
      const double off = std::fabs(e.d - e.r);
      worst = std::max(worst, e.band > 0 ? off / e.band : INFINITY);
      if (off > e.band && ++outside_band <= 5) {
        ADD_FAILURE() << "outside the band: d = " << e.d << ", r = " << e.r
                      << ", |d - r| = " << off << ", band = " << e.band
                      << Describe(k);
      }
    }
  }
};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {}

  double Uniform(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng_);
  }
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  // A length scale: tiny (squares underflow), small, unit, large.
  double Scale() {
    static constexpr double kScales[] = {1e-20, 1e-3, 1, 1e3, 1e5};
    return kScales[Pick(5)];
  }
  // Distance of the scene from the origin, up to half the magnitude bound.
  double Offset() {
    static constexpr double kOffsets[] = {0, 1, 1e3, 1e6, 5e8};
    return kOffsets[Pick(5)] * Uniform(-1, 1);
  }
  // Random point on the unit sphere of dimension n (n = 2 or 3).
  std::vector<double> Direction(int n) {
    std::normal_distribution<double> g;
    std::vector<double> v(n);
    double len = 0;
    do {
      len = 0;
      for (double& x : v) {
        x = g(rng_);
        len += x * x;
      }
    } while (len < 1e-12);
    for (double& x : v) x /= std::sqrt(len);
    return v;
  }
  // A shift of the centre off the boundary, a few band widths either way.
  double Nudge(double scale) { return Uniform(-16, 16) * kU * scale; }

 private:
  std::mt19937_64 rng_;
};

float F(double x) { return static_cast<float>(x); }

double BallBand(double d, double r) { return 8 * kU * std::max(d, r) + kFloor; }

// Balls: centres about r apart, dimension n.
Case BallBall(Generator& g, int n) {
  const double scale = g.Scale();
  const float ra = F(g.Uniform(0, 1) * scale);
  const float rb = F(g.Uniform(0, 1) * scale);
  std::vector<double> a(n), b(n), u = g.Direction(n);
  const double off = g.Offset();
  const double dist =
      double{ra} + rb + g.Nudge(double{ra} + rb + std::fabs(off));
  std::vector<float> af(n), bf(n);
  double d2 = 0;
  for (int i = 0; i < n; ++i) {
    af[i] = F(off + g.Uniform(-1, 1) * scale);
    bf[i] = F(af[i] + dist * u[i]);
    d2 += (double{af[i]} - bf[i]) * (double{af[i]} - bf[i]);
  }
  Case k;
  if (n == 2) {
    k.a = Circle{{af[0], af[1]}, ra};
    k.b = Circle{{bf[0], bf[1]}, rb};
  } else {
    k.a = Sphere{{af[0], af[1], af[2]}, ra};
    k.b = Sphere{{bf[0], bf[1], bf[2]}, rb};
  }
  const double d = std::sqrt(d2);
  const double r = double{ra} + rb;
  k.exact = {d, r, BallBand(d, r)};
  return k;
}

// Exact distance from c to the box [lo, hi] (dimension n), in double.
double BoxDistance(const double* c, const double* lo, const double* hi, int n) {
  double d2 = 0;
  for (int i = 0; i < n; ++i) {
    const double e = c[i] - std::clamp(c[i], lo[i], hi[i]);
    d2 += e * e;
  }
  return std::sqrt(d2);
}

// A point on the boundary of [lo, hi] and an outward unit direction there:
// a face point with its normal, or a corner with a direction in its orthant.
void BoundaryPoint(Generator& g, const double* lo, const double* hi, int n,
                   double* q, double* dir) {
  if (g.Pick(2) == 0) {
    const int axis = g.Pick(n);
    const bool high = g.Pick(2);
    for (int i = 0; i < n; ++i) {
      q[i] = g.Uniform(lo[i], hi[i]);
      dir[i] = 0;
    }
    q[axis] = high ? hi[axis] : lo[axis];
    dir[axis] = high ? 1 : -1;
  } else {
    const std::vector<double> u = g.Direction(n);
    for (int i = 0; i < n; ++i) {
      const bool high = g.Pick(2);
      q[i] = high ? hi[i] : lo[i];
      dir[i] = high ? std::fabs(u[i]) : -std::fabs(u[i]);
    }
  }
}

// Ball vs box (n = 2: circle-rect, n = 3: sphere-box), centre placed about r
// outside a face or a corner.
Case BallBox(Generator& g, int n) {
  const double scale = g.Scale();
  const double off = g.Offset();
  float lo[3], hi[3];
  double lod[3], hid[3], q[3], dir[3], c[3];
  for (int i = 0; i < n; ++i) {
    lo[i] = F(off + g.Uniform(-1, 1) * scale);
    hi[i] = F(lo[i] + g.Uniform(0, 2) * scale);
    lod[i] = lo[i];
    hid[i] = hi[i];
  }
  const float r = F(g.Uniform(0, 1) * scale);
  BoundaryPoint(g, lod, hid, n, q, dir);
  const double dist = r + g.Nudge(r + std::fabs(off) + scale);
  float cf[3];
  for (int i = 0; i < n; ++i) {
    cf[i] = F(q[i] + dist * dir[i]);
    c[i] = cf[i];
  }
  Case k;
  if (n == 2) {
    k.a = Circle{{cf[0], cf[1]}, r};
    k.b = Rect{{lo[0], lo[1]}, {hi[0], hi[1]}};
  } else {
    k.a = Sphere{{cf[0], cf[1], cf[2]}, r};
    k.b = Box{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}};
  }
  const double d = BoxDistance(c, lod, hid, n);
  k.exact = {d, r, BallBand(d, r)};
  return k;
}

// Circle vs rotated rectangle: the centre is placed about r outside the
// rectangle in its local frame, then moved to the world in double.
Case CircleRotated(Generator& g) {
  const double scale = g.Scale();
  RotatedRect rect;
  rect.size = {F(g.Uniform(0, 2) * scale), F(g.Uniform(0, 2) * scale)};
  rect.pivot = {F(g.Uniform(-1, 2) * scale), F(g.Uniform(-1, 2) * scale)};
  rect.position = {F(g.Offset()), F(g.Offset())};
  const float angle =
      F(g.Uniform(-kMaxAngle, kMaxAngle) / (g.Pick(2) ? 1 : 1e3));
  rect.rotation = RotationFromAngle(angle);
  // The contract: an angle equal to k * float(pi/2) is an exact quarter turn
  // (at |angle| near 1e4 about 1 float in 1600 is one); other angles turn by
  // their exact cosine and sine.
  const bool quarter = rect.rotation.cos == 0 || rect.rotation.sin == 0;
  const double cs = quarter ? rect.rotation.cos : std::cos(double{angle});
  const double sn = quarter ? rect.rotation.sin : std::sin(double{angle});
  const double lo[2] = {-double{rect.pivot.x}, -double{rect.pivot.y}};
  const double hi[2] = {double{rect.size.x} - rect.pivot.x,
                        double{rect.size.y} - rect.pivot.y};
  const float r = F(g.Uniform(0, 1) * scale);
  double q[2], dir[2];
  BoundaryPoint(g, lo, hi, 2, q, dir);
  const double dist = r + g.Nudge(r + 4 * scale);
  const double lx = q[0] + dist * dir[0], ly = q[1] + dist * dir[1];
  const Vec2 center{F(rect.position.x + cs * lx - sn * ly),
                    F(rect.position.y + sn * lx + cs * ly)};
  // Exact: back into the local frame with the exact rotation.
  const double rx = double{center.x} - rect.position.x;
  const double ry = double{center.y} - rect.position.y;
  const double local[2] = {cs * rx + sn * ry, cs * ry - sn * rx};
  const double d = BoxDistance(local, lo, hi, 2);
  const double h = std::max(std::fabs(hi[0]), std::fabs(hi[1]));
  Case k;
  k.a = Circle{center, r};
  k.b = rect;
  k.exact = {
      d, r,
      8 * kU * (std::max(d, double{r}) + std::fabs(rx) + std::fabs(ry) + h) +
          kFloor};
  return k;
}

// Axis-aligned boxes (n = 2: rects) that nearly share a face: decided from
// signs of float differences, so never off the exact answer (band 0).
Case BoxBox(Generator& g, int n) {
  const double scale = g.Scale();
  const double off = g.Offset();
  float alo[3], ahi[3], blo[3], bhi[3];
  double gap_max = -INFINITY, gap2 = 0;
  for (int i = 0; i < n; ++i) {
    alo[i] = F(off + g.Uniform(-1, 1) * scale);
    ahi[i] = F(alo[i] + g.Uniform(0, 1) * scale);
    // b starts at a's max, nudged by a few ulps either way.
    blo[i] = F(double{ahi[i]} + g.Nudge(scale + std::fabs(off)));
    bhi[i] = F(blo[i] + g.Uniform(0, 1) * scale);
    const double gi =
        std::max(double{alo[i]} - bhi[i], double{blo[i]} - ahi[i]);
    gap_max = std::max(gap_max, gi);
    gap2 += gi > 0 ? gi * gi : 0;
  }
  Case k;
  if (n == 2) {
    k.a = Rect{{alo[0], alo[1]}, {ahi[0], ahi[1]}};
    k.b = Rect{{blo[0], blo[1]}, {bhi[0], bhi[1]}};
  } else {
    k.a = Box{{alo[0], alo[1], alo[2]}, {ahi[0], ahi[1], ahi[2]}};
    k.b = Box{{blo[0], blo[1], blo[2]}, {bhi[0], bhi[1], bhi[2]}};
  }
  // Touching (gap exactly 0) is d = r = 0; overlap is d = 0 < r = "depth".
  const double d = gap_max > 0 ? std::sqrt(gap2) : 0;
  const double r = gap_max < 0 ? -gap_max : 0;
  k.exact = {d, r, 0};
  return k;
}

template <typename Make>
void CheckBand(const char* name, Make make) {
  Generator g(std::hash<std::string>{}(name));
  std::vector<Case> cases;
  cases.reserve(kCases);
  for (int i = 0; i < kCases; ++i) cases.push_back(make(g));

  Tally scalar, batch;
  std::vector<ShapePair> pairs;
  for (const Case& k : cases) {
    scalar.Check(k, Intersect(k.a, k.b, Boundary::kInclusive).hit,
                 Intersect(k.a, k.b, Boundary::kExclusive).hit);
    pairs.push_back({k.a, k.b});
  }
  std::vector<IntersectResult> in(pairs.size()), ex(pairs.size());
  IntersectBatch(pairs, Boundary::kInclusive, absl::MakeSpan(in));
  IntersectBatch(pairs, Boundary::kExclusive, absl::MakeSpan(ex));
  for (size_t i = 0; i < cases.size(); ++i) {
    batch.Check(cases[i], in[i].hit, ex[i].hit);
  }
  std::printf(
      "%-22s %d cases: scalar %d disagreements (worst %.3f of the band), "
      "batch %d (worst %.3f)\n",
      name, scalar.cases, scalar.disagreements, scalar.worst,
      batch.disagreements, batch.worst);
  EXPECT_EQ(scalar.outside_band, 0);
  EXPECT_EQ(batch.outside_band, 0);
}

TEST(PrecisionBand, CircleCircleDisagreesOnlyInsideTheBand) {
  CheckBand("circle-circle", [](Generator& g) { return BallBall(g, 2); });
}

TEST(PrecisionBand, SphereSphereDisagreesOnlyInsideTheBand) {
  CheckBand("sphere-sphere", [](Generator& g) { return BallBall(g, 3); });
}

TEST(PrecisionBand, CircleRectDisagreesOnlyInsideTheBand) {
  CheckBand("circle-rect", [](Generator& g) { return BallBox(g, 2); });
}

TEST(PrecisionBand, SphereBoxDisagreesOnlyInsideTheBand) {
  CheckBand("sphere-box", [](Generator& g) { return BallBox(g, 3); });
}

TEST(PrecisionBand, CircleRotatedRectDisagreesOnlyInsideTheBand) {
  CheckBand("circle-rotated_rect", CircleRotated);
}

TEST(PrecisionBand, RectRectAndBoxBoxAreExact) {
  CheckBand("rect-rect", [](Generator& g) { return BoxBox(g, 2); });
  CheckBand("box-box", [](Generator& g) { return BoxBox(g, 3); });
}

// The band is not vacuous: near-boundary cases do land in it and do flip.
TEST(PrecisionBand, NearBoundaryCasesReallyFlipSomeHits) {
  Generator g(7);
  Tally t;
  for (int i = 0; i < kCases; ++i) {
    const Case k = BallBox(g, 2);
    t.Check(k, Intersect(k.a, k.b, Boundary::kInclusive).hit,
            Intersect(k.a, k.b, Boundary::kExclusive).hit);
  }
  EXPECT_GT(t.disagreements, 0);
  EXPECT_EQ(t.outside_band, 0);
}

}  // namespace
}  // namespace collision
