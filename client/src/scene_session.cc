#include "collision/client/scene_session.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "collision/client/errors.h"
#include "common/tsan_handoff.h"
#include "grpcpp/alarm.h"
#include "scene_stream.h"

namespace collision::client {
namespace {

// Statuses that mean the stream (not the message) failed: the server
// draining or ageing it out, a connection lost or refused, a replica gone.
bool StreamBroke(const grpc::Status& s) {
  return s.error_code() == grpc::StatusCode::UNAVAILABLE ||
         s.error_code() == grpc::StatusCode::ABORTED ||
         s.error_code() == grpc::StatusCode::CANCELLED;
}

// Opening a stream (config, snapshot, window) failed in a way another try
// may mend: a replica going or gone, or one at its scene limit.
bool Retryable(const absl::Status& s) {
  return s.code() == absl::StatusCode::kUnavailable ||
         s.code() == absl::StatusCode::kResourceExhausted ||
         s.code() == absl::StatusCode::kAborted ||
         s.code() == absl::StatusCode::kCancelled;
}

// Cancels a stream whose work in hand is not done within `timeout` (the
// only way to end a blocked Read or Write); Disarm says whether it did.
class StreamDeadline {
 public:
  StreamDeadline(internal::SceneStream* stream, absl::Duration timeout)
      : shared_(new Shared, [](Shared* p) {
          TakeOver(p);  // both holders handed it over before letting go
          delete p;
        }) {
    {
      // Under the lock, as the timer's thread reads it under the lock.
      std::lock_guard<std::mutex> lock(shared_->mu);
      shared_->stream = stream;
    }
    if (timeout == absl::InfiniteDuration()) return;
    // The timer may fire after this object is gone: it holds `shared_`.
    std::function<void(bool)> on_timer = [shared = shared_](bool fired) {
      TakeOver(&kTimerHandOff);
      {
        std::lock_guard<std::mutex> lock(shared->mu);
        if (fired && shared->stream != nullptr) {
          shared->fired = true;
          shared->stream->Cancel();
        }
      }
      HandOff(shared.get());  // its last use on this thread
    };
    // gRPC hands the callback to its timer thread, and frees it there,
    // inside libgrpc, out of TSan's sight (common/tsan_handoff.h): one
    // address for every deadline states that order. The shared state is
    // freed by whichever holder lets go last; the deleter takes over from
    // both.
    HandOff(&kTimerHandOff);
    alarm_.Set(absl::ToChronoTime(absl::Now() + timeout), std::move(on_timer));
  }
  ~StreamDeadline() {
    Disarm();
    HandOff(shared_.get());  // its last use on this thread
  }
  StreamDeadline(const StreamDeadline&) = delete;
  StreamDeadline& operator=(const StreamDeadline&) = delete;

  // From here on the timer leaves the stream alone; true when it had
  // already cancelled it.
  bool Disarm() {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->stream = nullptr;
    return shared_->fired;
  }

 private:
  struct Shared {
    std::mutex mu;
    internal::SceneStream* stream = nullptr;
    bool fired = false;
  };
  static inline const char kTimerHandOff = 0;
  std::shared_ptr<Shared> shared_;
  grpc::Alarm alarm_;
};

absl::Status ToAbsl(const grpc::Status& s) {
  absl::Status out(static_cast<absl::StatusCode>(s.error_code()),
                   s.error_message());
  AttachFieldViolations(s.error_details(), &out);
  return out;
}

}  // namespace

SceneSession::SceneSession(const Client& client, const v1::SceneConfig& config,
                           const SceneSessionOptions& options)
    : client_(client),
      config_(config),
      options_(options),
      stub_(v1::SceneService::NewStub(client.channel())),
      ports_(absl::StrSplit(options.scene_port, ',', absl::SkipEmpty())) {
  // The server's default: one second at the tick rate (scene.proto).
  const uint32_t rate = config.tick_rate() == 0 ? 64 : config.tick_rate();
  history_ticks_ = std::max<uint32_t>(
      1, config.history_ticks() == 0 ? rate : config.history_ticks());
}

SceneSession::~SceneSession() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_.store(true);
    queue_cv_.notify_all();
  }
  CancelStream();  // a message blocked on the stream returns
  if (worker_.joinable()) worker_.join();
  for (Queued& item : queue_) {
    item.answer.set_value(absl::CancelledError("the session was destroyed"));
  }
  DropStream();
}

