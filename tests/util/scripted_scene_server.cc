// scripted_scene_server: a collision.v1.SceneService that answers like a
// scene server as far as a session can tell, except at the messages its
// fault plan names, for the scene session tests of every client language
// (clients/python/test_scene_faults.py, clients/node/test/
// scene_faults.test.js). It is the C++ test's ScriptedScenes
// (tests/client/scene_session_faults_test.cc) in a process of its own.
//
// As a scene server would: every message is answered under its own
// sequence; the stream's world (entity ids) is kept from the updates it
// received (snapshot, removals, upserts, upsert_columns), so an answer's
// `entities` and `tick` tell whether a session's config, snapshot, history
// window and message in flight all arrived; a first message without a
// config is answered with an INVALID_ARGUMENT StreamError. Nothing is
// computed: queries get no results.
//
// The plan: entries MESSAGE:KIND[:ARG], separated by commas, spaces or new
// lines (# starts a comment), from --plan and --plan_file together. MESSAGE
// counts the messages the server read over all streams, from 1. KIND:
//   end_before:STATUS  end the stream with STATUS instead of answering
//   end_after:STATUS   answer, then end the stream with STATUS
//   reject:STATUS      answer with a StreamError of STATUS (the server's
//                      verdict on the message, which changes nothing)
//   stall              answer nothing until the stream is cancelled
//   delay:MS           answer MS milliseconds late
//   out_of_step        answer under the next message's sequence number
//   exit               the process exits at once (no status: connections
//                      drop, as with a replica killed)
// STATUS is a gRPC status code's name (UNAVAILABLE, OK, ...) or number.
//
//   scripted_scene_server --port_file=/tmp/p --plan=4:end_before:INTERNAL
//
// Listens on --address (127.0.0.1:0) without SO_REUSEPORT, writes the bound
// port to --port_file (renamed into place once serving), logs each stream
// ("stream N", "stream N ended: STATUS") and each fault ("message N: KIND")
// on stdout, and stops on SIGTERM or SIGINT (exit 0). A plan it cannot read:
// exit 2 with the reason on stderr.
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "collision/v1/scene.grpc.pb.h"
#include "common/usage.h"
#include "grpcpp/grpcpp.h"

ABSL_FLAG(std::string, address, "127.0.0.1:0",
          "host:port to listen on; port 0 picks a free port");
ABSL_FLAG(std::string, port_file, "",
          "if set, the bound port is written to this file once serving");
ABSL_FLAG(std::string, plan, "",
          "faults, MESSAGE:KIND[:ARG] separated by commas (see the file's "
          "top comment)");
ABSL_FLAG(std::string, plan_file, "",
          "a file of more faults, one or more per line; # comments");

