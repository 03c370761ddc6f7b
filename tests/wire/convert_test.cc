// Request validation and the handlers, without a network: every rejected
// input gets INVALID_ARGUMENT naming the item, field and reason, and nothing
// is computed; accepted batches answer like the scalar reference.
#include "collision/wire/convert.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "collision/client/columns.h"
#include "collision/client/shapes.h"
#include "collision/core/scalar.h"
#include "collision/handlers/pairs.h"
#include "collision/wire/columns.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace collision::wire {
namespace {

using handlers::HandleClosestPoint;
using handlers::HandleIntersect;
using handlers::HandleIntersectColumns;
namespace c = collision::client;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

v1::IntersectRequest OnePair(v1::Shape a, v1::Shape b) {
  return c::IntersectBatch().Add(std::move(a), std::move(b)).request();
}

// Runs the handler and returns the status; checks nothing was answered.
absl::Status Reject(const v1::IntersectRequest& request,
                    RequestLimits limits = {}) {
  v1::IntersectResponse response;
  absl::Status s = HandleIntersect(request, &response, limits);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(response.results_size(), 0);
  return s;
}

std::string Message(const v1::IntersectRequest& request) {
  return std::string(Reject(request).message());
}

TEST(Validate, NegativeRadiusNamesTheItemAndField) {
  c::IntersectBatch batch;
  for (int i = 0; i < 17; ++i) batch.Add(c::Point(0, 0), c::Circle(0, 0, 1));
  batch.Add(c::Point(0, 0), c::Circle(0, 0, -1));
  EXPECT_EQ(Message(batch.request()),
            "pairs[17].b.circle.radius must be >= 0, got -1");
}

TEST(Validate, NaNAndInfinityAreRejected) {
  EXPECT_THAT(Message(OnePair(c::Point(kNaN, 0), c::Point(0, 0))),
              HasSubstr("pairs[0].a.point.x must be finite, got nan"));
  EXPECT_THAT(Message(OnePair(c::Point(0, 0), c::Circle(0, kInf, 1))),
              HasSubstr("pairs[0].b.circle.center.y must be finite, got inf"));
  EXPECT_THAT(Message(OnePair(c::Point(0, 0), c::Circle(0, 0, kNaN))),
              HasSubstr("pairs[0].b.circle.radius must be finite"));
  EXPECT_THAT(Message(OnePair(c::Point(0, 0),
                              c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, kNaN))),
              HasSubstr("pairs[0].b.rotated_rect.angle must be finite"));
}

TEST(Validate, MagnitudesBeyondTheBoundAreRejected) {
  EXPECT_THAT(Message(OnePair(c::Point(2e9f, 0), c::Point(0, 0))),
              HasSubstr("pairs[0].a.point.x must be within [-1e9, 1e9]"));
  // A radius whose square would overflow float.
  EXPECT_THAT(Message(OnePair(c::Point(0, 0), c::Circle(0, 0, 1e20f))),
              HasSubstr("pairs[0].b.circle.radius must be within"));
  EXPECT_THAT(Message(OnePair(c::Point(0, 0),
                              c::RotatedRectFromPivot(1, 1, 3e9f, 0, 0, 0, 0))),
              HasSubstr("pairs[0].b.rotated_rect.pivot.x must be within"));
  EXPECT_THAT(
      Message(OnePair(c::Point(0, 0),
                      c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, 1e5f))),
      HasSubstr("pairs[0].b.rotated_rect.angle must be within [-1e4, 1e4]"));
}