absl::StatusOr<std::unique_ptr<SceneSession>> SceneSession::Open(
    const Client& client, const v1::SceneConfig& config,
    const SceneSessionOptions& options) {
  std::unique_ptr<SceneSession> session(
      new SceneSession(client, config, options));
  absl::Duration backoff = options.first_backoff;
  absl::Status last;
  for (int attempt = 0; attempt <= options.max_reopens_per_message; ++attempt) {
    last = session->Reopen();
    if (last.ok()) return session;
    session->DropStream();
    if (!Retryable(last)) return last;  // the config itself was refused
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, options.max_backoff);
  }
  return last;
}

void SceneSession::DropStream() {
  if (stream_ == nullptr) return;
  // gRPC aborts the process on a second Finish (or any operation after
  // it), so a stream is finished exactly once, here or in Exchange, and
  // never touched again.
  stream_->Cancel();
  if (!stream_finished_) stream_->Finish();
  std::lock_guard<std::mutex> lock(stream_mu_);
  stream_.reset();
  stream_finished_ = false;
}

void SceneSession::CancelStream() {
  std::lock_guard<std::mutex> lock(stream_mu_);
  if (stream_ != nullptr) stream_->Cancel();
}

absl::Status SceneSession::OpenStream() {
  if (ports_.empty()) {
    auto context = std::make_unique<grpc::ClientContext>();
    client_.Prepare(context.get(), client_.options().stream_timeout);
    std::unique_ptr<internal::SceneStream> stream =
        internal::OpenGrpcSceneStream(std::move(context), stub_.get());
    std::lock_guard<std::mutex> lock(stream_mu_);
    stream_ = std::move(stream);
    return absl::OkStatus();
  }
  // The scene port: the next address of the list at every reopening, so
  // that a replica gone is left for the next one.
  const std::string& address = ports_[next_port_++ % ports_.size()];
  absl::StatusOr<std::unique_ptr<internal::SceneStream>> stream =
      internal::OpenTcpSceneStream(
          client_, address,
          std::min(options_.message_timeout, absl::Seconds(10)));
  if (!stream.ok()) return stream.status();
  std::lock_guard<std::mutex> lock(stream_mu_);
  stream_ = *std::move(stream);
  return absl::OkStatus();
}

absl::Status SceneSession::Reopen() {
  DropStream();
  if (absl::Status s = OpenStream(); !s.ok()) return s;
  v1::SceneRequest opening;
  *opening.mutable_config() = config_;
  Fold();
  if (base_tick_.has_value()) {
    v1::SceneUpdate* update = opening.mutable_update();
    update->set_tick(*base_tick_);
    update->set_snapshot(true);
    update->mutable_upserts()->Reserve(static_cast<int>(world_.size()));
    for (const auto& [id, kept] : world_) {
      Restore(id, kept, update->add_upserts());
    }
  }
  bool broken = false;
  absl::StatusOr<v1::SceneResponse> answer = Exchange(&opening, &broken);
  // The history the server keeps, as it says (one that says nothing: the
  // default the session derived from the config).
  if (answer.ok() && answer->has_scene() &&
      answer->scene().history_ticks() > 0) {
    history_ticks_ = answer->scene().history_ticks();
  }
  // Then the window's updates, so the new replica's history is the old one's.
  for (const v1::SceneUpdate& u : recent_) {
    if (!answer.ok()) break;
    v1::SceneRequest replay;
    *replay.mutable_update() = u;
    answer = Exchange(&replay, &broken);
  }
  return answer.status();
}

