// Workloads are reproducible from their seed and follow the mixes.
#include "tools/workload.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace collision::load {
namespace {

std::string Bytes(const Item& item) {
  if (item.intersect) return item.intersect->SerializeAsString();
  if (item.closest) return item.closest->SerializeAsString();
  if (item.intersect_columns) {
    return item.intersect_columns->request().SerializeAsString();
  }
  return item.closest_columns->request().SerializeAsString();
}

WorkloadOptions Mixed(uint64_t seed) {
  WorkloadOptions o;
  o.seed = seed;
  o.batch = 50;
  o.pool = 12;
  o.ops = *ParseOpMix(
      "intersect_pairs,intersect_columns,intersect_stream,closest_pairs,"
      "closest_columns:2,closest_stream");
  o.kinds = *ParseKindMix(
      "circle_circle,circle_rect,circle_rotated_rect,rect_rect,sphere_sphere,"
      "sphere_box,box_box");
  return o;
}

TEST(Workload, SameSeedGivesTheSameBytesOnTheWire) {
  auto a = Workload::Create(Mixed(5));
  auto b = Workload::Create(Mixed(5));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), 12u);
  for (uint64_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ(Bytes(a->Get(i)), Bytes(b->Get(i))) << i;
    EXPECT_EQ(OpName(a->Get(i).op), OpName(b->Get(i).op));
  }
  EXPECT_EQ(Bytes(a->Get(3)), Bytes(a->Get(3 + 12)));  // the pool cycles
}

TEST(Workload, ADifferentSeedGivesDifferentRequests) {
  auto a = Workload::Create(Mixed(5));
  auto b = Workload::Create(Mixed(6));
  ASSERT_TRUE(a.ok() && b.ok());
  int same = 0;
  for (uint64_t i = 0; i < a->size(); ++i)
    same += Bytes(a->Get(i)) == Bytes(b->Get(i));
  EXPECT_EQ(same, 0);
}

TEST(Workload, ItemsDoNotDependOnThePoolSize) {
  WorkloadOptions small = Mixed(9), large = Mixed(9);
  large.pool = 40;
  auto a = Workload::Create(small);
  auto b = Workload::Create(large);
  ASSERT_TRUE(a.ok() && b.ok());
  for (uint64_t i = 0; i < a->size(); ++i)
    EXPECT_EQ(Bytes(a->Get(i)), Bytes(b->Get(i)));
}

TEST(Workload, EveryItemHasTheBatchSizeAndTheRequestItsOpNeeds) {
  WorkloadOptions o = Mixed(3);
  o.pool = 60;
  o.verify = true;
  auto w = Workload::Create(o);
  ASSERT_TRUE(w.ok()) << w.status();
  int wires[3] = {0, 0, 0};
  for (uint64_t i = 0; i < w->size(); ++i) {
    const Item& item = w->Get(i);
    EXPECT_EQ(item.pairs, 50);
    EXPECT_EQ(item.shapes.size(), 50u);
    ++wires[int(item.op.wire)];
    const bool columns = item.op.wire != Wire::kPairs;
    if (item.op.rpc == Rpc::kIntersect) {
      EXPECT_EQ(item.intersect != nullptr, !columns);
      EXPECT_EQ(item.intersect_columns != nullptr, columns);
      EXPECT_EQ(item.expected_hit.size(), 50u);
    } else {
      EXPECT_EQ(item.closest != nullptr, !columns);
      EXPECT_EQ(item.closest_columns != nullptr, columns);
      EXPECT_EQ(item.expected_closest.size(), 50u);
    }
  }
  EXPECT_GT(wires[0], 0);
  EXPECT_GT(wires[1], 0);
  EXPECT_GT(wires[2], 0);
}

TEST(Workload, MixParsingNamesWhatIsWrong) {
  EXPECT_THAT(ParseOpMix("intersect_pairs,bogus").status().message(),
              ::testing::HasSubstr("bogus"));
  EXPECT_FALSE(ParseOpMix("intersect_pairs:-1").ok());
  EXPECT_FALSE(ParseOpMix("").ok());
  EXPECT_FALSE(ParseKindMix("circle_square").ok());
  auto mix = ParseKindMix("box_box:2.5");
  ASSERT_TRUE(mix.ok());
  EXPECT_EQ((*mix)[0].first, PairKind::kBoxBox);
  EXPECT_EQ((*mix)[0].second, 2.5);
}

}  // namespace
}  // namespace collision::load
