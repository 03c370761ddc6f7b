// collision_stream: one QueryStream session, one batch per game tick, the
// replies read back in order with their tick numbers.
//
//   collision_stream --target=127.0.0.1:50051 --ticks=5
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "collision/client/client.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server address");
ABSL_FLAG(int, ticks, 5, "number of ticks to send");

namespace c = collision::client;

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto client = c::Client::Create(absl::GetFlag(FLAGS_target));
  if (!client.ok() || !(*client)->WaitUntilServing(absl::Seconds(10)).ok()) {
    std::fprintf(stderr, "server not ready\n");
    return 1;
  }
  auto session = (*client)->OpenSession();
  if (!session.ok()) return 1;
  for (uint64_t tick = 1; tick <= uint64_t(absl::GetFlag(FLAGS_ticks));
       ++tick) {
    c::IntersectBatch batch;  // the ball moves right one unit per tick
    batch.Add(c::Circle(float(tick), 5, 2), c::RectFromCornerSize(7, 0, 4, 10));
    if (!(*session)->Send(tick, batch.request()).ok()) break;
    absl::StatusOr<c::StreamReply> reply = (*session)->Receive();
    if (!reply.ok()) {
      std::fprintf(stderr, "stream: %s\n", reply.status().ToString().c_str());
      return 1;
    }
    if (!reply->status.ok()) {
      std::printf("tick %llu rejected: %s\n", (unsigned long long)tick,
                  reply->status.ToString().c_str());
      continue;
    }
    std::printf("tick %llu hit=%d\n", (unsigned long long)reply->sequence,
                reply->response.intersect().results(0).hit());
  }
  absl::Status s = (*session)->Finish();
  std::printf("stream closed: %s\n", s.ToString().c_str());
  return s.ok() ? 0 : 1;
}
