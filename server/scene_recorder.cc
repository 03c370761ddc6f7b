#include "server/scene_recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/io/coded_stream.h"

namespace collision::server {
namespace {

void PutLength(uint32_t n, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(n >> (8 * i));
}
uint32_t GetLength(const char* in) {
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) {
    n |= uint32_t{static_cast<unsigned char>(in[i])} << (8 * i);
  }
  return n;
}

// Room kept for the `truncated` frame that ends a recording at its limit.
constexpr int64_t kTruncationRoom = 256;

}  // namespace

v1::SceneRecordLimits ToRecord(const wire::SceneLimits& l) {
  v1::SceneRecordLimits r;
  r.set_max_entities(l.max_entities);
  r.set_max_queries(l.max_queries);
  r.set_max_hits(l.max_hits);
  r.set_max_history_ticks(l.max_history_ticks);
  r.set_history_bytes(l.history_bytes);
  r.set_scene_memory_bytes(l.scene_memory_bytes);
  r.set_max_message_hits(l.max_message_hits);
  r.set_message_cpu_us(absl::ToInt64Microseconds(l.message_cpu));
  return r;
}

wire::SceneLimits FromRecord(const v1::SceneRecordLimits& r,
                             wire::SceneLimits l) {
  l.max_entities = r.max_entities();
  l.max_queries = r.max_queries();
  l.max_hits = r.max_hits();
  l.max_history_ticks = r.max_history_ticks();
  l.history_bytes = r.history_bytes();
  l.scene_memory_bytes = r.scene_memory_bytes();
  l.max_message_hits = r.max_message_hits();
  l.message_cpu = absl::Microseconds(r.message_cpu_us());
  // One scene at a time: the server-wide budget only has to hold it.
  l.memory_bytes = std::max(l.memory_bytes, l.scene_memory_bytes);
  return l;
}

struct RecordWriter::File {
  explicit File(int descriptor) : fd(descriptor) {}
  ~File() { close(fd); }
  const int fd;
  std::atomic<bool> failed{false};
};

namespace {
// The whole of `bytes` to `fd`; false on a write error (a full disk).
bool WriteAll(int fd, const std::string& bytes) {
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}
}  // namespace

// std::mutex rather than absl::Mutex: Debian's absl is built without
// ThreadSanitizer's annotations, so TSan would not see its locks.
struct RecordWriter::State {
  explicit State(std::size_t max) : max_pending(max) {}
  const std::size_t max_pending;
  std::mutex mu;
  std::condition_variable changed;  // queued, written, or stopping
  std::deque<std::pair<std::shared_ptr<File>, std::string>> queue;
  std::size_t pending = 0;         // bytes queued or being written
  std::vector<std::string> spare;  // buffers of written frames
  static constexpr std::size_t kSpareBuffers = 8;
  bool stopping = false;
  std::thread thread;

  void Loop() {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      changed.wait(lock, [this] { return stopping || !queue.empty(); });
      if (queue.empty()) return;  // stopping, and everything written
      auto [file, bytes] = std::move(queue.front());
      queue.pop_front();
      lock.unlock();
      if (!file->failed.load(std::memory_order_relaxed) &&
          !WriteAll(file->fd, bytes)) {
        file->failed.store(true, std::memory_order_relaxed);
      }
      const std::size_t size = bytes.size();
      file.reset();  // the last frame of a closed recording closes its file
      bytes.clear();
      lock.lock();
      pending -= size;
      if (spare.size() < kSpareBuffers) spare.push_back(std::move(bytes));
      changed.notify_all();
    }
  }
};

RecordWriter::RecordWriter(std::size_t max_pending_bytes)
    : state_(std::make_unique<State>(max_pending_bytes)) {
  state_->thread = std::thread([s = state_.get()] { s->Loop(); });
}

RecordWriter::~RecordWriter() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopping = true;
  }
  state_->changed.notify_all();
  state_->thread.join();
}

std::string RecordWriter::TakeBuffer() {
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->spare.empty()) return std::string();
  std::string out = std::move(state_->spare.back());
  state_->spare.pop_back();
  return out;
}