TEST(Validate, NegativeSizesAndInvertedBoundsAreRejected) {
  EXPECT_THAT(Message(OnePair(c::Point(0, 0),
                              c::RotatedRectFromPivot(-1, 1, 0, 0, 0, 0, 0))),
              HasSubstr("pairs[0].b.rotated_rect.size.x must be >= 0, got -1"));
  EXPECT_THAT(Message(OnePair(c::Point(0, 0), c::RectFromMinMax(5, 0, 4, 1))),
              HasSubstr("pairs[0].b.rect.max.x must be >= min.x (5), got 4"));
  EXPECT_THAT(
      Message(OnePair(c::Point3(0, 0, 0), c::BoxFromMinMax(0, 0, 3, 1, 1, 2))),
      HasSubstr("pairs[0].b.box.max.z must be >= min.z (3), got 2"));
  EXPECT_THAT(Message(OnePair(c::Point3(0, 0, 0), c::Sphere(0, 0, 0, -2))),
              HasSubstr("pairs[0].b.sphere.radius must be >= 0"));
}

TEST(Validate, UnsetShapesAndMissingFieldsAreRejected) {
  v1::IntersectRequest r = OnePair(c::Point(0, 0), v1::Shape());
  EXPECT_THAT(Message(r), HasSubstr("pairs[0].b has no shape set"));
  r.mutable_pairs(0)->clear_a();
  EXPECT_THAT(Message(r), HasSubstr("pairs[0].a is required"));
  v1::Shape circle;
  circle.mutable_circle()->set_radius(1);
  EXPECT_THAT(Message(OnePair(c::Point(0, 0), circle)),
              HasSubstr("pairs[0].b.circle.center is required"));
  v1::Shape rr = c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, 0);
  rr.mutable_rotated_rect()->clear_orientation();
  EXPECT_THAT(Message(OnePair(c::Point(0, 0), rr)),
              HasSubstr("pairs[0].b.rotated_rect.orientation is required"));
}

TEST(Validate, NonUnitRotationIsRejected) {
  EXPECT_THAT(
      Message(OnePair(c::Point(0, 0),
                      c::RotatedRectFromPivotCosSin(1, 1, 0, 0, 0, 0, 1, 1))),
      HasSubstr("pairs[0].b.rotated_rect.rotation (cos, sin) must have unit"));
}

TEST(Validate, UnsupportedAndMixedDimensionPairsAreRejected) {
  EXPECT_THAT(
      Message(OnePair(c::RectFromMinMax(0, 0, 1, 1),
                      c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, 0))),
      HasSubstr("pairs[0]: rect vs rotated_rect is not a supported pair"));
  EXPECT_THAT(
      Message(OnePair(c::Circle(0, 0, 1), c::Sphere(0, 0, 0, 1))),
      HasSubstr("pairs[0]: circle vs sphere mixes a 2D and a 3D shape"));
}

TEST(Validate, BoundaryRuleMustBeSetAndKnown) {
  v1::IntersectRequest r = OnePair(c::Point(0, 0), c::Point(0, 0));
  r.set_boundary(v1::BOUNDARY_RULE_UNSPECIFIED);
  EXPECT_THAT(Message(r), HasSubstr("boundary is required"));
  r.set_boundary(static_cast<v1::BoundaryRule>(7));
  EXPECT_THAT(Message(r), HasSubstr("boundary has unknown value 7"));
}

// ClosestPoint's rule decides `inside`, not hits: its message says so,
// and the columnar form says the same.
TEST(Validate, ClosestPointsBoundaryMessageTalksAboutInsideNotHits) {
  c::ClosestPointBatch batch;
  batch.Add(c::Point(0, 0), c::Circle(0, 0, 1));
  v1::ClosestPointRequest r = batch.request();
  r.set_boundary(v1::BOUNDARY_RULE_UNSPECIFIED);
  const absl::StatusOr<ParsedClosestPoint> parsed =
      ParseClosestPointRequest(r, {});
  ASSERT_FALSE(parsed.ok());
  const std::string message(parsed.status().message());
  EXPECT_THAT(message, HasSubstr("boundary is required"));
  EXPECT_THAT(message, HasSubstr("exactly on the target's boundary is inside"));
  EXPECT_THAT(message, Not(HasSubstr("hit")));

  // Not empty: like the per-pair form, the batch size is checked first.
  v1::ClosestPointColumnsRequest columns;
  v1::ClosestPointColumnGroup* group = columns.add_groups();
  group->mutable_queries2()->add_x(0);
  group->mutable_queries2()->add_y(0);
  group->mutable_circles()->add_x(0);
  group->mutable_circles()->add_y(0);
  group->mutable_circles()->add_radius(1);
  KindCounts counts{};
  const absl::Status s = ValidateClosestPointColumns(columns, {}, &counts);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("exactly on the target's boundary is inside"));
}