namespace collision {
namespace {

enum class FaultKind {
  kEndBefore,
  kEndAfter,
  kReject,
  kStall,
  kDelay,
  kOutOfStep,
  kExit
};

struct Fault {
  FaultKind kind = FaultKind::kEndBefore;
  grpc::StatusCode code = grpc::StatusCode::OK;
  absl::Duration delay;
  std::string text;  // as the plan wrote it, for the log
};

// gRPC's and absl's codes are the same numbers (0-16) with the same names.
std::string CodeName(int code) {
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

absl::StatusOr<grpc::StatusCode> ParseCode(absl::string_view s) {
  int number = 0;
  if (absl::SimpleAtoi(s, &number) && number >= 0 && number <= 16) {
    return static_cast<grpc::StatusCode>(number);
  }
  for (int i = 0; i <= 16; ++i) {
    if (s == CodeName(i)) return static_cast<grpc::StatusCode>(i);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("\"", s, "\" is not a gRPC status code name or number"));
}

absl::StatusOr<std::pair<int, Fault>> ParseEntry(absl::string_view entry) {
  const std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("plan entry \"", entry, "\": ", why));
  };
  int message = 0;
  if (parts.size() < 2 || !absl::SimpleAtoi(parts[0], &message) ||
      message < 1) {
    return bad("want MESSAGE:KIND[:ARG] with MESSAGE >= 1");
  }
  Fault fault;
  fault.text = std::string(entry.substr(parts[0].size() + 1));
  const absl::string_view kind = parts[1];
  const bool has_arg = parts.size() == 3;
  if (parts.size() > 3) return bad("too many fields");
  if (kind == "end_before" || kind == "end_after" || kind == "reject") {
    if (!has_arg) return bad("needs a status");
    absl::StatusOr<grpc::StatusCode> code = ParseCode(parts[2]);
    if (!code.ok()) return bad(code.status().message());
    fault.kind = kind == "end_before"  ? FaultKind::kEndBefore
                 : kind == "end_after" ? FaultKind::kEndAfter
                                       : FaultKind::kReject;
    fault.code = *code;
  } else if (kind == "delay") {
    int ms = 0;
    if (!has_arg || !absl::SimpleAtoi(parts[2], &ms) || ms < 0) {
      return bad("needs milliseconds >= 0");
    }
    fault.kind = FaultKind::kDelay;
    fault.delay = absl::Milliseconds(ms);
  } else if (kind == "stall" || kind == "out_of_step" || kind == "exit") {
    if (has_arg) return bad("takes no argument");
    fault.kind = kind == "stall"         ? FaultKind::kStall
                 : kind == "out_of_step" ? FaultKind::kOutOfStep
                                         : FaultKind::kExit;
  } else {
    return bad(
        "unknown kind (end_before, end_after, reject, stall, delay, "
        "out_of_step, exit)");
  }
  return std::make_pair(message, fault);
}

absl::Status ParsePlan(absl::string_view text, std::map<int, Fault>* plan) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = line.substr(0, line.find('#'));
    for (absl::string_view entry :
         absl::StrSplit(line, absl::ByAnyChar(", \t\r"), absl::SkipEmpty())) {
      absl::StatusOr<std::pair<int, Fault>> parsed = ParseEntry(entry);
      if (!parsed.ok()) return parsed.status();
      if (!plan->emplace(parsed->first, parsed->second).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("message ", parsed->first, " has two faults"));
      }
    }
  }
  return absl::OkStatus();
}

void Log(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

class ScriptedScenes final : public v1::SceneService::Service {
 public:
  explicit ScriptedScenes(std::map<int, Fault> plan) : plan_(std::move(plan)) {}

  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::SceneResponse, v1::SceneRequest>* stream)
      override {
    int number;
    {
      std::lock_guard<std::mutex> lock(mu_);
      number = ++streams_;
    }
    Log(absl::StrCat("stream ", number));
    const grpc::Status status = Serve(context, stream);
    // Before the status leaves: a test that waits for this line and then a
    // moment knows the client has it.
    Log(absl::StrCat("stream ", number,
                     " ended: ", CodeName(status.error_code())));
    return status;
  }

 private:
  grpc::Status Serve(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::SceneResponse, v1::SceneRequest>* stream) {
    std::set<uint64_t> world;
    uint64_t tick = 0;
    bool opened = false;
    v1::SceneRequest request;
    while (stream->Read(&request)) {
      std::optional<Fault> fault;
      int message;
      {
        std::lock_guard<std::mutex> lock(mu_);
        message = ++messages_;
        auto it = plan_.find(message);
        if (it != plan_.end()) fault = it->second;
      }
      if (fault) Log(absl::StrCat("message ", message, ": ", fault->text));
      auto is = [&fault](FaultKind k) { return fault && fault->kind == k; };
      if (is(FaultKind::kExit)) std::_Exit(0);
      if (is(FaultKind::kEndBefore)) {
        return grpc::Status(fault->code, "scripted end before an answer");
      }
      if (is(FaultKind::kStall)) {
        while (!context->IsCancelled()) absl::SleepFor(absl::Milliseconds(2));
        return grpc::Status(grpc::StatusCode::CANCELLED, "stalled");
      }
      if (is(FaultKind::kDelay)) {
        const absl::Time due = absl::Now() + fault->delay;
        while (absl::Now() < due && !context->IsCancelled()) {
          absl::SleepFor(absl::Milliseconds(2));
        }
      }
      v1::SceneResponse response;
      response.set_sequence(request.sequence() +
                            (is(FaultKind::kOutOfStep) ? 1 : 0));
      if (is(FaultKind::kReject)) {
        response.mutable_error()->set_code(fault->code);
        response.mutable_error()->set_message("scripted verdict");
      } else if (!opened && !request.has_config()) {
        response.mutable_error()->set_code(grpc::StatusCode::INVALID_ARGUMENT);
        response.mutable_error()->set_message("config is required first");
      } else {
        opened = true;
        if (request.has_update()) {
          const v1::SceneUpdate& u = request.update();
          if (u.snapshot()) world.clear();
          for (uint64_t id : u.removals()) world.erase(id);
          for (const v1::SceneEntity& e : u.upserts()) world.insert(e.id());
          for (const v1::EntityColumns& g : u.upsert_columns()) {
            world.insert(g.ids().begin(), g.ids().end());
          }
          tick = u.tick();
        }
        response.set_tick(tick);
        response.set_entities(static_cast<uint32_t>(world.size()));
      }
      if (!stream->Write(response)) return grpc::Status::OK;
      if (is(FaultKind::kEndAfter)) {
        return grpc::Status(fault->code, "scripted end after an answer");
      }
    }
    return grpc::Status::OK;
  }

  const std::map<int, Fault> plan_;
  std::mutex mu_;
  int messages_ = 0;
  int streams_ = 0;
};