std::shared_ptr<RecordWriter::File> RecordWriter::Open(
    const std::string& path) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return nullptr;
  return std::make_shared<File>(fd);
}

bool RecordWriter::Queue(const std::shared_ptr<File>& file, std::string bytes,
                         bool always) {
  if (file->failed.load(std::memory_order_relaxed)) return false;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!always && state_->pending + bytes.size() > state_->max_pending) {
      return false;
    }
    state_->pending += bytes.size();
    state_->queue.emplace_back(file, std::move(bytes));
  }
  state_->changed.notify_all();
  return true;
}

void RecordWriter::Drain() {
  std::unique_lock<std::mutex> lock(state_->mu);
  state_->changed.wait(lock, [this] { return state_->pending == 0; });
}

absl::StatusOr<std::unique_ptr<SceneRecorder>> SceneRecorder::Create(
    const SceneRecordOptions& options, const wire::SceneLimits& limits) {
  static std::atomic<uint64_t> counter{0};
  const absl::Time now = absl::Now();
  const std::string name = absl::StrCat(
      "scene-", absl::FormatTime("%Y%m%dT%H%M%S", now, absl::UTCTimeZone()),
      "-", counter.fetch_add(1), ".crec");
  const std::string path = absl::StrCat(options.dir, "/", name);
  std::shared_ptr<RecordWriter::File> file = RecordWriter::Open(path);
  if (file == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
  }
  std::unique_ptr<SceneRecorder> recorder(new SceneRecorder(
      std::move(file), options.writer, name, options.max_bytes));
  v1::SceneRecordFrame frame;
  v1::SceneRecordHeader* header = frame.mutable_header();
  header->set_server_version(options.server_version);
  header->set_started_unix_ms(absl::ToUnixMillis(now));
  *header->mutable_limits() = ToRecord(limits);
  // The file's start and its header in one piece.
  std::string& out = recorder->scratch_;
  out.assign(kRecordMagic, 4);
  out.resize(12);
  PutLength(kRecordVersion, out.data() + 4);
  frame.AppendToString(&out);
  PutLength(static_cast<uint32_t>(out.size() - 12), out.data() + 8);
  if (!recorder->WriteScratch()) {
    return absl::UnavailableError(absl::StrCat("cannot write ", path));
  }
  return recorder;
}

SceneRecorder::~SceneRecorder() = default;

bool SceneRecorder::WriteScratch(bool last) {
  if (file_ == nullptr) return false;
  const auto size = static_cast<int64_t>(scratch_.size());
  bool written;
  if (writer_ != nullptr) {
    written = writer_->Queue(file_, std::move(scratch_), last);
    scratch_ = writer_->TakeBuffer();
    if (!written && !last && !file_->failed.load()) {
      Stop(
          "the disk fell behind: more recording bytes waited to be written "
          "than the server holds");
      return false;
    }
  } else {
    written = WriteAll(file_->fd, scratch_);
  }
  if (!written) {
    // A full or failing disk: the scene goes on unrecorded.
    file_.reset();
    return false;
  }
  written_ += size;
  return true;
}

bool SceneRecorder::Fits(std::size_t bytes) {
  if (written_ + static_cast<int64_t>(bytes) + kTruncationRoom <= max_bytes_) {
    return true;
  }
  Stop(absl::StrCat("the recording reached its limit of ", max_bytes_,
                    " bytes (--scene_record_max_bytes)"));
  return false;
}

bool SceneRecorder::WriteFrame(const v1::SceneRecordFrame& frame) {
  if (file_ == nullptr) return false;
  scratch_.resize(4);
  if (!frame.AppendToString(&scratch_)) return false;
  const bool last = frame.has_truncated();
  if (!last && !Fits(scratch_.size())) return false;
  PutLength(static_cast<uint32_t>(scratch_.size() - 4), scratch_.data());
  return WriteScratch(last);
}

void SceneRecorder::Stop(const std::string& why) {
  v1::SceneRecordFrame frame;
  frame.set_truncated(why);
  WriteFrame(frame);
  file_.reset();
}