absl::StatusOr<v1::SceneResponse> SceneSession::Exchange(
    v1::SceneRequest* request, bool* broken, bool fold) {
  *broken = false;
  request->set_sequence(++sequence_);
  v1::SceneResponse response;
  // The message's deadline: past it the stream is cancelled, which the
  // deadline tells from any other end.
  StreamDeadline deadline(stream_.get(), options_.message_timeout);
  const bool written = stream_->Write(*request);
  // The previous answer's update is kept (folded) while the server works
  // on this message, not before it is sent: off the round trip.
  if (written && fold) Fold();
  const bool answered = written && stream_->Read(&response);
  const bool timed_out = deadline.Disarm();
  if (answered && timed_out) {
    DropStream();  // cancelled as the answer came: the answer stands
  } else if (!answered) {
    // The stream is over, whatever its status: the next message goes on a
    // new one (the server's scene went with this one).
    const grpc::Status s = stream_->Finish();
    stream_finished_ = true;
    DropStream();
    if (timed_out) {
      return absl::DeadlineExceededError(
          absl::StrCat("no answer within the session's message_timeout (",
                       absl::FormatDuration(options_.message_timeout),
                       "); the next message reopens the scene"));
    }
    // A stream that was over before this message could be written (it
    // ended while the session was idle) never saw it: whatever its status,
    // the message goes on a new stream.
    *broken = s.ok() || StreamBroke(s) || !written;
    if (s.ok()) {
      return absl::UnavailableError("the scene stream ended without an answer");
    }
    return ToAbsl(s);
  }
  if (response.sequence() != sequence_) {
    DropStream();  // out of step with the server: start afresh
    return absl::InternalError(absl::StrCat(
        "answer for message ", response.sequence(), ", expected ", sequence_));
  }
  if (response.has_error()) {
    return StatusFromStreamError(response.error());
  }
  return response;
}

absl::StatusOr<v1::SceneResponse> SceneSession::Send(v1::SceneRequest request) {
  // Behind messages handed over before it: in their order, through the
  // session's thread. Else right here, with no hand-off.
  if (in_flight() > 0) return SendAsync(std::move(request)).get();
  std::lock_guard<std::mutex> lock(send_mu_);
  return SendNow(std::move(request));
}

std::future<absl::StatusOr<v1::SceneResponse>> SceneSession::SendAsync(
    v1::SceneRequest request) {
  Queued item;
  item.request = std::move(request);
  std::future<absl::StatusOr<v1::SceneResponse>> answer =
      item.answer.get_future();
  std::lock_guard<std::mutex> lock(queue_mu_);
  if (stopping_) {
    item.answer.set_value(absl::CancelledError("the session is closing"));
    return answer;
  }
  queue_.push_back(std::move(item));
  ++pending_;
  if (!worker_.joinable()) worker_ = std::thread([this] { Work(); });
  queue_cv_.notify_all();
  return answer;
}

std::size_t SceneSession::in_flight() const {
  std::lock_guard<std::mutex> lock(queue_mu_);
  return pending_;
}

void SceneSession::Work() {
  while (true) {
    Queued item;
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      queue_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    absl::StatusOr<v1::SceneResponse> answer =
        absl::CancelledError("the session is closing");
    if (!stopping_.load()) {
      std::lock_guard<std::mutex> lock(send_mu_);
      answer = SendNow(std::move(item.request));
    }
    {
      // Counted out before the caller can have the answer.
      std::lock_guard<std::mutex> lock(queue_mu_);
      --pending_;
      queue_cv_.notify_all();
    }
    item.answer.set_value(std::move(answer));
  }
}

void SceneSession::WaitForQueue() {
  std::unique_lock<std::mutex> lock(queue_mu_);
  queue_cv_.wait(lock, [this] { return pending_ == 0; });
}

absl::StatusOr<v1::SceneResponse> SceneSession::SendNow(
    v1::SceneRequest request) {
  if (finished_) return absl::FailedPreconditionError("session finished");
  request.clear_config();
  absl::Duration backoff = options_.first_backoff;
  absl::Status last;
  for (int attempt = 0; attempt <= options_.max_reopens_per_message;
       ++attempt) {
    if (stopping_.load()) return absl::CancelledError("the session is closing");
    if (stream_ == nullptr) {
      last = Reopen();
      if (!last.ok()) {
        DropStream();
        if (!Retryable(last)) return last;
        absl::SleepFor(backoff);
        backoff = std::min(backoff * 2, options_.max_backoff);
        continue;
      }
      reopens_.fetch_add(1);
    }
    bool broken = false;
    absl::StatusOr<v1::SceneResponse> answer =
        Exchange(&request, &broken, /*fold=*/true);
    if (answer.ok()) {
      if (request.has_update()) {
        tick_ = request.update().tick();
        published_tick_.store(*tick_);
        has_tick_.store(true);
        unfolded_ = std::move(*request.mutable_update());
      }
      entities_.store(answer->entities());
      kept_updates_.store(recent_.size() + (unfolded_.has_value() ? 1 : 0));
      return answer;
    }
    if (!broken) return answer.status();  // the server's verdict
    last = answer.status();  // the message goes again on a new stream
  }
  return absl::UnavailableError(
      absl::StrCat("the scene could not be reopened after ",
                   options_.max_reopens_per_message,
                   " attempts; last error: ", last.ToString()));
}

