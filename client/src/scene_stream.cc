#include "scene_stream.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/frames.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/sync_stream.h"

namespace collision::client::internal {
namespace {

class GrpcSceneStream final : public SceneStream {
 public:
  GrpcSceneStream(std::unique_ptr<grpc::ClientContext> context,
                  v1::SceneService::Stub* stub)
      : context_(std::move(context)), stream_(stub->Session(context_.get())) {}
  bool Write(const v1::SceneRequest& request) override {
    return stream_->Write(request);
  }
  bool Read(v1::SceneResponse* response) override {
    return stream_->Read(response);
  }
  void WritesDone() override { stream_->WritesDone(); }
  grpc::Status Finish() override { return stream_->Finish(); }
  void Cancel() override { context_->TryCancel(); }

 private:
  const std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::SceneRequest, v1::SceneResponse>>
      stream_;
};

// The largest frame the client takes from a server: an answer is bounded by
// the server's hits per message, far below this.
constexpr uint32_t kMaxAnswerBytes = uint32_t{256} << 20;

class TcpSceneStream final : public SceneStream {
 public:
  explicit TcpSceneStream(int fd) : fd_(fd) {}
  ~TcpSceneStream() override { close(fd_); }

  bool Write(const v1::SceneRequest& request) override {
    return WriteFrame(request.SerializeAsString());
  }
  bool WriteFrame(const std::string& bytes) {
    if (over_) return false;
    return frames::WriteFrame(fd_, bytes, absl::InfiniteFuture()) || Lost();
  }

  bool Read(v1::SceneResponse* response) override {
    if (over_) return false;
    unsigned char header[4];
    if (!ReadExactly(reinterpret_cast<char*>(header), 4)) return Lost();
    const uint32_t n = frames::DecodeLength(header);
    if (n > kMaxAnswerBytes) {
      return Fail(grpc::Status(
          grpc::StatusCode::INTERNAL,
          absl::StrCat("the scene port sent a frame of ", n,
                       " bytes, over the client's limit of ", kMaxAnswerBytes,
                       ": not a collision scene port?")));
    }
    buffer_.resize(n);
    if (!ReadExactly(buffer_.data(), n)) return Lost();
    if (!response->ParseFromString(buffer_)) {
      return Fail(grpc::Status(grpc::StatusCode::INTERNAL,
                               "the scene port sent a frame that is not a "
                               "collision.v1.SceneResponse"));
    }
    if (response->has_end()) {
      const v1::StreamError& end = response->end();
      return Fail(grpc::Status(static_cast<grpc::StatusCode>(end.code()),
                               end.message()));
    }
    return true;
  }

  void WritesDone() override { ::shutdown(fd_, SHUT_WR); }

  grpc::Status Finish() override {
    if (!over_) {
      // Read to the end frame (after WritesDone the server answers what it
      // has, then ends).
      v1::SceneResponse ignored;
      while (Read(&ignored)) {
      }
    }
    return status_;
  }

  void Cancel() override {
    cancelled_.store(true);
    ::shutdown(fd_, SHUT_RDWR);
  }

 private:
  bool ReadExactly(char* out, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = recv(fd_, out + got, n - got, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      got += static_cast<std::size_t>(r);
    }
    return true;
  }
  // The connection ended without the server's end frame.
  bool Lost() {
    return Fail(cancelled_.load()
                    ? grpc::Status(grpc::StatusCode::CANCELLED,
                                   "the scene stream was cancelled")
                    : grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                   "the scene port's connection was lost"));
  }
  bool Fail(const grpc::Status& s) {
    if (!over_) status_ = s;
    over_ = true;
    return false;
  }

  const int fd_;
  std::atomic<bool> cancelled_{false};
  bool over_ = false;
  grpc::Status status_;
  std::string buffer_;
};

absl::StatusOr<int> Connect(const std::string& address,
                            absl::Duration timeout) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("scene port '", address, "' is not host:port"));
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int e = getaddrinfo(host.c_str(), address.c_str() + colon + 1,
                                &hints, &found);
      e != 0) {
    return absl::UnavailableError(
        absl::StrCat("scene port ", address, ": ", gai_strerror(e)));
  }
  std::string why = "no address";
  const absl::Time deadline = absl::Now() + timeout;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const int fd =
        socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) continue;
    int r = connect(fd, a->ai_addr, a->ai_addrlen);
    if (r < 0 && errno == EINPROGRESS) {
      pollfd p = {fd, POLLOUT, 0};
      const int64_t ms = std::max<int64_t>(
          0, absl::ToInt64Milliseconds(deadline - absl::Now()));
      r = poll(&p, 1, static_cast<int>(std::min<int64_t>(ms, 1 << 30)));
      int error = 0;
      socklen_t size = sizeof(error);
      if (r == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
      if (r == 0) error = ETIMEDOUT;
      r = (r == 1 && error == 0) ? 0 : -1;
      if (error != 0) errno = error;
    }
    if (r == 0) {
      freeaddrinfo(found);
      // Blocking from here on (Cancel ends a blocked call by shutdown).
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      return fd;
    }
    why = std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  return absl::UnavailableError(
      absl::StrCat("cannot connect to the scene port ", address, ": ", why));
}

}  // namespace

std::unique_ptr<SceneStream> OpenGrpcSceneStream(
    std::unique_ptr<grpc::ClientContext> context,
    v1::SceneService::Stub* stub) {
  return std::make_unique<GrpcSceneStream>(std::move(context), stub);
}

absl::StatusOr<std::unique_ptr<SceneStream>> OpenTcpSceneStream(
    const Client& client, const std::string& address,
    absl::Duration connect_timeout) {
  absl::StatusOr<int> fd = Connect(address, connect_timeout);
  if (!fd.ok()) return fd.status();
  auto stream = std::make_unique<TcpSceneStream>(*fd);
  v1::SceneHello hello;
  if (!client.options().bearer_token.empty()) {
    hello.set_authorization(
        absl::StrCat("Bearer ", client.options().bearer_token));
  }
  // A hello that cannot be written leaves the stream over: its first
  // Write fails and Finish says why.
  stream->WriteFrame(hello.SerializeAsString());
  return stream;
}

}  // namespace collision::client::internal