void SceneRecorder::Record(const v1::SceneRequest& request,
                           const v1::SceneResponse& response) {
  if (file_ == nullptr) return;
  // docs/decisions/0027-recording-frames-off-the-tick.md measures this.
  // The frame SceneRecordFrame{message: {request, response}} encoded by
  // hand around the two messages, each serialized once straight into the
  // buffer the kernel is given: at the reference tick the request is
  // ~160 KB, and building the frame as a message copied it three times.
  using google::protobuf::io::CodedOutputStream;
  // Tags of length-delimited fields (wire type 2), from the schema's
  // field numbers.
  constexpr auto kTag = [](int field) {
    return static_cast<uint8_t>((field << 3) | 2);
  };
  constexpr uint8_t kMessageTag =
      kTag(v1::SceneRecordFrame::kMessageFieldNumber);
  constexpr uint8_t kRequestTag =
      kTag(v1::SceneRecordMessage::kRequestFieldNumber);
  constexpr uint8_t kResponseTag =
      kTag(v1::SceneRecordMessage::kResponseFieldNumber);
  const std::size_t req = request.ByteSizeLong();
  const std::size_t resp = response.ByteSizeLong();
  const std::size_t message = 1 + CodedOutputStream::VarintSize64(req) + req +
                              1 + CodedOutputStream::VarintSize64(resp) + resp;
  const std::size_t frame =
      1 + CodedOutputStream::VarintSize64(message) + message;
  if (!Fits(4 + frame)) return;
  scratch_.resize(4 + frame);
  auto* p = reinterpret_cast<uint8_t*>(scratch_.data());
  PutLength(static_cast<uint32_t>(frame), scratch_.data());
  p += 4;
  *p++ = kMessageTag;
  p = CodedOutputStream::WriteVarint64ToArray(message, p);
  *p++ = kRequestTag;
  p = CodedOutputStream::WriteVarint64ToArray(req, p);
  p = request.SerializeWithCachedSizesToArray(p);
  *p++ = kResponseTag;
  p = CodedOutputStream::WriteVarint64ToArray(resp, p);
  response.SerializeWithCachedSizesToArray(p);
  WriteScratch();
}

absl::StatusOr<SceneRecording> ReadSceneRecording(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto bad = [&](std::size_t at, const std::string& why) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " at byte ", at, ": ", why));
  };
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kRecordMagic, 4) != 0) {
    return bad(0, "not a scene recording (no \"CREC\" at its start)");
  }
  if (const uint32_t v = GetLength(bytes.data() + 4); v != kRecordVersion) {
    return bad(4, absl::StrCat("format version ", v, "; this build reads ",
                               kRecordVersion));
  }
  SceneRecording out;
  bool have_header = false;
  for (std::size_t at = 8; at < bytes.size();) {
    if (bytes.size() - at < 4) return bad(at, "a frame's length is cut");
    const uint32_t n = GetLength(bytes.data() + at);
    if (bytes.size() - at - 4 < n) {
      return bad(at, absl::StrCat("a frame of ", n, " bytes is cut at ",
                                  bytes.size() - at - 4));
    }
    v1::SceneRecordFrame frame;
    if (!frame.ParseFromArray(bytes.data() + at + 4, static_cast<int>(n))) {
      return bad(at, "a frame that does not parse");
    }
    if (!have_header && !frame.has_header()) {
      return bad(at, "the first frame is not the header");
    }
    switch (frame.frame_case()) {
      case v1::SceneRecordFrame::kHeader:
        if (have_header) return bad(at, "a second header");
        out.header = std::move(*frame.mutable_header());
        have_header = true;
        break;
      case v1::SceneRecordFrame::kMessage:
        out.messages.push_back(std::move(*frame.mutable_message()));
        break;
      case v1::SceneRecordFrame::kTruncated:
        out.truncated = frame.truncated();
        break;
      default:
        return bad(at, "a frame of an unknown kind");
    }
    at += 4 + n;
  }
  if (!have_header) return bad(8, "no header");
  return out;
}

}  // namespace collision::server
