// The per-pair requests decoded straight from their bytes (pair_wire.h)
// against the message path (parse, HandleIntersect / HandleClosestPoint,
// serialize), which stays the reference: whatever the decoder takes must be
// accepted by the message path and answered with the very same bytes; what
// protobuf itself serializes validly must be taken; and what it would merge
// or ignore must be left to the message path.
#include "collision/wire/pair_wire.h"

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "collision/handlers/pairs.h"
#include "gtest/gtest.h"
#include "tests/wire/shape_testing.h"

namespace collision::wire {
namespace {

using handlers::DecodeClosestPoint;
using handlers::DecodeIntersect;
using handlers::DecodeQueryStreamMessage;
using handlers::HandleClosestPoint;
using handlers::HandleIntersect;
using handlers::HandlerContext;
using shape_testing::Fields;
using shape_testing::RandomClosestPoint;
using shape_testing::RandomIntersect;

// What each path made of one request's bytes.
struct Answers {
  bool parsed = false;
  absl::Status status;    // the message path's
  std::string reference;  // the message path's response bytes
  bool decoded = false;
  std::string fast;  // the decoder's response bytes
};

template <typename Request, typename Response, typename Handle, typename Decode>
Answers Run(const std::string& bytes, Handle handle, Decode decode,
            const RequestLimits& limits) {
  Answers a;
  Request request;
  a.parsed = request.ParseFromString(bytes);
  if (a.parsed) {
    Response response;
    a.status = handle(request, &response, HandlerContext{limits});
    if (a.status.ok()) a.reference = response.SerializeAsString();
  }
  const auto decoded = decode(bytes, limits);
  a.decoded = decoded != nullptr;
  if (a.decoded) {
    EXPECT_TRUE(decoded->Serve(HandlerContext{limits}, &a.fast).ok());
  }
  return a;
}

Answers RunIntersect(const std::string& bytes, const RequestLimits& limits) {
  return Run<v1::IntersectRequest, v1::IntersectResponse>(
      bytes,
      [](const auto& q, auto* r, const HandlerContext& c) {
        return HandleIntersect(q, r, c);
      },
      &DecodeIntersect, limits);
}

Answers RunClosestPoint(const std::string& bytes, const RequestLimits& limits) {
  return Run<v1::ClosestPointRequest, v1::ClosestPointResponse>(
      bytes,
      [](const auto& q, auto* r, const HandlerContext& c) {
        return HandleClosestPoint(q, r, c);
      },
      &DecodeClosestPoint, limits);
}

// Taken by the decoder => accepted by the message path, same bytes.
::testing::AssertionResult TakenMeansSame(const Answers& a) {
  if (!a.decoded) return ::testing::AssertionSuccess();
  if (!a.parsed) return ::testing::AssertionFailure() << "did not parse";
  if (!a.status.ok()) {
    return ::testing::AssertionFailure()
           << "message path rejected it: " << a.status.message();
  }
  if (a.fast != a.reference) {
    return ::testing::AssertionFailure() << "response bytes differ";
  }
  return ::testing::AssertionSuccess();
}

// Requests of 0-6 items with one invalid value in a hundred; many pairs
// are of kinds that do not go together.
TEST(PairWire, IntersectTakesExactlyWhatTheMessagePathAccepts) {
  Fields f(11, /*odds=*/100);
  std::mt19937 rng(12);
  int taken = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string bytes = RandomIntersect(f, rng);
    const Answers a = RunIntersect(bytes, RequestLimits{});
    ASSERT_TRUE(TakenMeansSame(a));
    // Protobuf's own encoding of a valid request is always taken.
    ASSERT_EQ(a.decoded, a.status.ok()) << a.status.message();
    taken += a.decoded;
  }
  EXPECT_GT(taken, 500);
}

TEST(PairWire, ClosestPointTakesExactlyWhatTheMessagePathAccepts) {
  Fields f(21, /*odds=*/100);
  std::mt19937 rng(22);
  int taken = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string bytes = RandomClosestPoint(f, rng);
    const Answers a = RunClosestPoint(bytes, RequestLimits{});
    ASSERT_TRUE(TakenMeansSame(a));
    ASSERT_EQ(a.decoded, a.status.ok()) << a.status.message();
    taken += a.decoded;
  }
  EXPECT_GT(taken, 300);
}

TEST(PairWire, TheBatchLimitIsLeftToTheMessagePath) {
  v1::IntersectRequest r;
  r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  for (int i = 0; i < 3; ++i) {
    r.add_pairs()->mutable_a()->mutable_point();
    r.mutable_pairs(i)->mutable_b()->mutable_point();
  }
  const std::string bytes = r.SerializeAsString();
  EXPECT_TRUE(RunIntersect(bytes, RequestLimits{3}).decoded);
  const Answers over = RunIntersect(bytes, RequestLimits{2});
  EXPECT_FALSE(over.decoded);
  EXPECT_EQ(over.status.code(), absl::StatusCode::kInvalidArgument);
}

