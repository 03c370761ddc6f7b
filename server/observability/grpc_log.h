// gRPC's own log lines, routed through a sink of ours.
//
// gRPC 1.51 reports one availability fault only in its log: when accept4
// fails on a listening socket (EMFILE, ENFILE, ENOBUFS...), it logs
// "Failed accept4: ..." and never accepts on that socket again, while
// connections pile up in the kernel's listen queue and everything else
// (health on open connections, /metrics) goes on answering. The sink prints
// every line to stderr as gRPC would and counts those, so that the server
// can turn NOT_SERVING and exit for its supervisor to restart it.
#ifndef COLLISION_SERVER_OBSERVABILITY_GRPC_LOG_H_
#define COLLISION_SERVER_OBSERVABILITY_GRPC_LOG_H_

#include <cstdint>
#include <string>

#include "absl/time/time.h"

namespace collision::server {

// Installs the sink for the whole process (idempotent).
void InstallGrpcLogSink();

// Listener failures gRPC has logged so far in this process.
uint64_t ListenerFailures();

// Waits up to `timeout` for ListenerFailures() to exceed `seen`; true (with
// gRPC's line in `line`) when it did.
bool WaitForListenerFailure(uint64_t seen, absl::Duration timeout,
                            std::string* line);

}  // namespace collision::server

#endif  // COLLISION_SERVER_OBSERVABILITY_GRPC_LOG_H_
