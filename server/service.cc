#include "server/service.h"

#include <chrono>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/tsan_handoff.h"
#include "grpcpp/alarm.h"
#include "server/wire_precheck.h"

namespace collision::server {
namespace {

constexpr char kUnary[] = "unary";
constexpr char kBidi[] = "bidi_stream";

std::size_t ItemCount(const v1::IntersectRequest& r) {
  return static_cast<std::size_t>(r.pairs_size());
}
std::size_t ItemCount(const v1::ClosestPointRequest& r) {
  return static_cast<std::size_t>(r.queries_size());
}

bool PastDeadline(grpc::CallbackServerContext* context) {
  return std::chrono::system_clock::now() > context->deadline();
}

bool Expired(grpc::CallbackServerContext* context) {
  return context->IsCancelled() || PastDeadline(context);
}

}  // namespace

CollisionServiceImpl::CollisionServiceImpl(const ServiceOptions& options,
                                           Metrics* metrics)
    : options_(options), metrics_(metrics), pool_(options.worker_threads) {}

int CollisionServiceImpl::PerConnectionShare() const {
  return options_.max_in_flight_per_connection > 0
             ? options_.max_in_flight_per_connection
             : options_.max_in_flight + 1;  // off
}

bool CollisionServiceImpl::Admit(std::size_t bytes,
                                 const std::string& connection,
                                 grpc::Status* why) {
  const int now = in_flight_.fetch_add(1) + 1;
  const int64_t size = static_cast<int64_t>(bytes);
  const int64_t held = in_flight_bytes_.fetch_add(size);
  // Over the byte budget only counts when something else holds bytes: a
  // lone request always fits (the receive limit bounds it).
  const bool backlog =
      pending_answers_.load() > 4 * options_.max_in_flight ||
      pending_answer_bytes_.load() > options_.max_in_flight_bytes;
  bool admitted = now <= options_.max_in_flight && !backlog &&
                  (held == 0 || held + size <= options_.max_in_flight_bytes);
  int mine = 0;
  if (admitted) {
    std::lock_guard<std::mutex> lock(connections_mu_);
    mine = connection_slots_[connection];
    if (2 * now > options_.max_in_flight && mine >= PerConnectionShare()) {
      admitted = false;
    } else {
      connection_slots_[connection] = mine + 1;
    }
    if (!admitted && mine == 0) connection_slots_.erase(connection);
  }
  if (!admitted) {
    in_flight_bytes_.fetch_sub(size);
    in_flight_.fetch_sub(1);
    metrics_->Rejected("overloaded");
    *why =
        backlog
            ? grpc::Status(
                  grpc::StatusCode::UNAVAILABLE,
                  absl::StrCat("server overloaded: ", pending_answers_.load(),
                               " answers wait for the transport; retry "
                               "after ",
                               options_.retry_pushback_ms, " ms"))
        : mine >= PerConnectionShare() && now <= options_.max_in_flight
            ? grpc::Status(
                  grpc::StatusCode::UNAVAILABLE,
                  absl::StrCat("server overloaded: this connection holds ",
                               mine, " of the ", options_.max_in_flight,
                               " requests in flight (answers not yet "
                               "read count); retry after ",
                               options_.retry_pushback_ms, " ms"))
            : Overloaded();
    return false;
  }
  metrics_->SetInFlight(now);
  return true;
}

void CollisionServiceImpl::Release(std::size_t bytes,
                                   const std::string& connection) {
  {
    std::lock_guard<std::mutex> lock(connections_mu_);
    auto it = connection_slots_.find(connection);
    if (it != connection_slots_.end() && --it->second <= 0) {
      connection_slots_.erase(it);
    }
  }
  in_flight_bytes_.fetch_sub(static_cast<int64_t>(bytes));
  metrics_->SetInFlight(in_flight_.fetch_sub(1) - 1);
}

grpc::Status CollisionServiceImpl::CheckMetadata(
    grpc::CallbackServerContext* context) const {
  // HPACK's accounting (RFC 7541 4.1): name + value + 32 per entry.
  std::size_t bytes = 0;
  for (const auto& [name, value] : context->client_metadata()) {
    bytes += name.size() + value.size() + 32;
  }
  if (bytes <= static_cast<std::size_t>(options_.max_metadata_bytes)) {
    return grpc::Status::OK;
  }
  metrics_->Rejected("metadata_too_large");
  return grpc::Status(
      grpc::StatusCode::RESOURCE_EXHAUSTED,
      absl::StrCat("request metadata is ", bytes,
                   " bytes (names + values + 32 per entry), over this "
                   "server's limit of ",
                   options_.max_metadata_bytes, " bytes"));
}

bool CollisionServiceImpl::WaitUntilIdle(absl::Duration timeout) const {
  const absl::Time until = absl::Now() + timeout;
  while (in_flight_.load() != 0 || pending_answers_.load() != 0) {
    if (absl::Now() > until) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

grpc::Status CollisionServiceImpl::Overloaded() const {
  return grpc::Status(
      grpc::StatusCode::UNAVAILABLE,
      absl::StrCat("server overloaded: ", options_.max_in_flight,
                   " requests in flight; retry after ",
                   options_.retry_pushback_ms, " ms"));
}

grpc::Status CollisionServiceImpl::Stopped(grpc::CallbackServerContext* context,
                                           const char* when) const {
  // An expired deadline also marks the call cancelled: look at it first.
  if (PastDeadline(context)) {
    metrics_->Rejected("deadline");
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                        absl::StrCat("deadline exceeded ", when));
  }
  metrics_->Rejected("cancelled");
  return grpc::Status(grpc::StatusCode::CANCELLED,
                      absl::StrCat("call cancelled ", when));
}

template <typename Request>
grpc::Status CollisionServiceImpl::Precheck(
    const grpc::ByteBuffer& bytes) const {
  const absl::Status s = ReadBytes(bytes, [this](auto* in) {
    return PrecheckRequestSize(in, kRequestMessage<Request>, options_.limits);
  });
  return ToGrpc(s);  // counted by whoever answers it
}

grpc::Status CollisionServiceImpl::Authenticate(
    grpc::CallbackServerContext* context) const {
  if (options_.tokens == nullptr) return grpc::Status::OK;
  const auto& metadata = context->client_metadata();
  const auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    metrics_->Rejected("unauthenticated");
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "missing bearer token: send the metadata "
                        "`authorization: Bearer <token>`");
  }
  if (!options_.tokens->Accepts(
          absl::string_view(it->second.data(), it->second.size()))) {
    metrics_->Rejected("unauthenticated");
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "invalid bearer token");
  }
  return grpc::Status::OK;
}