// Concatenated encodings are one merged message for protobuf: items add
// up and the last boundary and flags win. The decoder follows.
TEST(PairWire, ConcatenatedRequestsAreTakenAsProtobufMergesThem) {
  Fields f(31, /*odds=*/100);
  std::mt19937 rng(32);
  int taken = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string bytes = RandomIntersect(f, rng) + RandomIntersect(f, rng);
    const Answers a = RunIntersect(bytes, RequestLimits{});
    ASSERT_TRUE(TakenMeansSame(a));
    ASSERT_EQ(a.decoded, a.status.ok());
    taken += a.decoded;
  }
  EXPECT_GT(taken, 20);
}

// Valid requests, written the way protobuf would merge or ignore: the
// message path accepts each, and the decoder leaves each to it.
TEST(PairWire, FieldsProtobufWouldMergeOrIgnoreAreLeftToTheMessagePath) {
  // pairs[0]: a = circle (center given in two pieces), b = point.
  const std::string center_x = std::string("\x0d", 1) + std::string(4, '\0');
  const std::string center_y("\x15\x00\x00\x80\x3f", 5);  // y = 1
  const std::string circle = "\x0a" + std::string(1, char(center_x.size())) +
                             center_x + "\x0a" +
                             std::string(1, char(center_y.size())) + center_y;
  const std::string a = "\x12" + std::string(1, char(circle.size())) + circle;
  // The same circle with its center in one piece.
  const std::string plain_circle =
      "\x0a" + std::string(1, char(center_y.size())) + center_y;
  const std::string plain_a =
      "\x12" + std::string(1, char(plain_circle.size())) + plain_circle;
  const std::string b("\x0a\x00", 2);
  auto pair = [](const std::string& first, const std::string& second) {
    const std::string body = "\x0a" + std::string(1, char(first.size())) +
                             first + "\x12" +
                             std::string(1, char(second.size())) + second;
    return "\x0a" + std::string(1, char(body.size())) + body;
  };
  const std::string rule("\x10\x01", 2);
  const std::string merged_center = pair(a, b) + rule;
  // A pair with `a` given twice (merged into one shape).
  const std::string twice = [&] {
    const std::string body = "\x0a" + std::string(1, char(plain_a.size())) +
                             plain_a + "\x0a" +
                             std::string(1, char(plain_a.size())) + plain_a +
                             "\x12" + std::string(1, char(b.size())) + b;
    return "\x0a" + std::string(1, char(body.size())) + body + rule;
  }();
  // An unknown field (number 9, varint) at the top.
  const std::string unknown =
      pair(plain_a, b) + rule + std::string("\x48\x05", 2);
  // A radius sent as a varint: an unknown field to protobuf.
  const std::string radius_varint = [&] {
    const std::string c = plain_circle + std::string("\x10\x03", 2);
    const std::string shape = "\x12" + std::string(1, char(c.size())) + c;
    return pair(shape, b) + rule;
  }();
  EXPECT_TRUE(RunIntersect(pair(plain_a, b) + rule, RequestLimits{}).decoded);
  for (const std::string& bytes :
       {merged_center, twice, unknown, radius_varint}) {
    const Answers answers = RunIntersect(bytes, RequestLimits{});
    EXPECT_TRUE(answers.parsed);
    EXPECT_TRUE(answers.status.ok()) << answers.status.message();
    EXPECT_FALSE(answers.decoded);
  }

  // A rotated rect with both an angle and a rotation: the last one wins.
  v1::RotatedRect with_angle;
  with_angle.mutable_size()->set_x(1);
  with_angle.mutable_pivot();
  with_angle.mutable_position();
  with_angle.set_angle(0.5f);
  v1::RotatedRect with_rotation;
  with_rotation.mutable_rotation()->set_cos(1);
  const std::string rotated =
      with_angle.SerializeAsString() + with_rotation.SerializeAsString();
  const std::string shape =
      "\x22" + std::string(1, char(rotated.size())) + rotated;
  const Answers both = RunIntersect(pair(shape, b) + rule, RequestLimits{});
  EXPECT_TRUE(both.status.ok()) << both.status.message();
  EXPECT_FALSE(both.decoded);
}

