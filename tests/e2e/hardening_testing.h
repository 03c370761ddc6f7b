// Test support for the attack tests on the shipped collision_server
// (hardening_memory_test.cc, hardening_availability_test.cc): the fixture
// that starts the binary per test, the honest callers (a one-off check, and
// HonestCaller's latencies through an attack), metrics scraping, and
// the attackers' tools (a gzip bomb, empty pairs, a flow-controlled raw
// HTTP/2 sender).
#ifndef COLLISION_TESTS_E2E_HARDENING_TESTING_H_
#define COLLISION_TESTS_E2E_HARDENING_TESTING_H_

#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "collision/v1/collision.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/e2e/honest_caller.h"
#include "tests/e2e/wire_testing.h"
#include "tests/util/http_get.h"
#include "tests/util/server_process.h"

namespace collision::hardening_testing {

using ::testing::HasSubstr;
using testing::ServerProcess;
using namespace wire_testing;  // NOLINT: the HTTP/2 helpers

constexpr int64_t kMiB = 1 << 20;
// Memory bounds are the release server's; a sanitizer build of the server
// holds freed memory in quarantine and shadow memory besides.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr int64_t kBound = 4 * kMiB;
#else
constexpr int64_t kBound = kMiB;
#endif

// A live collision_server process per test, in a scratch folder.
class Hardening : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/hardening.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    honest_.reset();
    server_.reset();
    std::system(absl::StrCat("rm -rf ", dir_).c_str());
  }

  void StartServer(const std::vector<std::string>& flags = {},
                   rlim_t open_files = 0) {
    if (HasFlag(flags, "--token_file")) {
      std::ofstream(TokenFile()) << kToken << "\n";
    }
    server_ =
        std::make_unique<ServerProcess>(COLLISION_SERVER_PATH, dir_, "server");
    std::vector<std::string> all = flags;
    if (kBound != kMiB && !HasFlag(flags, "--memory_limit_bytes")) {
      // The memory guard's default, scaled like the bounds.
      all.push_back(absl::StrCat("--memory_limit_bytes=", 768 * kBound));
    }
    ASSERT_NO_FATAL_FAILURE(server_->Start(all, open_files));
    ASSERT_NO_FATAL_FAILURE(
        server_->WaitForPorts(HasFlag(flags, "--metrics_address")));
    stub_ = v1::CollisionService::NewStub(grpc::CreateChannel(
        server_->target(), grpc::InsecureChannelCredentials()));
  }

  static bool HasFlag(const std::vector<std::string>& flags,
                      absl::string_view name) {
    for (const auto& f : flags) {
      if (absl::StartsWith(f, name)) return true;
    }
    return false;
  }

  // An honest caller on a connection of its own: a batch answered
  // correctly within 10 s, retried after the pushback while it is shed (the
  // server's overload answer, which a busy machine may give; see
  // HonestCaller).
  void ExpectServesAnHonestCaller() {
    auto channel = grpc::CreateCustomChannel(server_->target(),
                                             grpc::InsecureChannelCredentials(),
                                             FreshConnection());
    auto stub = v1::CollisionService::NewStub(channel);
    v1::IntersectRequest request;
    request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    for (float x : {2.0f, 2.5f}) {  // touching, then apart
      v1::ShapePair* pair = request.add_pairs();
      pair->mutable_a()->mutable_circle()->set_radius(1);
      pair->mutable_a()->mutable_circle()->mutable_center();
      pair->mutable_b()->mutable_circle()->set_radius(1);
      pair->mutable_b()->mutable_circle()->mutable_center()->set_x(x);
    }
    v1::IntersectResponse response;
    const grpc::Status s =
        CallRetryingWhileShed([&](grpc::ClientContext* context) {
          return stub->Intersect(context, request, &response);
        });
    ASSERT_TRUE(s.ok()) << s.error_code() << " " << s.error_message();
    ASSERT_EQ(response.results_size(), 2);
    EXPECT_TRUE(response.results(0).hit());
    EXPECT_FALSE(response.results(1).hit());
  }

  // Makes a unary call, `call(&context)`, and makes it again after the
  // pushback while it is shed (UNAVAILABLE with grpc-retry-pushback-ms, the
  // server's overload answer, which a busy machine may give any caller: see
  // HonestCaller), within `timeout` in all, as the C++ client's retry policy
  // does. Each attempt gets a context of its own with the deadline and the
  // token. Returns the last attempt's status.
  template <typename Call>
  static grpc::Status CallRetryingWhileShed(
      const Call& call, absl::Duration timeout = absl::Seconds(10)) {
    const auto deadline =
        std::chrono::system_clock::now() + absl::ToChronoMilliseconds(timeout);
    for (int shed = 1;; ++shed) {
      grpc::ClientContext context;
      context.set_deadline(deadline);
      context.AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
      const grpc::Status s = call(&context);
      const auto& trailers = context.GetServerTrailingMetadata();
      const auto pushback = trailers.find("grpc-retry-pushback-ms");
      if (s.error_code() != grpc::StatusCode::UNAVAILABLE ||
          pushback == trailers.end()) {
        return s;
      }
      const auto retry_at =
          std::chrono::system_clock::now() +
          std::chrono::milliseconds(std::atoi(
              std::string(pushback->second.data(), pushback->second.size())
                  .c_str()));
      if (retry_at >= deadline) {
        return grpc::Status(s.error_code(),
                            absl::StrCat("shed ", shed,
                                         " times until the deadline, the "
                                         "last: ",
                                         s.error_message()));
      }
      std::this_thread::sleep_until(retry_at);
    }
  }

  // Writes `message` on `stream` and reads its answer into `*response`,
  // writing it again (after 20 ms, the default pushback) while it is shed:
  // answered with an UNAVAILABLE error, the overload answer a busy machine
  // may give (see CallRetryingWhileShed), at most for `timeout`. False when
  // the stream breaks.
  template <typename Stream>
  static bool ExchangeRetryingWhileShed(
      Stream* stream, const v1::QueryStreamRequest& message,
      v1::QueryStreamResponse* response,
      absl::Duration timeout = absl::Seconds(10)) {
    const absl::Time until = absl::Now() + timeout;
    for (;;) {
      if (!stream->Write(message) || !stream->Read(response)) return false;
      if (response->error().code() != grpc::StatusCode::UNAVAILABLE ||
          absl::Now() >= until) {
        return true;
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
  }

  // Opens the HonestCaller's connection (honest_) and measures it unloaded:
  // 200 calls after 20 of warm-up, the reference for
  // ExpectHonestCallerServed. Every call is answered, some perhaps after
  // being shed (retried after the pushback: a busy machine can get a caller
  // shed with no attack at all, see HonestCaller).
  void MeasureHonestCallerUnloaded() {
    honest_ = std::make_unique<HonestCaller>(server_->target(), kToken);
    honest_->Run(20);
    unloaded_ = honest_->Run(200);
    ASSERT_EQ(unloaded_.failed, 0) << unloaded_.first_failure;
    ASSERT_EQ(unloaded_.answered, 200);
    RecordProperty("honest caller unloaded: shed", unloaded_.shed);
    RecordProperty("honest caller unloaded: p50 us",
                   static_cast<int>(unloaded_.p50_ms * 1000));
    RecordProperty("honest caller unloaded: p99 us",
                   static_cast<int>(unloaded_.p99_ms * 1000));
  }

  // Whether an attack may take the server's capacity from the honest
  // caller (get it shed because requests in flight fill the server).
  enum class Shedding {
    // The attack holds no in-flight slot the caller needs: the caller may
    // still be shed for the answer backlog, which a busy machine produces on
    // its own (see HonestCaller), never for capacity.
    kNeverForCapacity,
    // The attack fills the slots: the caller is shed like anyone.
    kAllowed,
  };

  // Prints (for the operations docs) and records the honest caller's
  // latencies through `attack` beside the unloaded ones. Asserts only what
  // does not depend on the machine's speed: no call failed (a wrong answer,
  // an error other than shedding, a call still shed when its deadline came),
  // so every call was answered, shed ones after their pushback; at least one
  // was; and none was shed for capacity unless `shedding` allows it.
  // Latency itself is never asserted, nor how often the caller was shed for
  // the answer backlog.
  void ExpectHonestCallerServed(const std::string& attack,
                                const Latencies& during, Shedding shedding) {
    const double factor =
        unloaded_.p99_ms > 0 ? during.p99_ms / unloaded_.p99_ms : 0;
    std::printf(
        "[ measured ] %s: honest caller p50 %.2f ms, p99 %.2f ms, max %.2f ms "
        "over %d answered calls (%d shed, %d for capacity, at most %d in a "
        "row) — unloaded p50 %.2f ms, p99 %.2f ms (%d shed): p99 %.1f x "
        "unloaded\n",
        attack.c_str(), during.p50_ms, during.p99_ms, during.max_ms,
        during.answered, during.shed, during.shed_for_capacity,
        during.most_shed_in_a_row, unloaded_.p50_ms, unloaded_.p99_ms,
        unloaded_.shed, factor);
    if (during.shed > 0) {
      std::printf("[ measured ] %s: the first shed: %s\n", attack.c_str(),
                  during.first_shed.c_str());
    }
    const std::string key = attack + ": honest caller ";
    RecordProperty(key + "p50 us", static_cast<int>(during.p50_ms * 1000));
    RecordProperty(key + "p99 us", static_cast<int>(during.p99_ms * 1000));
    RecordProperty(key + "max us", static_cast<int>(during.max_ms * 1000));
    RecordProperty(key + "answered", during.answered);
    RecordProperty(key + "shed", during.shed);
    RecordProperty(key + "shed for capacity", during.shed_for_capacity);
    EXPECT_EQ(during.failed, 0)
        << attack << ": " << during.failed
        << " honest calls failed, first: " << during.first_failure;
    EXPECT_GT(during.answered, 0) << attack;
    if (shedding == Shedding::kNeverForCapacity) {
      EXPECT_EQ(during.shed_for_capacity, 0)
          << attack << ": the first shed: " << during.first_shed;
    }
  }

  static grpc::ChannelArguments FreshConnection() {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetInt("collision.test.fresh", rand());
    return args;
  }

  // Sends `bytes` as one unary call to `method` with a raw (untyped) stub.
  grpc::Status RawCall(const std::string& method, const std::string& bytes,
                       grpc::ClientContext* context) {
    auto channel = grpc::CreateChannel(server_->target(),
                                       grpc::InsecureChannelCredentials());
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    const std::string path = absl::StrCat(kService, method);
    return grpc::internal::BlockingUnaryCall<grpc::ByteBuffer,
                                             grpc::ByteBuffer>(
        channel.get(),
        grpc::internal::RpcMethod(path.c_str(), nullptr,
                                  grpc::internal::RpcMethod::NORMAL_RPC),
        context, request, &response);
  }

  // Prints a measured memory figure (for the operations docs), and returns
  // it for the assertion.
  int64_t Measured(const char* what, int64_t bytes) {
    std::printf("[ measured ] %s: %.1f MiB\n", what,
                static_cast<double>(bytes) / kMiB);
    RecordProperty(what, static_cast<int>(bytes / 1024));
    return bytes;
  }

  // The value of a counter on the server's /metrics (0 when absent).
  double Metric(const std::string& sample) {
    auto value = testing::MetricSample(server_->metrics_port(), sample);
    EXPECT_TRUE(value.ok()) << value.status();
    return value.ok() ? *value : -1;
  }

  // Waits until a counter reaches `value`: it returns as soon as it does,
  // so the bound (30 s) is generous for a busy machine and costs a passing
  // test nothing.
  bool MetricReaches(const std::string& sample, double value) {
    const absl::Time until = absl::Now() + absl::Seconds(30);
    while (absl::Now() < until) {
      if (Metric(sample) >= value) return true;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return false;
  }

  static constexpr char kToken[] = "hardening-token";
  std::string TokenFile() const { return dir_ + "/tokens"; }
  std::string TokenFlag() const { return "--token_file=" + TokenFile(); }

  std::string dir_;
  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<v1::CollisionService::Stub> stub_;
  std::unique_ptr<HonestCaller> honest_;
  Latencies unloaded_;
};

// `n` bytes of zeros, gzip-compressed (what a bomb looks like).
inline std::string GzipOfZeros(int64_t n) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9,
                         Z_DEFAULT_STRATEGY),
            Z_OK);
  const std::string chunk(1 << 20, '\0');
  std::string out;
  char buffer[1 << 16];
  for (int64_t fed = 0; fed < n;) {
    const int64_t take = std::min<int64_t>(chunk.size(), n - fed);
    fed += take;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
    z.avail_in = static_cast<uInt>(take);
    const int flush = fed == n ? Z_FINISH : Z_NO_FLUSH;
    do {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof(buffer);
      deflate(&z, flush);
      out.append(buffer, sizeof(buffer) - z.avail_out);
    } while (z.avail_out == 0);
  }
  deflateEnd(&z);
  return out;
}

