// Attacks on a real collision_server process (the shipped binary, default
// flags unless a test says otherwise) over real sockets: compressed bombs,
// oversized and half-sent messages, piles of streams, oversized headers,
// calls that end early, a stream outliving its connection, file descriptors
// running out. Each asserts the bound the server promises (memory from
// /proc, the status and the text the caller gets, what health says after)
// and that an honest caller is still answered.
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "collision/v1/collision.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/e2e/wire_testing.h"
#include "tests/util/http_get.h"
#include "tests/util/server_process.h"

namespace collision {
namespace {

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

  // An honest caller on a connection of its own: health SERVING, a batch
  // answered correctly.
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
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    context.AddMetadata("authorization", absl::StrCat("Bearer ", kToken));
    v1::IntersectResponse response;
    const grpc::Status s = stub->Intersect(&context, request, &response);
    ASSERT_TRUE(s.ok()) << s.error_code() << " " << s.error_message();
    ASSERT_EQ(response.results_size(), 2);
    EXPECT_TRUE(response.results(0).hit());
    EXPECT_FALSE(response.results(1).hit());
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
    auto body = testing::HttpGet(server_->metrics_port(), "/metrics");
    EXPECT_TRUE(body.ok()) << body.status();
    if (!body.ok()) return -1;
    const auto samples = testing::ParseSamples(*body);
    const auto it = samples.find(sample);
    return it == samples.end() ? 0 : it->second;
  }

  // Waits (bounded) until a counter reaches `value`.
  bool MetricReaches(const std::string& sample, double value) {
    const absl::Time until = absl::Now() + absl::Seconds(10);
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
};

// `n` bytes of zeros, gzip-compressed (what a bomb looks like).
std::string GzipOfZeros(int64_t n) {
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
std::string EmptyPairs(int64_t n) {
  std::string bytes;
  bytes.reserve(static_cast<std::size_t>(2 * n + 2));
  for (int64_t i = 0; i < n; ++i) bytes.append("\x0a\x00", 2);
  bytes.append("\x10\x01", 2);  // boundary: INCLUSIVE
  return bytes;
}

TEST_F(Hardening, CompressedRequestsAreRefusedOnTheirHeadersBeforeTheBody) {
  ASSERT_NO_FATAL_FAILURE(StartServer({TokenFlag()}));
  // A gRPC client that compresses: the gRPC spec's answer, with the reason.
  grpc::ClientContext context;
  context.set_compression_algorithm(GRPC_COMPRESS_GZIP);
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  v1::IntersectRequest request;
  request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  request.add_pairs()->mutable_a()->mutable_point();
  v1::IntersectResponse response;
  const grpc::Status s = stub_->Intersect(&context, request, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_THAT(s.error_message(),
              HasSubstr("Compression algorithm 'gzip' is disabled"));

  // A bomb: 1 GiB of zeros in ~1 MB of gzip, by hand, no token sent (the
  // server once inflated it whole, to 1.1 GB, before any check).
  const std::string bomb = GzipOfZeros(1024 * kMiB);
  const int64_t before = server_->PeakRssBytes();
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.connected());
  connection.Send(absl::StrCat(
      ClientStart(),
      Frame(kHeaders, kEndHeaders, 1, RequestHeaders("Intersect", "gzip"))));
  const std::string message = GrpcMessage(bomb, /*flag=*/1);
  for (std::size_t at = 0; at < message.size(); at += 16384) {
    const std::size_t n = std::min<std::size_t>(16384, message.size() - at);
    if (!connection.Send(Frame(kData, at + n == message.size() ? kEndStream : 0,
                               1, message.substr(at, n)))) {
      break;  // the server may close the stream (or more) before the end
    }
  }
  const Ending ending = connection.ReadUntilEnd();
  EXPECT_TRUE(ending.ended());
  EXPECT_FALSE(ending.trailers &&
               LiteralValue(ending.trailer_block, "grpc-status") == "0");
  EXPECT_LT(
      Measured("gzip bomb: peak RSS growth", server_->PeakRssBytes() - before),
      48 * kBound);
  ExpectServesAnHonestCaller();
}

TEST_F(Hardening, AnOversizedBatchIsRejectedOnItsBytesBeforeParsing) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  // The default receive limit follows --max_batch (100000): the start log
  // says what it is, and a 10 MB request of empty pairs fits under it.
  const int limit = server::MaxRequestBytes(server::RequestLimits{});
  EXPECT_THAT(server_->log(),
              HasSubstr(absl::StrCat("max_receive_message_bytes=", limit)));
  const int64_t pairs = 5'000'000;  // 10 MB, 50x the batch limit
  ASSERT_LT(2 * pairs + 2, limit);
  const std::string flood = EmptyPairs(pairs);
  const int64_t before = server_->PeakRssBytes();
  // Three at once (once 1.9 GB each, and 6-11 s of waiting for others).
  std::vector<std::thread> callers;
  std::vector<grpc::Status> statuses(3);
  for (int i = 0; i < 3; ++i) {
    callers.emplace_back([&, i] {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::seconds(20));
      statuses[i] = RawCall("Intersect", flood, &context);
    });
  }
  for (auto& t : callers) t.join();
  for (const grpc::Status& s : statuses) {
    // Shed when three 10 MB requests pass --max_in_flight_bytes together;
    // otherwise refused by count.
    if (s.error_code() == grpc::StatusCode::UNAVAILABLE) continue;
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(s.error_message(),
              "pairs has 5000000 items, over this server's limit of 100000; "
              "split the batch");
  }
  // What stays: the bytes themselves (3 x 10 MB in gRPC's buffers), not
  // 5 M parsed pairs each (~250 MB).
  EXPECT_LT(Measured("3 x 5M empty pairs: peak RSS growth",
                     server_->PeakRssBytes() - before),
            96 * kBound);

