// The columnar path gives exactly the answers of the per-pair path for every
// pair kind (same validation, same kernels), on one thread and split across
// two threads; and bad columns are rejected naming the column and index.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <thread>

#include "collision/handlers/columns.h"
#include "collision/handlers/pairs.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace collision::wire {
namespace {

using handlers::HandleClosestPoint;
using handlers::HandleClosestPointColumns;
using handlers::HandleIntersect;
using handlers::HandleIntersectColumns;
using handlers::HandlerContext;
using handlers::kChunk;
using ::testing::HasSubstr;
using ::testing::Not;

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  // Integers and halves make exact touching common.
  float P() { return std::uniform_int_distribution<int>(-40, 40)(rng_) * 0.5f; }
  float L() { return std::uniform_int_distribution<int>(0, 12)(rng_) * 0.5f; }
  float A() { return std::uniform_real_distribution<float>(-7, 7)(rng_); }

 private:
  std::mt19937 rng_;
};

void Vec2(v1::Vec2* v, float x, float y) {
  v->set_x(x);
  v->set_y(y);
}
void Vec3(v1::Vec3* v, float x, float y, float z) {
  v->set_x(x);
  v->set_y(y);
  v->set_z(z);
}

// Builds the same n pairs of one kind in both wire forms.
struct Both {
  v1::IntersectRequest pairs;
  v1::IntersectColumnsRequest columns;
};

