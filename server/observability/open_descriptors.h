// The process's open descriptors, listed from /proc/self/fd. Shared by the
// transport shedder (which probes the main port's sockets among them) and
// the process metrics (which count them).
#ifndef COLLISION_SERVER_OBSERVABILITY_OPEN_DESCRIPTORS_H_
#define COLLISION_SERVER_OBSERVABILITY_OPEN_DESCRIPTORS_H_

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/numbers.h"

namespace collision::server {

// Read with raw system calls: ThreadSanitizer's opendir/closedir
// interceptors took the listing's own descriptor, a number the gate's
// accept4 had just had, for a race (seen in CI). Empty when the listing
// could not be opened (out of descriptors).
inline std::vector<int> OpenDescriptors() {
  std::vector<int> fds;
  const int dir =
      static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc/self/fd",
                               O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir < 0) return fds;  // out of descriptors: next time
  // linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1),
  // then the name.
  alignas(8) char buffer[16384];
  while (true) {
    const long n = syscall(SYS_getdents64, dir, buffer, sizeof buffer);
    if (n <= 0) break;
    for (long at = 0; at < n;) {
      uint16_t length = 0;
      std::memcpy(&length, buffer + at + 16, sizeof length);
      int fd = -1;
      if (absl::SimpleAtoi(buffer + at + 19, &fd) && fd != dir) {
        fds.push_back(fd);
      }
      at += length;
    }
  }
  syscall(SYS_close, dir);
  return fds;
}

}  // namespace collision::server

#endif  // COLLISION_SERVER_OBSERVABILITY_OPEN_DESCRIPTORS_H_