// `n` empty pairs: the most objects protobuf builds per byte (2 bytes each).
inline std::string EmptyPairs(int64_t n) {
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(2 * n + 2));
  for (int64_t i = 0; i < n; ++i) bytes.append("\x0a\x00", 2);
  bytes.append("\x10\x01", 2);  // boundary: INCLUSIVE
  return bytes;
}
// A raw HTTP/2 client that keeps to flow control, as a careful attacker
// does: it sends DATA only within the windows the server grants (reading
// its WINDOW_UPDATEs and SETTINGS, acknowledging SETTINGS and PINGs).
class FlowControlledConnection {
 public:
  explicit FlowControlledConnection(int port) : raw_(port) {
    raw_.SetNonBlocking();
  }
  bool connected() const { return raw_.connected(); }

  bool Start(absl::Time until) { return Send(ClientStart(), until); }

  bool Open(uint32_t stream, absl::string_view method, absl::Time until,
            absl::string_view encoding = "") {
    windows_[stream] = initial_window_;
    return Send(
        Frame(kHeaders, kEndHeaders, stream, RequestHeaders(method, encoding)),
        until);
  }

  // Sends `bytes` on `stream` in frames of at most 16 KiB, each when the
  // windows allow; false when the stream or connection was closed or time
  // ran out.
  bool SendData(uint32_t stream, absl::string_view bytes, bool end,
                absl::Time until) {
    while (!bytes.empty() || end) {
      if (closed_ || reset_.count(stream) != 0) return false;
      const int64_t room =
          std::min({connection_window_, windows_[stream], int64_t{16384}});
      if (room <= 0 && !bytes.empty()) {
        if (!ReadSome(until)) return false;
        continue;
      }
      const std::size_t n = std::min<std::size_t>(bytes.size(), room);
      const bool last = end && n == bytes.size();
      if (!Send(Frame(kData, last ? kEndStream : 0, stream, bytes.substr(0, n)),
                until)) {
        return false;
      }
      connection_window_ -= static_cast<int64_t>(n);
      windows_[stream] -= static_cast<int64_t>(n);
      bytes.remove_prefix(n);
      if (last || (end && bytes.empty())) return true;
    }
    return true;
  }

