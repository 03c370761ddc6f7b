// Corrupt, truncated and bit-flipped request messages inside well-formed
// gRPC calls to a live server, on every method and on the stream. A message
// that does not parse must get INVALID_ARGUMENT naming its type (gRPC 1.51's
// typed handlers said UNIMPLEMENTED, or OK on a stream); one that happens to
// parse must get exactly the in-process handler's answer.
#include <memory>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "collision/client/client.h"
#include "collision/client/columns.h"
#include "collision/handlers/pairs.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/impl/codegen/sync_stream.h"
#include "gtest/gtest.h"
#include "server/status.h"
#include "tests/e2e/wire_testing.h"

namespace collision::wire_testing {
namespace {

using ::testing::HasSubstr;

std::string Corrupt(std::mt19937_64& rng, const std::string& valid) {
  std::string s = valid;
  switch (rng() % 5) {
    case 0:  // truncated
      s.resize(rng() % (s.size() + 1));
      break;
    case 1:  // a few bits flipped
      for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
        s[rng() % s.size()] ^= static_cast<char>(1u << (rng() % 8));
      }
      break;
    case 2:  // random bytes spliced in
      s.insert(rng() % (s.size() + 1), RandomBytes(rng, 1 + rng() % 16));
      break;
    case 3:  // all random
      s = RandomBytes(rng, rng() % 256);
      break;
    default:  // a valid message followed by garbage
      s += RandomBytes(rng, 1 + rng() % 16);
      break;
  }
  return s;
}

struct Tally {
  int unparsable = 0;
  int parsed = 0;
};

// Sends `count` corruptions of `valid` to `method` (the first one empty).
// Bytes that do not parse as a Request must get INVALID_ARGUMENT naming it;
// bytes that do must get what `handle` answers in process, the response
// compared as a message (the byte order of a serialization is no contract).
template <typename Response, typename Request, typename Handle>
void CheckCorruptions(Wire& test, const std::string& method,
                      const Request& valid, Handle handle, int count,
                      std::mt19937_64& rng, Tally* tally) {
  const std::string valid_bytes = valid.SerializeAsString();
  for (int i = 0; i < count; ++i) {
    const std::string bytes =
        i == 0 ? std::string() : Corrupt(rng, valid_bytes);
    const std::string what = absl::StrCat(method, " #", i);
    grpc::ByteBuffer response;
    const grpc::Status got = test.RawUnary(method, bytes, &response);
    Request request;
    if (!request.ParseFromString(bytes)) {
      ++tally->unparsable;
      EXPECT_EQ(got.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
          << what << ": " << got.error_message();
      EXPECT_THAT(got.error_message(),
                  HasSubstr(absl::StrCat("not a valid collision.v1.", method,
                                         "Request")))
          << what;
      continue;
    }
    ++tally->parsed;
    Response want;
    const grpc::Status expected = server::ToGrpc(
        handle(request, &want, handlers::HandlerContext{test.limits()}));
    EXPECT_EQ(got.error_code(), expected.error_code())
        << what << ": " << got.error_message();
    EXPECT_EQ(got.error_message(), expected.error_message()) << what;
    if (got.ok() && expected.ok()) {
      Response answer;
      ASSERT_TRUE(answer.ParseFromString(Flatten(response))) << what;
      EXPECT_TRUE(
          google::protobuf::util::MessageDifferencer::Equals(answer, want))
          << what;
    }
  }
}

TEST_F(Wire, CorruptMessagesOnEveryMethodGetInvalidArgumentOrTheTrueAnswer) {
  c::IntersectBatch pairs;
  pairs.WithRelation().WithSeparation();
  pairs.Add(c::Circle(0, 0, 2), c::RectFromMinMax(1, 1, 4, 4));
  pairs.Add(c::Point(3, 4), c::RotatedRectFromPivot(4, 2, 0, 1, 3, 3, 0.5f));
  pairs.Add(c::Sphere(1, 2, 3, 1), c::BoxFromMinMax(0, 0, 0, 1, 1, 1));
  c::ClosestPointBatch queries;
  queries.Add(c::Point(13, 14), c::RectFromCornerSize(0, 0, 10, 10));
  queries.Add(c::Sphere(2, 2, 7, 1), c::BoxFromMinMax(0, 0, 0, 4, 4, 4));
  c::IntersectColumnsBatch columns;
  columns.Add(c::Circle(0, 0, 1), c::Circle(1, 1, 1));
  columns.Add(c::Circle(5, 0, 1), c::Circle(1, 1, 1));
  c::ClosestPointColumnsBatch closest_columns;
  closest_columns.Add(c::Point(3, 3), c::RectFromMinMax(0, 0, 1, 1));
  closest_columns.Add(c::Point(-3, 3), c::RectFromMinMax(0, 0, 1, 1));

  std::mt19937_64 rng(99);
  Tally tally;
  constexpr int kEach = 120;
  CheckCorruptions<v1::IntersectResponse>(
      *this, "Intersect", pairs.request(),
      [](const auto& q, auto* r, const auto& h) {
        return handlers::HandleIntersect(q, r, h);
      },
      kEach, rng, &tally);
  CheckCorruptions<v1::ClosestPointResponse>(
      *this, "ClosestPoint", queries.request(),
      [](const auto& q, auto* r, const auto& h) {
        return handlers::HandleClosestPoint(q, r, h);
      },
      kEach, rng, &tally);
  CheckCorruptions<v1::IntersectColumnsResponse>(
      *this, "IntersectColumns", columns.request(),
      [](const auto& q, auto* r, const auto& h) {
        return handlers::HandleIntersectColumns(q, r, h);
      },
      kEach, rng, &tally);
  CheckCorruptions<v1::ClosestPointColumnsResponse>(
      *this, "ClosestPointColumns", closest_columns.request(),
      [](const auto& q, auto* r, const auto& h) {
        return handlers::HandleClosestPointColumns(q, r, h);
      },
      kEach, rng, &tally);
  // Both branches were exercised for real.
  EXPECT_GT(tally.unparsable, 50);
  EXPECT_GT(tally.parsed, 50);
  ExpectStillServing();
}

TEST_F(Wire, CorruptMessageOnTheStreamEndsItWithInvalidArgument) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  const std::string path = absl::StrCat(kService, "QueryStream");
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
      stream(grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer,
                                                       grpc::ByteBuffer>::
                 Create(channel_.get(),
                        grpc::internal::RpcMethod(
                            path.c_str(), nullptr,
                            grpc::internal::RpcMethod::BIDI_STREAMING),
                        &context));
  v1::QueryStreamRequest good;
  good.set_sequence(7);
  *good.mutable_intersect() =
      c::IntersectBatch().Add(c::Circle(0, 0, 1), c::Circle(2, 0, 1)).request();
  auto send = [&](const std::string& bytes) {
    grpc::Slice slice(bytes);
    grpc::ByteBuffer b(&slice, 1);
    return stream->Write(b);
  };
  // A good message is answered...
  ASSERT_TRUE(send(good.SerializeAsString()));
  grpc::ByteBuffer reply;
  ASSERT_TRUE(stream->Read(&reply));
  v1::QueryStreamResponse first;
  ASSERT_TRUE(first.ParseFromString(Flatten(reply)));
  EXPECT_EQ(first.sequence(), 7u);
  ASSERT_EQ(first.intersect().results_size(), 1);
  EXPECT_TRUE(first.intersect().results(0).hit());
  // ... a corrupt one (a length running past the end) ends the stream with
  // INVALID_ARGUMENT, never a silent OK.
  send(std::string("\x08\x09\x12\x7f\x01", 5));
  stream->WritesDone();
  EXPECT_FALSE(stream->Read(&reply));
  const grpc::Status s = stream->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << s.error_message();
  EXPECT_THAT(s.error_message(),
              HasSubstr("message 2 of the stream is not a valid "
                        "collision.v1.QueryStreamRequest"));
  ExpectStillServing();
}

}  // namespace
}  // namespace collision::wire_testing
