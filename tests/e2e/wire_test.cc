// Malformed bytes below the protobuf layer, to a live server (127.0.0.1:0,
// SO_REUSEPORT off): not HTTP/2 at all, random bytes, oversized and lying
// frames, a corrupt header block, random frame sequences, clients that
// vanish mid-message or abandon streams; and bad gRPC framing: a length
// prefix claiming 4 GiB, a compressed flag with a false or no encoding, a
// message cut short. Each bad connection or call must end (never hang), never
// be answered OK, and leave the server serving health checks and correct
// answers. (Corrupt protobuf inside good calls: wire_message_test.cc.)
#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "collision/client/client.h"
#include "gtest/gtest.h"
#include "tests/e2e/wire_testing.h"

namespace collision::wire_testing {
namespace {

// --- Below gRPC: TCP and HTTP/2 --------------------------------------------

TEST_F(Wire, Http1RequestIsRefusedAndTheConnectionClosed) {
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  conn.Send(
      "GET /collision.v1.CollisionService/Intersect HTTP/1.1\r\n"
      "Host: 127.0.0.1\r\n\r\n");
  const Ending e = conn.ReadUntilEnd();
  EXPECT_TRUE(e.closed || e.goaway) << "the server kept a non-HTTP/2 peer";
  ExpectStillServing();
}

TEST_F(Wire, RandomBytesInsteadOfThePrefaceCloseTheConnection) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20; ++i) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    conn.Send(RandomBytes(rng, 1 + rng() % 65536));
    const Ending e = conn.ReadUntilEnd();
    EXPECT_TRUE(e.closed || e.goaway) << i;
  }
  ExpectStillServing();
}

TEST_F(Wire, FrameLongerThanTheMaxFrameSizeEndsTheConnection) {
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  // 16 MiB - 1 claimed, 16 bytes sent: far above the 16 KiB SETTINGS_MAX_
  // FRAME_SIZE the server advertises; a FRAME_SIZE_ERROR, not a wait.
  conn.Send(
      absl::StrCat(ClientStart(),
                   Frame(kHeaders, kEndHeaders, 1, RequestHeaders("Intersect")),
                   FrameClaiming(0xffffff, kData, 0, 1, "0123456789abcdef")));
  const Ending e = conn.ReadUntilEnd();
  EXPECT_TRUE(e.closed || e.goaway || e.reset) << "no error for a huge frame";
  ExpectStillServing();
}

TEST_F(Wire, CorruptHeaderBlockEndsTheConnection) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 10; ++i) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    conn.Send(
        absl::StrCat(ClientStart(), Frame(kHeaders, kEndHeaders | kEndStream, 1,
                                          RandomBytes(rng, 1 + rng() % 200))));
    const Ending e = conn.ReadUntilEnd();
    EXPECT_TRUE(e.ended()) << i
                           << ": nothing ended after a corrupt HPACK block";
    EXPECT_FALSE(e.trailers &&
                 LiteralValue(e.trailer_block, "grpc-status") == "0")
        << i << ": a corrupt header block was answered with OK";
  }
  ExpectStillServing();
}

TEST_F(Wire, RandomFrameSequencesNeverHangOrHurtTheServer) {
  std::mt19937_64 rng(2026);
  const std::string headers = RequestHeaders("Intersect");
  for (int i = 0; i < 150; ++i) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    std::string bytes(ClientStart());
    const int frames = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < frames; ++f) {
      const auto type = static_cast<uint8_t>(rng() % 11);
      const auto flags = static_cast<uint8_t>(rng());
      const uint32_t stream = rng() % 3 == 0 ? 0 : 1 + 2 * (rng() % 3);
      // Half the HEADERS frames carry a valid block, so that streams open
      // and DATA, RST_STREAM and WINDOW_UPDATE reach live streams.
      const std::string payload = type == kHeaders && rng() % 2 == 0
                                      ? headers
                                      : RandomBytes(rng, rng() % 64);
      bytes += Frame(type, flags, stream, payload);
    }
    conn.Send(bytes);
    conn.HalfClose();  // whatever state that left, the server must let go
    const Ending e = conn.ReadUntilEnd();
    EXPECT_FALSE(e.timed_out) << "connection " << i << " hung";
    if (i % 50 == 49) ExpectStillServing();
  }
  ExpectStillServing();
}