  // Over the receive limit: refused by size, naming both numbers.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(20));
  const grpc::Status over =
      RawCall("Intersect", EmptyPairs(limit / 2 + 1), &context);
  EXPECT_EQ(over.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(over.error_message(), HasSubstr(absl::StrCat(limit)));
  ExpectServesAnHonestCaller();
}

TEST_F(Hardening, AStreamForgetsAMessageOnceItIsAnswered) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  grpc::ClientContext context;
  auto stream = stub_->QueryStream(&context);
  // A message of 5 M empty pairs (once parsed and kept for the stream's
  // life: 1.5-1.9 GB), then a real one on the same stream.
  v1::QueryStreamRequest flood;
  flood.set_sequence(7);
  const std::string pairs = EmptyPairs(5'000'000);
  ASSERT_TRUE(flood.mutable_intersect()->ParseFromString(pairs));
  const int64_t before = server_->PeakRssBytes();
  ASSERT_TRUE(stream->Write(flood));
  v1::QueryStreamResponse response;
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(response.sequence(), 7u);
  EXPECT_EQ(response.error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(response.error().message(),
              HasSubstr("pairs has 5000000 items, over this server's limit"));
  v1::QueryStreamRequest real;
  real.set_sequence(8);
  real.mutable_intersect()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  v1::ShapePair* pair = real.mutable_intersect()->add_pairs();
  pair->mutable_a()->mutable_circle()->set_radius(1);
  pair->mutable_a()->mutable_circle()->mutable_center();
  pair->mutable_b()->mutable_point()->set_x(1);
  ASSERT_TRUE(stream->Write(real));
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(response.sequence(), 8u);
  ASSERT_EQ(response.intersect().results_size(), 1);
  EXPECT_TRUE(response.intersect().results(0).hit());
  EXPECT_LT(Measured("stream with a 5M-pair message: peak RSS growth",
                     server_->PeakRssBytes() - before),
            64 * kBound);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
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
// never the end; then stays connected for `linger`. Returns the bytes sent.
int64_t SendHalfMessages(int port, int streams, int64_t body,
                         absl::Duration limit, absl::Duration linger) {
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
  connection.Linger(linger);
  return connection.bytes_sent();
}

// gRPC 1.51 buffers a message up to its announced length (here 64 MiB)
// before any size check, and its ResourceQuota reclaims far too slowly to
// stop a sender on loopback (measured: even a 1 MiB quota let ~500 MiB in).
// The bound that holds is the server's memory guard: past
// --memory_limit_bytes it turns NOT_SERVING, drains and exits 1 for its
// supervisor to restart it, instead of growing until the OOM killer.
TEST_F(Hardening, HalfSentMessagesAreBoundedByTheMemoryGuard) {
  // The quota is off here: near it, memory pressure slows gRPC's reads,
  // which only slows a sender down and would make the run's length vary.
  // (A sanitizer build of the server takes data in slower and starts
  // larger: twice the limit, not four times, keeps the run short.)
  constexpr int64_t kLimit = (kBound == kMiB ? 160 : 320) * kMiB;
  ASSERT_NO_FATAL_FAILURE(
      StartServer({TokenFlag(), absl::StrCat("--memory_limit_bytes=", kLimit),
                   "--transport_memory_bytes=0"}));
  // Peak RSS, sampled while the process lives (it may exit).
  std::atomic<bool> attacking{true};
  std::atomic<int64_t> peak{0};
  std::thread monitor([&] {
    while (attacking.load()) {
      peak = std::max(peak.load(), server_->PeakRssBytes());
      absl::SleepFor(absl::Milliseconds(5));
    }
  });
  // 60 streams over 4 connections, up to 16 MiB each (~1 GB offered; once
  // 3.9 GB held, before any token was looked at), within the windows the
  // server grants.
  std::vector<std::thread> attackers;
  std::atomic<int64_t> offered{0};
  for (int c = 0; c < 4; ++c) {
    attackers.emplace_back([this, &offered] {
      offered += SendHalfMessages(server_->port(), 15, 16 * kMiB,
                                  absl::Seconds(30), absl::Seconds(1));
    });
  }
  for (auto& t : attackers) t.join();
  attacking = false;
  monitor.join();
  Measured("60 half-sent 64 MiB messages: bytes the server took", offered);
  Measured("60 half-sent 64 MiB messages: peak RSS", peak);
  // Memory reached the guard (nothing refused the bytes earlier), and the
  // guard held: past it, one 10 ms check and the cut.
  EXPECT_GT(peak.load(), kLimit);
  EXPECT_LT(peak.load(), kLimit + 192 * kBound);
  EXPECT_EQ(server_->WaitExit(absl::Seconds(20)), 1);
  EXPECT_THAT(server_->log(), HasSubstr("passed --memory_limit_bytes"));
}

TEST_F(Hardening, StreamsPerConnectionAreBounded) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  // A peer that acknowledges the server's SETTINGS and opens more streams
  // than MAX_CONCURRENT_STREAMS (100) loses its connection.
  RawConnection connection(server_->port());
  ASSERT_TRUE(connection.connected());
  ASSERT_TRUE(connection.Send(ClientStart()));
  connection.AckSettingsFor(absl::Seconds(2));
  std::string streams;
  for (uint32_t i = 0; i < 150; ++i) {
    streams +=
        Frame(kHeaders, kEndHeaders, 1 + 2 * i, RequestHeaders("Intersect"));
  }
  connection.Send(streams);
  const Ending ending = connection.ReadUntilClosed();
  EXPECT_TRUE(ending.closed || ending.goaway);

  // One that never acknowledges (so the limit is not in force yet) and
  // opens 5,000: bounded by the transport quota.
  const int64_t before = server_->RssBytes();
  RawConnection greedy(server_->port());
  ASSERT_TRUE(greedy.connected());
  greedy.SetNonBlocking();
  const absl::Time until = absl::Now() + absl::Seconds(20);
  greedy.SendBefore(absl::StrCat(kPreface, Frame(kSettings, 0, 0, "")), until);
  for (uint32_t i = 0; i < 5000; ++i) {
    if (!greedy.SendBefore(Frame(kHeaders, kEndHeaders, 1 + 2 * i,
                                 RequestHeaders("Intersect")),
                           until)) {
      break;
    }
  }
  greedy.DrainFor(absl::Milliseconds(500));
  EXPECT_LT(Measured("5,000 streams on one connection: peak RSS growth",
                     server_->PeakRssBytes() - before),
            256 * kBound + 64 * kBound);
  ExpectServesAnHonestCaller();
}

TEST_F(Hardening, AnswersNobodyReadsAreBoundedByTheInFlightLimits) {
  ASSERT_NO_FATAL_FAILURE(
      StartServer({"--metrics_address=127.0.0.1:0", "--max_in_flight=16",
                   "--max_in_flight_per_connection=4"}));
  // 200 streams (two connections) each send one request with a large answer
  // (closest point, 40k queries: ~1.8 MB) and never read: with BDP probing
  // off, a stream's window stays at 64 KiB and the answer cannot leave.
  // Each answer waiting keeps its in-flight slot, so at most 16 exist; the
  // other messages are answered "overloaded" (small answers, which fit).
  v1::QueryStreamRequest message;
  auto* request = message.mutable_closest_point_columns();
  request->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  auto* group = request->add_groups();
  for (int i = 0; i < 40000; ++i) {
    group->mutable_queries2()->add_x(static_cast<float>(i));
    group->mutable_queries2()->add_y(0);
    group->mutable_circles()->add_x(0);
    group->mutable_circles()->add_y(static_cast<float>(i));
    group->mutable_circles()->add_radius(1);
  }
  const int64_t before = server_->RssBytes();
  struct Silent {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReaderWriter<v1::QueryStreamRequest,
                                             v1::QueryStreamResponse>>
        stream;
  };
  std::vector<std::unique_ptr<v1::CollisionService::Stub>> stubs;
  std::vector<std::unique_ptr<Silent>> silent;
  for (int c = 0; c < 2; ++c) {
    grpc::ChannelArguments args = FreshConnection();
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    stubs.push_back(v1::CollisionService::NewStub(grpc::CreateCustomChannel(
        server_->target(), grpc::InsecureChannelCredentials(), args)));
    for (int i = 0; i < 100; ++i) {
      auto s = std::make_unique<Silent>();
      s->stream = stubs.back()->QueryStream(&s->context);
      message.set_sequence(static_cast<uint64_t>(c * 100 + i));
      ASSERT_TRUE(s->stream->Write(message));
      silent.push_back(std::move(s));
    }
  }
  // Wait until the server has taken all 200: computed (answer stuck) or
  // shed.
  ASSERT_TRUE(MetricReaches(
      "grpc_server_msg_received_total{grpc_method=\"QueryStream\","
      "grpc_service=\"collision.v1.CollisionService\","
      "grpc_type=\"bidi_stream\"}",
      200))
      << testing::HttpGet(server_->metrics_port(), "/metrics").value_or("");
  EXPECT_GE(Metric("collision_rejected_total{reason=\"overloaded\"}"), 150);
  // Past half the slots a connection holds at most a quarter: the first
  // took 8, the second 4, and an honest caller still gets one.
  EXPECT_EQ(Metric("collision_in_flight"), 12);
  ExpectServesAnHonestCaller();
  // 16 answers of ~1.8 MB, not 200 (once ~1 GB for 30 streams).
  EXPECT_LT(Measured("200 unread 1.8 MB answers: peak RSS growth",
                     server_->PeakRssBytes() - before),
            128 * kBound);
  // Health and capacity come back when those callers go.
  for (auto& s : silent) s->context.TryCancel();
  silent.clear();
  const absl::Time until = absl::Now() + absl::Seconds(10);
  while (absl::Now() < until && Metric("collision_in_flight") != 0) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(Metric("collision_in_flight"), 0);
  ExpectServesAnHonestCaller();
}

// Small requests are computed inline on gRPC's threads; their slot is held
// until the answer is with the transport, so a backlog of calls inside gRPC
// counts against --max_in_flight and is shed with a pushback, and health
// (its own service, on the server's sync threads) answers meanwhile. (Once
// 100k concurrent 10-pair calls got no UNAVAILABLE at all, 3 s of mean
// latency, and health took up to 5.5 s.)
TEST_F(Hardening, ABurstOfSmallCallsIsShedAndHealthStillAnswers) {
  ASSERT_NO_FATAL_FAILURE(
      StartServer({"--metrics_address=127.0.0.1:0", "--max_in_flight=4"}));
  constexpr int kConnections = 20, kCallsEach = 100;
  std::vector<std::unique_ptr<v1::CollisionService::Stub>> stubs;
  for (int c = 0; c < kConnections; ++c) {
    stubs.push_back(v1::CollisionService::NewStub(grpc::CreateCustomChannel(
        server_->target(), grpc::InsecureChannelCredentials(),
        FreshConnection())));
  }
  v1::IntersectRequest request;
  request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  for (int i = 0; i < 10; ++i) {
    v1::ShapePair* pair = request.add_pairs();
    pair->mutable_a()->mutable_circle()->set_radius(1);
    pair->mutable_a()->mutable_circle()->mutable_center();
    pair->mutable_b()->mutable_point()->set_x(static_cast<float>(i));
  }
  struct Call {
    grpc::ClientContext context;
    v1::IntersectResponse response;
  };
  std::atomic<int> ok{0}, shed{0}, pushback{0}, other{0};
  absl::Mutex mu;
  int pending = kConnections * kCallsEach;
  for (auto& stub : stubs) {
    for (int i = 0; i < kCallsEach; ++i) {
      auto* call = new Call;
      call->context.set_deadline(std::chrono::system_clock::now() +
                                 std::chrono::seconds(30));
      stub->async()->Intersect(
          &call->context, &request, &call->response, [&, call](grpc::Status s) {
            if (s.ok()) {
              ++ok;
            } else if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
              ++shed;
              const auto& t = call->context.GetServerTrailingMetadata();
              if (t.find("grpc-retry-pushback-ms") != t.end()) ++pushback;
            } else {
              ++other;
            }
            delete call;
            absl::MutexLock lock(&mu);
            --pending;
          });
    }
  }
  // Health, on a connection of its own, answers while the burst is on.
  ExpectHealthServing(server_->target());
  {
    absl::MutexLock lock(&mu);
    ASSERT_TRUE(
        mu.AwaitWithTimeout(absl::Condition(
                                +[](int* p) { return *p == 0; }, &pending),
                            absl::Seconds(60)));
  }
  std::printf(
      "[ measured ] burst of %d 10-pair calls, --max_in_flight=4: "
      "%d ok, %d shed\n",
      kConnections * kCallsEach, ok.load(), shed.load());
  EXPECT_GT(ok.load(), 0);
  EXPECT_GT(shed.load(), 0);
  EXPECT_EQ(pushback.load(), shed.load());
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(Metric("collision_rejected_total{reason=\"overloaded\"}"),
            shed.load());
  ExpectServesAnHonestCaller();  // and once the burst is over, all is well
}

