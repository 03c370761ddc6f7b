// Connections handed to gRPC, counted until gRPC closes them. gRPC 1.51
// does not say when it closes a connection, so each is remembered by its
// descriptor and the socket's inode: a descriptor that is closed, or whose
// number now names another socket or file, is gone. Used by both ways the
// main port bounds its connections (ConnectionGate, ListenerLimit). Not
// thread-safe: its owner serialises the calls.
#ifndef COLLISION_SERVER_TRANSPORT_OPEN_SOCKETS_H_
#define COLLISION_SERVER_TRANSPORT_OPEN_SOCKETS_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace collision::server {

class OpenSockets {
 public:
  // Remembers the open socket `fd`.
  void Add(int fd) {
    struct stat st {};
    Stat(fd, &st);
    sockets_.push_back({fd, st.st_ino});
  }

  // Forgets the connections gRPC has closed (an fstat apiece); calls
  // closed(fd) for those whose descriptor is not open at all (a reused
  // number may belong to a newer connection, whose state stays).
  template <typename Closed>
  void Forget(Closed&& closed) {
    const auto gone = [&](const Socket& s) {
      struct stat st {};
      if (Stat(s.fd, &st) != 0) {
        closed(s.fd);
        return true;
      }
      return st.st_ino != s.inode || !S_ISSOCK(st.st_mode);
    };
    sockets_.erase(std::remove_if(sockets_.begin(), sockets_.end(), gone),
                   sockets_.end());
  }
  void Forget() {
    Forget([](int) {});
  }

  size_t size() const { return sockets_.size(); }
  std::vector<int> fds() const {
    std::vector<int> fds;
    for (const Socket& s : sockets_) fds.push_back(s.fd);
    return fds;
  }

 private:
  // fstat as a raw system call. ThreadSanitizer models a descriptor number
  // as an object, so probing one that another thread (gRPC's) may close,
  // or that a new socket (another thread's accept) may take over, is a
  // race to it; that probing is the point here, and the inode check is
  // what makes a reused number harmless. (fstat's interceptor reported it
  // in CI: our probe against civetweb accepting a scrape on a number gRPC
  // had just closed.)
  static int Stat(int fd, struct stat* st) {
    return static_cast<int>(syscall(SYS_newfstatat, fd, "", st, AT_EMPTY_PATH));
  }

  struct Socket {
    int fd;
    ino_t inode;
  };
  std::vector<Socket> sockets_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_TRANSPORT_OPEN_SOCKETS_H_
