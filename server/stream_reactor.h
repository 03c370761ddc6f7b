// The life of a bidirectional stream (QueryStream, SceneService.Session):
// admission, per-message arenas, ordering, maximum age and accounting, in
// one place. What a stream does with each message is its Session:
//
//   struct Session {
//     using Request = ...;   // has uint64 sequence = 1, like the response
//     using Response = ...;  // has sequence and StreamError error
//     static constexpr char kMethod[] = "...";  // metrics' method label
//     Session(CollisionServiceImpl*, grpc::CallbackServerContext*);
//     grpc::Status Precheck(const grpc::ByteBuffer&);  // before parsing
//     bool ComputeInline(const Request&);  // else on the worker pool
//     // A message served straight from its bytes (collision/wire/pair_wire.h),
//     or
//     // nullptr: the message is parsed and processed as below.
//     std::shared_ptr<DecodedRequest> Decode(const grpc::ByteBuffer&);
//     grpc::Status Process(const Request&, Response*,
//                          grpc::CallbackServerContext*);  // error: rejected
//     static void ClearAnswer(Response*);
//     // The last answer was handed to the transport; runs before the next
//     // message is read (work the answer need not wait for).
//     void AfterAnswer();
//     void Ended();  // the stream is over (the client half-closed, or
//                    // OnDone): free what it holds; called once or twice
//   };
//
// Process runs for one message at a time, so a Session may keep state
// between messages without locking.
#ifndef COLLISION_SERVER_STREAM_REACTOR_H_
#define COLLISION_SERVER_STREAM_REACTOR_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/handlers/pairs.h"
#include "collision/wire/wire_precheck.h"
#include "common/tsan_handoff.h"
#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"
#include "server/raw_messages.h"
#include "server/service.h"
#include "server/status.h"
#include "server/transport/connection_gate.h"

namespace collision::server {

inline constexpr char kBidiStream[] = "bidi_stream";

// A bidirectional stream of the service, one message at a time: read,
// compute (inline or on the pool), write, read the next. Responses therefore
// leave in request order. A rejected message gets a response with `error`
// and the stream goes on; a message that is not a Session::Request at all
// ends the stream with INVALID_ARGUMENT naming its position. Each message's
// request and response live on an arena of their own, freed once the answer is
// encoded: a large message does not stay in memory for the rest of the stream.
//
// Past max_stream_age the stream is ended at a message boundary (see
// ServiceOptions); a timer ends an idle one.
template <typename Session>
class StreamReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  StreamReactor(CollisionServiceImpl* service,
                grpc::CallbackServerContext* context)
      : service_(service),
        context_(context),
        start_(absl::Now()),
        session_(service, context) {
    service_->metrics_->CallStarted(Session::kMethod, kBidiStream);
    if (const grpc::Status early = service_->CheckCaller(context, slot_);
        !early.ok()) {
      End(early);
      return;
    }
    const absl::Duration max_age = service_->options_.max_stream_age;
    if (max_age > absl::ZeroDuration()) {
      refs_.store(2);  // OnDone's and the age timer's
      HandOff(this);   // to the timer's thread (through gRPC's executor)
      age_timer_.Set(absl::ToChronoTime(start_ + max_age),
                     [this](bool fired) { OnAged(fired); });
    }
    Read();
  }

  void OnReadDone(bool ok) override {
    TakeOver(this);
    if (!ok) {  // the client half-closed, or the call is gone
      // No message is in hand (one is read only after the last answer was
      // written), and OnDone runs after this returns: the session's state
      // (a scene and its memory budget) is freed before the client hears
      // the stream is over, so that a caller opening its next scene at
      // once finds what this one held given back.
      session_.Ended();
      End(grpc::Status::OK);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      reading_ = false;
    }
    slot_.Arrived(request_bytes_.Length());
    ++messages_;
    message_start_ = absl::Now();
    message_code_ = grpc::StatusCode::OK;
    service_->metrics_->MessageReceived(Session::kMethod, kBidiStream);
    call_ = std::make_unique<Call>();
    // The sequence is read off the bytes so that even a message shed
    // before parsing is answered under its own sequence.
    call_->response->set_sequence(ReadBytes(
        request_bytes_, [](auto* in) { return wire::PeekStreamSequence(in); }));
    if (grpc::Status shed; !AdmitMessage(&shed)) {
      request_bytes_.Clear();
      SetError(shed);
      Write();
      return;
    }
    if (grpc::Status s = session_.Precheck(request_bytes_); !s.ok()) {
      request_bytes_.Clear();
      SetError(s);
      Write();
      return;
    }
    if (std::shared_ptr<handlers::DecodedRequest> decoded =
            session_.Decode(request_bytes_)) {
      request_bytes_.Clear();
      Compute(service_->ComputesInline(decoded->items()),
              [this, decoded] { Serve(*decoded); });
      return;
    }
    if (!ParseMessage(request_bytes_, call_->request)) {
      ReleaseMessage();
      service_->metrics_->Rejected("invalid_argument");
      End(NotAMessage<typename Session::Request>(
          absl::StrCat("message ", messages_, " of the stream"),
          request_bytes_.Length()));
      return;
    }
    request_bytes_.Clear();
    Compute(session_.ComputeInline(*call_->request), [this] {
      Process();
      Write();
    });
  }