HandlerContext CollisionServiceImpl::MakeContext(
    grpc::CallbackServerContext* context) {
  HandlerContext c;
  c.limits = options_.limits;
  c.run = [this, context](
              std::size_t n,
              const std::function<void(std::size_t, std::size_t)>& body) {
    return pool_.ParallelFor(n, kChunk, body,
                             [context] { return Expired(context); });
  };
  c.stopped_status = [this, context] {
    return Stopped(context, "; computation stopped");
  };
  c.count_work = [this](const KindCounts& counts) {
    for (int k = 0; k < kWorkKinds; ++k) {
      if (counts[k] > 0) {
        metrics_->PairsProcessed(WorkKindName(static_cast<WorkKind>(k)),
                                 counts[k]);
      }
    }
  };
  return c;
}

// One unary call. Its in-flight slot is released when its answer is handed
// to gRPC; the answer then counts as pending until OnDone (the transport has
// taken it). Pending answers are bounded too (see Admit): a backlog inside
// gRPC, or callers that do not read, get new requests shed. (Holding the
// slot itself until OnDone made sequential callers look like a pile-up
// whenever gRPC ran OnDone late, as it does under ThreadSanitizer.)
class UnaryCall final : public grpc::ServerUnaryReactor {
 public:
  UnaryCall(CollisionServiceImpl* service, grpc::CallbackServerContext* context,
            const char* method)
      : service_(service),
        context_(context),
        method_(method),
        start_(absl::Now()) {
    service_->metrics_->CallStarted(method_, kUnary);
  }

  // Takes an in-flight slot for `bytes` (see CollisionServiceImpl::Admit);
  // `*why` is the answer when shed.
  bool Admit(std::size_t bytes, grpc::Status* why) {
    connection_ = context_->peer();
    admitted_ = service_->Admit(bytes, connection_, why);
    if (admitted_) bytes_ = bytes;
    return admitted_;
  }

