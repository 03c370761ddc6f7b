#include "server/observability/event_log.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"

namespace collision::server {
namespace {

constexpr std::size_t kPeers = 3;  // example peers in a burst's summary

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarning:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

// JSON string contents: quotes, backslashes and control characters escaped.
std::string JsonEscape(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppendFormat(&out, "\\u%04x", c);
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<LogLevel> ParseLogLevel(absl::string_view name) {
  if (name == "info") return LogLevel::kInfo;
  if (name == "warning" || name == "warn") return LogLevel::kWarning;
  if (name == "error") return LogLevel::kError;
  return absl::InvalidArgumentError(
      absl::StrCat("log level is info, warning or error, not \"", name, "\""));
}

absl::StatusOr<LogFormat> ParseLogFormat(absl::string_view name) {
  if (name == "text") return LogFormat::kText;
  if (name == "json") return LogFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("log format is text or json, not \"", name, "\""));
}

EventLog& EventLog::Global() {
  static EventLog* log = new EventLog;  // never destroyed: used until exit
  return *log;
}

void EventLog::Configure(LogFormat format, LogLevel min_level) {
  std::lock_guard<std::mutex> lock(mu_);
  format_ = format;
  min_level_ = min_level;
}

void EventLog::RedirectForTesting(std::FILE* out) {
  std::lock_guard<std::mutex> lock(mu_);
  out_ = out;
}

void EventLog::Write(LogLevel level, absl::string_view event,
                     absl::string_view message,
                     const std::vector<LogField>& fields) {
  const std::string time = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(),
                                            absl::UTCTimeZone());
  std::lock_guard<std::mutex> lock(mu_);
  if (level < min_level_) return;
  std::string line;
  if (format_ == LogFormat::kJson) {
    line = absl::StrCat("{\"time\":\"", time, "\",\"level\":\"",
                        LevelName(level), "\",\"event\":\"", JsonEscape(event),
                        "\",\"message\":\"", JsonEscape(message), "\"");
    for (const LogField& f : fields) {
      absl::StrAppend(&line, ",\"", JsonEscape(f.key), "\":");
      if (f.number) {
        absl::StrAppend(&line, f.value);
      } else {
        absl::StrAppend(&line, "\"", JsonEscape(f.value), "\"");
      }
    }
    line += "}";
  } else {
    std::string level_name = LevelName(level);
    std::transform(level_name.begin(), level_name.end(), level_name.begin(),
                   [](char c) { return static_cast<char>(c - 'a' + 'A'); });
    line = absl::StrFormat("%s %-5s collision_server: %s", time, level_name,
                           message);
  }
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

Burst::Burst(EventLog* log, LogLevel level, std::string event, std::string noun,
             absl::Duration interval)
    : log_(log),
      level_(level),
      event_(std::move(event)),
      noun_(std::move(noun)),
      interval_(interval) {}

void Burst::Note(absl::string_view reason, absl::string_view peer) {
  const absl::Time now = absl::Now();
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_ == 0) counting_since_ = now;
  ++pending_;
  ++reasons_[std::string(reason)];
  if (peers_.size() < kPeers &&
      std::find(peers_.begin(), peers_.end(), peer) == peers_.end()) {
    peers_.emplace_back(peer);
  }
  // The first of a burst at once; the rest wait for Flush.
  if (now - last_line_ >= interval_) WriteLocked(now, pending_);
}

void Burst::Flush(absl::Time now, bool force) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_ > 0 && (force || now - last_line_ >= interval_)) {
    WriteLocked(now, pending_);
  }
}

void Burst::WriteLocked(absl::Time now, int64_t count) {
  std::vector<std::string> reasons;
  for (const auto& [reason, n] : reasons_) {
    reasons.push_back(absl::StrCat(reason, "=", n));
  }
  const double seconds =
      std::max(0.0, absl::ToDoubleSeconds(now - counting_since_));
  const std::string message = absl::StrFormat(
      "%s: %d %s in %.1fs (%s) from %s%s", event_, count, noun_, seconds,
      absl::StrJoin(reasons, ", "), absl::StrJoin(peers_, ", "),
      peers_.size() == kPeers ? ", ..." : "");
  log_->Write(level_, event_, message,
              {{"count", absl::StrCat(count), true},
               {"seconds", absl::StrFormat("%.3f", seconds), true},
               {"reasons", absl::StrJoin(reasons, ",")},
               {"peers", absl::StrJoin(peers_, ",")}});
  last_line_ = now;
  pending_ = 0;
  reasons_.clear();
  peers_.clear();
}

}  // namespace collision::server
