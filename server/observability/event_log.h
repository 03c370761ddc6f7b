// What the server tells its operator, on stderr: one line per event, as
// text ("2026-11-25T15:43:02.123Z WARN  overload: ...") or JSON
// ({"time": ..., "level": "warn", "event": "overload", "message": ...,
// plus the event's fields}), at or above a minimum level. Events that come
// in floods (calls refused under overload, failed authentication) go
// through a Burst: the first is logged at once, the rest are counted and
// summed up in one line per interval, so a flood costs a line a second and
// never a line a call. Tokens are never logged; peers are.
#ifndef COLLISION_SERVER_OBSERVABILITY_EVENT_LOG_H_
#define COLLISION_SERVER_OBSERVABILITY_EVENT_LOG_H_

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace collision::server {

enum class LogLevel { kInfo, kWarning, kError };
enum class LogFormat { kText, kJson };

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view name);
absl::StatusOr<LogFormat> ParseLogFormat(absl::string_view name);

// A named value of an event; numbers are written unquoted in JSON.
struct LogField {
  std::string key;
  std::string value;
  bool number = false;
};

class EventLog {
 public:
  // The process's log (stderr, text, info and above until configured).
  static EventLog& Global();

  void Configure(LogFormat format, LogLevel min_level);
  // Sends lines to `out` instead of stderr (tests).
  void RedirectForTesting(std::FILE* out);
  void Write(LogLevel level, absl::string_view event, absl::string_view message,
             const std::vector<LogField>& fields = {});

 private:
  std::mutex mu_;
  LogFormat format_ = LogFormat::kText;
  LogLevel min_level_ = LogLevel::kInfo;
  std::FILE* out_ = stderr;
};

// A repeated event, logged at most once per interval into `log`.
class Burst {
 public:
  Burst(EventLog* log, LogLevel level, std::string event, std::string noun,
        absl::Duration interval = absl::Seconds(1));

  // One more occurrence, for `reason`, from `peer`.
  void Note(absl::string_view reason, absl::string_view peer);
  // Writes the summary of what was counted since the last line once the
  // interval has passed (the server's watcher calls it every few ms), or
  // at once with `force`.
  void Flush(absl::Time now, bool force = false);

 private:
  void WriteLocked(absl::Time now, int64_t count);

  EventLog* const log_;
  const LogLevel level_;
  const std::string event_;
  const std::string noun_;  // "calls refused", ...
  const absl::Duration interval_;
  std::mutex mu_;
  absl::Time last_line_ = absl::InfinitePast();
  absl::Time counting_since_ = absl::InfinitePast();
  int64_t pending_ = 0;
  std::map<std::string, int64_t> reasons_;
  std::vector<std::string> peers_;  // up to kPeers distinct examples
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_OBSERVABILITY_EVENT_LOG_H_
