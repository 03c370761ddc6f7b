// Scene recordings from outside: a server records the scenes that ask (and
// only those) while answering them as usual, and collision_replay, the
// shipped binary, replays a recording against this build: identical
// answers, a deliberately changed answer reported by message, a recording
// stopped at its size limit, and a file that is not a recording.
#include <stdlib.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collision/v1/scene.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/scene_recorder.h"
#include "tests/util/local_server.h"

namespace collision {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

struct TempDir {
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "crecXXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) {
      out.push_back(e.path().string());
    }
    return out;
  }
  std::string path;
};

struct ReplayRun {
  int exit_code = -1;
  std::string output;
};

// collision_replay FILE, its exit code and what it printed.
ReplayRun Replay(const std::string& file) {
  ReplayRun run;
  const std::string command =
      absl::StrCat(COLLISION_REPLAY_PATH, " '", file, "' 2>&1");
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) {
    run.output.append(buffer, n);
  }
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

// A small match: circles and rects moving for `ticks` ticks, raycasts (some
// rewound), sweeps, overlaps and nearest queries every tick, and one
// message the scene rejects (a tick that does not increase).
std::vector<v1::SceneRequest> Match(bool record, int ticks) {
  std::vector<v1::SceneRequest> out;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> at(0.0f, 100.0f);
  for (int t = 1; t <= ticks; ++t) {
    v1::SceneRequest& r = out.emplace_back();
    if (t == 1) {
      v1::SceneConfig* c = r.mutable_config();
      c->set_dimension(v1::DIMENSION_2D);
      c->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
      c->set_history_ticks(16);
      c->set_record(record);
    }
    v1::SceneUpdate* u = r.mutable_update();
    u->set_tick(static_cast<uint64_t>(t));
    v1::EntityColumns* g = u->add_upsert_columns();
    for (uint64_t id = 1; id <= 150; ++id) {
      g->add_ids(id);
      g->mutable_circles()->add_x(at(rng));
      g->mutable_circles()->add_y(at(rng));
      g->mutable_circles()->add_radius(1.5f);
    }
    if (t == 1) {
      for (uint64_t id = 1000; id < 1030; ++id) {
        v1::SceneEntity* e = u->add_upserts();
        e->set_id(id);
        v1::Rect* rect = e->mutable_shape()->mutable_rect();
        rect->mutable_min()->set_x(at(rng));
        rect->mutable_min()->set_y(at(rng));
        rect->mutable_max()->set_x(rect->min().x() + 4);
        rect->mutable_max()->set_y(rect->min().y() + 2);
      }
    }
    for (int q = 0; q < 8; ++q) {
      v1::RaycastQuery* ray = r.add_queries()->mutable_raycast();
      ray->mutable_origin()->set_x(at(rng));
      ray->mutable_origin()->set_y(at(rng));
      ray->mutable_direction()->set_x(at(rng) - 50);
      ray->mutable_direction()->set_y(at(rng) - 50);
      ray->set_max_distance(80);
      if (t > 3 && q % 2 == 0) {
        r.mutable_queries(r.queries_size() - 1)
            ->mutable_at()
            ->set_tick(static_cast<uint64_t>(t - 2));
        r.mutable_queries(r.queries_size() - 1)
            ->mutable_at()
            ->set_fraction(0.25f);
      }
    }
    v1::SweepQuery* sweep = r.add_queries()->mutable_sweep();
    sweep->mutable_origin()->set_x(10);
    sweep->mutable_origin()->set_y(10);
    sweep->mutable_direction()->set_x(1);
    sweep->mutable_direction()->set_y(1);
    sweep->set_max_distance(120);
    sweep->set_radius(2);
    sweep->set_all_hits(true);
    v1::Circle* c =
        r.add_queries()->mutable_overlap()->mutable_shape()->mutable_circle();
    c->mutable_center()->set_x(50);
    c->mutable_center()->set_y(50);
    c->set_radius(20);
    v1::NearestQuery* n = r.add_queries()->mutable_nearest();
    n->mutable_shape()->mutable_point()->set_x(at(rng));
    n->mutable_shape()->mutable_point()->set_y(at(rng));
    n->set_k(5);
    if (t == ticks / 2) {
      // Rejected whole: its tick does not follow the last one.
      v1::SceneRequest& bad = out.emplace_back();
      bad.mutable_update()->set_tick(1);
    }
  }
  return out;
}

