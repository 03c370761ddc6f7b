// Per-pair calls and QueryStream messages through a real server, decoded
// straight from their bytes (the default) and parsed into messages first
// (--decode_pairs_from_bytes off): every answer, error and response byte
// must be the same, for random valid and invalid requests and for one large
// enough to be computed on the pool and to arrive in several slices.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collision/handlers/pairs.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/impl/codegen/sync_stream.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/util/local_server.h"
#include "tests/wire/shape_testing.h"

namespace collision {
namespace {

struct Reply {
  grpc::Status status;
  std::string bytes;
};

class TwoServers : public ::testing::Test {
 protected:
  void SetUp() override {
    for (bool decode : {true, false}) {
      server::ServerOptions options;
      options.service.decode_pairs_from_bytes = decode;
      auto started = testing::StartServer(options);
      ASSERT_NE(started, nullptr);
      channels_.push_back(grpc::CreateChannel(
          started->address(), grpc::InsecureChannelCredentials()));
      servers_.push_back(std::move(started));
    }
  }

  Reply Call(int server, const std::string& method, const std::string& body) {
    grpc::Slice slice(body);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(20));
    const std::string path =
        absl::StrCat("/collision.v1.CollisionService/", method);
    Reply reply;
    reply.status =
        grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
            channels_[server].get(),
            grpc::internal::RpcMethod(path.c_str(), nullptr,
                                      grpc::internal::RpcMethod::NORMAL_RPC),
            &context, request, &response);
    std::vector<grpc::Slice> slices;
    if (reply.status.ok() && response.Dump(&slices).ok()) {
      for (const grpc::Slice& s : slices) {
        reply.bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
      }
    }
    return reply;
  }

  // Both servers' replies to `body`; true when they are the same.
  ::testing::AssertionResult Same(const std::string& method,
                                  const std::string& body, bool* ok) {
    const Reply fast = Call(0, method, body);
    const Reply parsed = Call(1, method, body);
    *ok = parsed.status.ok();
    if (fast.status.error_code() != parsed.status.error_code() ||
        fast.status.error_message() != parsed.status.error_message()) {
      return ::testing::AssertionFailure()
             << "status " << fast.status.error_message() << " vs "
             << parsed.status.error_message();
    }
    if (fast.bytes != parsed.bytes) {
      return ::testing::AssertionFailure() << "response bytes differ";
    }
    return ::testing::AssertionSuccess();
  }

  std::vector<std::unique_ptr<server::CollisionServer>> servers_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
};

TEST_F(TwoServers, PerPairCallsAnswerTheSameWhetherDecodedOrParsed) {
  shape_testing::Fields f(51, /*odds=*/100);
  std::mt19937 rng(52);
  int ok = 0;
  for (int i = 0; i < 600; ++i) {
    const bool closest = i % 2 == 1;
    const std::string body =
        closest ? shape_testing::RandomClosestPoint(f, rng, /*max_items=*/3)
                : shape_testing::RandomIntersect(f, rng, /*max_items=*/3);
    bool accepted = false;
    ASSERT_TRUE(Same(closest ? "ClosestPoint" : "Intersect", body, &accepted));
    ok += accepted;
  }
  EXPECT_GT(ok, 30);  // 46 with these seeds

  // ~20k valid pairs (~1 MB, the requests the message path accepts, put
  // together): computed on the pool, received in several slices.
  shape_testing::Fields valid(53, /*odds=*/1000000);
  std::string big;
  while (big.size() < (1u << 20)) {
    const std::string part = shape_testing::RandomIntersect(valid, rng);
    v1::IntersectRequest request;
    v1::IntersectResponse response;
    if (request.ParseFromString(part) &&
        handlers::HandleIntersect(request, &response, wire::RequestLimits{}).ok()) {
      big += part;
    }
  }
  bool accepted = false;
  EXPECT_TRUE(Same("Intersect", big, &accepted));
  EXPECT_TRUE(accepted);
}

// The same per-pair queries, valid and not, as QueryStream messages (with
// other kinds of message between them): each stream answers every message
// with the same bytes.
TEST_F(TwoServers, StreamMessagesAnswerTheSameWhetherDecodedOrParsed) {
  shape_testing::Fields f(61, /*odds=*/100);
  std::mt19937 rng(62);
  std::vector<std::string> messages;
  for (int i = 0; i < 300; ++i) {
    v1::QueryStreamRequest m;
    m.set_sequence(i % 7 == 0 ? 0 : rng());
    switch (i % 5) {
      case 0:
      case 1:
        m.mutable_intersect()->ParseFromString(
            shape_testing::RandomIntersect(f, rng, /*max_items=*/3));
        break;
      case 2:
      case 3:
        m.mutable_closest_point()->ParseFromString(
            shape_testing::RandomClosestPoint(f, rng, /*max_items=*/3));
        break;
      default:
        m.mutable_intersect_columns()->set_boundary(
            v1::BOUNDARY_RULE_INCLUSIVE);  // no groups: rejected
        break;
    }
    messages.push_back(m.SerializeAsString());
  }
  std::vector<std::vector<std::string>> answers(2);
  for (int server = 0; server < 2; ++server) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    const grpc::internal::RpcMethod method(
        "/collision.v1.CollisionService/QueryStream",
        grpc::internal::RpcMethod::BIDI_STREAMING);
    std::unique_ptr<
        grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
        stream(grpc::internal::ClientReaderWriterFactory<
               grpc::ByteBuffer, grpc::ByteBuffer>::Create(channels_[server]
                                                               .get(),
                                                           method, &context));
    for (const std::string& m : messages) {
      grpc::Slice slice(m);
      ASSERT_TRUE(stream->Write(grpc::ByteBuffer(&slice, 1)));
      grpc::ByteBuffer reply;
      ASSERT_TRUE(stream->Read(&reply));
      std::vector<grpc::Slice> slices;
      ASSERT_TRUE(reply.Dump(&slices).ok());
      std::string bytes;
      for (const grpc::Slice& part : slices) {
        bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
      }
      answers[server].push_back(bytes);
    }
    stream->WritesDone();
    ASSERT_TRUE(stream->Finish().ok());
  }
  int answered = 0;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    ASSERT_EQ(answers[0][i], answers[1][i]) << "message " << i;
    v1::QueryStreamResponse r;
    ASSERT_TRUE(r.ParseFromString(answers[1][i]));
    answered += !r.has_error();
  }
  EXPECT_GT(answered, 10);  // 16 with these seeds
}

}  // namespace
}  // namespace collision