void SceneSession::Fold() {
  if (unfolded_.has_value()) {
    recent_.push_back(std::move(*unfolded_));
    unfolded_.reset();
  }
  if (!tick_.has_value()) return;
  // The server keeps ticks [latest - (H - 1), latest]; an update at or
  // before the oldest of them only matters as part of the world then.
  const uint64_t oldest =
      *tick_ >= history_ticks_ - 1 ? *tick_ - (history_ticks_ - 1) : 0;
  while (!recent_.empty() && recent_.front().tick() <= oldest) {
    Apply(recent_.front());
    base_tick_ = recent_.front().tick();
    recent_.pop_front();
  }
}

void SceneSession::Apply(const v1::SceneUpdate& update) {
  if (update.snapshot()) world_.clear();
  for (uint64_t id : update.removals()) world_.erase(id);
  for (const v1::SceneEntity& e : update.upserts()) {
    Kept kept = Keep(e.shape());
    kept.has_category = e.has_category();
    kept.category = e.category();
    world_[e.id()] = kept;
  }
  for (const v1::EntityColumns& g : update.upsert_columns()) {
    for (int i = 0; i < g.ids_size(); ++i) world_[g.ids(i)] = Keep(g, i);
  }
}

SceneSession::Kept SceneSession::Keep(const v1::Shape& s) {
  Kept k;
  k.kind = static_cast<uint8_t>(s.kind_case());
  float* v = k.v;
  switch (s.kind_case()) {
    case v1::Shape::kPoint:
      v[0] = s.point().x(), v[1] = s.point().y();
      break;
    case v1::Shape::kCircle:
      v[0] = s.circle().center().x(), v[1] = s.circle().center().y();
      v[2] = s.circle().radius();
      break;
    case v1::Shape::kRect:
      v[0] = s.rect().min().x(), v[1] = s.rect().min().y();
      v[2] = s.rect().max().x(), v[3] = s.rect().max().y();
      break;
    case v1::Shape::kRotatedRect: {
      const v1::RotatedRect& r = s.rotated_rect();
      v[0] = r.size().x(), v[1] = r.size().y();
      v[2] = r.pivot().x(), v[3] = r.pivot().y();
      v[4] = r.position().x(), v[5] = r.position().y();
      k.angle = r.orientation_case() == v1::RotatedRect::kAngle;
      if (k.angle) {
        v[6] = r.angle();
      } else {
        v[7] = r.rotation().cos(), v[8] = r.rotation().sin();
      }
      break;
    }
    case v1::Shape::kPoint3:
      v[0] = s.point3().x(), v[1] = s.point3().y(), v[2] = s.point3().z();
      break;
    case v1::Shape::kSphere:
      v[0] = s.sphere().center().x(), v[1] = s.sphere().center().y();
      v[2] = s.sphere().center().z(), v[3] = s.sphere().radius();
      break;
    case v1::Shape::kBox:
      v[0] = s.box().min().x(), v[1] = s.box().min().y();
      v[2] = s.box().min().z(), v[3] = s.box().max().x();
      v[4] = s.box().max().y(), v[5] = s.box().max().z();
      break;
    case v1::Shape::kCapsule3: {
      const v1::Capsule3& c = s.capsule3();
      v[0] = c.a().x(), v[1] = c.a().y(), v[2] = c.a().z();
      v[3] = c.b().x(), v[4] = c.b().y(), v[5] = c.b().z();
      v[6] = c.radius();
      break;
    }
    case v1::Shape::kOrientedBox: {
      const v1::OrientedBox& b = s.oriented_box();
      v[0] = b.center().x(), v[1] = b.center().y(), v[2] = b.center().z();
      v[3] = b.half_extents().x(), v[4] = b.half_extents().y();
      v[5] = b.half_extents().z();
      v[6] = b.rotation().w(), v[7] = b.rotation().x();
      v[8] = b.rotation().y(), v[9] = b.rotation().z();
      break;
    }
    case v1::Shape::KIND_NOT_SET:
      break;
  }
  return k;
}

