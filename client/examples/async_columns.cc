// collision_async_columns: the columnar fast path, called three ways
// (blocking, future, callback), answers read back in the order added.
//
//   collision_async_columns --target=127.0.0.1:50051
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/synchronization/notification.h"
#include "collision/client/client.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server address");

namespace c = collision::client;
namespace v1 = collision::v1;

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto client = c::Client::Create(absl::GetFlag(FLAGS_target));
  if (!client.ok() || !(*client)->WaitUntilServing(absl::Seconds(10)).ok()) {
    std::fprintf(stderr, "server not ready\n");
    return 1;
  }
  c::IntersectColumnsBatch batch;
  batch.AddCircleRect(5, 5, 2, 7, 0, 11, 10);  // touching: a hit
  batch.AddCircleCircle(0, 0, 1, 3, 0, 1);     // disjoint
  // Any shape pair; one with no columnar form would make batch.status()
  // say which, and the calls fail with it unsent.
  batch.Add(c::Point(1, 1), c::RectFromCornerSize(0, 0, 2, 2));

  // Blocking, with this call's own deadline (the client's default is 5 s).
  c::CallOptions within_a_tick;
  within_a_tick.timeout = absl::Milliseconds(50);
  auto r = (*client)->IntersectColumns(batch, within_a_tick);
  if (!r.ok()) {
    std::fprintf(stderr, "IntersectColumns: %s\n",
                 r.status().ToString().c_str());
    return 1;
  }
  auto answers = batch.Unpack(*r);
  if (!answers.ok()) return 1;
  for (std::size_t i = 0; i < answers->size(); ++i) {
    std::printf("pair %zu hit=%d\n", i, (*answers)[i].hit);
  }

  // Future.
  auto future = (*client)->IntersectColumnsFuture(batch);
  std::printf("future: %s\n", future.get().ok() ? "ok" : "failed");

  // Cancelled: a Cancellation ends every call that carries it (one per tick,
  // say, cancelled when the tick's budget is spent).
  c::CallOptions this_tick;
  this_tick.cancellation = std::make_shared<c::Cancellation>();
  this_tick.cancellation->Cancel();
  std::printf("cancelled: %s\n", (*client)
                                     ->IntersectColumns(batch, this_tick)
                                     .status()
                                     .ToString()
                                     .c_str());

  // Callback (runs on a gRPC thread).
  absl::Notification done;
  c::ClosestPointColumnsBatch closest;
  closest.Add(c::Point(13, 14), c::RectFromCornerSize(0, 0, 10, 10));
  (*client)->ClosestPointColumnsAsync(
      closest,  // copied: the batch may change once this returns
      [&](absl::StatusOr<v1::ClosestPointColumnsResponse> cr) {
        if (cr.ok()) {
          auto points = closest.Unpack(*cr);
          if (points.ok()) {
            std::printf("closest=(%g,%g) distance=%g\n",
                        (*points)[0].closest_point().x(),
                        (*points)[0].closest_point().y(),
                        (*points)[0].signed_distance());
          }
        } else {
          std::printf("callback: %s\n", cr.status().ToString().c_str());
        }
        done.Notify();
      });
  done.WaitForNotification();
  return 0;
}
