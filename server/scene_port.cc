#include "server/scene_port.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/v1/scene.pb.h"
#include "collision/wire/wire_precheck.h"
#include "common/frames.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "server/hosted_scene.h"
#include "server/observability/event_log.h"
#include "server/raw_messages.h"
#include "server/status.h"

namespace collision::server {
namespace {

constexpr char kMethod[] = "SceneSession";
constexpr char kType[] = "tcp_stream";
// A hello carries a token: as much as a call's headers may be.
constexpr std::size_t kMaxHelloBytes = 8192;
// Bytes of an unwanted frame read to find its sequence number.
constexpr std::size_t kPeekBytes = 16;

using frames::PollMillis;

// A connection's socket, every wait bounded by a deadline.
class Socket {
 public:
  Socket(int fd, int stop_fd) : fd_(fd), stop_fd_(stop_fd) {}

  enum class Ready { kData, kStopped, kTimedOut };
  // Waits for the next frame's first byte (or the socket's end), the port
  // stopping, or `deadline`.
  Ready WaitForFrame(absl::Time deadline) const {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    while (true) {
      const int n = poll(fds, 2, PollMillis(deadline));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Ready::kData;  // the read will tell
      if (n == 0) return Ready::kTimedOut;
      if (fds[1].revents != 0) return Ready::kStopped;
      return Ready::kData;
    }
  }

  // Reads exactly `n` bytes by `deadline` (into `out`, or dropped when
  // null). `*clean_end`: the peer closed before the first byte.
  bool Read(char* out, std::size_t n, absl::Time deadline,
            bool* clean_end = nullptr) const {
    char sink[16384];
    std::size_t got = 0;
    if (clean_end != nullptr) *clean_end = false;
    while (got < n) {
      pollfd fd = {fd_, POLLIN, 0};
      const int ready = poll(&fd, 1, PollMillis(deadline));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) return false;
      const std::size_t want =
          out != nullptr ? n - got : std::min(n - got, sizeof(sink));
      const ssize_t r = recv(fd_, out != nullptr ? out + got : sink, want, 0);
      if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (r == 0 && got == 0 && clean_end != nullptr) *clean_end = true;
      if (r <= 0) return false;
      got += static_cast<std::size_t>(r);
    }
    return true;
  }

  // Writes a frame (length, then `bytes`) by `deadline`.
  bool WriteFrame(const std::string& bytes, absl::Time deadline) const {
    return frames::WriteFrame(fd_, bytes, deadline);
  }

 private:
  const int fd_;
  const int stop_fd_;
};

uint32_t FrameSize(const unsigned char* header) {
  return frames::DecodeLength(header);
}

uint64_t PeekSequence(const char* bytes, std::size_t n) {
  google::protobuf::io::ArrayInputStream in(bytes, static_cast<int>(n));
  return wire::PeekStreamSequence(&in);
}

// The answer to a message the stream does not serve: its error alone.
std::string ErrorAnswer(uint64_t sequence, const grpc::Status& s) {
  v1::SceneResponse response;
  response.set_sequence(sequence);
  ToStreamError(s, response.mutable_error());
  return response.SerializeAsString();
}

std::string EndFrame(const grpc::Status& s) {
  v1::SceneResponse response;
  ToStreamError(s, response.mutable_end());
  return response.SerializeAsString();
}

std::string PeerOf(const sockaddr_storage& address) {
  char host[INET6_ADDRSTRLEN] = {};
  int port = 0;
  if (address.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
    port = ntohs(a->sin_port);
    return absl::StrCat("tcp:ipv4:", host, ":", port);
  }
  const auto* a = reinterpret_cast<const sockaddr_in6*>(&address);
  inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
  port = ntohs(a->sin6_port);
  return absl::StrCat("tcp:ipv6:[", host, "]:", port);
}

absl::StatusOr<int> Listen(const std::string& address, bool reuseport,
                           int* port) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("scene port address '", address, "' is not host:port"));
  }
  std::string host = address.substr(0, colon);
  const std::string service = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int e = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                                service.c_str(), &hints, &found);
      e != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("scene port address '", address, "': ", gai_strerror(e)));
  }
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (reuseport) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, 128) == 0) {
      sockaddr_storage bound{};
      socklen_t size = sizeof(bound);
      getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &size);
      *port = bound.ss_family == AF_INET
                  ? ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port)
                  : ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
      freeaddrinfo(found);
      return fd;
    }
    why = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  return absl::UnavailableError(
      absl::StrCat("cannot listen on scene port ", address, ": ", why));
}

}  // namespace

