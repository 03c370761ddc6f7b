// The columnar builders without a server: grouping by kind, answers back in
// the order added, bit helpers.
#include "collision/client/columns.h"

#include "collision/client/shapes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

namespace c = collision::client;

TEST(Bits, LeastSignificantBitFirstAndFalsePastTheEnd) {
  const std::string bits = {char(0b00000101), char(0b10000000)};
  EXPECT_TRUE(c::BitAt(bits, 0));
  EXPECT_FALSE(c::BitAt(bits, 1));
  EXPECT_TRUE(c::BitAt(bits, 2));
  EXPECT_TRUE(c::BitAt(bits, 15));
  EXPECT_FALSE(c::BitAt(bits, 16));
  EXPECT_EQ(c::CountBits(bits, 16), 3u);
  EXPECT_EQ(c::UnpackBits(bits, 3), (std::vector<bool>{true, false, true}));
}

TEST(IntersectColumnsBatch, GroupsByKindAndPutsTheBallFirst) {
  c::IntersectColumnsBatch b;
  ASSERT_TRUE(
      b.Add(c::Circle(1, 2, 3), c::RectFromMinMax(0, 0, 4, 4)).status().ok());
  ASSERT_TRUE(
      b.Add(c::RectFromMinMax(5, 5, 6, 6), c::Point(7, 8)).status().ok());
  ASSERT_TRUE(b.Add(c::Point(0, 0), c::Circle(1, 1, 1)).status().ok());
  ASSERT_TRUE(
      b.Add(c::Point(0, 0), c::RotatedRectFromPivot(2, 2, 1, 1, 0, 0, 0.5f))
          .status()
          .ok());
  ASSERT_TRUE(b.Add(c::Point(0, 0),
                    c::RotatedRectFromPivotCosSin(2, 2, 1, 1, 0, 0, 0, 1))
                  .status()
                  .ok());
  ASSERT_TRUE(b.Add(c::BoxFromMinMax(0, 0, 0, 1, 1, 1), c::Sphere(2, 2, 2, 1))
                  .status()
                  .ok());
  EXPECT_EQ(b.size(), 6u);
  const v1::IntersectColumnsRequest& r = b.request();
  EXPECT_EQ(r.boundary(), v1::BOUNDARY_RULE_INCLUSIVE);
  ASSERT_EQ(r.groups_size(), 5);  // circle_rect x2, circle_circle, rr x2, sb
  const v1::CircleRectColumns& cr = r.groups(0).circle_rect();
  EXPECT_THAT(cr.a().x(), ::testing::ElementsAre(1, 7));
  EXPECT_THAT(cr.a().radius(), ::testing::ElementsAre(3, 0));
  EXPECT_THAT(cr.b().max_x(), ::testing::ElementsAre(4, 6));
  // Angle and cos/sin rotations never share a group.
  EXPECT_EQ(r.groups(2).circle_rotated_rect().b().angle_size(), 1);
  EXPECT_EQ(r.groups(3).circle_rotated_rect().b().cos_size(), 1);
  EXPECT_EQ(r.groups(3).circle_rotated_rect().b().angle_size(), 0);
  EXPECT_EQ(r.groups(4).sphere_box().b().max_z(0), 1);
}

TEST(IntersectColumnsBatch, LeavesUnsupportedPairsOutAndKeepsTheFirstError) {
  c::IntersectColumnsBatch b;
  b.Add(c::Point(0, 0), c::Sphere(0, 0, 0, 1))
      .Add(c::RectFromMinMax(0, 0, 1, 1),
           c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, 0));
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  // The first one, named as the schema names the shapes.
  EXPECT_THAT(b.status().message(),
              ::testing::HasSubstr(
                  "pair 0: no columnar form for a point and a sphere"));
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.request().groups_size(), 0);
  // A typed adder takes floats like every other adder.
  c::IntersectColumnsBatch boxes;
  boxes.AddBoxBox(0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3);
  EXPECT_TRUE(boxes.status().ok());
  EXPECT_THAT(boxes.request().groups(0).box_box().b().max_z(),
              ::testing::ElementsAre(3));
}

TEST(IntersectColumnsBatch, UnpackReturnsAnswersInTheOrderAdded) {
  c::IntersectColumnsBatch b;
  b.WithRelation().WithSeparation();
  b.AddCircleRect(0, 0, 1, 5, 5, 6, 6);  // group 0, index 0
  b.AddCircleCircle(0, 0, 1, 1, 0, 1);   // group 1, index 0
  b.AddCircleRect(5, 5, 1, 5, 5, 6, 6);  // group 0, index 1
  v1::IntersectColumnsResponse resp;
  auto* g0 = resp.add_groups();
  g0->set_count(2);
  g0->set_hit_bits(std::string(1, char(0b10)));
  g0->set_relations(
      std::string{char(v1::RELATION_DISJOINT), char(v1::RELATION_OVERLAPPING)});
  g0->add_separations(5.0f);
  g0->add_separations(-1.0f);
  auto* g1 = resp.add_groups();
  g1->set_count(1);
  g1->set_hit_bits(std::string(1, char(1)));
  g1->set_relations(std::string{char(v1::RELATION_OVERLAPPING)});
  g1->add_separations(-1.0f);
  auto answers = b.Unpack(resp);
  ASSERT_TRUE(answers.ok()) << answers.status();
  ASSERT_EQ(answers->size(), 3u);
  EXPECT_FALSE((*answers)[0].hit);
  EXPECT_EQ((*answers)[0].separation, 5.0f);
  EXPECT_TRUE((*answers)[1].hit);
  EXPECT_TRUE((*answers)[2].hit);
  EXPECT_EQ((*answers)[2].relation, v1::RELATION_OVERLAPPING);

  g1->set_count(2);  // a response of the wrong shape is an error, not UB
  EXPECT_EQ(b.Unpack(resp).status().code(), absl::StatusCode::kInternal);
  resp.mutable_groups()->RemoveLast();
  EXPECT_EQ(b.Unpack(resp).status().code(), absl::StatusCode::kInternal);
}

TEST(ClosestPointColumnsBatch, QueriesGoWithTheirTargetsDimension) {
  c::ClosestPointColumnsBatch b;
  ASSERT_TRUE(
      b.Add(c::Point(1, 2), c::RectFromMinMax(0, 0, 1, 1)).status().ok());
  ASSERT_TRUE(b.Add(c::Sphere(1, 2, 3, 1), c::BoxFromMinMax(0, 0, 0, 1, 1, 1))
                  .status()
                  .ok());
  b.Add(c::Point(0, 0), c::Sphere(0, 0, 0, 1));
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  b.Add(c::RectFromMinMax(0, 0, 1, 1), c::Point(0, 0));
  EXPECT_THAT(b.status().message(), ::testing::HasSubstr("sphere"));
  ASSERT_EQ(b.request().groups_size(), 2);
  EXPECT_TRUE(b.request().groups(0).has_rects());
  EXPECT_EQ(b.request().groups(0).queries2().x(0), 1);
  EXPECT_TRUE(b.request().groups(1).has_boxes());
  EXPECT_EQ(b.request().groups(1).queries3().z(0), 3);
  b.Exclusive();
  EXPECT_EQ(b.request().boundary(), v1::BOUNDARY_RULE_EXCLUSIVE);
}

}  // namespace
}  // namespace collision