  // Keeps reading (and answering SETTINGS and PINGs) for `time`.
  void Linger(absl::Duration time) {
    const absl::Time until = absl::Now() + time;
    while (absl::Now() < until && !closed_) ReadSome(until);
  }
  // The same until `done` is notified (or the connection is closed, or
  // `until` passes).
  void LingerUntil(const absl::Notification& done, absl::Time until) {
    while (!done.HasBeenNotified() && absl::Now() < until && !closed_) {
      ReadSome(std::min(until, absl::Now() + absl::Milliseconds(100)));
    }
  }

  int64_t bytes_sent() const { return sent_; }

 private:
  bool Send(absl::string_view bytes, absl::Time until) {
    const bool ok = raw_.SendBefore(bytes, until);
    if (ok) sent_ += static_cast<int64_t>(bytes.size());
    return ok;
  }

  // Waits for and handles incoming frames; false when the connection is
  // closed or `until` passed.
  bool ReadSome(absl::Time until) {
    const absl::Duration left = until - absl::Now();
    if (left <= absl::ZeroDuration()) return false;
    std::string chunk;
    if (!raw_.ReceiveSome(&chunk, std::min(left, absl::Milliseconds(100)))) {
      closed_ = true;
      return false;
    }
    in_ += chunk;
    std::size_t at = 0;
    while (in_.size() - at >= 9) {
      const auto* p = reinterpret_cast<const uint8_t*>(in_.data() + at);
      const uint32_t length = (p[0] << 16) | (p[1] << 8) | p[2];
      if (in_.size() - at < 9 + length) break;
      const uint8_t type = p[3], flags = p[4];
      const uint32_t stream =
          ((p[5] << 24) | (p[6] << 16) | (p[7] << 8) | p[8]) & 0x7fffffffu;
      const auto* payload = p + 9;
      if (type == kSettings && (flags & kAck) == 0) {
        for (uint32_t i = 0; i + 6 <= length; i += 6) {
          const uint32_t id = (payload[i] << 8) | payload[i + 1];
          const int64_t value = (int64_t{payload[i + 2]} << 24) |
                                (payload[i + 3] << 16) | (payload[i + 4] << 8) |
                                payload[i + 5];
          if (id == 4) {  // SETTINGS_INITIAL_WINDOW_SIZE
            for (auto& [id_, w] : windows_) w += value - initial_window_;
            initial_window_ = value;
          }
        }
        Send(Frame(kSettings, kAck, 0, ""), until);
      } else if (type == kPing && (flags & kAck) == 0) {
        Send(Frame(kPing, kAck, 0,
                   absl::string_view(reinterpret_cast<const char*>(payload),
                                     length)),
             until);
      } else if (type == kWindowUpdate && length == 4) {
        const int64_t increment = ((payload[0] & 0x7f) << 24) |
                                  (payload[1] << 16) | (payload[2] << 8) |
                                  payload[3];
        if (stream == 0) {
          connection_window_ += increment;
        } else {
          windows_[stream] += increment;
        }
      } else if (type == kRstStream) {
        reset_.insert(stream);
      } else if (type == kGoAway) {
        closed_ = true;
      }
      at += 9 + length;
    }
    in_.erase(0, at);
    return !closed_;
  }

