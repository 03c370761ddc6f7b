// Test helpers: a bounded HTTP/1.0 GET over loopback and a parser for the
// Prometheus text exposition, to scrape the server's /metrics for real.
#ifndef COLLISION_TESTS_UTIL_HTTP_GET_H_
#define COLLISION_TESTS_UTIL_HTTP_GET_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace collision::testing {

// GET http://127.0.0.1:`port``path`; the body of a 200 answer. Every socket
// operation is bounded by `timeout` and the whole exchange by 2x `timeout`.
inline absl::StatusOr<std::string> HttpGet(
    int port, const std::string& path,
    absl::Duration timeout = absl::Seconds(5)) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError(std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  const timeval tv = absl::ToTimeval(timeout);
  // On Linux SO_SNDTIMEO also bounds connect().
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) !=
      0) {
    return absl::UnavailableError(
        absl::StrCat("connect: ", std::strerror(errno)));
  }
  const std::string request =
      absl::StrCat("GET ", path,
                   " HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n =
        send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      return absl::UnavailableError(
          absl::StrCat("send: ", std::strerror(errno)));
    }
    sent += static_cast<std::size_t>(n);
  }
  const absl::Time deadline = absl::Now() + 2 * timeout;
  std::string response;
  char buf[16384];
  for (;;) {
    if (absl::Now() > deadline) return absl::DeadlineExceededError("read");
    const ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::UnavailableError(
          absl::StrCat("recv: ", std::strerror(errno)));
    }
    response.append(buf, static_cast<std::size_t>(n));
  }
  const std::size_t header_end = response.find("\r\n\r\n");
  if (header_end == std::string::npos) {
    return absl::InternalError(absl::StrCat("no header end in: ", response));
  }
  const absl::string_view status_line =
      absl::string_view(response).substr(0, response.find("\r\n"));
  if (!absl::StartsWith(status_line, "HTTP/1.") ||
      status_line.substr(8, 5) != " 200 ") {
    return absl::InternalError(absl::StrCat("status: ", status_line));
  }
  return response.substr(header_end + 4);
}

// Sample lines of a text exposition, "name{labels}" -> value.
inline std::map<std::string, double> ParseSamples(const std::string& body) {
  std::map<std::string, double> samples;
  for (absl::string_view line : absl::StrSplit(body, '\n')) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.rfind(' ');
    if (space == absl::string_view::npos) continue;
    samples[std::string(line.substr(0, space))] =
        std::strtod(std::string(line.substr(space + 1)).c_str(), nullptr);
  }
  return samples;
}

// One sample's value on the /metrics endpoint at `port` (0 when the
// exposition has no such sample), or why it could not be scraped.
inline absl::StatusOr<double> MetricSample(int port,
                                           const std::string& sample) {
  auto body = HttpGet(port, "/metrics");
  if (!body.ok()) return body.status();
  const auto samples = ParseSamples(*body);
  const auto it = samples.find(sample);
  return it == samples.end() ? 0.0 : it->second;
}

}  // namespace collision::testing

#endif  // COLLISION_TESTS_UTIL_HTTP_GET_H_