Both MakeIntersect(int kind, int n, Gen& g, v1::BoundaryRule rule) {
  Both b;
  b.pairs.set_boundary(rule);
  b.pairs.set_include_relation(true);
  b.pairs.set_include_separation(true);
  b.columns.set_boundary(rule);
  b.columns.set_include_relation(true);
  b.columns.set_include_separation(true);
  v1::IntersectColumnGroup* group = b.columns.add_groups();
  for (int i = 0; i < n; ++i) {
    v1::ShapePair* p = b.pairs.add_pairs();
    const float x = g.P(), y = g.P(), z = g.P(), r = g.L();
    const float x2 = g.P(), y2 = g.P(), z2 = g.P(), w = g.L(), h = g.L(),
                d = g.L();
    switch (kind) {
      case 0: {  // circle-circle; points (no radius) on odd rows
        auto* c = group->mutable_circle_circle();
        c->mutable_a()->add_x(x), c->mutable_a()->add_y(y);
        c->mutable_a()->add_radius(r);
        c->mutable_b()->add_x(x2), c->mutable_b()->add_y(y2);
        c->mutable_b()->add_radius(w);
        p->mutable_a()->mutable_circle()->set_radius(r);
        Vec2(p->mutable_a()->mutable_circle()->mutable_center(), x, y);
        p->mutable_b()->mutable_circle()->set_radius(w);
        Vec2(p->mutable_b()->mutable_circle()->mutable_center(), x2, y2);
        break;
      }
      case 1: {
        auto* c = group->mutable_circle_rect();
        c->mutable_a()->add_x(x), c->mutable_a()->add_y(y);
        c->mutable_a()->add_radius(r);
        c->mutable_b()->add_min_x(x2), c->mutable_b()->add_min_y(y2);
        c->mutable_b()->add_max_x(x2 + w), c->mutable_b()->add_max_y(y2 + h);
        p->mutable_a()->mutable_circle()->set_radius(r);
        Vec2(p->mutable_a()->mutable_circle()->mutable_center(), x, y);
        Vec2(p->mutable_b()->mutable_rect()->mutable_min(), x2, y2);
        Vec2(p->mutable_b()->mutable_rect()->mutable_max(), x2 + w, y2 + h);
        break;
      }
      case 2: {
        const float angle = g.A();
        auto* c = group->mutable_circle_rotated_rect();
        c->mutable_a()->add_x(x), c->mutable_a()->add_y(y);
        c->mutable_a()->add_radius(r);
        auto* rr = c->mutable_b();
        rr->add_size_x(w), rr->add_size_y(h), rr->add_pivot_x(d);
        rr->add_pivot_y(r), rr->add_position_x(x2), rr->add_position_y(y2);
        rr->add_angle(angle);
        p->mutable_a()->mutable_circle()->set_radius(r);
        Vec2(p->mutable_a()->mutable_circle()->mutable_center(), x, y);
        auto* q = p->mutable_b()->mutable_rotated_rect();
        Vec2(q->mutable_size(), w, h);
        Vec2(q->mutable_pivot(), d, r);
        Vec2(q->mutable_position(), x2, y2);
        q->set_angle(angle);
        break;
      }
      case 3: {
        auto* c = group->mutable_rect_rect();
        c->mutable_a()->add_min_x(x), c->mutable_a()->add_min_y(y);
        c->mutable_a()->add_max_x(x + r), c->mutable_a()->add_max_y(y + d);
        c->mutable_b()->add_min_x(x2), c->mutable_b()->add_min_y(y2);
        c->mutable_b()->add_max_x(x2 + w), c->mutable_b()->add_max_y(y2 + h);
        Vec2(p->mutable_a()->mutable_rect()->mutable_min(), x, y);
        Vec2(p->mutable_a()->mutable_rect()->mutable_max(), x + r, y + d);
        Vec2(p->mutable_b()->mutable_rect()->mutable_min(), x2, y2);
        Vec2(p->mutable_b()->mutable_rect()->mutable_max(), x2 + w, y2 + h);
        break;
      }
      case 4: {
        auto* c = group->mutable_sphere_box();
        c->mutable_a()->add_x(x), c->mutable_a()->add_y(y);
        c->mutable_a()->add_z(z), c->mutable_a()->add_radius(r);
        auto* bx = c->mutable_b();
        bx->add_min_x(x2), bx->add_min_y(y2), bx->add_min_z(z2);
        bx->add_max_x(x2 + w), bx->add_max_y(y2 + h), bx->add_max_z(z2 + d);
        p->mutable_a()->mutable_sphere()->set_radius(r);
        Vec3(p->mutable_a()->mutable_sphere()->mutable_center(), x, y, z);
        Vec3(p->mutable_b()->mutable_box()->mutable_min(), x2, y2, z2);
        Vec3(p->mutable_b()->mutable_box()->mutable_max(), x2 + w, y2 + h,
             z2 + d);
        break;
      }
      default: {  // sphere-sphere with 3D points (empty radius column)
        auto* c = group->mutable_sphere_sphere();
        c->mutable_a()->add_x(x), c->mutable_a()->add_y(y);
        c->mutable_a()->add_z(z);
        c->mutable_b()->add_x(x2), c->mutable_b()->add_y(y2);
        c->mutable_b()->add_z(z2), c->mutable_b()->add_radius(w);
        Vec3(p->mutable_a()->mutable_point3(), x, y, z);
        p->mutable_b()->mutable_sphere()->set_radius(w);
        Vec3(p->mutable_b()->mutable_sphere()->mutable_center(), x2, y2, z2);
        break;
      }
    }
  }
  return b;
}

bool Bit(const std::string& bits, int i) {
  return (static_cast<uint8_t>(bits[i / 8]) >> (i % 8)) & 1;
}

// Runs the chunks on two threads at once, alternating, as the server's pool
// may: the answer must not depend on which thread filled which chunk.
HandlerContext Threaded() {
  HandlerContext c;
  c.run = [](std::size_t n,
             const std::function<void(std::size_t, std::size_t)>& body) {
    auto half = [&](std::size_t first) {
      for (std::size_t chunk = first; chunk * kChunk < n; chunk += 2) {
        body(chunk * kChunk, std::min(n, (chunk + 1) * kChunk));
      }
    };
    std::thread other(half, 1);
    half(0);
    other.join();
    return true;
  };
  return c;
}

