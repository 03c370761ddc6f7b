// Every Intersect kernel on every Highway target compiled into the library,
// against the scalar reference: hits, relations and separations bit-equal.
#include <cstdint>
#include <functional>
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

constexpr size_t kRandomPairs = 1'000'003;  // not a multiple of any lane count
constexpr size_t kAdversarialPairs = 200'000;

using Kernel = std::function<void(const Columns&, size_t, Boundary,
                                  const simd::IntersectOutputs&)>;

struct Case {
  Columns cols{0};
  std::vector<IntersectResult> want[2];  // by Boundary
};

// Draw helper: appends (a, b) and answers both boundary rules.
template <class A, class B, class PutA, class PutB, class Scalar>
void DrawWith(Columns& c, const A& a, const B& b, PutA put_a, PutB put_b,
              Scalar scalar, IntersectResult* both) {
  (c.*put_a)(a);
  (c.*put_b)(b);
  c.EndRow();
  // Relation and separation do not depend on the boundary rule; only the
  // hit does (IsHit), so one scalar call answers both rules.
  both[0] = scalar(a, b, Boundary::kInclusive);
  both[1] = both[0];
  both[1].hit = IsHit(both[0].relation, Boundary::kExclusive);
}

// Builds n pairs of a kind and their scalar answers under both rules.
using Drawer = std::function<void(Gen&, Columns&, IntersectResult*)>;

Case Build(size_t num_cols, size_t n, uint64_t seed, Mix mix,
           const Drawer& draw) {
  Case c;
  c.cols = Columns(num_cols);
  c.cols.Reserve(n);
  Gen g(seed, mix);
  c.want[0].reserve(n);
  c.want[1].reserve(n);
  for (size_t i = 0; i < n; ++i) {
    IntersectResult both[2];
    draw(g, c.cols, both);
    c.want[0].push_back(both[0]);
    c.want[1].push_back(both[1]);
  }
  return c;
}

struct KindSpec {
  const char* name;
  size_t num_cols;
  Drawer draw;
  Kernel kernel;
};

