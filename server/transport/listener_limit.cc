#include "server/transport/listener_limit.h"

#include <sys/socket.h>
#include <unistd.h>

#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "grpc/support/sync.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"

// gRPC 1.51's socket mutator interface. Its header
// (src/core/lib/iomgr/socket_mutator.h) is not installed; its entry points
// are exported, and the layout below is the one libgrpc.so.29 reads
// (grpc_socket_mutator_mutate_fd loads mutate_fd_2 from offset 24 and
// passes {fd, usage}). The names must be these: the init function is
// found by its C++ signature.
struct grpc_socket_mutator_vtable {
  bool (*mutate_fd)(int fd, grpc_socket_mutator* mutator);
  int (*compare)(grpc_socket_mutator* a, grpc_socket_mutator* b);
  void (*destroy)(grpc_socket_mutator* mutator);
  bool (*mutate_fd_2)(const void* info, grpc_socket_mutator* mutator);
};
struct grpc_socket_mutator {
  const grpc_socket_mutator_vtable* vtable;
  gpr_refcount refcount;
};
void grpc_socket_mutator_init(grpc_socket_mutator* mutator,
                              const grpc_socket_mutator_vtable* vtable);

namespace collision::server {

namespace {

// grpc_mutate_socket_info, and its usage for an accepted connection
// (GRPC_FD_SERVER_CONNECTION_USAGE).
struct MutateInfo {
  int fd;
  int usage;
};
constexpr int kServerListener = 1, kServerConnection = 2;

// The most connections one refusal closes of those waiting on a listener.
constexpr int kMaxRefusedAtOnce = 4096;
// How often a full pass over the open connections may run while a flood of
// connections finds the limit reached (each pass is an fstat apiece).
constexpr absl::Duration kForgetEvery = absl::Milliseconds(10);

struct LimitMutator {
  grpc_socket_mutator base;  // first: gRPC sees this
  std::shared_ptr<ListenerLimit> limit;
};

LimitMutator* Of(grpc_socket_mutator* m) {
  return reinterpret_cast<LimitMutator*>(m);
}

bool MutateAny(int, grpc_socket_mutator*) { return true; }

bool Mutate(const void* info, grpc_socket_mutator* m) {
  const auto* i = static_cast<const MutateInfo*>(info);
  // Always true: a false here makes gRPC 1.51 stop accepting on the port
  // for good (on_read's error path), the very failure this limit prevents.
  if (i->usage == kServerListener) Of(m)->limit->AddListener(i->fd);
  if (i->usage == kServerConnection) Of(m)->limit->Admit(i->fd);
  return true;
}

int Compare(grpc_socket_mutator* a, grpc_socket_mutator* b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

void Destroy(grpc_socket_mutator* m) { delete Of(m); }

constexpr grpc_socket_mutator_vtable kVtable = {MutateAny, Compare, Destroy,
                                                Mutate};

class WithLimit : public grpc::ServerBuilderOption {
 public:
  explicit WithLimit(std::shared_ptr<ListenerLimit> limit)
      : limit_(std::move(limit)) {}
  void UpdateArguments(grpc::ChannelArguments* args) override {
    auto* m = new LimitMutator{{}, limit_};
    grpc_socket_mutator_init(&m->base, &kVtable);
    args->SetSocketMutator(&m->base);  // takes the reference init made
  }
  void UpdatePlugins(
      std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>*) override {}

 private:
  std::shared_ptr<ListenerLimit> limit_;
};

}  // namespace

void ListenerLimit::Install(std::shared_ptr<ListenerLimit> limit,
                            grpc::ServerBuilder* builder) {
  builder->SetOption(std::make_unique<WithLimit>(std::move(limit)));
}

bool ListenerLimit::Admit(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  if (open_.size() >= max_connections_) {
    const absl::Time now = absl::Now();
    if (now - last_forget_ >= kForgetEvery) ForgetClosed(now);
  }
  if (open_.size() >= max_connections_) {
    // gRPC's read of the handshake now sees the end of the stream, and it
    // closes the descriptor: the client gets FIN before any TLS byte.
    shutdown(fd, SHUT_RDWR);
    metrics_->Rejected("connection_limit");
    RefuseWaiting();
    return false;
  }
  open_.Add(fd);
  metrics_->SetConnections(static_cast<int64_t>(open_.size()));
  return true;
}

void ListenerLimit::AddListener(int fd) {
  std::lock_guard<std::mutex> lock(mu_);
  listeners_.Add(fd);
}

void ListenerLimit::RefuseWaiting() {
  // Only listeners still open as the sockets they were (one gRPC closed
  // may have left its number to another server's).
  listeners_.Forget();
  for (int listener : listeners_.fds()) {
    for (int i = 0; i < kMaxRefusedAtOnce; ++i) {
      const int fd =
          accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) break;  // EAGAIN: none waiting (or out of descriptors)
      close(fd);
      metrics_->Rejected("connection_limit");
    }
  }
}

void ListenerLimit::Recount() {
  std::lock_guard<std::mutex> lock(mu_);
  ForgetClosed(absl::Now());
}

void ListenerLimit::ForgetClosed(absl::Time now) {
  last_forget_ = now;
  open_.Forget();
  metrics_->SetConnections(static_cast<int64_t>(open_.size()));
}

}  // namespace collision::server
