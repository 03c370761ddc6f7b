// collision_replay FILE: plays a scene recording (docs/recording.md)
// against this build, message by message, on a server of its own in this
// process (127.0.0.1, an ephemeral port) under the recording's scene
// limits, and compares every answer with the recorded one, bit for bit.
//
// Exit codes: 0 every answer is the recorded one; 1 an answer differs (the
// first is reported: message, tick, and the fields that differ); 2 the
// file is not a recording or the replay could not run.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "collision/core/batch.h"
#include "collision/v1/scene.grpc.pb.h"
#include "common/usage.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "server/scene_recorder.h"
#include "server/server.h"

ABSL_FLAG(bool, keep_going, false,
          "report every differing answer, not only the first");

namespace collision {
namespace {

int Fail(const std::string& why) {
  std::fprintf(stderr, "collision_replay: %s\n", why.c_str());
  return 2;
}

// What differs between the recorded answer and the replayed one, field by
// field ("modified: results[0].hits[1].id: 7 -> 8").
std::string Difference(const v1::SceneResponse& recorded,
                       const v1::SceneResponse& replayed) {
  std::string report;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&report);
  if (d.Compare(recorded, replayed)) {
    return "the same fields, different bytes (a float's sign of zero or NaN "
           "payload)";
  }
  return report;
}

int Replay(const std::string& path, bool keep_going) {
  absl::StatusOr<server::SceneRecording> recording =
      server::ReadSceneRecording(path);
  if (!recording.ok()) return Fail(recording.status().ToString());
  const server::SceneRecording& r = *recording;
  std::printf("%s: recorded by %s, %zu messages%s\n", path.c_str(),
              r.header.server_version().c_str(), r.messages.size(),
              r.truncated.empty()
                  ? ""
                  : absl::StrCat(" (then stopped: ", r.truncated, ")").c_str());

  server::ServerOptions options;
  options.address = "127.0.0.1:0";
  options.allow_reuseport = false;
  options.service.scenes =
      server::FromRecord(r.header.limits(), options.service.scenes);
  absl::StatusOr<std::unique_ptr<server::CollisionServer>> started =
      server::CollisionServer::Start(options);
  if (!started.ok()) {
    return Fail("cannot start a server: " + started.status().ToString());
  }
  const std::unique_ptr<server::CollisionServer> srv = *std::move(started);
  const auto stub = v1::SceneService::NewStub(
      grpc::CreateChannel(srv->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  const auto stream = stub->Session(&context);

  int differing = 0;
  for (std::size_t i = 0; i < r.messages.size(); ++i) {
    v1::SceneRequest request;
    v1::SceneResponse recorded;
    if (!request.ParseFromString(r.messages[i].request()) ||
        !recorded.ParseFromString(r.messages[i].response())) {
      return Fail(absl::StrCat("message ", i, " does not parse"));
    }
    v1::SceneResponse replayed;
    if (!stream->Write(request) || !stream->Read(&replayed)) {
      const grpc::Status s = stream->Finish();
      return Fail(absl::StrCat("the replay's stream ended at message ", i, ": ",
                               s.error_code(), " ", s.error_message()));
    }
    replayed.clear_sequence();  // the transport's numbering, not recorded
    // The recording's own file name is not part of the answer; the replay
    // records nothing.
    std::string expected = r.messages[i].response();
    if (recorded.has_scene() && !recorded.scene().recording().empty()) {
      recorded.mutable_scene()->clear_recording();
      expected = recorded.SerializeAsString();
    }
    if (replayed.SerializeAsString() == expected) continue;
    ++differing;
    std::printf("message %zu (update tick %llu) answers differently:\n%s", i,
                static_cast<unsigned long long>(request.update().tick()),
                Difference(recorded, replayed).c_str());
    if (!keep_going) break;
  }
  stream->WritesDone();
  stream->Finish();
  if (differing == 0) {
    std::printf("every answer is the recorded one (%zu messages)\n",
                r.messages.size());
    return 0;
  }
  return 1;
}

}  // namespace
}  // namespace collision

int main(int argc, char** argv) {
  collision::ConfigureUsage(
      "collision_replay", "tools/replay.cc", collision::SimdTargetName(),
      "collision_replay [--keep_going] FILE: replays a scene recording "
      "against this build and reports the first answer that differs");
  std::vector<char*> args = collision::ParseCommandLine(argc, argv);
  if (args.size() != 2) {
    std::fprintf(stderr, "usage: collision_replay [--keep_going] FILE\n");
    return 2;
  }
  return collision::Replay(args[1], absl::GetFlag(FLAGS_keep_going));
}