TEST_F(Hardening, OversizedMetadataRejectsItsCallAloneNotTheConnection) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  // A stream open on the connection.
  grpc::ClientContext stream_context;
  auto stream = stub_->QueryStream(&stream_context);
  v1::QueryStreamRequest tick;
  tick.mutable_intersect()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  v1::ShapePair* pair = tick.mutable_intersect()->add_pairs();
  pair->mutable_a()->mutable_point();
  pair->mutable_b()->mutable_point();
  tick.set_sequence(1);
  ASSERT_TRUE(stream->Write(tick));
  v1::QueryStreamResponse answer;
  ASSERT_TRUE(stream->Read(&answer));
  // A call with a 9,000-byte header on the same channel (connection).
  grpc::ClientContext context;
  context.AddMetadata("x-big", std::string(9000, 'a'));
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  v1::IntersectResponse response;
  const grpc::Status s =
      stub_->Intersect(&context, tick.intersect(), &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(s.error_message(),
              HasSubstr("over this server's limit of 8192 bytes"));
  // The stream is untouched.
  tick.set_sequence(2);
  ASSERT_TRUE(stream->Write(tick));
  ASSERT_TRUE(stream->Read(&answer));
  EXPECT_EQ(answer.sequence(), 2u);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(Hardening, AStreamEndsBetweenTwoMessagesBeforeItsConnectionAges) {
  // Streams end at 0.9 s (the shorter of age and grace, less a tenth),
  // before the transport would cut them at the connection's age + grace.
  ASSERT_NO_FATAL_FAILURE(StartServer(
      {"--max_connection_age=2s", "--max_connection_age_grace=1s"}));
  grpc::ClientContext context;
  auto stream = stub_->QueryStream(&context);
  v1::QueryStreamRequest tick;
  tick.mutable_intersect()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  v1::ShapePair* pair = tick.mutable_intersect()->add_pairs();
  pair->mutable_a()->mutable_circle()->set_radius(1);
  pair->mutable_a()->mutable_circle()->mutable_center();
  pair->mutable_b()->mutable_point()->set_x(1);
  // Ticks until the server ends the stream (bounded: 10 s at ~100 Hz).
  uint64_t answered = 0;
  const absl::Time until = absl::Now() + absl::Seconds(10);
  while (absl::Now() < until) {
    tick.set_sequence(answered + 1);
    if (!stream->Write(tick)) break;
    v1::QueryStreamResponse answer;
    if (!stream->Read(&answer)) break;
    ASSERT_EQ(answer.sequence(), answered + 1);  // in order, none skipped
    ASSERT_EQ(answer.intersect().results_size(), 1);
    ASSERT_TRUE(answer.intersect().results(0).hit());
    ++answered;
    absl::SleepFor(absl::Milliseconds(10));
  }
  const grpc::Status s = stream->Finish();
  EXPECT_GT(answered, 0u);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(s.error_message(), HasSubstr("maximum age"));
  const auto& trailers = context.GetServerTrailingMetadata();
  const auto end = trailers.find("collision-stream-end");
  ASSERT_NE(end, trailers.end());
  EXPECT_EQ(std::string(end->second.data(), end->second.size()), "max-age");
}

TEST_F(Hardening, CallsThatEndBeforeTheirMessageAreCountedForWhatTheyAre) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--metrics_address=127.0.0.1:0"}));
  // Half-closed with no message at all.
  {
    RawConnection connection(server_->port());
    ASSERT_TRUE(connection.Send(
        absl::StrCat(ClientStart(), Frame(kHeaders, kEndHeaders | kEndStream, 1,
                                          RequestHeaders("Intersect")))));
    const Ending ending = connection.ReadUntilEnd();
    ASSERT_TRUE(ending.trailers);
    EXPECT_EQ(LiteralValue(ending.trailer_block, "grpc-status"), "3");
  }
  EXPECT_TRUE(
      MetricReaches("collision_rejected_total{reason=\"no_message\"}", 1));
  // Cancelled by the client halfway through the upload.
  {
    RawConnection connection(server_->port());
    const std::string request = EmptyPairs(1000);
    ASSERT_TRUE(connection.Send(absl::StrCat(
        ClientStart(),
        Frame(kHeaders, kEndHeaders, 1, RequestHeaders("Intersect")),
        Frame(kData, 0, 1, GrpcMessage(request).substr(0, 100)))));
    std::string cancel;
    AppendU32(&cancel, 0x8);  // CANCEL
    ASSERT_TRUE(connection.Send(Frame(kRstStream, 0, 1, cancel)));
    connection.DrainFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(
      MetricReaches("collision_rejected_total{reason=\"cancelled\"}", 1))
      << testing::HttpGet(server_->metrics_port(), "/metrics").value_or("");
  // Its deadline passes during the upload.
  {
    RawConnection connection(server_->port());
    std::string headers = RequestHeaders("Intersect");
    AppendLiteral(&headers, "grpc-timeout", "50m");
    ASSERT_TRUE(connection.Send(absl::StrCat(
        ClientStart(), Frame(kHeaders, kEndHeaders, 1, headers),
        Frame(kData, 0, 1, GrpcMessage(EmptyPairs(10)).substr(0, 8)))));
    const Ending ending = connection.ReadUntilEnd();
    EXPECT_TRUE(ending.ended());
  }
  EXPECT_TRUE(
      MetricReaches("collision_rejected_total{reason=\"deadline\"}", 1));
  // None of them was an invalid request.
  EXPECT_EQ(Metric("collision_rejected_total{reason=\"invalid_argument\"}"), 0);
  ExpectServesAnHonestCaller();
}

TEST_F(Hardening, AListenerOutOfFileDescriptorsMakesTheServerExitForARestart) {
  // 64 descriptors: gRPC's own take ~20; the rest go to connections.
  ASSERT_NO_FATAL_FAILURE(StartServer({"--drain_grace=0s"}, 64));
  std::vector<std::unique_ptr<RawConnection>> connections;
  for (int i = 0; i < 80; ++i) {
    connections.push_back(std::make_unique<RawConnection>(server_->port()));
  }
  // gRPC 1.51 never accepts on that socket again: the server says so,
  // turns NOT_SERVING, drains and exits 1.
  EXPECT_EQ(server_->WaitExit(absl::Seconds(30)), 1) << server_->log();
  const std::string log = server_->log();
  EXPECT_THAT(log, HasSubstr("Failed accept4"));
  EXPECT_THAT(log, HasSubstr("the listening socket stopped accepting"));
  EXPECT_THAT(log, HasSubstr("exit status 1"));
}

}  // namespace
}  // namespace collision
