#include "tools/h2_driver.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <list>
#include <memory>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "tools/verify.h"

namespace collision::load {

absl::StatusOr<std::vector<std::string>> Http2Endpoints(
    const std::string& target) {
  absl::string_view list = target;
  if (absl::ConsumePrefix(&list, "dns:///"))
    return std::vector{target.substr(7)};
  if (!absl::ConsumePrefix(&list, "ipv4:")) absl::ConsumePrefix(&list, "ipv6:");
  if (absl::StrContains(list, "://") || absl::StartsWith(list, "unix:")) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--engine=http2 calls host:port targets, not \"", target, "\""));
  }
  std::vector<std::string> out = absl::StrSplit(list, ',', absl::SkipEmpty());
  if (out.empty()) return absl::InvalidArgumentError("no target");
  return out;
}

namespace {

class Loop;
struct Conn;

// One call in flight. Owned by its Loop from start to finish.
struct H2Call {
  Ticket ticket;
  const Item* item = nullptr;
  const std::string* body = nullptr;  // gRPC-framed request
  std::size_t body_sent = 0;
  absl::Time sent, deadline;
  bool verify = false;
  Conn* conn = nullptr;
  int32_t stream = -1;
  int http_status = 0;
  std::optional<int> grpc_status;
  std::string grpc_message, pushback;
  std::string response;  // framed answer, kept only to verify it
  std::list<H2Call*>::iterator in_flight;
};

// One HTTP/2 connection; `session` and `fd` are set while it is open. A
// connection the server sent GOAWAY on is retired: it finishes its streams
// while a new one takes its place.
struct Conn {
  Loop* loop = nullptr;
  std::string endpoint;
  int fd = -1;
  nghttp2_session* session = nullptr;
  std::string out;  // bytes nghttp2 produced that the socket has not taken
  std::size_t out_at = 0;
  bool want_out = false;  // registered for EPOLLOUT
};

absl::Status Unavailable(absl::string_view what) {
  return absl::UnavailableError(what);
}

// HTTP status of a response without grpc-status, as gRPC maps it.
absl::StatusCode FromHttp(int status) {
  switch (status) {
    case 400:
      return absl::StatusCode::kInternal;
    case 401:
      return absl::StatusCode::kUnauthenticated;
    case 403:
      return absl::StatusCode::kPermissionDenied;
    case 404:
      return absl::StatusCode::kUnimplemented;
    case 429:
    case 502:
    case 503:
    case 504:
      return absl::StatusCode::kUnavailable;
    default:
      return absl::StatusCode::kUnknown;
  }
}

class Loop {
 public:
  Loop(const H2DriverContext& run, int first, int connections, int slots,
       WorkerResult* result)
      : run_(run), o_(run.options), slots_(slots), result_(result) {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < connections; ++i) {
      auto c = std::make_unique<Conn>();
      c->loop = this;
      c->endpoint = run.endpoints[static_cast<std::size_t>(first + i) %
                                  run.endpoints.size()];
      conns_.push_back(std::move(c));
    }
    for (std::size_t i = 0; i < run.workload.size(); ++i) {
      const std::string& m = run.workload.Get(i).serialized;
      std::string body(5, '\0');  // not compressed, big-endian length
      for (int b = 0; b < 4; ++b) {
        body[static_cast<std::size_t>(1 + b)] =
            static_cast<char>((m.size() >> (24 - 8 * b)) & 0xff);
      }
      bodies_.push_back(body + m);
    }
    timeout_header_ = absl::StrCat(
        std::min<int64_t>(99999999,
                          absl::ToInt64Milliseconds(o_.client.timeout)),
        "m");
    if (!o_.client.bearer_token.empty()) {
      authorization_ = absl::StrCat("Bearer ", o_.client.bearer_token);
    }
    nghttp2_session_callbacks_new(&callbacks_);
    nghttp2_session_callbacks_set_on_header_callback(callbacks_, &OnHeader);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks_,
                                                              &OnData);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks_,
                                                           &OnClose);
  }
  ~Loop() {
    for (auto& c : conns_) Close(c.get(), "");
    for (auto& c : retired_) Close(c.get(), "");
    nghttp2_session_callbacks_del(callbacks_);
    close(epoll_);
  }

  void Run() {
    std::optional<Ticket> next;
    bool stopping = false;
    while (true) {
      absl::Time now = absl::Now();
      while (!stopping && in_flight_.size() < std::size_t(slots_) &&
             now >= pause_until_) {
        if (!next) {
          Ticket t = run_.scheduler.Next();
          if (t.stop) {
            stopping = true;
            break;
          }
          next = t;
        }
        if (o_.rate > 0 && next->due > now) break;
        Start(*next, now);
        next.reset();
      }
      FlushAll();
      now = absl::Now();
      ExpireDeadlines(now);
      if (stopping && in_flight_.empty()) break;
      absl::Time wake = now + absl::Milliseconds(50);
      if (!in_flight_.empty())
        wake = std::min(wake, in_flight_.front()->deadline);
      if (!stopping && in_flight_.size() < std::size_t(slots_)) {
        if (now < pause_until_) wake = std::min(wake, pause_until_);
        if (next && o_.rate > 0) wake = std::min(wake, next->due);
      }
      Wait(std::max(absl::ZeroDuration(), wake - now));
    }
  }

 private:
  // Starts one call on the next connection, opening it if need be.
  void Start(const Ticket& t, absl::Time now) {
    auto* call = new H2Call;
    call->ticket = t;
    const std::size_t index = t.index % run_.workload.size();
    call->item = &run_.workload.Get(index);
    call->body = &bodies_[index];
    call->verify = run_.wants_verify(t);
    call->sent = o_.rate > 0 ? t.due : now;
    call->deadline = now + o_.client.timeout;
    call->in_flight = in_flight_.insert(in_flight_.end(), call);
    const std::size_t slot = next_conn_++ % conns_.size();
    Conn* c = conns_[slot].get();
    if (c->session != nullptr &&
        !nghttp2_session_check_request_allowed(c->session)) {
      // GOAWAY: let its streams finish on the side, call on a new one.
      retired_.push_back(std::move(conns_[slot]));
      conns_[slot] = std::make_unique<Conn>();
      conns_[slot]->loop = this;
      conns_[slot]->endpoint = retired_.back()->endpoint;
      c = conns_[slot].get();
    }
    if (c->session == nullptr) {
      if (absl::Status s = Open(c); !s.ok()) return Finish(call, s);
    }
    call->conn = c;
    std::vector<nghttp2_nv> nv;
    auto add = [&nv](absl::string_view name, absl::string_view value) {
      nv.push_back({reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())),
                    name.size(), value.size(), NGHTTP2_NV_FLAG_NONE});
    };
    add(":method", "POST");
    add(":scheme", "http");
    add(":path", call->item->method);
    add(":authority", c->endpoint);
    add("content-type", "application/grpc");
    add("te", "trailers");
    add("grpc-timeout", timeout_header_);
    add("user-agent", "collision_load-http2");
    if (!authorization_.empty()) add("authorization", authorization_);
    for (const auto& [key, value] : o_.client.metadata) add(key, value);
    nghttp2_data_provider body;
    body.source.ptr = nullptr;
    body.read_callback = &ReadBody;
    call->stream = nghttp2_submit_request(c->session, nullptr, nv.data(),
                                          nv.size(), &body, call);
    if (call->stream < 0) {
      Finish(call, Unavailable(absl::StrCat("cannot start a stream: ",
                                            nghttp2_strerror(call->stream))));
    }
  }

  absl::Status Open(Conn* c) {
    const std::size_t colon = c->endpoint.rfind(':');
    if (colon == std::string::npos) {
      return absl::InvalidArgumentError("target without :port: " + c->endpoint);
    }
    std::string host = c->endpoint.substr(0, colon);
    if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
      host = host.substr(1, host.size() - 2);
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    if (int e = getaddrinfo(host.c_str(), c->endpoint.c_str() + colon + 1,
                            &hints, &found);
        e != 0) {
      return Unavailable(
          absl::StrCat("cannot resolve ", c->endpoint, ": ", gai_strerror(e)));
    }
    std::string error = "no address";
    for (addrinfo* a = found; a != nullptr && c->fd < 0; a = a->ai_next) {
      const int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
      if (fd < 0) continue;
      // A blocking connect bounded by the call deadline (at most 5 s).
      const int64_t ms =
          std::min<int64_t>(5000, absl::ToInt64Milliseconds(o_.client.timeout));
      timeval tv{static_cast<time_t>(ms / 1000),
                 static_cast<suseconds_t>(ms % 1000 * 1000)};
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
        error = std::strerror(errno);
        close(fd);
        continue;
      }
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
      c->fd = fd;
    }
    freeaddrinfo(found);
    if (c->fd < 0) {
      return Unavailable(
          absl::StrCat("cannot connect to ", c->endpoint, ": ", error));
    }
    nghttp2_session_client_new(&c->session, callbacks_, c);
    // Large windows: answers are never held back by flow control.
    const nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, (1u << 30) - 1}};
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, 2);
    nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0,
                                          (1 << 30) - 1);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, c->fd, &ev);
    c->want_out = false;
    return absl::OkStatus();
  }

  // Ends the connection; its calls fail with UNAVAILABLE `why`.
  void Close(Conn* c, absl::string_view why) {
    if (c->session == nullptr) return;
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
      H2Call* call = *it++;
      if (call->conn == c) {
        if (call->stream > 0) {
          nghttp2_session_set_stream_user_data(c->session, call->stream,
                                               nullptr);
        }
        Finish(call, Unavailable(absl::StrCat("connection to ", c->endpoint,
                                              " lost: ", why)));
      }
    }
    nghttp2_session_del(c->session);
    c->session = nullptr;
    close(c->fd);  // also leaves the epoll set
    c->fd = -1;
    c->out.clear();
    c->out_at = 0;
  }

  void Flush(Conn* c) {
    while (c->session != nullptr) {
      if (c->out_at < c->out.size()) {
        const ssize_t n = send(c->fd, c->out.data() + c->out_at,
                               c->out.size() - c->out_at, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0) return Close(c, std::strerror(errno));
        c->out_at += static_cast<std::size_t>(n);
        continue;
      }
      c->out.clear();
      c->out_at = 0;
      // Everything nghttp2 has ready goes out in one write.
      while (c->out.size() < (1u << 18)) {
        const uint8_t* data = nullptr;
        const ssize_t n = nghttp2_session_mem_send(c->session, &data);
        if (n < 0) return Close(c, nghttp2_strerror(static_cast<int>(n)));
        if (n == 0) break;
        c->out.append(reinterpret_cast<const char*>(data),
                      static_cast<std::size_t>(n));
      }
      if (c->out.empty()) break;
    }
    if (c->session == nullptr) return;
    const bool want_out = c->out_at < c->out.size();
    if (want_out != c->want_out) {
      epoll_event ev{};
      ev.events = EPOLLIN | (want_out ? EPOLLOUT : 0u);
      ev.data.ptr = c;
      epoll_ctl(epoll_, EPOLL_CTL_MOD, c->fd, &ev);
      c->want_out = want_out;
    }
    // A retired connection with nothing left to do is done.
    if (!nghttp2_session_want_read(c->session) &&
        !nghttp2_session_want_write(c->session) && c->out.empty()) {
      Close(c, "closed by the server");
    }
  }

  void FlushAll() {
    for (auto& c : conns_) Flush(c.get());
    for (auto& c : retired_) Flush(c.get());
    retired_.erase(std::remove_if(retired_.begin(), retired_.end(),
                                  [](const std::unique_ptr<Conn>& c) {
                                    return c->session == nullptr;
                                  }),
                   retired_.end());
  }

  void Wait(absl::Duration timeout) {
    epoll_event events[64];
    const int ms = static_cast<int>(
        absl::ToInt64Milliseconds(timeout + absl::Microseconds(999)));
    const int n = epoll_wait(epoll_, events, 64, ms);
    for (int i = 0; i < n; ++i) {
      auto* c = static_cast<Conn*>(events[i].data.ptr);
      if (c->session == nullptr) continue;
      if (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) Read(c);
    }
    FlushAll();
  }

  void Read(Conn* c) {
    char buf[1 << 16];
    while (c->session != nullptr) {
      const ssize_t n = recv(c->fd, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0)
        return Close(c, n == 0 ? "closed by the server" : std::strerror(errno));
      const ssize_t used = nghttp2_session_mem_recv(
          c->session, reinterpret_cast<const uint8_t*>(buf),
          static_cast<std::size_t>(n));
      if (used < 0) return Close(c, nghttp2_strerror(static_cast<int>(used)));
    }
  }

  void ExpireDeadlines(absl::Time now) {
    while (!in_flight_.empty() && in_flight_.front()->deadline <= now) {
      H2Call* call = in_flight_.front();
      if (call->conn != nullptr && call->conn->session != nullptr) {
        nghttp2_session_set_stream_user_data(call->conn->session, call->stream,
                                             nullptr);
        nghttp2_submit_rst_stream(call->conn->session, NGHTTP2_FLAG_NONE,
                                  call->stream, NGHTTP2_CANCEL);
      }
      Finish(call, absl::DeadlineExceededError("Deadline Exceeded"));
    }
  }

  // Counts the call and forgets it.
  void Finish(H2Call* call, const absl::Status& s) {
    std::unique_ptr<H2Call> owned(call);
    in_flight_.erase(call->in_flight);
    const absl::Time end = absl::Now();
    int64_t mismatches = 0;
    if (s.ok() && call->verify) {
      absl::string_view message = call->response;
      message.remove_prefix(std::min<std::size_t>(5, message.size()));
      mismatches = CountSerializedMismatches(*call->item, message);
    }
    run_.record(*result_, call->ticket, *call->item, s, call->verify,
                mismatches, call->sent, end);
    pause_until_ = std::max(pause_until_, end + backoff_.After(s, result_));
  }

  // The call's outcome once its stream closed with HTTP/2 `error`.
  static absl::Status Outcome(const H2Call& call, uint32_t error) {
    if (call.grpc_status) {
      absl::Status s(static_cast<absl::StatusCode>(*call.grpc_status),
                     call.grpc_message);
      if (!s.ok() && !call.pushback.empty()) {
        s.SetPayload(client::kPushbackPayloadUrl, absl::Cord(call.pushback));
      }
      return s;
    }
    if (call.http_status != 0 && call.http_status != 200) {
      return absl::Status(FromHttp(call.http_status),
                          absl::StrCat("HTTP status ", call.http_status));
    }
    if (error == NGHTTP2_REFUSED_STREAM) {
      return Unavailable("stream refused by the server");
    }
    if (error == NGHTTP2_CANCEL)
      return absl::CancelledError("stream cancelled");
    return absl::InternalError(
        error != 0
            ? absl::StrCat("stream reset: ", nghttp2_http2_strerror(error))
            : "the answer had no grpc-status");
  }

  static H2Call* CallOf(nghttp2_session* session, int32_t stream) {
    return static_cast<H2Call*>(
        nghttp2_session_get_stream_user_data(session, stream));
  }

  // The request body; a call already ended (deadline) resets its stream.
  static ssize_t ReadBody(nghttp2_session* session, int32_t stream,
                          uint8_t* buf, std::size_t length, uint32_t* flags,
                          nghttp2_data_source*, void*) {
    H2Call* call = CallOf(session, stream);
    if (call == nullptr) return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    const std::size_t n =
        std::min(length, call->body->size() - call->body_sent);
    std::memcpy(buf, call->body->data() + call->body_sent, n);
    call->body_sent += n;
    if (call->body_sent == call->body->size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  static int OnHeader(nghttp2_session* session, const nghttp2_frame* frame,
                      const uint8_t* name, std::size_t name_len,
                      const uint8_t* value, std::size_t value_len, uint8_t,
                      void*) {
    H2Call* call = CallOf(session, frame->hd.stream_id);
    if (call == nullptr) return 0;
    const absl::string_view n(reinterpret_cast<const char*>(name), name_len);
    const absl::string_view v(reinterpret_cast<const char*>(value), value_len);
    int number = 0;
    if (n == ":status" && absl::SimpleAtoi(v, &number)) {
      call->http_status = number;
    } else if (n == "grpc-status" && absl::SimpleAtoi(v, &number) &&
               number >= 0 && number <= 16) {
      call->grpc_status = number;
    } else if (n == "grpc-message") {
      call->grpc_message = std::string(v);
    } else if (n == "grpc-retry-pushback-ms") {
      call->pushback = std::string(v);
    }
    return 0;
  }

  static int OnData(nghttp2_session* session, uint8_t, int32_t stream,
                    const uint8_t* data, std::size_t len, void*) {
    H2Call* call = CallOf(session, stream);
    if (call != nullptr && call->verify) {
      call->response.append(reinterpret_cast<const char*>(data), len);
    }
    return 0;
  }

  static int OnClose(nghttp2_session* session, int32_t stream, uint32_t error,
                     void* user) {
    H2Call* call = CallOf(session, stream);
    if (call != nullptr) {
      static_cast<Conn*>(user)->loop->Finish(call, Outcome(*call, error));
    }
    return 0;
  }

  const H2DriverContext& run_;
  const RunOptions& o_;
  const int slots_;
  WorkerResult* result_;
  int epoll_ = -1;
  nghttp2_session_callbacks* callbacks_ = nullptr;
  std::vector<std::unique_ptr<Conn>> conns_, retired_;
  std::size_t next_conn_ = 0;
  std::vector<std::string> bodies_;  // per pool item
  std::string timeout_header_, authorization_;
  std::list<H2Call*> in_flight_;  // in start order = deadline order
  Backoff backoff_;
  absl::Time pause_until_ = absl::InfinitePast();
};

}  // namespace

void DriveHttp2(const H2DriverContext& run, int first, int connections,
                int slots, WorkerResult* result) {
  Loop loop(run, first, connections, slots, result);
  loop.Run();
}

}  // namespace collision::load