SceneSession::Kept SceneSession::Keep(const v1::EntityColumns& g, int i) {
  Kept k;
  k.has_category = g.categories_size() > 0;
  k.category = k.has_category ? g.categories(i) : 0;
  float* v = k.v;
  switch (g.shapes_case()) {
    case v1::EntityColumns::kCircles: {
      const v1::BallColumns2& b = g.circles();
      k.kind = static_cast<uint8_t>(b.radius_size() == 0 ? v1::Shape::kPoint
                                                         : v1::Shape::kCircle);
      v[0] = b.x(i), v[1] = b.y(i);
      v[2] = b.radius_size() == 0 ? 0.0f : b.radius(i);
      break;
    }
    case v1::EntityColumns::kRects: {
      const v1::RectColumns& r = g.rects();
      k.kind = static_cast<uint8_t>(v1::Shape::kRect);
      v[0] = r.min_x(i), v[1] = r.min_y(i), v[2] = r.max_x(i);
      v[3] = r.max_y(i);
      break;
    }
    case v1::EntityColumns::kRotatedRects: {
      const v1::RotatedRectColumns& r = g.rotated_rects();
      k.kind = static_cast<uint8_t>(v1::Shape::kRotatedRect);
      v[0] = r.size_x(i), v[1] = r.size_y(i), v[2] = r.pivot_x(i);
      v[3] = r.pivot_y(i), v[4] = r.position_x(i), v[5] = r.position_y(i);
      k.angle = r.angle_size() > 0;
      if (k.angle) {
        v[6] = r.angle(i);
      } else {
        v[7] = r.cos(i), v[8] = r.sin(i);
      }
      break;
    }
    case v1::EntityColumns::kSpheres: {
      const v1::BallColumns3& b = g.spheres();
      k.kind = static_cast<uint8_t>(b.radius_size() == 0 ? v1::Shape::kPoint3
                                                         : v1::Shape::kSphere);
      v[0] = b.x(i), v[1] = b.y(i), v[2] = b.z(i);
      v[3] = b.radius_size() == 0 ? 0.0f : b.radius(i);
      break;
    }
    case v1::EntityColumns::kBoxes: {
      const v1::BoxColumns& b = g.boxes();
      k.kind = static_cast<uint8_t>(v1::Shape::kBox);
      v[0] = b.min_x(i), v[1] = b.min_y(i), v[2] = b.min_z(i);
      v[3] = b.max_x(i), v[4] = b.max_y(i), v[5] = b.max_z(i);
      break;
    }
    case v1::EntityColumns::kCapsules: {
      const v1::Capsule3Columns& c = g.capsules();
      k.kind = static_cast<uint8_t>(v1::Shape::kCapsule3);
      v[0] = c.a_x(i), v[1] = c.a_y(i), v[2] = c.a_z(i);
      v[3] = c.b_x(i), v[4] = c.b_y(i), v[5] = c.b_z(i);
      v[6] = c.radius(i);
      break;
    }
    case v1::EntityColumns::kOrientedBoxes: {
      const v1::OrientedBoxColumns& b = g.oriented_boxes();
      k.kind = static_cast<uint8_t>(v1::Shape::kOrientedBox);
      v[0] = b.center_x(i), v[1] = b.center_y(i), v[2] = b.center_z(i);
      v[3] = b.half_x(i), v[4] = b.half_y(i), v[5] = b.half_z(i);
      v[6] = b.rotation_w(i), v[7] = b.rotation_x(i);
      v[8] = b.rotation_y(i), v[9] = b.rotation_z(i);
      break;
    }
    case v1::EntityColumns::SHAPES_NOT_SET:
      break;
  }
  return k;
}