TEST_F(Wire, ClientsVanishingMidMessageOrAbandoningStreamsCostNothing) {
  c::IntersectBatch big;
  for (int i = 0; i < 5000; ++i) {
    big.Add(c::Circle(static_cast<float>(i), 0, 1), c::Circle(0, 0, 1));
  }
  const std::string message = GrpcMessage(big.request().SerializeAsString());
  for (int i = 0; i < 20; ++i) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    std::string bytes = ClientStart();
    // Stream 1: half a real request; streams 3..: opened and never fed.
    bytes += Frame(kHeaders, kEndHeaders, 1, RequestHeaders("Intersect"));
    bytes += Frame(kData, 0, 1, absl::string_view(message).substr(0, 8000));
    for (uint32_t s = 3; s < 3 + 2 * 50; s += 2) {
      bytes += Frame(kHeaders, kEndHeaders, s, RequestHeaders("ClosestPoint"));
    }
    conn.Send(bytes);
    if (i % 2 == 0) {
      conn.Abort();  // RST, like a crashed process
    } else {
      conn.HalfClose();
      EXPECT_FALSE(conn.ReadUntilEnd().timed_out) << i;
    }
  }
  ExpectStillServing();
}

// --- gRPC framing
// -------------------------------------------------------------

TEST_F(Wire, LengthPrefixClaimingFourGibibytesIsRefusedNotAwaited) {
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  conn.Send(Call("Intersect", GrpcMessage("\x0a\x00", 0, 0xffffffffu)));
  const Ending e = conn.ReadUntilEnd();
  ASSERT_TRUE(e.ended()) << "the server waited for 4 GiB";
  EXPECT_FALSE(e.trailers &&
               LiteralValue(e.trailer_block, "grpc-status") == "0");
  ExpectStillServing();
}

TEST_F(Wire, CompressedFlagWithGarbageIsAnErrorAndWithoutEncodingIsExact) {
  v1::IntersectRequest valid =
      c::IntersectBatch().Add(c::Circle(0, 0, 1), c::Circle(2, 0, 1)).request();
  {
    // Declared gzip, but the bytes are a plain protobuf: never OK.
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    conn.Send(
        Call("Intersect", GrpcMessage(valid.SerializeAsString(), 1), "gzip"));
    const Ending e = conn.ReadUntilEnd();
    ASSERT_TRUE(e.ended());
    EXPECT_FALSE(e.trailers &&
                 LiteralValue(e.trailer_block, "grpc-status") == "0");
  }
  {
    // The flag set with no encoding declared: gRPC 1.51 reads the bytes as
    // they are. Whatever it does, an OK must carry the true answer.
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    conn.Send(Call("Intersect", GrpcMessage(valid.SerializeAsString(), 1)));
    const Ending e = conn.ReadUntilEnd();
    ASSERT_TRUE(e.ended());
    if (e.trailers && LiteralValue(e.trailer_block, "grpc-status") == "0") {
      ASSERT_GT(e.data.size(), 5u);
      v1::IntersectResponse r;
      ASSERT_TRUE(r.ParseFromString(e.data.substr(5)));
      ASSERT_EQ(r.results_size(), 1);
      EXPECT_TRUE(r.results(0).hit());
    }
  }
  ExpectStillServing();
}

TEST_F(Wire, MessageCutShortByEndOfStreamIsAnError) {
  v1::IntersectRequest valid =
      c::IntersectBatch().Add(c::Point(0, 0), c::Point(0, 0)).request();
  const std::string bytes = valid.SerializeAsString();
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  // The prefix promises the whole message; half of it arrives, then
  // END_STREAM.
  conn.Send(
      Call("Intersect", GrpcMessage(bytes.substr(0, bytes.size() / 2), 0,
                                    static_cast<uint32_t>(bytes.size()))));
  const Ending e = conn.ReadUntilEnd();
  ASSERT_TRUE(e.ended());
  EXPECT_FALSE(e.trailers &&
               LiteralValue(e.trailer_block, "grpc-status") == "0");
  ExpectStillServing();
}

TEST_F(Wire, GarbageMessageInAHandWrittenCallGetsInvalidArgument) {
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  // Field 1 (pairs, length-delimited) claiming 100 bytes, with 3 present.
  conn.Send(
      Call("Intersect", GrpcMessage(std::string("\x0a\x64\x01\x02\x03", 5))));
  const Ending e = conn.ReadUntilEnd();
  ASSERT_TRUE(e.trailers) << "closed=" << e.closed << " reset=" << e.reset;
  EXPECT_EQ(LiteralValue(e.trailer_block, "grpc-status"), "3");
  ExpectStillServing();
}

}  // namespace
}  // namespace collision::wire_testing
