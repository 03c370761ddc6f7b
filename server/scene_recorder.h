// Scene recordings (docs/recording.md): a scene's stream, every message and
// the answer the server gave it, in order, in a file that collision_replay
// plays against another build. The format is scene.proto's
// SceneRecordFrame: "CREC", a 4-byte little-endian version, then
// length-prefixed frames (a header first). Written here and read here, so
// that the server and the replay tool share one definition.
#ifndef COLLISION_SERVER_SCENE_RECORDER_H_
#define COLLISION_SERVER_SCENE_RECORDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "collision/v1/scene.pb.h"
#include "collision/wire/scene_request.h"

namespace collision::server {

// Writes recordings' frames to their files on a thread of its own, so that
// a slow or full disk never holds a scene's tick: the tick only encodes its
// frame and queues it. What is queued and not yet written is bounded; a
// recording whose frame would pass the bound stops (a scene's recording
// has a hole nowhere: it ends, and says why).
class RecordWriter {
 public:
  explicit RecordWriter(std::size_t max_pending_bytes);
  ~RecordWriter();  // writes what is queued, then stops
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  struct File;
  // Opens `path` (never an existing file); nullptr with errno set on
  // failure.
  static std::shared_ptr<File> Open(const std::string& path);
  // Queues `bytes` for `file`; false when they would pass the bound (or
  // an earlier write to the file failed): nothing is queued then.
  // `always`: queued whatever the bound (a recording's last, small frame).
  bool Queue(const std::shared_ptr<File>& file, std::string bytes,
             bool always = false);
  // Waits until everything queued so far is written (tests, shutdown).
  void Drain();
  // An empty buffer for the next frame, one a written frame gave back when
  // there is one: a tick's frame is ~160 KB, and fresh memory for it every
  // tick cost more in page faults than encoding it.
  std::string TakeBuffer();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Recording bytes a server holds waiting for the disk, over all its
// recordings (docs/recording.md).
inline constexpr std::size_t kRecordPendingBytes = std::size_t{64} << 20;

struct SceneRecordOptions {
  // Directory the recordings go to; empty: the server records nothing.
  std::string dir;
  // Record every scene; else only those whose config asks (record: true).
  bool all = false;
  // A recording stops (a `truncated` frame says why) before it would pass
  // this size; the scene goes on unrecorded.
  int64_t max_bytes = int64_t{1} << 30;
  // Written in each recording's header.
  std::string server_version = "unknown";
  // Writes the frames off the scene's thread; null: written by the tick
  // itself (the benchmark's comparison).
  std::shared_ptr<RecordWriter> writer;
};

inline constexpr char kRecordMagic[4] = {'C', 'R', 'E', 'C'};
inline constexpr uint32_t kRecordVersion = 1;

class SceneRecorder {
 public:
  // A new file in options.dir for a scene opened now under `limits`; an
  // error when the directory cannot take it (the scene then opens
  // unrecorded: recording never refuses a game its scene).
  static absl::StatusOr<std::unique_ptr<SceneRecorder>> Create(
      const SceneRecordOptions& options, const wire::SceneLimits& limits);
  ~SceneRecorder();
  SceneRecorder(const SceneRecorder&) = delete;
  SceneRecorder& operator=(const SceneRecorder&) = delete;

  // The file's name in the directory (SceneGrant.recording).
  const std::string& name() const { return name_; }
  // Appends a message and its answer (whose `sequence` is not recorded:
  // the transport numbers answers, not the scene). After a write fails or
  // the size limit is reached, does nothing.
  void Record(const v1::SceneRequest& request,
              const v1::SceneResponse& response);
  bool stopped() const { return file_ == nullptr; }

 private:
  SceneRecorder(std::shared_ptr<RecordWriter::File> file,
                std::shared_ptr<RecordWriter> writer, std::string name,
                int64_t max_bytes)
      : file_(std::move(file)),
        writer_(std::move(writer)),
        name_(std::move(name)),
        max_bytes_(max_bytes) {}
  // Whether a frame of `bytes` (its length included) still fits the size
  // limit, with room for the frame that says why the recording ends; if
  // not, ends the recording with that frame.
  bool Fits(std::size_t bytes);
  bool WriteFrame(const v1::SceneRecordFrame& frame);
  // Hands scratch_ (whole frames, each length first) to the file.
  bool WriteScratch(bool last = false);
  void Stop(const std::string& why);

  std::shared_ptr<RecordWriter::File> file_;  // null once stopped
  const std::shared_ptr<RecordWriter> writer_;
  std::string name_;
  const int64_t max_bytes_;
  int64_t written_ = 0;
  std::string scratch_;
};

// A recording read back whole.
struct SceneRecording {
  v1::SceneRecordHeader header;
  std::vector<v1::SceneRecordMessage> messages;
  std::string truncated;  // the reason, when the recording stopped early
};

// Reads a recording; an error naming the byte offset and what is wrong for
// a file that is not one (bad magic or version, a cut or unreadable frame,
// no header first).
absl::StatusOr<SceneRecording> ReadSceneRecording(const std::string& path);

// The scene limits a recording's header carries, and back.
v1::SceneRecordLimits ToRecord(const wire::SceneLimits& limits);
wire::SceneLimits FromRecord(const v1::SceneRecordLimits& limits,
                             wire::SceneLimits defaults);

}  // namespace collision::server

#endif  // COLLISION_SERVER_SCENE_RECORDER_H_
