// The golden vectors of testdata/golden/golden.json, checked three ways: the
// scalar reference after the server's validation, the batch API (the SIMD
// dispatcher the server runs), and a live server on 127.0.0.1 through the C++
// client. Floats compare within the file's stated tolerance; hit, relation,
// inside and error codes exactly; error messages must contain the case's
// field-path substring.
#include <memory>
#include <string>
#include <vector>

#include "collision/client/client.h"
#include "collision/core/batch.h"
#include "collision/core/scalar.h"
#include "collision/wire/convert.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/conformance/golden_file.h"
#include "tests/util/local_server.h"

namespace collision {
namespace {

namespace pb = google::protobuf;
using golden::Field;
using golden::Parse;
using golden::ToJson;
using ::testing::HasSubstr;

struct GoldenCase {
  std::string name;
  std::string rpc;  // "Intersect" or "ClosestPoint"
  std::string request_json;
  std::string response_json;  // empty for error cases
  std::string error_code;     // e.g. "INVALID_ARGUMENT"
  std::string message_contains;
};

const golden::GoldenFile& File() {
  static const auto* file = new golden::GoldenFile(COLLISION_GOLDEN_JSON);
  return *file;
}

std::vector<GoldenCase> LoadCases() {
  std::vector<GoldenCase> cases;
  for (const pb::Value& v : File().cases().list_value().values()) {
    const pb::Struct& s = v.struct_value();
    GoldenCase k;
    k.name = Field(s, "name").string_value();
    k.rpc = Field(s, "rpc").string_value();
    k.request_json = ToJson(Field(s, "request").struct_value());
    if (s.fields().count("response")) {
      k.response_json = ToJson(Field(s, "response").struct_value());
    } else {
      const pb::Struct& e = Field(s, "error").struct_value();
      k.error_code = Field(e, "code").string_value();
      k.message_contains = Field(e, "message_contains").string_value();
    }
    cases.push_back(k);
  }
  return cases;
}

// Checks one answer (a status and, when OK, a response) against the case.
template <typename Response>
void Check(const GoldenCase& k, const absl::Status& status,
           const Response& got) {
  if (!k.error_code.empty()) {
    EXPECT_EQ(absl::StatusCodeToString(status.code()), k.error_code) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(k.message_contains));
    return;
  }
  ASSERT_TRUE(status.ok()) << status;
  const Response want = Parse<Response>(k.response_json);
  EXPECT_EQ(File().Diff(want, got), "")
      << "want " << ToJson(want) << "\ngot  " << ToJson(got);
}

// The scalar reference (use_batch false) or the batch API, after the
// server's validation, exactly as the server would answer.
void CheckInProcess(const GoldenCase& k, bool use_batch) {
  const wire::RequestLimits limits;
  if (k.rpc == "Intersect") {
    const auto request = Parse<v1::IntersectRequest>(k.request_json);
    auto parsed = wire::ParseIntersectRequest(request, limits);
    v1::IntersectResponse response;
    if (parsed.ok()) {
      std::vector<IntersectResult> results(parsed->pairs.size());
      if (use_batch) {
        IntersectBatch(parsed->pairs, parsed->boundary,
                       absl::MakeSpan(results));
      } else {
        for (size_t i = 0; i < results.size(); ++i) {
          results[i] = Intersect(parsed->pairs[i].a, parsed->pairs[i].b,
                                 parsed->boundary);
        }
      }
      wire::FillIntersectResponse(*parsed, results, &response);
    }
    Check(k, parsed.status(), response);
  } else {
    ASSERT_EQ(k.rpc, "ClosestPoint");
    const auto request = Parse<v1::ClosestPointRequest>(k.request_json);
    auto parsed = wire::ParseClosestPointRequest(request, limits);
    v1::ClosestPointResponse response;
    if (parsed.ok()) {
      std::vector<ClosestPointResult> results(parsed->items.size());
      if (use_batch) {
        ClosestPointBatch(parsed->items, parsed->boundary,
                          absl::MakeSpan(results));
      } else {
        for (size_t i = 0; i < results.size(); ++i) {
          results[i] = ClosestPoint(parsed->items[i].query,
                                    parsed->items[i].target, parsed->boundary);
        }
      }
      wire::FillClosestPointResponse(results, &response);
    }
    Check(k, parsed.status(), response);
  }
}

// One server for the whole process, started on first use.
struct LiveServer {
  std::unique_ptr<server::CollisionServer> server;
  std::unique_ptr<client::Client> client;
};

LiveServer& Live() {
  static LiveServer* live = [] {
    auto* l = new LiveServer;
    l->server = testing::StartServer();
    if (l->server == nullptr) return l;
    auto c = client::Client::Create(l->server->address());
    EXPECT_TRUE(c.ok()) << c.status();
    if (!c.ok()) return l;
    l->client = *std::move(c);
    EXPECT_TRUE(l->client->WaitUntilServing(absl::Seconds(10)).ok());
    return l;
  }();
  return *live;
}

// One test per path, each over every case: a failure names the case (and
// costs one process per path instead of one per case under CTest).
TEST(GoldenFile, HasCasesOfEveryKind) {
  const std::vector<GoldenCase> cases = LoadCases();
  int errors = 0, closest = 0;
  for (const GoldenCase& k : cases) {
    errors += !k.error_code.empty();
    closest += k.rpc == "ClosestPoint";
  }
  EXPECT_GE(cases.size(), 60u);
  EXPECT_GE(errors, 15);
  EXPECT_GE(closest, 8);
  EXPECT_GT(File().absolute(), 0);
  EXPECT_GT(File().relative(), 0);
}

TEST(Golden, ScalarReferenceAnswersEveryCase) {
  for (const GoldenCase& k : LoadCases()) {
    SCOPED_TRACE(k.name);
    CheckInProcess(k, false);
  }
}

TEST(Golden, BatchApiAnswersEveryCase) {
  for (const GoldenCase& k : LoadCases()) {
    SCOPED_TRACE(k.name);
    CheckInProcess(k, true);
  }
}

TEST(Golden, LiveServerAnswersEveryCase) {
  LiveServer& live = Live();
  ASSERT_NE(live.client, nullptr);
  for (const GoldenCase& k : LoadCases()) {
    SCOPED_TRACE(k.name);
    if (k.rpc == "Intersect") {
      auto r =
          live.client->Intersect(Parse<v1::IntersectRequest>(k.request_json));
      Check(k, r.status(), r.ok() ? *r : v1::IntersectResponse());
    } else {
      auto r = live.client->ClosestPoint(
          Parse<v1::ClosestPointRequest>(k.request_json));
      Check(k, r.status(), r.ok() ? *r : v1::ClosestPointResponse());
    }
  }
}

}  // namespace
}  // namespace collision
