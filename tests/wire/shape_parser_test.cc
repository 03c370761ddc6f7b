// FastShape (no field paths, for large batches) must accept exactly the
// shapes Parser::ParseShape accepts, and convert them to the same values,
// rotations included: random shapes, valid and invalid field by field.
#include "collision/wire/shape_parser.h"

#include "gtest/gtest.h"
#include "tests/wire/shape_testing.h"

namespace collision::wire {
namespace {

using shape_testing::Fields;
using shape_testing::RandomShape;
using shape_testing::SameBits;

TEST(FastShape, AcceptsExactlyWhatTheParserAcceptsWithTheSameValues) {
  Fields f(3);
  int accepted = 0;
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    v1::Shape s;
    RandomShape(f, &s);
    Shape fast;
    const bool ok = FastShape(s, &fast);
    Violations v;
    Parser parser(&v);
    const std::optional<Shape> slow = parser.ParseShape(true, s, "shape");
    ASSERT_EQ(ok, v.empty()) << s.DebugString() << v.ToStatus();
    if (ok) {
      ASSERT_TRUE(slow.has_value());
      EXPECT_TRUE(SameBits(fast, *slow)) << s.DebugString();
      ++accepted;
    } else {
      ++rejected;
    }
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace collision::wire