const std::vector<KindSpec>& Specs() {
  static const std::vector<KindSpec> specs = [] {
    std::vector<KindSpec> s;
    s.push_back({"CircleCircle", 6,
                 [](Gen& g, Columns& c, IntersectResult* both) {
                   DrawWith(c, g.Ball2(), g.Ball2(), &Columns::Ball2,
                            &Columns::Ball2, IntersectCircleCircle, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::IntersectOutputs& o) {
                   simd::IntersectCircleCircleColumns(c.B2(0), c.B2(3), n, b,
                                                      o);
                 }});
    s.push_back({"CircleRect", 7,
                 [](Gen& g, Columns& c, IntersectResult* both) {
                   DrawWith(c, g.Ball2(), g.RectShape(), &Columns::Ball2,
                            &Columns::RectShape, IntersectCircleRect, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::IntersectOutputs& o) {
                   simd::IntersectCircleRectColumns(c.B2(0), c.R(3), n, b, o);
                 }});
    s.push_back(
        {"CircleRotatedRect", 11,
         [](Gen& g, Columns& c, IntersectResult* both) {
           DrawWith(c, g.Ball2(), g.Rotated(), &Columns::Ball2,
                    &Columns::Rotated, IntersectCircleRotatedRect, both);
         },
         [](const Columns& c, size_t n, Boundary b,
            const simd::IntersectOutputs& o) {
           simd::IntersectCircleRotatedRectColumns(c.B2(0), c.RR(3), n, b, o);
         }});
    s.push_back({"RectRect", 8,
                 [](Gen& g, Columns& c, IntersectResult* both) {
                   DrawWith(c, g.RectShape(), g.RectShape(),
                            &Columns::RectShape, &Columns::RectShape,
                            IntersectRectRect, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::IntersectOutputs& o) {
                   simd::IntersectRectRectColumns(c.R(0), c.R(4), n, b, o);
                 }});
    s.push_back({"SphereSphere", 8,
                 [](Gen& g, Columns& c, IntersectResult* both) {
                   DrawWith(c, g.Ball3(), g.Ball3(), &Columns::Ball3,
                            &Columns::Ball3, IntersectSphereSphere, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::IntersectOutputs& o) {
                   simd::IntersectSphereSphereColumns(c.B3(0), c.B3(4), n, b,
                                                      o);
                 }});
    s.push_back({"SphereBox", 10,
                 [](Gen& g, Columns& c, IntersectResult* both) {
                   DrawWith(c, g.Ball3(), g.BoxShape(), &Columns::Ball3,
                            &Columns::BoxShape, IntersectSphereBox, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::IntersectOutputs& o) {
                   simd::IntersectSphereBoxColumns(c.B3(0), c.X(4), n, b, o);
                 }});
    s.push_back({"BoxBox", 12,
                 [](Gen& g, Columns& c, IntersectResult* both) {
                   DrawWith(c, g.BoxShape(), g.BoxShape(), &Columns::BoxShape,
                            &Columns::BoxShape, IntersectBoxBox, both);
                 },
                 [](const Columns& c, size_t n, Boundary b,
                    const simd::IntersectOutputs& o) {
                   simd::IntersectBoxBoxColumns(c.X(0), c.X(6), n, b, o);
                 }});
    return s;
  }();
  return specs;
}

// Cached per kind and mix: the scalar answers are computed once and reused
// for every target.
const Case& CachedCase(size_t kind, Mix mix) {
  static std::vector<std::unique_ptr<Case>> cache(2 * Specs().size());
  std::unique_ptr<Case>& slot = cache[2 * kind + (mix == Mix::kRandom ? 0 : 1)];
  if (!slot) {
    const KindSpec& s = Specs()[kind];
    const size_t n = mix == Mix::kRandom ? kRandomPairs : kAdversarialPairs;
    slot = std::make_unique<Case>(
        Build(s.num_cols, n, 0xC011D3 + 17 * kind + (mix == Mix::kRandom), mix,
              s.draw));
  }
  return *slot;
}

// Runs the kernel on all rows and compares every output with the scalar
// answers; also checks the bitset's bounds and the hit-only path.
void ExpectKernelMatches(const KindSpec& spec, const Case& c) {
  const size_t n = c.cols.rows();
  for (int bi = 0; bi < 2; ++bi) {
    const Boundary boundary = static_cast<Boundary>(bi);
    std::vector<uint8_t> hit(n, 7);
    std::vector<uint8_t> bits((n + 7) / 8 + 1, 0xAA);
    std::vector<Relation> relation(n, static_cast<Relation>(9));
    std::vector<float> sep(n, -123.0f);
    const auto run = [&](const simd::IntersectOutputs& o) {
      spec.kernel(c.cols, n, boundary, o);
    };
    run({hit.data(), bits.data(), relation.data(), sep.data()});
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
      const IntersectResult& w = c.want[bi][i];
      const bool bit = (bits[i / 8] >> (i % 8)) & 1;
      if (hit[i] != w.hit || bit != w.hit || relation[i] != w.relation ||
          !BitEq(sep[i], w.separation)) {
        if (++bad <= 5) {
          ADD_FAILURE() << spec.name << " pair " << i << " boundary " << bi
                        << ": hit " << int{hit[i]} << "/" << bit << " want "
                        << w.hit << ", relation " << int(relation[i])
                        << " want " << int(w.relation) << ", separation "
                        << sep[i] << " want " << w.separation;
        }
      }
    }
    EXPECT_EQ(bad, 0u) << spec.name << " mismatches";
    EXPECT_EQ(bits[(n + 7) / 8], 0xAA) << "wrote past the bitset";
    if (n % 8 != 0) {
      EXPECT_EQ(bits[n / 8] >> (n % 8), 0) << "unused high bits not zero";
    }
    // Hit-and-relation-only path (no separation work).
    std::vector<uint8_t> bits2((n + 7) / 8, 0);
    std::vector<Relation> relation2(n);
    run({nullptr, bits2.data(), relation2.data(), nullptr});
    EXPECT_EQ(bits2, std::vector<uint8_t>(bits.begin(), bits.end() - 1));
    EXPECT_EQ(relation2, relation);
    // Bits-only path (its own loop and, for inclusive hits, its own formula
    // in the ball-box kernels).
    std::vector<uint8_t> bits3((n + 7) / 8 + 1, 0xAA);
    run({nullptr, bits3.data(), nullptr, nullptr});
    EXPECT_EQ(bits3, bits) << spec.name << " bits-only path";
  }
}

class SimdIntersectTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(SimdIntersectTest);

TEST_P(SimdIntersectTest, DispatchesToTheTargetUnderTest) {
  EXPECT_STREQ(simd::TargetName(), hwy::TargetName(GetParam()));
}

TEST_P(SimdIntersectTest, MillionRandomPairsPerKindEqualScalarBitForBit) {
  for (size_t k = 0; k < Specs().size(); ++k) {
    SCOPED_TRACE(Specs()[k].name);
    const Case& c = CachedCase(k, Mix::kRandom);
    ExpectKernelMatches(Specs()[k], c);
  }
}

TEST_P(SimdIntersectTest, AdversarialPairsEqualScalarAndCoverEveryRelation) {
  for (size_t k = 0; k < Specs().size(); ++k) {
    SCOPED_TRACE(Specs()[k].name);
    const Case& c = CachedCase(k, Mix::kAdversarial);
    size_t seen[3] = {0, 0, 0};
    for (const IntersectResult& r : c.want[0]) ++seen[int(r.relation)];
    EXPECT_GT(seen[0], 100u) << "disjoint cases";
    EXPECT_GT(seen[1], 100u) << "touching cases";
    EXPECT_GT(seen[2], 100u) << "overlapping cases";
    ExpectKernelMatches(Specs()[k], c);
  }
}

TEST_P(SimdIntersectTest, EverySizeUpToFourVectorsHandlesTheTail) {
  for (size_t k = 0; k < Specs().size(); ++k) {
    for (size_t n = 0; n <= 70; ++n) {
      SCOPED_TRACE(std::string(Specs()[k].name) + " n=" + std::to_string(n));
      const Case c = Build(Specs()[k].num_cols, n, 99 * n + k,
                           Mix::kAdversarial, Specs()[k].draw);
      if (n == 0) {
        // Nothing to read or write; must not touch the outputs.
        uint8_t bits = 0xAA;
        Specs()[k].kernel(c.cols, 0, Boundary::kInclusive,
                          {nullptr, &bits, nullptr, nullptr});
        EXPECT_EQ(bits, 0xAA);
        continue;
      }
      ExpectKernelMatches(Specs()[k], c);
    }
  }
}

}  // namespace
}  // namespace collision