  // `counted`: the rejection was already counted under its own reason.
  // `answer_bytes`: the encoded answer's size. The slot is released here
  // (a late OnDone must not hold it); the answer counts as pending until
  // OnDone.
  void Answer(const grpc::Status& s, bool counted = false,
              std::size_t answer_bytes = 0) {
    if (admitted_) {
      admitted_ = false;
      service_->Release(bytes_, connection_);
    }
    pending_bytes_ = static_cast<int64_t>(answer_bytes);
    ++service_->pending_answers_;
    service_->pending_answer_bytes_ += pending_bytes_;
    code_ = s.error_code();
    if (s.ok()) service_->metrics_->MessageSent(method_, kUnary);
    if (code_ == grpc::StatusCode::INVALID_ARGUMENT && !counted) {
      service_->metrics_->Rejected("invalid_argument");
    }
    HandOff(this);
    Finish(s);
  }

  // The call ended without a request message. A client that cancels (or
  // whose deadline passes) during the upload looks the same at first: which
  // it was is known in OnDone, where it is counted.
  void AnswerNoMessage() {
    ++service_->pending_answers_;
    no_message_ = true;
    code_ = grpc::StatusCode::INVALID_ARGUMENT;
    HandOff(this);
    Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "the call ended without a request message (a unary "
                        "call carries exactly one)"));
  }

  void OnDone() override {
    TakeOver(this);
    --service_->pending_answers_;
    service_->pending_answer_bytes_ -= pending_bytes_;
    if (context_->IsCancelled()) {
      // Whatever the answer was, the caller never got it.
      if (no_message_) {
        code_ = service_->Stopped(context_, "").error_code();
      } else {
        code_ = PastDeadline(context_) ? grpc::StatusCode::DEADLINE_EXCEEDED
                                       : grpc::StatusCode::CANCELLED;
      }
    } else if (no_message_) {
      service_->metrics_->Rejected("no_message");
    }
    service_->metrics_->CallHandled(
        method_, kUnary, code_, absl::ToDoubleSeconds(absl::Now() - start_));
    HandOff(service_);  // the server's shutdown waits for OnDone to return
    delete this;
  }

 private:
  CollisionServiceImpl* const service_;
  grpc::CallbackServerContext* const context_;
  const char* const method_;
  const absl::Time start_;
  grpc::StatusCode code_ = grpc::StatusCode::OK;
  bool no_message_ = false;
  bool admitted_ = false;
  int64_t pending_bytes_ = 0;
  std::string connection_;
  std::size_t bytes_ = 0;
};

template <typename Request, typename Response, typename Handler>
grpc::ServerUnaryReactor* CollisionServiceImpl::Unary(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request_bytes,
    grpc::ByteBuffer* response_bytes, const char* method, Handler handler) {
  auto* reactor = new UnaryCall(this, context, method);
  grpc::Status early = Authenticate(context);
  if (early.ok()) early = CheckMetadata(context);
  // gRPC runs the handler also when the call ended before its message
  // arrived (cancelled or expired during the upload, or half-closed with
  // none): those are not invalid requests.
  if (early.ok() && Expired(context)) {
    early = Stopped(context, "before the request was read");
  } else if (early.ok() && !request_bytes->Valid()) {
    reactor->AnswerNoMessage();
    return reactor;
  }
  if (!early.ok()) {
    reactor->Answer(early, /*counted=*/true);
    return reactor;
  }
  metrics_->MessageReceived(method, kUnary);
  // Admitted before parsing: under overload, excess requests cost no parse,
  // and parsing counts against the in-flight limits.
  if (grpc::Status shed; !reactor->Admit(request_bytes->Length(), &shed)) {
    context->AddTrailingMetadata("grpc-retry-pushback-ms",
                                 std::to_string(options_.retry_pushback_ms));
    reactor->Answer(shed);
    return reactor;
  }
  grpc::Status read = Precheck<Request>(*request_bytes);
  auto* call = new ArenaCall<Request, Response>;
  if (read.ok() && !ParseMessage(*request_bytes, call->request)) {
    read = NotAMessage<Request>("request", request_bytes->Length());
  }
  if (read.ok() && Expired(context)) {
    read = Stopped(context, "while the request was parsed");
  }
  if (!read.ok()) {
    delete call;
    reactor->Answer(read);
    return reactor;
  }
  // Computes, encodes the response, frees the call's arena, answers.
  auto compute = [this, context, call, response_bytes, handler, reactor] {
    grpc::Status s =
        handler(*call->request, call->response, MakeContext(context));
    if (s.ok()) s = SerializeMessage(*call->response, response_bytes);
    delete call;
    reactor->Answer(s, /*counted=*/false,
                    s.ok() ? response_bytes->Length() : 0);
  };
  if (!options_.before_compute &&
      ItemCount(*call->request) <= options_.inline_max_items) {
    compute();
    return reactor;
  }
  pool_.Submit([this, context, compute] {
    if (options_.before_compute) options_.before_compute(context);
    compute();
  });
  return reactor;
}