// Plays the messages on a Session stream; the answers, in order.
std::vector<v1::SceneResponse> Play(const server::CollisionServer& server,
                                    const std::vector<v1::SceneRequest>& msgs) {
  const auto stub = v1::SceneService::NewStub(grpc::CreateChannel(
      server.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(60));
  const auto stream = stub->Session(&context);
  std::vector<v1::SceneResponse> answers;
  for (const v1::SceneRequest& m : msgs) {
    if (!stream->Write(m) || !stream->Read(&answers.emplace_back())) {
      ADD_FAILURE() << "stream ended at message " << answers.size();
      break;
    }
  }
  stream->WritesDone();
  const grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();
  return answers;
}

// A server recording to `dir`, and its writer: Drain() once the answers
// are in waits for their frames to reach the file.
struct RecordingServer {
  std::shared_ptr<server::RecordWriter> writer;
  std::unique_ptr<server::CollisionServer> server;
};
RecordingServer Recording(const std::string& dir, int64_t max_bytes) {
  RecordingServer out;
  out.writer =
      std::make_shared<server::RecordWriter>(server::kRecordPendingBytes);
  server::ServerOptions options;
  options.service.record.dir = dir;
  options.service.record.max_bytes = max_bytes;
  options.service.record.writer = out.writer;
  out.server = testing::StartServer(options);
  return out;
}

// Writes a recording back, frame by frame, as the server writes it.
void Write(const std::string& path, const server::SceneRecording& r) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(server::kRecordMagic, 4);
  const char version[4] = {static_cast<char>(server::kRecordVersion), 0, 0, 0};
  out.write(version, 4);
  auto frame = [&](const v1::SceneRecordFrame& f) {
    const std::string bytes = f.SerializeAsString();
    const auto n = static_cast<uint32_t>(bytes.size());
    const char length[4] = {static_cast<char>(n), static_cast<char>(n >> 8),
                            static_cast<char>(n >> 16),
                            static_cast<char>(n >> 24)};
    out.write(length, 4);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  };
  v1::SceneRecordFrame header;
  *header.mutable_header() = r.header;
  frame(header);
  for (const v1::SceneRecordMessage& m : r.messages) {
    v1::SceneRecordFrame f;
    *f.mutable_message() = m;
    frame(f);
  }
}

TEST(SceneRecording, ARecordedMatchReplaysWithEveryAnswerIdentical) {
  const TempDir dir;
  const RecordingServer r = Recording(dir.path, int64_t{1} << 30);
  ASSERT_NE(r.server, nullptr);
  const std::vector<v1::SceneRequest> match = Match(true, 24);
  const std::vector<v1::SceneResponse> answers = Play(*r.server, match);
  r.writer->Drain();
  ASSERT_EQ(answers.size(), match.size());
  // The grant names the file; the rejected message was answered (and
  // recorded) as a rejection.
  const std::vector<std::string> files = dir.Files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(fs::path(files[0]).filename().string(),
            answers[0].scene().recording());
  int rejected = 0;
  for (const v1::SceneResponse& a : answers) rejected += a.has_error();
  EXPECT_EQ(rejected, 1);

  // A scene that does not ask is not recorded, nor one whose first
  // message is rejected (it never opened).
  Play(*r.server, Match(false, 3));
  std::vector<v1::SceneRequest> refused = Match(true, 1);
  refused[0]
      .mutable_update()
      ->mutable_upsert_columns(0)
      ->mutable_circles()
      ->set_radius(0, -1.0f);
  EXPECT_TRUE(Play(*r.server, refused).at(0).has_error());
  r.writer->Drain();
  EXPECT_EQ(dir.Files().size(), 1u);

  const absl::StatusOr<server::SceneRecording> read =
      server::ReadSceneRecording(files[0]);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->messages.size(), match.size());
  EXPECT_TRUE(read->truncated.empty());
  for (std::size_t i = 0; i < match.size(); ++i) {
    EXPECT_EQ(read->messages[i].request(), match[i].SerializeAsString()) << i;
  }

  const ReplayRun run = Replay(files[0]);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output,
              HasSubstr(absl::StrCat("every answer is the recorded one (",
                                     match.size(), " messages)")));
}

