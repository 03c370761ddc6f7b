// The scene port's frames (scene.proto, "The scene port"): a 4-byte
// little-endian length, then that many bytes. Written here once for the
// server (server/scene_port.cc) and the C++ client (client/src/
// scene_stream.cc).
#ifndef COLLISION_COMMON_FRAMES_H_
#define COLLISION_COMMON_FRAMES_H_

#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace collision::frames {

inline constexpr std::size_t kHeaderBytes = 4;

inline uint32_t DecodeLength(const unsigned char* header) {
  return uint32_t{header[0]} | uint32_t{header[1]} << 8 |
         uint32_t{header[2]} << 16 | uint32_t{header[3]} << 24;
}

// Milliseconds left until `deadline` for poll(): -1 for no deadline.
inline int PollMillis(absl::Time deadline) {
  if (deadline == absl::InfiniteFuture()) return -1;
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return 0;
  return static_cast<int>(
      std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1 << 30));
}

// Writes one frame carrying `bytes` to the socket `fd`, waiting for room
// up to `deadline` (absl::InfiniteFuture(): as long as the socket lives).
// False when the socket failed or the deadline passed first. Each write is
// non-blocking, so this holds on a blocking socket too; SIGPIPE is never
// raised.
inline bool WriteFrame(int fd, std::string_view bytes, absl::Time deadline) {
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  unsigned char header[kHeaderBytes] = {
      static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
      static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
  const iovec parts[2] = {{header, kHeaderBytes},
                          {const_cast<char*>(bytes.data()), bytes.size()}};
  const std::size_t total = kHeaderBytes + bytes.size();
  std::size_t sent = 0;
  while (sent < total) {
    iovec left[2];
    int count = 0;
    std::size_t skip = sent;
    for (const iovec& part : parts) {
      if (skip >= part.iov_len) {
        skip -= part.iov_len;
        continue;
      }
      left[count++] = {static_cast<char*>(part.iov_base) + skip,
                       part.iov_len - skip};
      skip = 0;
    }
    msghdr message{};
    message.msg_iov = left;
    message.msg_iovlen = static_cast<std::size_t>(count);
    const ssize_t w = sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd room = {fd, POLLOUT, 0};
      if (poll(&room, 1, PollMillis(deadline)) <= 0) return false;
      continue;
    }
    if (w <= 0) return false;
    sent += static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace collision::frames

#endif  // COLLISION_COMMON_FRAMES_H_