bool WritePortFile(const std::string& path, int port) {
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << port << "\n";
    if (!out.flush()) return false;
  }
  return std::rename(partial.c_str(), path.c_str()) == 0;
}

int Main(int argc, char** argv) {
  ConfigureUsage("scripted_scene_server", "tests/util/scripted_scene_server.cc",
                 "none (a test helper)",
                 "A SceneService that fails streams as its plan says, for "
                 "the scene session tests.\n  scripted_scene_server "
                 "--port_file=FILE --plan=4:end_before:UNAVAILABLE,...");
  ParseCommandLine(argc, argv);
  std::map<int, Fault> plan;
  absl::Status parsed = ParsePlan(absl::GetFlag(FLAGS_plan), &plan);
  if (parsed.ok() && !absl::GetFlag(FLAGS_plan_file).empty()) {
    std::ifstream in(absl::GetFlag(FLAGS_plan_file));
    std::stringstream text;
    text << in.rdbuf();
    parsed =
        in ? ParsePlan(text.str(), &plan)
           : absl::NotFoundError(absl::StrCat("cannot read --plan_file ",
                                              absl::GetFlag(FLAGS_plan_file)));
  }
  if (!parsed.ok()) {
    std::fprintf(stderr, "scripted_scene_server: %s\n",
                 parsed.ToString().c_str());
    return 2;
  }

  // Block the stop signals in every thread; this one waits for them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  ScriptedScenes scenes(std::move(plan));
  grpc::ServerBuilder builder;
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  int port = 0;
  builder.AddListeningPort(absl::GetFlag(FLAGS_address),
                           grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&scenes);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    std::fprintf(stderr, "scripted_scene_server: cannot listen on %s\n",
                 absl::GetFlag(FLAGS_address).c_str());
    return 1;
  }
  Log(absl::StrCat("listening on port ", port));
  if (!absl::GetFlag(FLAGS_port_file).empty() &&
      !WritePortFile(absl::GetFlag(FLAGS_port_file), port)) {
    std::fprintf(stderr, "scripted_scene_server: cannot write %s\n",
                 absl::GetFlag(FLAGS_port_file).c_str());
    return 1;
  }
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  // Streams still open (a stall among them) are cancelled at once.
  server->Shutdown(std::chrono::system_clock::now());
  return 0;
}

}  // namespace
}  // namespace collision

int main(int argc, char** argv) { return collision::Main(argc, argv); }