grpc::ServerUnaryReactor* CollisionServiceImpl::Intersect(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Unary<v1::IntersectRequest, v1::IntersectResponse>(
      context, request, response, "Intersect",
      [](const auto& q, auto* r, const HandlerContext& c) {
        return HandleIntersect(q, r, c);
      });
}

grpc::ServerUnaryReactor* CollisionServiceImpl::ClosestPoint(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Unary<v1::ClosestPointRequest, v1::ClosestPointResponse>(
      context, request, response, "ClosestPoint",
      [](const auto& q, auto* r, const HandlerContext& c) {
        return HandleClosestPoint(q, r, c);
      });
}

grpc::ServerUnaryReactor* CollisionServiceImpl::IntersectColumns(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Unary<v1::IntersectColumnsRequest, v1::IntersectColumnsResponse>(
      context, request, response, "IntersectColumns",
      [](const auto& q, auto* r, const HandlerContext& c) {
        return HandleIntersectColumns(q, r, c);
      });
}

grpc::ServerUnaryReactor* CollisionServiceImpl::ClosestPointColumns(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Unary<v1::ClosestPointColumnsRequest, v1::ClosestPointColumnsResponse>(
      context, request, response, "ClosestPointColumns",
      [](const auto& q, auto* r, const HandlerContext& c) {
        return HandleClosestPointColumns(q, r, c);
      });
}