TEST(SceneRecording, ReplayReportsTheFirstAnswerThatDiffers) {
  const TempDir dir;
  const RecordingServer recording = Recording(dir.path, int64_t{1} << 30);
  ASSERT_NE(recording.server, nullptr);
  Play(*recording.server, Match(true, 10));
  recording.writer->Drain();
  const std::vector<std::string> files = dir.Files();
  ASSERT_EQ(files.size(), 1u);
  absl::StatusOr<server::SceneRecording> r =
      server::ReadSceneRecording(files[0]);
  ASSERT_TRUE(r.ok()) << r.status();

  // Message 7's first hit moved by one float step: what a changed kernel
  // would do to a recorded match.
  const std::size_t changed = 7;
  v1::SceneResponse answer;
  ASSERT_TRUE(answer.ParseFromString(r->messages[changed].response()));
  v1::SceneQueryResult* first = nullptr;
  for (v1::SceneQueryResult& q : *answer.mutable_results()) {
    if (q.hits_size() > 0) {
      first = &q;
      break;
    }
  }
  ASSERT_NE(first, nullptr) << "the match has no hit in message 7";
  v1::SceneHit* hit = first->mutable_hits(0);
  hit->set_id(hit->id() + 100000);
  r->messages[changed].set_response(answer.SerializeAsString());
  const std::string doctored = dir.path + "/doctored.crec";
  Write(doctored, *r);

  const ReplayRun run = Replay(doctored);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_THAT(run.output, HasSubstr("message 7 "));
  EXPECT_THAT(run.output, HasSubstr("id"));
  // Untouched, the same file's messages replay identically.
  EXPECT_EQ(Replay(files[0]).exit_code, 0);
}

TEST(SceneRecording, ARecordingStopsAtItsSizeLimitAndTheSceneGoesOn) {
  const TempDir dir;
  const RecordingServer rs = Recording(dir.path, 20000);
  ASSERT_NE(rs.server, nullptr);
  const std::vector<v1::SceneRequest> match = Match(true, 24);
  EXPECT_EQ(Play(*rs.server, match).size(), match.size());
  rs.writer->Drain();
  const std::vector<std::string> files = dir.Files();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_LE(fs::file_size(files[0]), 20000u);
  const absl::StatusOr<server::SceneRecording> r =
      server::ReadSceneRecording(files[0]);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LT(r->messages.size(), match.size());
  EXPECT_THAT(r->truncated, HasSubstr("--scene_record_max_bytes"));
  const ReplayRun run = Replay(files[0]);
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_THAT(run.output, HasSubstr("then stopped"));
}

TEST(SceneRecording, ARecordingTheDiskCannotKeepUpWithStopsAndSaysWhy) {
  const TempDir dir;
  // A writer that holds less than one tick's frame: the first message's
  // frame cannot wait for the disk, so the recording ends there.
  const auto writer = std::make_shared<server::RecordWriter>(1000);
  server::ServerOptions options;
  options.service.record.dir = dir.path;
  options.service.record.writer = writer;
  const auto server = testing::StartServer(options);
  ASSERT_NE(server, nullptr);
  const std::vector<v1::SceneRequest> match = Match(true, 6);
  EXPECT_EQ(Play(*server, match).size(), match.size());
  writer->Drain();
  const std::vector<std::string> files = dir.Files();
  ASSERT_EQ(files.size(), 1u);
  const absl::StatusOr<server::SceneRecording> r =
      server::ReadSceneRecording(files[0]);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->messages.size(), 0u);
  EXPECT_THAT(r->truncated, HasSubstr("the disk fell behind"));
}

TEST(SceneRecording, AFileThatIsNotARecordingIsRefusedClearly) {
  const TempDir dir;
  const std::string junk = dir.path + "/junk.crec";
  std::ofstream(junk) << "not a recording at all";
  ReplayRun run = Replay(junk);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("not a scene recording"));

  // A real one cut in the middle of a frame.
  const RecordingServer rs = Recording(dir.path, int64_t{1} << 30);
  ASSERT_NE(rs.server, nullptr);
  Play(*rs.server, Match(true, 4));
  rs.writer->Drain();
  std::string recorded;
  for (const std::string& f : dir.Files()) {
    if (f != junk) recorded = f;
  }
  ASSERT_FALSE(recorded.empty());
  fs::resize_file(recorded, fs::file_size(recorded) - 10);
  run = Replay(recorded);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("is cut"));

  ReplayRun missing = Replay(dir.path + "/absent.crec");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
}

TEST(SceneRecording, AServerThatCannotWriteItsRecordingDirectoryDoesNotStart) {
  server::ServerOptions options;
  options.address = "127.0.0.1:0";
  options.allow_reuseport = false;
  options.service.record.dir = "/nonexistent/recordings";
  const auto started = server::CollisionServer::Start(options);
  ASSERT_FALSE(started.ok());
  EXPECT_THAT(std::string(started.status().message()),
              HasSubstr("scene_record_dir /nonexistent/recordings"));
}

}  // namespace
}  // namespace collision