absl::StatusOr<std::unique_ptr<ScenePort>> ScenePort::Start(
    CollisionServiceImpl* service, const ScenePortOptions& options) {
  int port = 0;
  absl::StatusOr<int> listener =
      Listen(options.address, options.allow_reuseport, &port);
  if (!listener.ok()) return listener.status();
  std::unique_ptr<ScenePort> out(
      new ScenePort(service, options, *listener, port));
  if (out->stop_fd_ < 0) {
    return absl::InternalError("cannot create the scene port's stop event");
  }
  out->acceptor_ = std::thread([p = out.get()] { p->Accept(); });
  return out;
}

ScenePort::ScenePort(CollisionServiceImpl* service,
                     const ScenePortOptions& options, int listener, int port)
    : service_(service),
      options_(options),
      listener_(listener),
      port_(port),
      stop_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

ScenePort::~ScenePort() {
  Shutdown(absl::ZeroDuration());
  close(listener_);
  if (stop_fd_ >= 0) close(stop_fd_);
}

void ScenePort::Shutdown(absl::Duration deadline) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_) {
      stopped_ = true;
      const uint64_t one = 1;
      (void)!write(stop_fd_, &one, sizeof(one));
      ::shutdown(listener_, SHUT_RDWR);  // wakes the acceptor
    }
  }
  if (acceptor_.joinable()) acceptor_.join();
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait_until(lock, absl::ToChronoTime(absl::Now() + deadline),
                   [this] { return connections_ == 0; });
  // What is left is cut: its reads and writes fail and its thread ends.
  for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
  done_.wait(lock, [this] { return connections_ == 0; });
}

void ScenePort::Accept() {
  while (true) {
    sockaddr_storage address{};
    socklen_t size = sizeof(address);
    const int fd = accept4(listener_, reinterpret_cast<sockaddr*>(&address),
                           &size, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      std::lock_guard<std::mutex> lock(mu_);
      if (stopped_) return;
      // Out of descriptors or memory: wait a moment rather than spin.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
          errno == ENOMEM) {
        pollfd stop = {stop_fd_, POLLIN, 0};
        poll(&stop, 1, 50);
        continue;
      }
      return;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    bool admitted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      admitted = !stopped_ && connections_ < options_.max_connections;
      if (admitted) {
        ++connections_;
        open_.insert(fd);
      }
    }
    if (!admitted) {
      service_->metrics_->Rejected("connection_limit");
      Socket(fd, stop_fd_)
          .WriteFrame(EndFrame(grpc::Status(
                          grpc::StatusCode::RESOURCE_EXHAUSTED,
                          absl::StrCat("this server's scene port serves its "
                                       "limit of ",
                                       options_.max_connections,
                                       " connections; try another replica "
                                       "or later"))),
                      absl::Now() + absl::Milliseconds(100));
      close(fd);
      continue;
    }
    std::thread([this, fd, peer = PeerOf(address)] {
      Serve(fd, peer);
      std::lock_guard<std::mutex> lock(mu_);
      open_.erase(fd);
      close(fd);
      --connections_;
      done_.notify_all();
    }).detach();
  }
}