TEST(Validate, EmptyAndOversizedBatchesAreRejected) {
  EXPECT_THAT(Message(c::IntersectBatch().request()),
              HasSubstr("pairs must not be empty"));
  c::IntersectBatch big;
  for (int i = 0; i < 11; ++i) big.Add(c::Point(0, 0), c::Point(0, 0));
  EXPECT_THAT(Reject(big.request(), RequestLimits{10}).message(),
              HasSubstr("pairs has 11 items, over this server's limit of 10"));
}

TEST(Validate, ManyViolationsAreCappedWithACount) {
  c::IntersectBatch batch;
  for (int i = 0; i < 30; ++i) batch.Add(c::Circle(0, 0, -1), c::Point(0, 0));
  const std::string m = Message(batch.request());
  EXPECT_THAT(m, HasSubstr("pairs[0].a.circle.radius"));
  EXPECT_THAT(m, HasSubstr("pairs[9].a.circle.radius"));
  EXPECT_THAT(m, ::testing::Not(HasSubstr("pairs[10]")));
  EXPECT_THAT(m, HasSubstr("and 20 more invalid fields"));
}

// The fields at fault travel beside the message as a BadRequest payload:
// one violation per field, the path and the reason apart.
TEST(Validate, ViolationsCarryFieldAndReasonApart) {
  c::IntersectBatch batch;
  batch.Add(c::Point(0, 0), c::Circle(0, 0, -1));
  batch.Add(c::Circle(0, 0, 1), c::Sphere(0, 0, 0, 1));
  v1::IntersectRequest request = batch.request();
  request.set_boundary(v1::BOUNDARY_RULE_UNSPECIFIED);
  const absl::Status s = Reject(request);
  const v1::BadRequest details = BadRequestOf(s);
  ASSERT_EQ(details.field_violations_size(), 3) << details.DebugString();
  EXPECT_EQ(details.field_violations(0).field(), "boundary");
  EXPECT_THAT(details.field_violations(0).description(),
              ::testing::StartsWith("is required: BOUNDARY_RULE_INCLUSIVE"));
  EXPECT_EQ(details.field_violations(1).field(), "pairs[0].b.circle.radius");
  EXPECT_EQ(details.field_violations(1).description(), "must be >= 0, got -1");
  EXPECT_EQ(details.field_violations(2).field(), "pairs[1]");
  EXPECT_THAT(details.field_violations(2).description(),
              ::testing::StartsWith("circle vs sphere mixes a 2D and a 3D"));
  // The message is the same list for people, item faults after a colon.
  EXPECT_THAT(s.message(), HasSubstr("; pairs[0].b.circle.radius must be >= 0, "
                                     "got -1; pairs[1]: circle vs sphere"));
  // Columns name the column and element the same way.
  c::IntersectColumnsBatch columns;
  columns.AddCircleCircle(0, 0, 1, 2, 0, 1);
  columns.AddCircleCircle(0, 0, -1, 2, 0, 1);
  v1::IntersectColumnsResponse out;
  const v1::BadRequest column_details =
      BadRequestOf(HandleIntersectColumns(columns.request(), &out, {}));
  ASSERT_EQ(column_details.field_violations_size(), 1);
  EXPECT_EQ(column_details.field_violations(0).field(),
            "groups[0].circle_circle.a.radius[1]");
  // Batch-size refusals are a field at fault too.
  EXPECT_EQ(BadRequestOf(Reject(c::IntersectBatch().request()))
                .field_violations(0)
                .field(),
            "pairs");
}

