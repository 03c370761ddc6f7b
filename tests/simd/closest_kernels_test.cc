// Every ClosestPoint kernel on every Highway target compiled into the
// library, against the scalar reference: all outputs bit-equal.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "collision/core/kernels.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "test_support.h"

namespace collision {
namespace {

using testing_support::BitEq;
using testing_support::Columns;
using testing_support::Gen;
using testing_support::Mix;

constexpr size_t kRandomPairs = 1'000'003;
constexpr size_t kAdversarialPairs = 200'000;

using Kernel = std::function<void(const Columns&, size_t, Boundary,
                                  const simd::ClosestPointOutputs&)>;
using Drawer = std::function<void(Gen&, Columns&, ClosestPointResult*)>;

struct Case {
  Columns cols{0};
  std::vector<ClosestPointResult> want[2];  // by Boundary
};

struct KindSpec {
  const char* name;
  size_t num_cols;
  bool is_3d;
  Drawer draw;
  Kernel kernel;
};

template <class Q, class T, class PutQ, class PutT, class Scalar>
void DrawWith(Columns& c, const Q& q, const T& t, PutQ put_q, PutT put_t,
              Scalar scalar, ClosestPointResult* both) {
  (c.*put_q)(q);
  (c.*put_t)(t);
  c.EndRow();
  both[0] = scalar(q.center, q.radius, t, Boundary::kInclusive);
  both[1] = scalar(q.center, q.radius, t, Boundary::kExclusive);
}

// The query is drawn near the target half of the time, so that inside, on
// the boundary and outside all occur.
Circle QueryNear(Gen& g, Vec2 at) {
  Circle q = g.Ball2();
  if (g.Int(0, 1) == 0) q.center = at;
  return q;
}
Sphere QueryNear(Gen& g, Vec3 at) {
  Sphere q = g.Ball3();
  if (g.Int(0, 1) == 0) q.center = at;
  return q;
}

const std::vector<KindSpec>& Specs() {
  static const std::vector<KindSpec> specs = [] {
    std::vector<KindSpec> s;
    s.push_back({"OnCircle", 6, false,
                 [](Gen& g, Columns& c, ClosestPointResult* both) {
                   const Circle t = g.Ball2();
                   DrawWith(c, QueryNear(g, t.center), t, &Columns::Ball2,
                            &Columns::Ball2, ClosestPointOnCircle, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::ClosestPointOutputs& o) {
                   simd::ClosestPointOnCircleColumns(c.B2(0), c.B2(3), n, b, o);
                 }});
    s.push_back({"OnRect", 7, false,
                 [](Gen& g, Columns& c, ClosestPointResult* both) {
                   const Rect t = g.RectShape();
                   DrawWith(c, QueryNear(g, t.min), t, &Columns::Ball2,
                            &Columns::RectShape, ClosestPointOnRect, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::ClosestPointOutputs& o) {
                   simd::ClosestPointOnRectColumns(c.B2(0), c.R(3), n, b, o);
                 }});
    s.push_back({"OnRotatedRect", 11, false,
                 [](Gen& g, Columns& c, ClosestPointResult* both) {
                   const RotatedRect t = g.Rotated();
                   DrawWith(c, QueryNear(g, t.position), t, &Columns::Ball2,
                            &Columns::Rotated, ClosestPointOnRotatedRect, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::ClosestPointOutputs& o) {
                   simd::ClosestPointOnRotatedRectColumns(c.B2(0), c.RR(3), n,
                                                          b, o);
                 }});
    s.push_back({"OnSphere", 8, true,
                 [](Gen& g, Columns& c, ClosestPointResult* both) {
                   const Sphere t = g.Ball3();
                   DrawWith(c, QueryNear(g, t.center), t, &Columns::Ball3,
                            &Columns::Ball3, ClosestPointOnSphere, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::ClosestPointOutputs& o) {
                   simd::ClosestPointOnSphereColumns(c.B3(0), c.B3(4), n, b, o);
                 }});
    s.push_back({"OnBox", 10, true,
                 [](Gen& g, Columns& c, ClosestPointResult* both) {
                   const Box t = g.BoxShape();
                   DrawWith(c, QueryNear(g, t.max), t, &Columns::Ball3,
                            &Columns::BoxShape, ClosestPointOnBox, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::ClosestPointOutputs& o) {
                   simd::ClosestPointOnBoxColumns(c.B3(0), c.X(4), n, b, o);
                 }});
    return s;
  }();
  return specs;
}

Case Build(const KindSpec& spec, size_t n, uint64_t seed, Mix mix) {
  Case c;
  c.cols = Columns(spec.num_cols);
  c.cols.Reserve(n);
  c.want[0].reserve(n);
  c.want[1].reserve(n);
  Gen g(seed, mix);
  for (size_t i = 0; i < n; ++i) {
    ClosestPointResult both[2];
    spec.draw(g, c.cols, both);
    c.want[0].push_back(both[0]);
    c.want[1].push_back(both[1]);
  }
  return c;
}

const Case& CachedCase(size_t kind, Mix mix) {
  static std::vector<std::unique_ptr<Case>> cache(2 * Specs().size());
  const bool random = mix == Mix::kRandom;
  std::unique_ptr<Case>& slot = cache[2 * kind + (random ? 0 : 1)];
  if (!slot) {
    slot = std::make_unique<Case>(
        Build(Specs()[kind], random ? kRandomPairs : kAdversarialPairs,
              0xC105E + 31 * kind + random, mix));
  }
  return *slot;
}

void ExpectKernelMatches(const KindSpec& spec, const Case& c) {
  const size_t n = c.cols.rows();
  for (int bi = 0; bi < 2; ++bi) {
    const Boundary boundary = static_cast<Boundary>(bi);
    std::vector<std::vector<float>> f(11, std::vector<float>(n, -7.0f));
    std::vector<uint8_t> inside(n, 9);
    simd::ClosestPointOutputs o;
    o.closest_x = f[0].data(), o.closest_y = f[1].data();
    o.closest_z = f[2].data(), o.surface_x = f[3].data();
    o.surface_y = f[4].data(), o.surface_z = f[5].data();
    o.normal_x = f[6].data(), o.normal_y = f[7].data();
    o.normal_z = f[8].data(), o.signed_distance = f[9].data();
    o.gap = f[10].data(), o.inside = inside.data();
    spec.kernel(c.cols, n, boundary, o);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      const ClosestPointResult& w = c.want[bi][i];
      const float want[11] = {w.closest_point.x,
                              w.closest_point.y,
                              w.closest_point.z,
                              w.surface_point.x,
                              w.surface_point.y,
                              w.surface_point.z,
                              w.normal.x,
                              w.normal.y,
                              w.normal.z,
                              w.signed_distance,
                              w.gap};
      bool ok = inside[i] == (w.inside ? 1 : 0);
      std::string diff;
      for (int k = 0; k < 11; ++k) {
        const bool z = k == 2 || k == 5 || k == 8;
        if (z && !spec.is_3d) {
          // 2D kernels leave z alone.
          ok = ok && f[k][i] == -7.0f;
          continue;
        }
        if (!BitEq(f[k][i], want[k])) {
          ok = false;
          diff += " out[" + std::to_string(k) + "]=" + std::to_string(f[k][i]) +
                  " want " + std::to_string(want[k]);
        }
      }
      if (!ok && ++bad <= 5) {
        ADD_FAILURE() << spec.name << " pair " << i << " boundary " << bi
                      << ": inside " << int{inside[i]} << " want " << w.inside
                      << diff;
      }
    }
    EXPECT_EQ(bad, 0u) << spec.name << " mismatches";
  }
}

class SimdClosestPointTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(SimdClosestPointTest);

TEST_P(SimdClosestPointTest, MillionRandomQueriesPerKindEqualScalarBitForBit) {
  EXPECT_STREQ(simd::TargetName(), hwy::TargetName(GetParam()));
  for (size_t k = 0; k < Specs().size(); ++k) {
    SCOPED_TRACE(Specs()[k].name);
    ExpectKernelMatches(Specs()[k], CachedCase(k, Mix::kRandom));
  }
}

TEST_P(SimdClosestPointTest, AdversarialQueriesEqualScalarInsideOnAndOutside) {
  for (size_t k = 0; k < Specs().size(); ++k) {
    SCOPED_TRACE(Specs()[k].name);
    const Case& c = CachedCase(k, Mix::kAdversarial);
    size_t inside = 0, on = 0, outside = 0;
    for (const ClosestPointResult& r : c.want[0]) {
      if (r.signed_distance < 0) ++inside;
      if (r.signed_distance == 0) ++on;
      if (r.signed_distance > 0) ++outside;
    }
    EXPECT_GT(inside, 100u);
    EXPECT_GT(on, 100u);
    EXPECT_GT(outside, 100u);
    ExpectKernelMatches(Specs()[k], c);
  }
}

TEST_P(SimdClosestPointTest, EverySizeUpToFourVectorsHandlesTheTail) {
  for (size_t k = 0; k < Specs().size(); ++k) {
    for (size_t n = 1; n <= 70; ++n) {
      SCOPED_TRACE(std::string(Specs()[k].name) + " n=" + std::to_string(n));
      ExpectKernelMatches(Specs()[k],
                          Build(Specs()[k], n, 7 * n + k, Mix::kAdversarial));
    }
  }
}

// Named degenerate cases of the contract, checked on the kernels directly.
TEST_P(SimdClosestPointTest, CoincidentCentresGivePlusXNormal) {
  Columns c(6);
  c.Ball2(Circle{{-0.0f, 3.0f}, 1.0f});
  c.Ball2(Circle{{0.0f, 3.0f}, 2.0f});
  c.EndRow();
  float v[11];
  uint8_t inside;
  simd::ClosestPointOutputs o{v,     v + 1, v + 2, v + 3, v + 4,  v + 5,
                              v + 6, v + 7, v + 8, v + 9, v + 10, &inside};
  simd::ClosestPointOnCircleColumns(c.B2(0), c.B2(3), 1, Boundary::kExclusive,
                                    o);
  EXPECT_EQ(v[6], 1.0f);
  EXPECT_TRUE(BitEq(v[7], 0.0f));
  EXPECT_EQ(v[9], -2.0f);
  EXPECT_EQ(inside, 1);
}

TEST_P(SimdClosestPointTest, UnderflowingOffsetStillGivesAUnitNormal) {
  // |p - c|^2 underflows to 0 although p != c: NormalizeTiny.
  Columns c(8);
  c.Ball3(Sphere{{1e-23f, 0.0f, -3e-23f}, 0.0f});
  c.Ball3(Sphere{{0.0f, 0.0f, 0.0f}, 0.0f});
  c.EndRow();
  float v[11];
  uint8_t inside;
  simd::ClosestPointOutputs o{v,     v + 1, v + 2, v + 3, v + 4,  v + 5,
                              v + 6, v + 7, v + 8, v + 9, v + 10, &inside};
  simd::ClosestPointOnSphereColumns(c.B3(0), c.B3(4), 1, Boundary::kInclusive,
                                    o);
  const ClosestPointResult want = ClosestPointOnSphere(
      {1e-23f, 0.0f, -3e-23f}, 0.0f, Sphere{}, Boundary::kInclusive);
  EXPECT_TRUE(BitEq(v[6], want.normal.x));
  EXPECT_TRUE(BitEq(v[8], want.normal.z));
  EXPECT_NEAR(v[6] * v[6] + v[8] * v[8], 1.0f, 1e-6f);
}

}  // namespace
}  // namespace collision