  void OnWriteDone(bool ok) override {
    TakeOver(this);
    response_bytes_.Clear();
    ReleaseMessage();  // the answer is with the transport now
    if (!ok) {
      End(grpc::Status(grpc::StatusCode::CANCELLED, "stream write failed"));
      return;
    }
    service_->metrics_->MessageSent(Session::kMethod, kBidiStream);
    session_.AfterAnswer();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!aged_) {
        reading_ = true;
        Read();
        return;
      }
    }
    EndAged();  // between two messages: the last one read has its answer
  }

  void OnDone() override {
    TakeOver(this);
    age_timer_.Cancel();
    bool over;
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
      over = computing_ == 0;
    }
    // Now, not when the age timer lets the reactor go; or by the worker
    // still computing a message, once it is done with the session.
    if (over) LetGo();
    service_->metrics_->CallHandled(
        Session::kMethod, kBidiStream,
        context_->IsCancelled() ? grpc::StatusCode::CANCELLED : end_code_,
        absl::ToDoubleSeconds(absl::Now() - start_));
    HandOff(service_);  // the server's shutdown waits for OnDone to return
    Unref();
  }

 private:
  struct Call
      : ArenaCall<typename Session::Request, typename Session::Response> {};

  // The in-flight slot of the message in hand, held from its admission
  // until its answer is handed to the transport.
  bool AdmitMessage(grpc::Status* why) {
    return slot_.Take(request_bytes_.Length(), why);
  }
  void ReleaseMessage() { slot_.Release(); }

  // Runs `work` (which ends by writing the answer) right here when
  // `inline_ok` (CollisionServiceImpl::ComputesInline), else on the pool.
  template <typename Work>
  void Compute(bool inline_ok, Work work) {
    if (inline_ok) {
      work();
      return;
    }
    // Once this callback returns, gRPC may run OnDone (the age timer may
    // have ended the stream) while the worker still uses the reactor: the
    // worker holds a reference of its own.
    refs_.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++computing_;
    }
    service_->SubmitCompute(context_, [this, work] {
      work();
      bool over;
      {
        // A count, not a flag: once this worker has written, the next
        // message may already be on another worker.
        std::lock_guard<std::mutex> lock(mu_);
        over = --computing_ == 0 && done_;
      }
      if (over) LetGo();  // OnDone came while this message was computed
      Unref();
    });
  }

  // What an ended stream still holds: its session's state and the
  // in-flight slot of an answer that never left.
  void LetGo() {
    session_.Ended();
    ReleaseMessage();
  }

  // The reactor's three ways on; each hands it to the next callback.
  void Read() {
    HandOff(this);
    StartRead(&request_bytes_);
  }
  // `aged`: the stream ends at its maximum age, which its trailer says.
  void End(const grpc::Status& s, bool aged = false) {
    bool already;
    {
      std::lock_guard<std::mutex> lock(mu_);
      already = ended_;
      ended_ = true;
    }
    if (already) {
      // Ended elsewhere (the age timer): OnDone may now delete the reactor
      // on another thread; this thread has stopped touching it.
      HandOff(this);
      return;
    }
    end_code_ = s.error_code();
    // Here, once: the age timer and the last answer's write may both end an
    // aged stream, and a trailer added twice reaches the client twice.
    if (aged) context_->AddTrailingMetadata("collision-stream-end", "max-age");
    // Finish (gRPC's header code) still reads the reactor after OnDone may
    // already be able to run elsewhere. gRPC orders the two, but invisibly
    // to ThreadSanitizer; holding a reference across the call makes the
    // thread that deletes the reactor come after this one has returned,
    // visibly. Callers return right after End (it may delete the reactor).
    refs_.fetch_add(1);
    HandOff(this);
    Finish(s);
    Unref();
  }

  // The age timer fired (or was cancelled, `fired` false). An idle stream
  // (waiting for its next message) ends now; one with a message in hand
  // ends after answering it (OnWriteDone).
  void OnAged(bool fired) {
    TakeOver(this);
    bool idle = false;
    if (fired) {
      std::lock_guard<std::mutex> lock(mu_);
      aged_ = true;
      idle = reading_;
    }
    if (idle) EndAged();
    Unref();
  }

  void EndAged() {
    End(grpc::Status(
            grpc::StatusCode::UNAVAILABLE,
            absl::StrCat(
                "stream ended at its maximum age (",
                absl::FormatDuration(service_->options_.max_stream_age),
                ") so that clients move to fresh connections, between "
                "two messages: reopen the stream and resend the "
                "messages that have no answer")),
        /*aged=*/true);
  }

  void Unref() {
    HandOff(this);  // the last Unref deletes, maybe on the other thread
    if (refs_.fetch_sub(1) == 1) {
      TakeOver(this);
      delete this;
    }
  }

  // Encodes the response, frees the message's arena and sends the bytes
  // (unless the age timer ended the stream meanwhile: then the answer is
  // dropped, and the client resends the message on its new stream).
  void Write() {
    const grpc::Status s = SerializeMessage(*call_->response, &response_bytes_);
    call_.reset();
    if (!s.ok()) {
      End(s);
      return;
    }
    Send();
  }

  // Computes a message decoded from its bytes and sends the response it
  // encodes; an error (the call stopped) is answered like any other.
  void Serve(handlers::DecodedRequest& decoded) {
    std::string bytes;
    const grpc::Status s =
        ToGrpc(decoded.Serve(service_->MakeContext(context_), &bytes));
    if (!s.ok()) {
      SetError(s);
      Write();
      return;
    }
    call_.reset();
    response_bytes_ = BytesOf(std::move(bytes));
    Send();
  }

  // Sends response_bytes_.
  void Send() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!ended_) {
        service_->metrics_->StreamMessageHandled(
            Session::kMethod, message_code_,
            absl::ToDoubleSeconds(absl::Now() - message_start_));
        HandOff(this);
        StartWrite(&response_bytes_);
        return;
      }
    }
    // Ended meanwhile: OnDone may run on another thread once this thread
    // lets go, and reads what it wrote (the in-flight slot).
    HandOff(this);
  }

  void SetError(const grpc::Status& s) {
    message_code_ = s.error_code();
    typename Session::Response* response = call_->response;
    Session::ClearAnswer(response);
    ToStreamError(s, response->mutable_error());
    if (s.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      service_->metrics_->Rejected("invalid_argument");
    }
  }

  void Process() {
    const grpc::Status s =
        session_.Process(*call_->request, call_->response, context_);
    if (!s.ok()) SetError(s);
  }

  CollisionServiceImpl* const service_;
  grpc::CallbackServerContext* const context_;
  const absl::Time start_;
  Session session_;
  grpc::StatusCode end_code_ = grpc::StatusCode::OK;
  uint64_t messages_ = 0;  // read so far
  // The message in hand: when it was read, and its answer's status.
  absl::Time message_start_;
  grpc::StatusCode message_code_ = grpc::StatusCode::OK;
  grpc::ByteBuffer request_bytes_;
  grpc::ByteBuffer response_bytes_;
  std::unique_ptr<Call> call_;  // the message being handled
  // The in-flight slot of the message in hand.
  CollisionServiceImpl::Slot slot_{service_, context_};
  // The reactor is deleted when OnDone, the age timer and any worker
  // computing a message have all let go.
  std::atomic<int> refs_{1};
  grpc::Alarm age_timer_;
  std::mutex mu_;        // the age timer runs beside the reactor's callbacks
  bool reading_ = true;  // waiting for a message (none in hand)
  bool aged_ = false;
  bool ended_ = false;
  int computing_ = 0;  // workers with a message of this stream
  bool done_ = false;  // OnDone has run
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_STREAM_REACTOR_H_