// Hundreds of faults: the details stop at kMaxDetailedViolations (and a byte
// budget) and end with one entry counting the rest, so the trailer stays
// within gRPC's 8 KiB metadata limit.
TEST(Validate, ManyViolationsAreCappedInTheDetailsWithACount) {
  c::IntersectBatch batch;
  for (int i = 0; i < 1000; ++i) batch.Add(c::Circle(0, 0, -1), c::Point(0, 0));
  const absl::Status s = Reject(batch.request());
  const v1::BadRequest details = BadRequestOf(s);
  const int n = details.field_violations_size();
  ASSERT_GE(n, 2);
  EXPECT_LE(n, kMaxDetailedViolations + 1);
  EXPECT_LE(details.ByteSizeLong(), kMaxDetailBytes + 100);
  for (int i = 0; i + 1 < n; ++i) {
    EXPECT_EQ(details.field_violations(i).field(),
              absl::StrCat("pairs[", i, "].a.circle.radius"));
  }
  EXPECT_EQ(details.field_violations(n - 1).field(), "");
  EXPECT_EQ(details.field_violations(n - 1).description(),
            absl::StrCat("and ", 1000 - (n - 1), " more invalid fields"));
  // Long reasons fill the byte budget before the count cap.
  c::IntersectBatch wide;
  for (int i = 0; i < 200; ++i)
    wide.Add(c::Circle(0, 0, 1), c::Sphere(0, 0, 0, 1));
  const v1::BadRequest wide_details = BadRequestOf(Reject(wide.request()));
  EXPECT_LT(wide_details.field_violations_size(), kMaxDetailedViolations);
  EXPECT_LE(wide_details.ByteSizeLong(), kMaxDetailBytes + 100);
}

TEST(Validate, ClosestPointQueryMustBeABallOfTheSameDimension) {
  c::ClosestPointBatch batch;
  batch.Add(c::RectFromMinMax(0, 0, 1, 1), c::Point(0, 0));
  batch.Add(c::Point(0, 0), c::Sphere(0, 0, 0, 1));
  v1::ClosestPointResponse response;
  absl::Status s =
      HandleClosestPoint(batch.request(), &response, RequestLimits{});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("queries[0].query must be a point, circle, point3 or "
                        "sphere, got rect"));
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("queries[1]: query point and target sphere mix"));
  EXPECT_EQ(response.results_size(), 0);
}

// Random valid shapes of every kind, for the handler-vs-reference checks.
class ShapeMaker {
 public:
  explicit ShapeMaker(uint32_t seed) : rng_(seed) {}
  float P() { return std::uniform_real_distribution<float>(-20, 20)(rng_); }
  float L() { return std::uniform_real_distribution<float>(0, 10)(rng_); }
  v1::Shape Make2D(int kind) {
    switch (kind) {
      case 0:
        return c::Point(P(), P());
      case 1:
        return c::Circle(P(), P(), L());
      case 2:
        return c::RectFromCornerSize(P(), P(), L(), L());
      default:
        return c::RotatedRectFromPivot(L(), L(), L(), L(), P(), P(), P());
    }
  }
  v1::Shape Make3D(int kind) {
    switch (kind) {
      case 0:
        return c::Point3(P(), P(), P());
      case 1:
        return c::Sphere(P(), P(), P(), L());
      default:
        return c::BoxFromCenterHalfExtents(P(), P(), P(), L(), L(), L());
    }
  }
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

 private:
  std::mt19937 rng_;
};

