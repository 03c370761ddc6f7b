// CPU time of other processes, from /proc/<pid>/stat (Linux): what a server
// spent on a measured interval is the difference of two readings.
#ifndef COLLISION_TOOLS_PEERS_PROC_CPU_H_
#define COLLISION_TOOLS_PEERS_PROC_CPU_H_

#include "absl/status/statusor.h"

namespace collision::peers {

// User + system CPU seconds of process `pid`, all its threads, so far
// (resolution: one clock tick, usually 10 ms).
absl::StatusOr<double> ProcessCpuSeconds(int pid);

// The same for `pid` plus every live process whose parent is `pid`: for
// PostgreSQL's postmaster, the whole cluster (backends, checkpointer,
// walwriter, autovacuum...). Children that exit between two readings lose
// their time from the sum; the benchmark keeps its connections open.
absl::StatusOr<double> ProcessTreeCpuSeconds(int pid);

// This process (all threads): user + system CPU seconds.
double SelfCpuSeconds();

// CPU seconds the whole machine spent busy (every core, every process:
// /proc/stat less idle and iowait) so far; -1 when unreadable.
double MachineBusySeconds();

}  // namespace collision::peers

#endif  // COLLISION_TOOLS_PEERS_PROC_CPU_H_