void SceneSession::Restore(uint64_t id, const Kept& k, v1::SceneEntity* out) {
  out->set_id(id);
  if (k.has_category) out->set_category(k.category);
  v1::Shape* s = out->mutable_shape();
  const float* v = k.v;
  switch (static_cast<v1::Shape::KindCase>(k.kind)) {
    case v1::Shape::kPoint:
      s->mutable_point()->set_x(v[0]);
      s->mutable_point()->set_y(v[1]);
      return;
    case v1::Shape::kCircle:
      s->mutable_circle()->mutable_center()->set_x(v[0]);
      s->mutable_circle()->mutable_center()->set_y(v[1]);
      s->mutable_circle()->set_radius(v[2]);
      return;
    case v1::Shape::kRect:
      s->mutable_rect()->mutable_min()->set_x(v[0]);
      s->mutable_rect()->mutable_min()->set_y(v[1]);
      s->mutable_rect()->mutable_max()->set_x(v[2]);
      s->mutable_rect()->mutable_max()->set_y(v[3]);
      return;
    case v1::Shape::kRotatedRect: {
      v1::RotatedRect* r = s->mutable_rotated_rect();
      r->mutable_size()->set_x(v[0]);
      r->mutable_size()->set_y(v[1]);
      r->mutable_pivot()->set_x(v[2]);
      r->mutable_pivot()->set_y(v[3]);
      r->mutable_position()->set_x(v[4]);
      r->mutable_position()->set_y(v[5]);
      if (k.angle) {
        r->set_angle(v[6]);
      } else {
        r->mutable_rotation()->set_cos(v[7]);
        r->mutable_rotation()->set_sin(v[8]);
      }
      return;
    }
    case v1::Shape::kPoint3:
      s->mutable_point3()->set_x(v[0]);
      s->mutable_point3()->set_y(v[1]);
      s->mutable_point3()->set_z(v[2]);
      return;
    case v1::Shape::kSphere:
      s->mutable_sphere()->mutable_center()->set_x(v[0]);
      s->mutable_sphere()->mutable_center()->set_y(v[1]);
      s->mutable_sphere()->mutable_center()->set_z(v[2]);
      s->mutable_sphere()->set_radius(v[3]);
      return;
    case v1::Shape::kBox:
      s->mutable_box()->mutable_min()->set_x(v[0]);
      s->mutable_box()->mutable_min()->set_y(v[1]);
      s->mutable_box()->mutable_min()->set_z(v[2]);
      s->mutable_box()->mutable_max()->set_x(v[3]);
      s->mutable_box()->mutable_max()->set_y(v[4]);
      s->mutable_box()->mutable_max()->set_z(v[5]);
      return;
    case v1::Shape::kCapsule3: {
      v1::Capsule3* c = s->mutable_capsule3();
      c->mutable_a()->set_x(v[0]);
      c->mutable_a()->set_y(v[1]);
      c->mutable_a()->set_z(v[2]);
      c->mutable_b()->set_x(v[3]);
      c->mutable_b()->set_y(v[4]);
      c->mutable_b()->set_z(v[5]);
      c->set_radius(v[6]);
      return;
    }
    case v1::Shape::kOrientedBox: {
      v1::OrientedBox* b = s->mutable_oriented_box();
      b->mutable_center()->set_x(v[0]);
      b->mutable_center()->set_y(v[1]);
      b->mutable_center()->set_z(v[2]);
      b->mutable_half_extents()->set_x(v[3]);
      b->mutable_half_extents()->set_y(v[4]);
      b->mutable_half_extents()->set_z(v[5]);
      b->mutable_rotation()->set_w(v[6]);
      b->mutable_rotation()->set_x(v[7]);
      b->mutable_rotation()->set_y(v[8]);
      b->mutable_rotation()->set_z(v[9]);
      return;
    }
    case v1::Shape::KIND_NOT_SET:
      return;
  }
}

absl::Status SceneSession::Finish() {
  WaitForQueue();  // every message handed over is answered first
  std::lock_guard<std::mutex> send_lock(send_mu_);
  if (finished_) return finish_status_;
  finished_ = true;
  if (stream_ == nullptr) return finish_status_;
  // The stream's end within a message's deadline: a server that never
  // ends it is cancelled.
  StreamDeadline deadline(stream_.get(), options_.message_timeout);
  stream_->WritesDone();
  v1::SceneResponse ignored;
  while (stream_->Read(&ignored)) {
  }
  finish_status_ = ToAbsl(stream_->Finish());
  deadline.Disarm();
  stream_finished_ = true;
  std::lock_guard<std::mutex> stream_lock(stream_mu_);
  stream_.reset();
  return finish_status_;
}

}  // namespace collision::client