void ScenePort::Serve(int fd, const std::string& peer) {
  const Socket socket(fd, stop_fd_);
  Metrics* const metrics = service_->metrics_;
  const absl::Time start = absl::Now();
  const absl::Duration max_age = service_->options_.max_stream_age;
  const absl::Time aged =
      max_age > absl::ZeroDuration() ? start + max_age : absl::InfiniteFuture();
  metrics->CallStarted(kMethod, kType);
  grpc::Status end = grpc::Status::OK;
  auto finish = [&](const grpc::Status& s) {
    end = s;
    if (!socket.WriteFrame(EndFrame(s), absl::Now() + options_.frame_timeout)) {
      return;
    }
    // Closing with the client's frames still unread would reset the
    // connection, and the client could lose the end frame with them: the
    // server's side is closed first, and what the client still sends is
    // read and dropped for a moment.
    ::shutdown(fd, SHUT_WR);
    socket.Read(nullptr, std::size_t{1} << 20,
                absl::Now() + absl::Milliseconds(200));
  };

  // The hello: who is calling, within a frame's time of connecting.
  unsigned char header[4];
  std::string bytes;
  bool clean_end = false;
  const absl::Time hello_by = start + options_.frame_timeout;
  if (!socket.Read(reinterpret_cast<char*>(header), 4, hello_by, &clean_end)) {
    end = grpc::Status(grpc::StatusCode::CANCELLED, "no hello");
  } else if (FrameSize(header) > kMaxHelloBytes) {
    finish(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("the hello frame has ", FrameSize(header),
                     " bytes, over the limit of ", kMaxHelloBytes)));
  } else {
    bytes.resize(FrameSize(header));
    v1::SceneHello hello;
    if (!socket.Read(bytes.data(), bytes.size(), hello_by)) {
      end = grpc::Status(grpc::StatusCode::CANCELLED, "hello cut short");
    } else if (!hello.ParseFromString(bytes)) {
      metrics->Rejected("invalid_argument");
      finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "the first frame is not a collision.v1.SceneHello"));
    } else if (grpc::Status auth = service_->AuthenticateBearer(
                   hello.authorization().empty()
                       ? std::nullopt
                       : std::optional<absl::string_view>(
                             hello.authorization()),
                   peer);
               !auth.ok()) {
      finish(auth);
    }
  }

  HostedScene session(service_, nullptr);
  uint64_t messages = 0;
  while (end.ok()) {
    // Between two messages: the port stopping or the stream's age end it.
    const Socket::Ready ready = socket.WaitForFrame(aged);
    if (ready == Socket::Ready::kStopped) {
      finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the server is stopping (a drain): reopen the "
                          "stream, on another replica, and resend the "
                          "messages that have no answer"));
      break;
    }
    if (ready == Socket::Ready::kTimedOut) {
      finish(grpc::Status(
          grpc::StatusCode::UNAVAILABLE,
          absl::StrCat("stream ended at its maximum age (",
                       absl::FormatDuration(max_age),
                       ") so that clients move to fresh connections, between "
                       "two messages: reopen the stream and resend the "
                       "messages that have no answer")));
      break;
    }
    const absl::Time by = absl::Now() + options_.frame_timeout;
    if (!socket.Read(reinterpret_cast<char*>(header), 4, by, &clean_end)) {
      if (clean_end) {
        // The scene's memory is given back before the client hears the
        // stream is over: a game that opens its next scene at once must
        // find the budget this one held.
        session.Ended();
        finish(grpc::Status::OK);  // the client half-closed
      } else {
        end = grpc::Status(grpc::StatusCode::CANCELLED, "connection lost");
      }
      break;
    }
    const std::size_t size = FrameSize(header);
    ++messages;
    metrics->MessageReceived(kMethod, kType);
    const absl::Time message_start = absl::Now();
    grpc::StatusCode code = grpc::StatusCode::OK;
    std::string answer;
    grpc::Status shed;
    bool held = false;
    if (size > options_.max_message_bytes ||
        !(held = service_->Admit(size, peer, &shed))) {
      // Read and dropped: its sequence, then the rest, never held.
      char head[kPeekBytes];
      const std::size_t peek = std::min(size, kPeekBytes);
      if (!socket.Read(head, peek, by) ||
          !socket.Read(nullptr, size - peek, by)) {
        end = grpc::Status(grpc::StatusCode::CANCELLED, "frame cut short");
        break;
      }
      if (size > options_.max_message_bytes) {
        shed = grpc::Status(
            grpc::StatusCode::RESOURCE_EXHAUSTED,
            absl::StrCat("message ", messages, " of the stream has ", size,
                         " bytes, over this server's limit of ",
                         options_.max_message_bytes,
                         " (--max_receive_message_bytes); split the update "
                         "over several messages"));
      }
      code = shed.error_code();
      answer = ErrorAnswer(PeekSequence(head, peek), shed);
    } else {
      bytes.resize(size);
      if (!socket.Read(bytes.data(), size, by)) {
        service_->Release(size, peer);
        end = grpc::Status(grpc::StatusCode::CANCELLED, "frame cut short");
        break;
      }
      const uint64_t sequence = PeekSequence(bytes.data(), size);
      google::protobuf::Arena arena;
      auto* request =
          google::protobuf::Arena::CreateMessage<v1::SceneRequest>(&arena);
      auto* response =
          google::protobuf::Arena::CreateMessage<v1::SceneResponse>(&arena);
      grpc::Status s = session.PrecheckBytes(bytes);
      if (s.ok() && !request->ParseFromString(bytes)) {
        service_->Release(size, peer);
        metrics->Rejected("invalid_argument");
        finish(NotAMessage<v1::SceneRequest>(
            absl::StrCat("message ", messages, " of the stream"), size));
        break;
      }
      if (s.ok()) s = session.Process(*request, response, nullptr);
      if (!s.ok()) {
        HostedScene::ClearAnswer(response);
        response->set_sequence(sequence);
        ToStreamError(s, response->mutable_error());
        if (s.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
          metrics->Rejected("invalid_argument");
        }
        code = s.error_code();
      } else {
        response->set_sequence(request->sequence());
      }
      answer = response->SerializeAsString();
    }
    metrics->StreamMessageHandled(
        kMethod, code, absl::ToDoubleSeconds(absl::Now() - message_start));
    const bool sent =
        socket.WriteFrame(answer, absl::Now() + options_.frame_timeout);
    if (held) service_->Release(size, peer);
    if (!sent) {
      end = grpc::Status(grpc::StatusCode::CANCELLED,
                         "the answer was not taken in time");
      break;
    }
    metrics->MessageSent(kMethod, kType);
    session.AfterAnswer();
  }
  session.Ended();
  metrics->CallHandled(kMethod, kType, end.error_code(),
                       absl::ToDoubleSeconds(absl::Now() - start));
}

}  // namespace collision::server