  RawConnection raw_;
  std::string in_;
  int64_t initial_window_ = 65535;
  int64_t connection_window_ = 65535;
  std::map<uint32_t, int64_t> windows_;
  std::set<uint32_t> reset_;
  bool closed_ = false;
  int64_t sent_ = 0;
};

// Opens `streams` calls on one connection, each announcing a 64 MiB message
// and sending up to `body` bytes of it within the windows the server grants,
// never the end; then stays connected for `linger`, or, given `done`, until
// it is notified (for at most `linger`). Returns the bytes sent.
inline int64_t SendHalfMessages(int port, int streams, int64_t body,
                                absl::Duration limit, absl::Duration linger,
                                const absl::Notification* done = nullptr) {
  FlowControlledConnection connection(port);
  const absl::Time until = absl::Now() + limit;
  if (!connection.connected() || !connection.Start(until)) return 0;
  for (int i = 0; i < streams; ++i) {
    const uint32_t id = 1 + 2 * static_cast<uint32_t>(i);
    if (!connection.Open(id, "Intersect", until) ||
        !connection.SendData(
            id, GrpcMessage("", 0, static_cast<uint32_t>(64 * kMiB)), false,
            until)) {
      return connection.bytes_sent();
    }
  }
  const std::string chunk(256 * 1024, 'x');
  for (int64_t sent = 0; sent < body; sent += chunk.size()) {
    int open = 0;
    for (int i = 0; i < streams; ++i) {
      const uint32_t id = 1 + 2 * static_cast<uint32_t>(i);
      open += connection.SendData(id, chunk, false, until) ? 1 : 0;
      if (absl::Now() > until) break;
    }
    if (open == 0 || absl::Now() > until) break;
  }
  if (done != nullptr) {
    connection.LingerUntil(*done, absl::Now() + linger);
  } else {
    connection.Linger(linger);
  }
  return connection.bytes_sent();
}

}  // namespace collision::hardening_testing

#endif  // COLLISION_TESTS_E2E_HARDENING_TESTING_H_
