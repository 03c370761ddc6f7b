#include "tools/peers/grpc_driver.h"

#include <cstdint>
#include <thread>
#include <utility>

#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace collision::peers {
namespace {

struct WorkerResult {
  int64_t calls = 0;
  int64_t errors = 0;
  std::string first_error;

  void Fail(const grpc::Status& status) {
    ++errors;
    if (first_error.empty()) {
      first_error =
          std::to_string(status.error_code()) + ": " + status.error_message();
    }
  }
};

void* Tag(intptr_t value) { return reinterpret_cast<void*>(value); }

struct UnaryCall {
  grpc::ClientContext context;
  grpc::ByteBuffer reply;
  grpc::Status status;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> rpc;
};

void UnaryWorker(std::shared_ptr<grpc::Channel> channel,
                 const PreparedCall& call, const LoadOptions& options,
                 absl::Time end, WorkerResult* out) {
  grpc::GenericStub stub(std::move(channel));
  grpc::CompletionQueue cq;
  std::vector<std::unique_ptr<UnaryCall>> slots(
      static_cast<size_t>(options.depth));
  auto start = [&](size_t i) {
    slots[i] = std::make_unique<UnaryCall>();
    UnaryCall& c = *slots[i];
    c.context.set_deadline(absl::ToChronoTime(end + options.call_timeout));
    c.rpc = stub.PrepareUnaryCall(&c.context, call.method, call.body, &cq);
    c.rpc->StartCall();
    c.rpc->Finish(&c.reply, &c.status, Tag(static_cast<intptr_t>(i)));
  };
  for (size_t i = 0; i < slots.size(); ++i) start(i);
  size_t outstanding = slots.size();
  void* tag = nullptr;
  bool ok = false;
  while (outstanding > 0 && cq.Next(&tag, &ok)) {
    --outstanding;
    const size_t i = static_cast<size_t>(reinterpret_cast<intptr_t>(tag));
    if (slots[i]->status.ok()) {
      ++out->calls;
    } else {
      out->Fail(slots[i]->status);
    }
    if (absl::Now() < end) {
      start(i);
      ++outstanding;
    }
  }
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

enum StreamTag : intptr_t { kStart, kWrite, kRead, kWritesDone, kFinish };

// Waits for `want` on a queue that has at most one operation pending.
bool Await(grpc::CompletionQueue* cq, StreamTag want) {
  void* tag = nullptr;
  bool ok = false;
  return cq->Next(&tag, &ok) && tag == Tag(want) && ok;
}

// Keeps up to `depth` messages written and not yet answered; one write and
// one read pending at most (gRPC's rule for a stream).
void StreamWorker(std::shared_ptr<grpc::Channel> channel,
                  const PreparedCall& call, const LoadOptions& options,
                  absl::Time end, WorkerResult* out) {
  grpc::GenericStub stub(std::move(channel));
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(end + options.call_timeout));
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> stream =
      stub.PrepareCall(&context, call.method, &cq);
  stream->StartCall(Tag(kStart));
  bool healthy = Await(&cq, kStart);
  int in_flight = 0;
  bool writing = false;
  bool reading = false;
  bool stopping = false;
  grpc::ByteBuffer reply;
  auto pump = [&] {
    if (writing || stopping || in_flight >= options.depth) return;
    stream->Write(call.body, Tag(kWrite));
    writing = true;
    ++in_flight;
    if (!reading) {
      stream->Read(&reply, Tag(kRead));
      reading = true;
    }
  };
  if (healthy) pump();
  void* tag = nullptr;
  bool ok = false;
  while (healthy && (writing || reading) && cq.Next(&tag, &ok)) {
    if (tag == Tag(kWrite)) {
      writing = false;
    } else {
      reading = false;
    }
    if (!ok) {
      healthy = false;
      break;
    }
    if (tag == Tag(kRead)) {
      --in_flight;
      ++out->calls;
      if (in_flight > 0) {
        stream->Read(&reply, Tag(kRead));
        reading = true;
      }
    }
    if (absl::Now() >= end) stopping = true;
    pump();
  }
  grpc::Status status;
  if (healthy) {
    stream->WritesDone(Tag(kWritesDone));
    healthy = Await(&cq, kWritesDone);
  }
  if (!healthy) {
    // Operations may still be pending: cancel, then drain them all.
    context.TryCancel();
    while ((writing || reading) && cq.Next(&tag, &ok)) {
      if (tag == Tag(kWrite)) writing = false;
      if (tag == Tag(kRead)) reading = false;
    }
  }
  stream->Finish(&status, Tag(kFinish));
  Await(&cq, kFinish);
  if (!healthy || !status.ok()) {
    out->Fail(status.ok()
                  ? grpc::Status(grpc::StatusCode::UNKNOWN, "stream broke")
                  : status);
  }
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

}  // namespace

grpc::ByteBuffer Serialize(const google::protobuf::MessageLite& message) {
  const std::string bytes = message.SerializeAsString();
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::vector<std::shared_ptr<grpc::Channel>> MakeChannels(
    const std::string& target, int count) {
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < count; ++i) {
    grpc::ChannelArguments args;
    // A subchannel pool of its own: a TCP connection per channel.
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetMaxReceiveMessageSize(256 << 20);
    args.SetMaxSendMessageSize(256 << 20);
    channels.push_back(grpc::CreateCustomChannel(
        target, grpc::InsecureChannelCredentials(), args));
  }
  return channels;
}

LoadResult RunLoad(const std::vector<std::shared_ptr<grpc::Channel>>& channels,
                   const PreparedCall& call, const LoadOptions& options) {
  std::vector<WorkerResult> results(channels.size());
  std::vector<std::thread> threads;
  const absl::Time start = absl::Now();
  const absl::Time end = start + options.duration;
  for (size_t i = 0; i < channels.size(); ++i) {
    threads.emplace_back(call.stream ? StreamWorker : UnaryWorker, channels[i],
                         std::cref(call), std::cref(options), end, &results[i]);
  }
  for (std::thread& t : threads) t.join();
  LoadResult total;
  total.seconds = absl::ToDoubleSeconds(absl::Now() - start);
  for (const WorkerResult& r : results) {
    total.calls += r.calls;
    total.errors += r.errors;
    if (total.first_error.empty()) total.first_error = r.first_error;
  }
  return total;
}

}  // namespace collision::peers