TEST(Columns, IntersectGivesThePerPairAnswersForEveryKind) {
  Gen g(41);
  for (int kind = 0; kind < 6; ++kind) {
    for (auto rule :
         {v1::BOUNDARY_RULE_INCLUSIVE, v1::BOUNDARY_RULE_EXCLUSIVE}) {
      const int n = 20003;  // three chunks, a partial byte at the end
      const Both b = MakeIntersect(kind, n, g, rule);
      v1::IntersectResponse want;
      ASSERT_TRUE(HandleIntersect(b.pairs, &want, HandlerContext{}).ok());
      for (bool threaded : {false, true}) {
        v1::IntersectColumnsResponse got;
        const absl::Status s = HandleIntersectColumns(
            b.columns, &got, threaded ? Threaded() : HandlerContext{});
        ASSERT_TRUE(s.ok()) << s.message();
        ASSERT_EQ(got.groups(0).count(), static_cast<uint32_t>(n));
        const v1::IntersectColumnsResult& r = got.groups(0);
        for (int i = 0; i < n; ++i) {
          ASSERT_EQ(Bit(r.hit_bits(), i), want.results(i).hit())
              << "kind " << kind << " pair " << i;
          ASSERT_EQ(r.relations()[i], want.results(i).relation()) << i;
          // Same kernels: bit-identical separations.
          ASSERT_EQ(r.separations(i), want.results(i).separation()) << i;
        }
      }
    }
  }
}

TEST(Columns, ClosestPointGivesThePerPairAnswers) {
  Gen g(42);
  v1::ClosestPointRequest pairs;
  pairs.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  v1::ClosestPointColumnsRequest columns;
  columns.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  auto* rects = columns.add_groups();
  auto* boxes = columns.add_groups();
  const int n = 9000;
  for (int i = 0; i < n; ++i) {
    const float x = g.P(), y = g.P(), z = g.P(), w = g.L(), h = g.L();
    rects->mutable_queries2()->add_x(x);
    rects->mutable_queries2()->add_y(y);
    auto* rc = rects->mutable_rects();
    rc->add_min_x(z), rc->add_min_y(z), rc->add_max_x(z + w);
    rc->add_max_y(z + h);
    auto* q = pairs.add_queries();
    Vec2(q->mutable_query()->mutable_point(), x, y);
    Vec2(q->mutable_target()->mutable_rect()->mutable_min(), z, z);
    Vec2(q->mutable_target()->mutable_rect()->mutable_max(), z + w, z + h);
  }
  for (int i = 0; i < n; ++i) {
    const float x = g.P(), y = g.P(), z = g.P(), r = g.L(), w = g.L();
    boxes->mutable_queries3()->add_x(x);
    boxes->mutable_queries3()->add_y(y);
    boxes->mutable_queries3()->add_z(z);
    boxes->mutable_queries3()->add_radius(r);
    auto* bc = boxes->mutable_boxes();
    bc->add_min_x(0), bc->add_min_y(0), bc->add_min_z(0);
    bc->add_max_x(w), bc->add_max_y(w), bc->add_max_z(w);
    auto* q = pairs.add_queries();
    q->mutable_query()->mutable_sphere()->set_radius(r);
    Vec3(q->mutable_query()->mutable_sphere()->mutable_center(), x, y, z);
    Vec3(q->mutable_target()->mutable_box()->mutable_min(), 0, 0, 0);
    Vec3(q->mutable_target()->mutable_box()->mutable_max(), w, w, w);
  }
  v1::ClosestPointResponse want;
  ASSERT_TRUE(HandleClosestPoint(pairs, &want, HandlerContext{}).ok());
  v1::ClosestPointColumnsResponse got;
  const absl::Status s = HandleClosestPointColumns(columns, &got, {});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int gi = 0; gi < 2; ++gi) {
    const v1::ClosestPointColumnsResult& r = got.groups(gi);
    EXPECT_EQ(r.closest_z_size(), gi == 0 ? 0 : n);
    for (int i = 0; i < n; ++i) {
      const v1::ClosestPointResult& w = want.results(gi * n + i);
      ASSERT_EQ(Bit(r.inside_bits(), i), w.inside()) << i;
      ASSERT_EQ(r.closest_x(i), w.closest_point().x()) << i;
      ASSERT_EQ(r.surface_y(i), w.surface_point().y()) << i;
      ASSERT_EQ(r.normal_x(i), w.normal().x()) << i;
      ASSERT_EQ(r.signed_distance(i), w.signed_distance()) << i;
      ASSERT_EQ(r.gap(i), w.gap()) << i;
      if (gi == 1) {
        ASSERT_EQ(r.normal_z(i), w.normal().z()) << i;
      }
    }
  }
}

