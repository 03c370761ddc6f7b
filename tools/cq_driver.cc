#include "tools/cq_driver.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <utility>

#include "absl/time/clock.h"
#include "grpcpp/completion_queue.h"
#include "grpcpp/generic/generic_stub.h"
#include "tools/verify.h"

namespace collision::load {
namespace {

// One call in flight; its address is the completion queue tag.
struct Call {
  grpc::ClientContext context;
  grpc::ByteBuffer response;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
  Ticket ticket;
  const Item* item = nullptr;
  absl::Time sent;
  bool verify = false;
};

// The longest a thread waits on its queue without looking at its schedule
// (stop requests, pauses that ended).
constexpr absl::Duration kMaxWait = absl::Milliseconds(50);

}  // namespace

void DriveCompletionQueue(const CqDriverContext& run, int slots,
                          WorkerResult* result) {
  const RunOptions& o = run.options;
  grpc::CompletionQueue cq;
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs;
  for (const auto& c : run.clients) {
    stubs.push_back(std::make_unique<grpc::GenericStub>(c->channel()));
  }
  Backoff backoff;
  absl::Time pause_until = absl::InfinitePast();
  std::optional<Ticket> next;  // taken from the schedule, not yet started
  bool stopping = false;
  int in_flight = 0;

  auto start = [&](const Ticket& t) {
    const std::size_t channel = t.index % run.clients.size();
    auto* call = new Call;
    call->ticket = t;
    call->item = &run.workload.Get(t.index);
    call->verify = run.wants_verify(t);
    call->sent = o.rate > 0 ? t.due : absl::Now();
    run.clients[channel]->PrepareContext(&call->context);
    call->reader =
        stubs[channel]->PrepareUnaryCall(&call->context, call->item->method,
                                         *call->item->serialized_buffer, &cq);
    call->reader->StartCall();
    call->reader->Finish(&call->response, &call->status, call);
    ++in_flight;
  };
  auto finish = [&](Call* call) {
    std::unique_ptr<Call> owned(call);
    const absl::Time end = absl::Now();
    --in_flight;
    const absl::Status s = client::StatusFromCall(call->status, call->context);
    const int64_t mismatches =
        s.ok() && call->verify
            ? CountSerializedMismatches(*call->item, call->response)
            : 0;
    run.record(*result, call->ticket, *call->item, s, call->verify, mismatches,
               call->sent, end);
    pause_until = std::max(pause_until, end + backoff.After(s, result));
  };

  while (true) {
    // Start what is due while a slot is free and no pause is on.
    absl::Time now = absl::Now();
    while (!stopping && in_flight < slots && now >= pause_until) {
      if (!next) {
        Ticket t = run.scheduler.Next();
        if (t.stop) {
          stopping = true;
          break;
        }
        next = t;
      }
      if (o.rate > 0 && next->due > now) break;
      start(*next);
      next.reset();
    }
    if (stopping && in_flight == 0) break;
    // Wait for a completion, or until the next call is due or the pause
    // ends.
    absl::Time wake = now + kMaxWait;
    if (!stopping && in_flight < slots) {
      if (now < pause_until) wake = std::min(wake, pause_until);
      if (next && o.rate > 0) wake = std::min(wake, next->due);
    }
    void* tag = nullptr;
    bool ok = false;
    switch (cq.AsyncNext(&tag, &ok, absl::ToChronoTime(wake))) {
      case grpc::CompletionQueue::GOT_EVENT:
        finish(static_cast<Call*>(tag));
        break;
      case grpc::CompletionQueue::TIMEOUT:
        break;
      case grpc::CompletionQueue::SHUTDOWN:
        return;  // not reached: the queue is shut down below
    }
  }
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
}

}  // namespace collision::load
