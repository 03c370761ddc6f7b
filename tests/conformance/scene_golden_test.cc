// The scene golden vectors of testdata/golden/scenes.json, replayed against a
// live server on 127.0.0.1 (in process, port 0): each case on one
// SceneService.Session stream, one message at a time, each answer compared as
// testdata/golden/README.md says. Sequence, tick, entity count, ids,
// relations, `inside`, `truncated` and error codes exactly; floats within the
// file's tolerance; error messages must contain every `message_contains`.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collision/v1/scene.grpc.pb.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/conformance/golden_file.h"
#include "tests/util/local_server.h"

namespace collision {
namespace {

namespace pb = google::protobuf;
using golden::Field;
using golden::ToJson;
using ::testing::HasSubstr;

struct ExpectedError {
  std::string code;  // a status code name, e.g. "INVALID_ARGUMENT"
  std::vector<std::string> message_contains;
};

struct QueryError {
  int query = 0;
  ExpectedError error;
};

// One message of a case's stream and what it must be answered.
struct Step {
  v1::SceneRequest request;
  std::optional<v1::SceneResponse> response;  // unset: rejected whole
  std::optional<ExpectedError> error;
  std::vector<QueryError> query_errors;
};

struct SceneCase {
  std::string name;
  bool hand_checked = false;
  std::vector<Step> steps;
};

const golden::GoldenFile& File() {
  static const auto* file = new golden::GoldenFile(COLLISION_SCENES_JSON);
  return *file;
}

template <typename M>
M Parse(const pb::Value& json) {
  return golden::Parse<M>(ToJson(json.struct_value()));
}

ExpectedError ParseError(const pb::Struct& e) {
  ExpectedError out;
  out.code = Field(e, "code").string_value();
  for (const pb::Value& part :
       Field(e, "message_contains").list_value().values()) {
    out.message_contains.push_back(part.string_value());
  }
  return out;
}

std::vector<SceneCase> LoadCases() {
  std::vector<SceneCase> cases;
  for (const pb::Value& v : File().cases().list_value().values()) {
    const pb::Struct& s = v.struct_value();
    SceneCase k;
    k.name = Field(s, "name").string_value();
    k.hand_checked = Field(s, "hand_checked").bool_value();
    for (const pb::Value& w : Field(s, "steps").list_value().values()) {
      const pb::Struct& t = w.struct_value();
      Step step;
      step.request = Parse<v1::SceneRequest>(Field(t, "request"));
      if (t.fields().count("response")) {
        step.response = Parse<v1::SceneResponse>(Field(t, "response"));
      } else {
        step.error = ParseError(Field(t, "error").struct_value());
      }
      for (const pb::Value& e :
           Field(t, "query_errors").list_value().values()) {
        step.query_errors.push_back(
            {static_cast<int>(Field(e.struct_value(), "query").number_value()),
             ParseError(e.struct_value())});
      }
      k.steps.push_back(std::move(step));
    }
    cases.push_back(std::move(k));
  }
  return cases;
}

void CheckError(const ExpectedError& want, const v1::StreamError& got) {
  EXPECT_EQ(absl::StatusCodeToString(static_cast<absl::StatusCode>(got.code())),
            want.code)
      << got.message();
  for (const std::string& part : want.message_contains) {
    EXPECT_THAT(got.message(), HasSubstr(part));
  }
}

// Checks the answer to one message against its step.
void CheckStep(const Step& step, v1::SceneResponse got) {
  EXPECT_EQ(got.sequence(), step.request.sequence());
  if (step.error.has_value()) {
    ASSERT_TRUE(got.has_error())
        << "want " << step.error->code << ", got " << ToJson(got);
    CheckError(*step.error, got.error());
    EXPECT_EQ(got.results_size(), 0);
    return;
  }
  ASSERT_FALSE(got.has_error()) << got.error().message();
  for (const QueryError& e : step.query_errors) {
    SCOPED_TRACE(absl::StrCat("results[", e.query, "].error"));
    ASSERT_LT(e.query, got.results_size());
    CheckError(e.error, got.results(e.query).error());
  }
  // Per-query error messages are compared by substring, above; the grant
  // depends on the server's limits (testdata/golden/README.md).
  for (v1::SceneQueryResult& r : *got.mutable_results()) {
    if (r.has_error()) r.mutable_error()->clear_message();
  }
  got.clear_scene();
  EXPECT_EQ(File().Diff(*step.response, got), "")
      << "want " << ToJson(*step.response) << "\ngot  " << ToJson(got);
}

using testing::StartServer;

// Sends the case's messages on one stream, each after the previous answer,
// then half-closes: the server must end the stream with OK.
void Replay(v1::SceneService::Stub& stub, const SceneCase& k) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  auto stream = stub.Session(&context);
  for (size_t i = 0; i < k.steps.size(); ++i) {
    SCOPED_TRACE(absl::StrCat("steps[", i, "]"));
    v1::SceneResponse got;
    if (!stream->Write(k.steps[i].request) || !stream->Read(&got)) {
      ADD_FAILURE() << "the stream ended before answering";
      break;
    }
    CheckStep(k.steps[i], std::move(got));
  }
  stream->WritesDone();
  v1::SceneResponse extra;
  EXPECT_FALSE(stream->Read(&extra)) << "an answer more than messages";
  const grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_code() << ": "
                           << status.error_message();
}

TEST(SceneGoldenFile, HasCasesOfEveryKind) {
  const std::vector<SceneCase> cases = LoadCases();
  int d3 = 0, errors = 0, query_errors = 0, hand_checked = 0;
  for (const SceneCase& k : cases) {
    d3 += k.steps.front().request.config().dimension() == v1::DIMENSION_3D;
    hand_checked += k.hand_checked;
    for (const Step& s : k.steps) {
      errors += s.error.has_value();
      query_errors += static_cast<int>(s.query_errors.size());
    }
  }
  EXPECT_GE(cases.size(), 15u);
  EXPECT_GE(d3, 2);
  EXPECT_GE(errors, 10);
  EXPECT_GE(query_errors, 1);
  EXPECT_GE(hand_checked, 3);
  EXPECT_GT(File().absolute(), 0);
  EXPECT_GT(File().relative(), 0);
}

// One test over every case: a failure names the case and the step.
TEST(SceneGolden, LiveServerAnswersEveryCase) {
  const std::unique_ptr<server::CollisionServer> server = StartServer();
  ASSERT_NE(server, nullptr);
  const auto stub = v1::SceneService::NewStub(grpc::CreateChannel(
      server->address(), grpc::InsecureChannelCredentials()));
  for (const SceneCase& k : LoadCases()) {
    SCOPED_TRACE(k.name);
    Replay(*stub, k);
  }
}

}  // namespace
}  // namespace collision