std::string Reject(const v1::IntersectColumnsRequest& r) {
  v1::IntersectColumnsResponse response;
  const absl::Status s = HandleIntersectColumns(r, &response, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(response.groups_size(), 0);
  return std::string(s.message());
}

TEST(ColumnsValidate, BadColumnsNameTheColumnAndIndex) {
  Gen g(43);
  Both b = MakeIntersect(1, 20, g, v1::BOUNDARY_RULE_INCLUSIVE);
  auto* cr = b.columns.mutable_groups(0)->mutable_circle_rect();
  cr->mutable_a()->set_radius(7, -1);
  EXPECT_THAT(
      Reject(b.columns),
      HasSubstr("groups[0].circle_rect.a.radius[7] must be >= 0, got -1"));
  cr->mutable_a()->set_radius(7, 1);
  cr->mutable_b()->set_max_x(3, cr->b().min_x(3) - 1);
  EXPECT_THAT(
      Reject(b.columns),
      HasSubstr("groups[0].circle_rect.b.max_x[3] must be >= min_x[3]"));
  cr->mutable_b()->set_max_x(3, cr->b().min_x(3));
  cr->mutable_a()->set_y(5, std::numeric_limits<float>::quiet_NaN());
  EXPECT_THAT(
      Reject(b.columns),
      HasSubstr("groups[0].circle_rect.a.y[5] must be finite, got nan"));
  cr->mutable_a()->set_y(5, 2e9f);
  EXPECT_THAT(
      Reject(b.columns),
      HasSubstr("groups[0].circle_rect.a.y[5] must be within [-1e9, 1e9]"));
  cr->mutable_a()->set_y(5, 0);
  cr->mutable_b()->mutable_min_y()->RemoveLast();
  EXPECT_THAT(
      Reject(b.columns),
      HasSubstr("groups[0].circle_rect.b.min_y has 19 values, expected 20"));
}

TEST(ColumnsValidate, OrientationKindAndDimensionRules) {
  Gen g(44);
  Both b = MakeIntersect(2, 4, g, v1::BOUNDARY_RULE_INCLUSIVE);
  auto* rr =
      b.columns.mutable_groups(0)->mutable_circle_rotated_rect()->mutable_b();
  for (int i = 0; i < 4; ++i) rr->add_cos(1), rr->add_sin(0);
  EXPECT_THAT(Reject(b.columns), HasSubstr("not both"));
  rr->clear_angle();
  rr->set_sin(2, 0.5f);
  EXPECT_THAT(Reject(b.columns),
              HasSubstr("(cos[2], sin[2]) must have unit length"));
  rr->set_sin(2, 0);
  v1::IntersectColumnsResponse ok;
  EXPECT_TRUE(HandleIntersectColumns(b.columns, &ok, {}).ok());

  b.columns.set_boundary(v1::BOUNDARY_RULE_UNSPECIFIED);
  EXPECT_THAT(Reject(b.columns), HasSubstr("boundary is required"));
  b.columns.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  b.columns.add_groups();  // no pair kind set
  EXPECT_THAT(Reject(b.columns), HasSubstr("groups[1] has no pair kind set"));
  b.columns.clear_groups();
  EXPECT_THAT(Reject(b.columns), HasSubstr("groups must not be empty"));
  b.columns.add_groups()->mutable_rect_rect();  // a kind, but no pairs
  EXPECT_THAT(Reject(b.columns), HasSubstr("groups must not be empty"));

  v1::ClosestPointColumnsRequest cp;
  cp.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  auto* group = cp.add_groups();
  group->mutable_queries2()->add_x(0);
  group->mutable_queries2()->add_y(0);
  auto* boxes = group->mutable_boxes();
  boxes->add_min_x(0), boxes->add_min_y(0), boxes->add_min_z(0);
  boxes->add_max_x(1), boxes->add_max_y(1), boxes->add_max_z(1);
  v1::ClosestPointColumnsResponse response;
  const absl::Status s = HandleClosestPointColumns(cp, &response, {});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("groups[0].queries2 must be empty for 3D targets"));
  // One mistake, one message: the boxes' lengths (1, against no queries3)
  // are its consequence, not errors of their own.
  EXPECT_THAT(std::string(s.message()), Not(HasSubstr("values, expected")));

  // The same the other way round: 3D queries against 2D targets.
  v1::ClosestPointColumnsRequest flat;
  flat.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  auto* rects_group = flat.add_groups();
  rects_group->mutable_queries3()->add_x(0);
  rects_group->mutable_queries3()->add_y(0);
  rects_group->mutable_queries3()->add_z(0);
  auto* rects = rects_group->mutable_rects();
  rects->add_min_x(0), rects->add_min_y(0), rects->add_max_x(1);
  rects->add_max_y(1);
  const std::string flat_message(
      HandleClosestPointColumns(flat, &response, {}).message());
  EXPECT_THAT(flat_message,
              HasSubstr("groups[0].queries3 must be empty for 2D targets"));
  EXPECT_THAT(flat_message, Not(HasSubstr("values, expected")));
}

