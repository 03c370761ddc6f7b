// A deliberate race between a gRPC callback thread and ours, built only in
// the TSan preset: its test passes only when tsan_check.py reports it as a
// race in our code. It proves the rule that tolerates races inside gRPC's
// header code does not also hide races in our callbacks, which always run
// beneath gRPC's callback frames.
#include <future>
#include <memory>
#include <thread>

#include "collision/client/client.h"
#include "server/server.h"

namespace {
// Unsynchronised on purpose. Alone in its cache line: TSan keeps 4 access
// records per 8 bytes, and a neighbour read from every thread (the linker
// had put it beside __libc_single_threaded, which libstdc++ reads on every
// shared_ptr copy) can evict the record of the write this test plants,
// so the race went unreported in ~1 run of 6.
alignas(64) int shared = 0;
}  // namespace

int main() {
  collision::server::ServerOptions options;
  options.address = "127.0.0.1:0";
  auto server = collision::server::CollisionServer::Start(options);
  if (!server.ok()) return 2;
  auto client = collision::client::Client::Create((*server)->address());
  if (!client.ok()) return 2;
  auto request = std::make_shared<collision::v1::IntersectRequest>(
      collision::client::IntersectBatch()
          .Add(collision::client::Point(0, 0), collision::client::Point(0, 0))
          .request());
  // Another thread of ours writes `shared`, unordered with the callback
  // wherever gRPC runs it (a gRPC thread, or this one while it is inside
  // gRPC): started before the call, joined only after it has completed.
  std::thread other([] { shared = shared + 1; });
  std::promise<void> done;
  (*client)->IntersectAsync(request, [&done](auto) {
    shared = shared + 1;  // in gRPC's completion callback
    done.set_value();
  });
  done.get_future().wait();
  other.join();
  return 0;
}
