// The count on the bytes (wire_precheck.h): which requests it refuses, with
// what text, and that it stops reading once the limit is passed.
#include <string>

#include "collision/wire/wire_precheck.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"

namespace collision::wire {
namespace {

using ::testing::HasSubstr;

// `n` empty items (field 1, length 0), then `tail`.
std::string Items(int n, const std::string& tail = "") {
  std::string bytes;
  for (int i = 0; i < n; ++i) bytes.append("\x0a\x00", 2);
  return bytes + tail;
}

absl::Status Check(const std::string& bytes, RequestMessage message,
                   uint64_t max_batch) {
  RequestLimits limits;
  limits.max_batch = max_batch;
  google::protobuf::io::ArrayInputStream in(bytes.data(),
                                            static_cast<int>(bytes.size()));
  return PrecheckRequestSize(&in, message, limits);
}

TEST(Precheck, RefusesOnlyRequestsOverTheLimitNamingFieldAndLimit) {
  EXPECT_TRUE(Check(Items(10), RequestMessage::kIntersect, 10).ok());
  const absl::Status pairs = Check(Items(11), RequestMessage::kIntersect, 10);
  EXPECT_EQ(pairs.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(pairs.message(),
            "pairs has more than this server's limit of 10 items; split the "
            "batch");
  EXPECT_THAT(Check(Items(11), RequestMessage::kClosestPoint, 10).message(),
              HasSubstr("queries has more than this server's limit of 10"));
  EXPECT_THAT(
      Check(Items(11), RequestMessage::kIntersectColumns, 10).message(),
      HasSubstr("groups has more than this server's limit of 10 items in "
                "groups (a group holds at least one)"));
  // Other fields do not count; broken bytes are left to the parse.
  EXPECT_TRUE(
      Check(Items(10, "\x10\x01"), RequestMessage::kIntersect, 10).ok());
  EXPECT_TRUE(Check(Items(3, "\x0a\x7f"), RequestMessage::kIntersect, 10).ok());
}

TEST(Precheck, StopsReadingOnceTheLimitIsPassed) {
  // After the 11th item, bytes that are not a valid encoding: never read,
  // so the request is refused by its count rather than left to the parse.
  EXPECT_EQ(Check(Items(11, "\x0a\x7f"), RequestMessage::kIntersect, 10).code(),
            absl::StatusCode::kInvalidArgument);
  // With the broken bytes before the limit is reached, the count stops
  // there: the parse reports them.
  EXPECT_TRUE(
      Check(Items(5, "\x0a\x7f") + Items(20), RequestMessage::kIntersect, 10)
          .ok());
}

TEST(Precheck, StreamMessagesCountEveryCopyOfTheirQuery) {
  // QueryStreamRequest: field 2 is an IntersectRequest; given twice, the
  // parse merges both copies, so both count.
  auto query = [](int items) {
    const std::string inner = Items(items);
    return std::string("\x12", 1) + static_cast<char>(inner.size()) + inner;
  };
  EXPECT_TRUE(
      Check(query(5) + query(5), RequestMessage::kQueryStream, 10).ok());
  EXPECT_THAT(
      Check(query(5) + query(6), RequestMessage::kQueryStream, 10).message(),
      HasSubstr("pairs has more than this server's limit of 10 items"));
}

TEST(Precheck, SceneRequestsCountUpsertsAndQueriesUpToTheirLimits) {
  // SceneRequest: update (3) holding upserts (3) and column groups (4);
  // queries (4) at the top.
  auto update = [](int upserts, int groups) {
    std::string inner;
    for (int i = 0; i < upserts; ++i) inner.append("\x1a\x00", 2);
    for (int i = 0; i < groups; ++i) inner.append("\x22\x00", 2);
    return std::string("\x1a", 1) + static_cast<char>(inner.size()) + inner;
  };
  auto queries = [](int n) {
    std::string bytes;
    for (int i = 0; i < n; ++i) bytes.append("\x22\x00", 2);
    return bytes;
  };
  auto check = [](const std::string& bytes) {
    google::protobuf::io::ArrayInputStream in(bytes.data(),
                                              static_cast<int>(bytes.size()));
    return PrecheckSceneRequest(&in, /*max_upserts=*/10, /*max_queries=*/4);
  };
  EXPECT_TRUE(check(update(6, 4) + queries(4)).ok());
  const absl::Status entities = check(update(6, 5) + queries(1));
  EXPECT_EQ(entities.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(entities.message(),
            "update holds more upserts and column groups than this scene's "
            "limit of 10 entities");
  const absl::Status many = check(update(1, 0) + queries(5));
  EXPECT_EQ(many.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(many.message(),
            "queries has more than this server's limit of 4 per message; "
            "split them over several messages");
  // Past the limit nothing more is read: broken bytes after it do not
  // matter.
  EXPECT_EQ(check(queries(5) + "\x22\x7f").code(),
            absl::StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace collision::wire