TEST(Handler, IntersectAnswersEveryPairLikeTheReference) {
  ShapeMaker m(31);
  c::IntersectBatch batch;
  batch.Exclusive().WithRelation().WithSeparation();
  while (batch.size() < 5000) {
    const bool three_d = m.Pick(2) == 1;
    v1::Shape a = three_d ? m.Make3D(m.Pick(3)) : m.Make2D(m.Pick(4));
    v1::Shape b = three_d ? m.Make3D(m.Pick(3)) : m.Make2D(m.Pick(4));
    batch.Add(a, b);
  }
  // Drop unsupported pairs by asking the parser which ones they are.
  v1::IntersectRequest request = batch.request();
  v1::IntersectRequest supported = request;
  supported.clear_pairs();
  v1::IntersectRequest one;
  one.set_boundary(request.boundary());
  for (const v1::ShapePair& p : request.pairs()) {
    one.clear_pairs();
    *one.add_pairs() = p;
    if (ParseIntersectRequest(one, {}).ok()) *supported.add_pairs() = p;
  }
  ASSERT_GT(supported.pairs_size(), 3000);
  absl::StatusOr<ParsedIntersect> parsed = ParseIntersectRequest(supported, {});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  v1::IntersectResponse response;
  ASSERT_TRUE(HandleIntersect(supported, &response, RequestLimits{}).ok());
  ASSERT_EQ(response.results_size(), supported.pairs_size());
  for (int i = 0; i < response.results_size(); ++i) {
    const ShapePair& p = parsed->pairs[i];
    const IntersectResult want = Intersect(p.a, p.b, Boundary::kExclusive);
    const v1::IntersectResult& got = response.results(i);
    ASSERT_EQ(got.hit(), want.hit) << i;
    ASSERT_EQ(got.relation(), static_cast<int>(want.relation) + 1) << i;
    ASSERT_NEAR(got.separation(), want.separation,
                1e-5f * (1 + std::fabs(want.separation)))
        << i;
  }
}

TEST(Handler, RelationAndSeparationOnlyWhenAskedFor) {
  v1::IntersectResponse response;
  ASSERT_TRUE(HandleIntersect(OnePair(c::Circle(0, 0, 1), c::Point(3, 0)),
                              &response, RequestLimits{})
                  .ok());
  EXPECT_EQ(response.results(0).relation(), v1::RELATION_UNSPECIFIED);
  EXPECT_EQ(response.results(0).separation(), 0.0f);
}

TEST(Handler, ClosestPointAnswersLikeTheReference) {
  ShapeMaker m(32);
  c::ClosestPointBatch batch;
  for (int i = 0; i < 3000; ++i) {
    if (m.Pick(2) == 0) {
      batch.Add(m.Make2D(m.Pick(2)), m.Make2D(m.Pick(4)));
    } else {
      batch.Add(m.Make3D(m.Pick(2)), m.Make3D(m.Pick(3)));
    }
  }
  absl::StatusOr<ParsedClosestPoint> parsed =
      ParseClosestPointRequest(batch.request(), {});
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  v1::ClosestPointResponse response;
  ASSERT_TRUE(
      HandleClosestPoint(batch.request(), &response, RequestLimits{}).ok());
  ASSERT_EQ(response.results_size(), 3000);
  for (int i = 0; i < 3000; ++i) {
    const ClosestPointItem& item = parsed->items[i];
    const ClosestPointResult want =
        ClosestPoint(item.query, item.target, Boundary::kInclusive);
    const v1::ClosestPointResult& got = response.results(i);
    ASSERT_EQ(got.inside(), want.inside) << i;
    ASSERT_NEAR(got.signed_distance(), want.signed_distance, 1e-4f) << i;
    ASSERT_NEAR(got.gap(), want.gap, 1e-4f) << i;
    ASSERT_NEAR(got.closest_point().x(), want.closest_point.x, 1e-4f) << i;
    ASSERT_NEAR(got.surface_point().y(), want.surface_point.y, 1e-4f) << i;
    ASSERT_NEAR(got.normal().x(), want.normal.x, 1e-4f) << i;
    ASSERT_NEAR(got.normal().z(), want.normal.z, 1e-4f) << i;
  }
}

}  // namespace
}  // namespace collision::wire