// A rotated-rect group of zero pairs that gives both orientations once
// skipped every check, so NaN, inf, 3e9 and mismatched lengths passed beside
// a valid group.
TEST(ColumnsValidate, AnEmptyRotatedGroupGivingBothOrientationsIsRejected) {
  Gen g(46);
  Both b = MakeIntersect(2, 4, g, v1::BOUNDARY_RULE_INCLUSIVE);
  auto* empty = b.columns.add_groups()->mutable_circle_rotated_rect();
  auto* rr = empty->mutable_b();
  rr->add_angle(std::numeric_limits<float>::quiet_NaN());
  rr->add_cos(std::numeric_limits<float>::infinity());
  rr->add_sin(3e9f);
  rr->add_sin(0);
  EXPECT_THAT(Reject(b.columns), HasSubstr("groups[1].circle_rotated_rect.b "
                                           "must give the orientation either "
                                           "as angle or as cos and sin, not "
                                           "both"));
  // Neither form is fine for a group with no pairs.
  rr->clear_angle(), rr->clear_cos(), rr->clear_sin();
  v1::IntersectColumnsResponse ok;
  EXPECT_TRUE(HandleIntersectColumns(b.columns, &ok, {}).ok());
  // One form in an empty group: its values are checked (lengths first).
  rr->add_angle(std::numeric_limits<float>::quiet_NaN());
  EXPECT_THAT(Reject(b.columns), HasSubstr("b.angle has 1 values, expected 0"));
}

TEST(ColumnsValidate, TotalPairsCountAgainstTheBatchLimit) {
  Gen g(45);
  Both b = MakeIntersect(0, 6, g, v1::BOUNDARY_RULE_INCLUSIVE);
  *b.columns.add_groups() = b.columns.groups(0);
  v1::IntersectColumnsResponse response;
  HandlerContext c;
  c.limits.max_batch = 11;
  const absl::Status s = HandleIntersectColumns(b.columns, &response, c);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("12 items, over this server's limit of 11"));
}

// As in the per-pair form, an oversized batch is refused on its size alone:
// its elements are not looked at (that would cost work for every one).
TEST(ColumnsValidate, AnOversizedBatchIsRefusedBeforeItsElements) {
  Gen g(46);
  Both b = MakeIntersect(0, 12, g, v1::BOUNDARY_RULE_UNSPECIFIED);
  b.columns.mutable_groups(0)->mutable_circle_circle()->mutable_a()->set_x(
      3, std::numeric_limits<float>::quiet_NaN());
  HandlerContext c;
  c.limits.max_batch = 11;
  v1::IntersectColumnsResponse response;
  const std::string message(
      HandleIntersectColumns(b.columns, &response, c).message());
  EXPECT_THAT(message, HasSubstr("12 items, over this server's limit of 11"));
  EXPECT_THAT(message, Not(HasSubstr("finite")));
  EXPECT_THAT(message, Not(HasSubstr("boundary")));
}

}  // namespace
}  // namespace collision::wire