// One message at a time: read, compute (inline or on the pool), write, read
// the next. Responses therefore leave in request order. A rejected message
// gets a response with `error` and the stream goes on; a message that is not
// a QueryStreamRequest at all ends the stream with INVALID_ARGUMENT naming
// its position. Each message's request and response live on an arena of
// their own, freed once the answer is encoded: a large message does not
// stay in memory for the rest of the stream.
//
// Past max_stream_age the stream is ended at a message boundary (see
// ServiceOptions); a timer ends an idle one.
class QueryStreamReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  QueryStreamReactor(CollisionServiceImpl* service,
                     grpc::CallbackServerContext* context)
      : service_(service), context_(context), start_(absl::Now()) {
    service_->metrics_->CallStarted("QueryStream", kBidi);
    grpc::Status early = service_->Authenticate(context);
    if (early.ok()) early = service_->CheckMetadata(context);
    if (!early.ok()) {
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
      End(grpc::Status::OK);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      reading_ = false;
    }
    ++messages_;
    service_->metrics_->MessageReceived("QueryStream", kBidi);
    call_ = std::make_unique<Call>();
    // The sequence is read off the bytes so that even a message shed
    // before parsing is answered under its own sequence.
    call_->response->set_sequence(ReadBytes(
        request_bytes_, [](auto* in) { return PeekStreamSequence(in); }));
    if (grpc::Status shed; !AdmitMessage(&shed)) {
      request_bytes_.Clear();
      SetError(shed);
      Write();
      return;
    }
    if (grpc::Status s =
            service_->Precheck<v1::QueryStreamRequest>(request_bytes_);
        !s.ok()) {
      request_bytes_.Clear();
      SetError(s);
      Write();
      return;
    }
    if (!ParseMessage(request_bytes_, call_->request)) {
      ReleaseMessage();
      service_->metrics_->Rejected("invalid_argument");
      End(NotAMessage<v1::QueryStreamRequest>(
          absl::StrCat("message ", messages_, " of the stream"),
          request_bytes_.Length()));
      return;
    }
    request_bytes_.Clear();
    if (!service_->options_.before_compute &&
        ItemCount() <= service_->options_.inline_max_items) {
      Process();
      Write();
      return;
    }
    service_->pool_.Submit([this] {
      if (service_->options_.before_compute) {
        service_->options_.before_compute(context_);
      }
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
    service_->metrics_->MessageSent("QueryStream", kBidi);
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
    ReleaseMessage();  // a write that never completed
    service_->metrics_->CallHandled(
        "QueryStream", kBidi,
        context_->IsCancelled() ? grpc::StatusCode::CANCELLED : end_code_,
        absl::ToDoubleSeconds(absl::Now() - start_));
    HandOff(service_);  // the server's shutdown waits for OnDone to return
    Unref();
  }

 private:
  struct Call : ArenaCall<v1::QueryStreamRequest, v1::QueryStreamResponse> {};

  // The in-flight slot of the message in hand, held from its admission
  // until its answer is handed to the transport.
  bool AdmitMessage(grpc::Status* why) {
    held_bytes_ = request_bytes_.Length();
    admitted_ = service_->Admit(held_bytes_, connection_, why);
    return admitted_;
  }
  void ReleaseMessage() {
    if (!admitted_) return;
    admitted_ = false;
    service_->Release(held_bytes_, connection_);
  }

  // The reactor's three ways on; each hands it to the next callback.
  void Read() {
    HandOff(this);
    StartRead(&request_bytes_);
  }
  void End(const grpc::Status& s) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (ended_) return;
      ended_ = true;
    }
    end_code_ = s.error_code();
    HandOff(this);
    Finish(s);
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
    context_->AddTrailingMetadata("collision-stream-end", "max-age");
    End(grpc::Status(
        grpc::StatusCode::UNAVAILABLE,
        absl::StrCat("stream ended at its maximum age (",
                     absl::FormatDuration(service_->options_.max_stream_age),
                     ") so that clients move to fresh connections, between "
                     "two messages: reopen the stream and resend the "
                     "messages that have no answer")));
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
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_) return;
    HandOff(this);
    StartWrite(&response_bytes_);
  }

  void SetError(const grpc::Status& s) {
    v1::QueryStreamResponse* response = call_->response;
    response->clear_answer();
    response->mutable_error()->set_code(static_cast<int>(s.error_code()));
    response->mutable_error()->set_message(s.error_message());
    if (s.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      service_->metrics_->Rejected("invalid_argument");
    }
  }

  std::size_t ItemCount() const {
    const v1::QueryStreamRequest& request = *call_->request;
    switch (request.query_case()) {
      case v1::QueryStreamRequest::kIntersect:
        return static_cast<std::size_t>(request.intersect().pairs_size());
      case v1::QueryStreamRequest::kClosestPoint:
        return static_cast<std::size_t>(request.closest_point().queries_size());
      case v1::QueryStreamRequest::kIntersectColumns:
        return server::ItemCount(request.intersect_columns());
      case v1::QueryStreamRequest::kClosestPointColumns:
        return server::ItemCount(request.closest_point_columns());
      default:
        return 0;
    }
  }

  void Process() {
    const HandlerContext c = service_->MakeContext(context_);
    const v1::QueryStreamRequest& request = *call_->request;
    v1::QueryStreamResponse* response = call_->response;
    grpc::Status s;
    switch (request.query_case()) {
      case v1::QueryStreamRequest::kIntersect:
        s = HandleIntersect(request.intersect(), response->mutable_intersect(),
                            c);
        break;
      case v1::QueryStreamRequest::kClosestPoint:
        s = HandleClosestPoint(request.closest_point(),
                               response->mutable_closest_point(), c);
        break;
      case v1::QueryStreamRequest::kIntersectColumns:
        s = HandleIntersectColumns(request.intersect_columns(),
                                   response->mutable_intersect_columns(), c);
        break;
      case v1::QueryStreamRequest::kClosestPointColumns:
        s = HandleClosestPointColumns(request.closest_point_columns(),
                                      response->mutable_closest_point_columns(),
                                      c);
        break;
      default:
        s = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                         "query is required: set intersect, closest_point, "
                         "intersect_columns or closest_point_columns");
    }
    if (!s.ok()) SetError(s);
  }

  CollisionServiceImpl* const service_;
  grpc::CallbackServerContext* const context_;
  const absl::Time start_;
  grpc::StatusCode end_code_ = grpc::StatusCode::OK;
  uint64_t messages_ = 0;  // read so far
  grpc::ByteBuffer request_bytes_;
  grpc::ByteBuffer response_bytes_;
  std::unique_ptr<Call> call_;  // the message being handled
  bool admitted_ = false;       // holds an in-flight slot
  std::size_t held_bytes_ = 0;
  const std::string connection_ = context_->peer();
  // The reactor is deleted when OnDone and the age timer have both run.
  std::atomic<int> refs_{1};
  grpc::Alarm age_timer_;
  std::mutex mu_;        // the age timer runs beside the reactor's callbacks
  bool reading_ = true;  // waiting for a message (none in hand)
  bool aged_ = false;
  bool ended_ = false;
};

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
CollisionServiceImpl::QueryStream(grpc::CallbackServerContext* context) {
  return new QueryStreamReactor(this, context);
}

}  // namespace collision::server