// Broken bytes: flipped, dropped and cut anywhere. Nothing crashes, and
// what the decoder still takes answers like the message path.
TEST(PairWire, DamagedBytesAreTakenOnlyWhenTheMessagePathAgrees) {
  Fields f(41, /*odds=*/100);
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i) {
    const bool closest = i % 2 == 1;
    std::string bytes =
        closest ? RandomClosestPoint(f, rng) : RandomIntersect(f, rng);
    if (bytes.empty()) continue;
    std::uniform_int_distribution<std::size_t> at(0, bytes.size() - 1);
    switch (i % 3) {
      case 0:
        bytes[at(rng)] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:
        bytes.erase(at(rng), 1);
        break;
      default:
        bytes.resize(at(rng));
        break;
    }
    const Answers a = closest ? RunClosestPoint(bytes, RequestLimits{})
                              : RunIntersect(bytes, RequestLimits{});
    ASSERT_TRUE(TakenMeansSame(a));
  }
}

// A QueryStream message with a per-pair query is taken and answered with
// the QueryStreamResponse the message path serializes; other messages, and
// a query given twice, are left to it.
TEST(PairWire, StreamMessagesWithPerPairQueriesAreTakenWhole) {
  Fields f(71, /*odds=*/100);
  std::mt19937 rng(72);
  int taken = 0;
  for (int i = 0; i < 4000; ++i) {
    v1::QueryStreamRequest m;
    m.set_sequence(i % 3 == 0 ? 0 : uint64_t{rng()} << (i % 40));
    const bool closest = i % 2 == 1;
    if (closest) {
      m.mutable_closest_point()->ParseFromString(RandomClosestPoint(f, rng));
    } else {
      m.mutable_intersect()->ParseFromString(RandomIntersect(f, rng));
    }
    v1::QueryStreamResponse reference;
    reference.set_sequence(m.sequence());
    const absl::Status s =
        closest ? HandleClosestPoint(m.closest_point(),
                                     reference.mutable_closest_point(),
                                     HandlerContext{})
                : HandleIntersect(m.intersect(), reference.mutable_intersect(),
                                  HandlerContext{});
    const std::string bytes = m.SerializeAsString();
    const auto decoded = DecodeQueryStreamMessage(bytes, RequestLimits{});
    ASSERT_EQ(decoded != nullptr, s.ok());
    if (decoded == nullptr) continue;
    std::string fast;
    ASSERT_TRUE(decoded->Serve(HandlerContext{}, &fast).ok());
    ASSERT_EQ(fast, reference.SerializeAsString());
    ++taken;
    // The same query twice in one message (protobuf merges the two).
    v1::QueryStreamRequest again = m;
    again.clear_sequence();
    EXPECT_EQ(DecodeQueryStreamMessage(bytes + again.SerializeAsString(),
                                       RequestLimits{}),
              nullptr);
  }
  EXPECT_GT(taken, 100);  // 153 with these seeds
  v1::QueryStreamRequest columns;
  columns.mutable_intersect_columns()->set_boundary(
      v1::BOUNDARY_RULE_INCLUSIVE);
  EXPECT_EQ(DecodeQueryStreamMessage(columns.SerializeAsString(), {}), nullptr);
}

// The encoders on their own, on the values where proto3 is particular:
// +0 is not written, -0 and NaN are; relations of every value; absent
// flags leave their fields out.
TEST(PairWire, ResponsesAreEncodedAsProtobufSerializesThem) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float special[] = {0.0f, -0.0f, 1.5f, -3e-39f, nan, 1e9f};
  std::vector<IntersectResult> hits;
  std::vector<ClosestPointResult> closest;
  for (float x : special) {
    for (Relation rel :
         {Relation::kDisjoint, Relation::kTouching, Relation::kOverlapping}) {
      hits.push_back({rel != Relation::kDisjoint, rel, x});
    }
    ClosestPointResult c;
    c.closest_point = {x, 0.0f, -x};
    c.surface_point = {0.0f, 0.0f, 0.0f};
    c.normal = {-0.0f, x, 1.0f};
    c.signed_distance = x;
    c.gap = -x;
    c.inside = std::signbit(x);
    closest.push_back(c);
  }
  for (bool relation : {false, true}) {
    for (bool separation : {false, true}) {
      ParsedIntersect request;
      request.include_relation = relation;
      request.include_separation = separation;
      v1::IntersectResponse message;
      FillIntersectResponse(request, hits, &message);
      std::string bytes;
      EncodeIntersectResponse(request, hits, &bytes);
      EXPECT_EQ(bytes, message.SerializeAsString());
    }
  }
  v1::ClosestPointResponse message;
  FillClosestPointResponse(closest, &message);
  std::string bytes;
  EncodeClosestPointResponse(closest, &bytes);
  EXPECT_EQ(bytes, message.SerializeAsString());
}

}  // namespace
}  // namespace collision::wire
