// RotationFromAngleColumns and the angle-taking rotated-rectangle kernel on
// every Highway target: exact quarter turns, sin/cos within the documented
// tolerance, and everything after the rotation bit-equal to the scalar path.
#include <algorithm>
#include <cmath>
#include <cstdint>
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
using testing_support::Gen;
using testing_support::kHalfPi;
using testing_support::Mix;

class SimdRotationTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(SimdRotationTest);

TEST_P(SimdRotationTest, QuarterTurnsAreExactlyTheScalarQuarterTurns) {
  std::vector<float> angle;
  for (int k = -4100; k <= 4100; ++k) {
    const float a = static_cast<float>(k) * kHalfPi;
    angle.push_back(a);
    angle.push_back(std::nextafter(a, 1e9f));  // not a quarter turn
    angle.push_back(-a);
  }
  std::vector<float> c(angle.size()), s(angle.size());
  simd::RotationFromAngleColumns(angle.data(), angle.size(), c.data(),
                                 s.data());
  size_t bad = 0;
  for (size_t i = 0; i < angle.size(); ++i) {
    const Rotation want = RotationFromAngle(angle[i]);
    const bool snapped = std::fabs(want.cos) == 1.0f || want.cos == 0.0f;
    const bool exact_wanted =
        snapped && (want.sin == 0.0f || std::fabs(want.sin) == 1.0f);
    if (exact_wanted && (!BitEq(c[i], want.cos) || !BitEq(s[i], want.sin))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "angle " << angle[i] << ": " << c[i] << ", " << s[i]
                      << " want " << want.cos << ", " << want.sin;
      }
    }
  }
  EXPECT_EQ(bad, 0u);
}

TEST_P(SimdRotationTest, SinCosWithinToleranceOfStdOverTheAngleRange) {
  Gen g(42, Mix::kRandom);
  std::vector<float> angle(1'000'003);
  for (float& a : angle) a = g.Angle();
  angle[0] = kMaxAngle;
  angle[1] = -kMaxAngle;
  std::vector<float> c(angle.size()), s(angle.size());
  simd::RotationFromAngleColumns(angle.data(), angle.size(), c.data(),
                                 s.data());
  double worst = 0;
  float worst_angle = 0;
  for (size_t i = 0; i < angle.size(); ++i) {
    const Rotation want = RotationFromAngle(angle[i]);
    const double err = std::max(std::fabs(double{c[i]} - want.cos),
                                std::fabs(double{s[i]} - want.sin)) *
                       16777216.0;  // in units of 2^-24
    if (err > worst) worst = err, worst_angle = angle[i];
  }
  RecordProperty("worst_error_in_2^-24", std::to_string(worst));
  EXPECT_LE(worst, simd::kSinCosUlpTolerance) << "at angle " << worst_angle;
}

// Columns of circle vs rotated-rect pairs with the rotation as an angle.
struct AngleCase {
  std::vector<std::vector<float>> col = std::vector<std::vector<float>>(10);
  size_t rows() const { return col[0].size(); }
  simd::BallColumns2 Ball() const {
    return {col[0].data(), col[1].data(), col[2].data()};
  }
  simd::RotatedRectAngleColumns Rect() const {
    return {col[3].data(), col[4].data(), col[5].data(), col[6].data(),
            col[7].data(), col[8].data(), col[9].data()};
  }
};

AngleCase MakeAngleCase(size_t n, uint64_t seed, Mix mix, bool quarter_only) {
  AngleCase c;
  Gen g(seed, mix);
  for (size_t i = 0; i < n; ++i) {
    const Circle b = g.Ball2();
    const RotatedRect r = g.Rotated();
    const float angle = quarter_only
                            ? static_cast<float>(g.Int(-4096, 4096)) * kHalfPi
                            : g.Angle();
    const float v[] = {b.center.x,   b.center.y, b.radius,  r.size.x,
                       r.size.y,     r.pivot.x,  r.pivot.y, r.position.x,
                       r.position.y, angle};
    for (int k = 0; k < 10; ++k) c.col[k].push_back(v[k]);
  }
  return c;
}

struct Answers {
  std::vector<uint8_t> hit;
  std::vector<Relation> relation;
  std::vector<float> separation;
  explicit Answers(size_t n) : hit(n), relation(n), separation(n) {}
  simd::IntersectOutputs Outputs() {
    return {hit.data(), nullptr, relation.data(), separation.data()};
  }
};

TEST_P(SimdRotationTest, AngleKernelEqualsScalarFedWithTheKernelRotation) {
  const AngleCase c = MakeAngleCase(1'000'003, 7, Mix::kRandom, false);
  const size_t n = c.rows();
  std::vector<float> cs(n), sn(n);
  simd::RotationFromAngleColumns(c.col[9].data(), n, cs.data(), sn.data());
  for (int bi = 0; bi < 2; ++bi) {
    const Boundary boundary = static_cast<Boundary>(bi);
    Answers got(n);
    simd::IntersectCircleRotatedRectAngleColumns(c.Ball(), c.Rect(), n,
                                                 boundary, got.Outputs());
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      RotatedRect r;
      r.size = {c.col[3][i], c.col[4][i]};
      r.pivot = {c.col[5][i], c.col[6][i]};
      r.position = {c.col[7][i], c.col[8][i]};
      r.rotation = {cs[i], sn[i]};
      const IntersectResult want = IntersectCircleRotatedRect(
          Circle{{c.col[0][i], c.col[1][i]}, c.col[2][i]}, r, boundary);
      if (got.hit[i] != want.hit || got.relation[i] != want.relation ||
          !BitEq(got.separation[i], want.separation)) {
        ++bad;
      }
    }
    EXPECT_EQ(bad, 0u);
  }
}

TEST_P(SimdRotationTest, AngleKernelOnQuarterTurnsEqualsTheFullScalarPath) {
  // Quarter turns snap exactly, so even touching cases agree with scalar
  // RotationFromAngle + IntersectCircleRotatedRect.
  const AngleCase c = MakeAngleCase(200'000, 8, Mix::kAdversarial, true);
  const size_t n = c.rows();
  size_t touching = 0;
  for (int bi = 0; bi < 2; ++bi) {
    const Boundary boundary = static_cast<Boundary>(bi);
    Answers got(n);
    simd::IntersectCircleRotatedRectAngleColumns(c.Ball(), c.Rect(), n,
                                                 boundary, got.Outputs());
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      RotatedRect r;
      r.size = {c.col[3][i], c.col[4][i]};
      r.pivot = {c.col[5][i], c.col[6][i]};
      r.position = {c.col[7][i], c.col[8][i]};
      r.rotation = RotationFromAngle(c.col[9][i]);
      const IntersectResult want = IntersectCircleRotatedRect(
          Circle{{c.col[0][i], c.col[1][i]}, c.col[2][i]}, r, boundary);
      touching += want.relation == Relation::kTouching;
      if (got.hit[i] != want.hit || got.relation[i] != want.relation ||
          !BitEq(got.separation[i], want.separation)) {
        ++bad;
      }
    }
    EXPECT_EQ(bad, 0u);
  }
  EXPECT_GT(touching, 1000u);
}

}  // namespace
}  // namespace collision
