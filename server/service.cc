#include "server/service.h"

#include <chrono>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/handlers/columns.h"
#include "collision/wire/columns.h"
#include "collision/wire/wire_precheck.h"
#include "common/tsan_handoff.h"
#include "grpcpp/alarm.h"
#include "server/stream_reactor.h"
#include "server/transport/connection_gate.h"

namespace collision::server {
namespace {

constexpr char kUnary[] = "unary";

// How many items a request carries: the wire layer counts columns; the
// per-pair messages count themselves.
using wire::ItemCount;
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
    const bool share =
        mine >= PerConnectionShare() && now <= options_.max_in_flight;
    overload_log_.Note(backlog                        ? "answer_backlog"
                       : share                        ? "connection_share"
                       : now > options_.max_in_flight ? "in_flight"
                                                      : "in_flight_bytes",
                       connection);
    *why =
        backlog
            ? grpc::Status(
                  grpc::StatusCode::UNAVAILABLE,
                  absl::StrCat("server overloaded: ", pending_answers_.load(),
                               " answers wait for the transport; retry "
                               "after ",
                               options_.retry_pushback_ms, " ms"))
        : share ? grpc::Status(
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

namespace {

std::size_t MetadataBytes(grpc::CallbackServerContext* context) {
  std::size_t bytes = 0;
  for (const auto& [name, value] : context->client_metadata()) {
    bytes += name.size() + value.size() + 32;
  }
  return bytes;
}

}  // namespace

CollisionServiceImpl::Slot::Slot(CollisionServiceImpl* service,
                                 grpc::CallbackServerContext* context)
    : service_(service),
      connection_(PeerName(context->peer())),
      header_bytes_(MetadataBytes(context)) {
  service_->arrivals_.CallStarted(connection_, header_bytes_);
}

grpc::Status CollisionServiceImpl::CheckMetadata(std::size_t bytes) const {
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
    return wire::PrecheckRequestSize(in, wire::kRequestMessage<Request>,
                                     options_.limits);
  });
  return ToGrpc(s);  // counted by whoever answers it
}

grpc::Status CollisionServiceImpl::CheckCaller(
    grpc::CallbackServerContext* context, const Slot& slot) const {
  grpc::Status s = Authenticate(context);
  if (s.ok()) s = CheckMetadata(slot.header_bytes());
  return s;
}

grpc::Status CollisionServiceImpl::Authenticate(
    grpc::CallbackServerContext* context) const {
  if (options_.tokens == nullptr) return grpc::Status::OK;
  const auto& metadata = context->client_metadata();
  const auto it = metadata.find("authorization");
  if (it == metadata.end()) {
    return AuthenticateBearer(std::nullopt, PeerName(context->peer()));
  }
  return AuthenticateBearer(
      absl::string_view(it->second.data(), it->second.size()),
      PeerName(context->peer()));
}

grpc::Status CollisionServiceImpl::AuthenticateBearer(
    std::optional<absl::string_view> authorization,
    const std::string& peer) const {
  if (options_.tokens == nullptr) return grpc::Status::OK;
  if (!authorization.has_value() || authorization->empty()) {
    metrics_->Rejected("unauthenticated");
    auth_log_.Note("missing_token", peer);
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "missing bearer token: send the metadata "
                        "`authorization: Bearer <token>`");
  }
  if (!options_.tokens->Accepts(*authorization)) {
    metrics_->Rejected("unauthenticated");
    auth_log_.Note("invalid_token", peer);
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "invalid bearer token");
  }
  return grpc::Status::OK;
}

handlers::HandlerContext CollisionServiceImpl::MakeContext(
    grpc::CallbackServerContext* context) {
  handlers::HandlerContext c;
  c.limits = options_.limits;
  c.run = [this, context](
              std::size_t n,
              const std::function<void(std::size_t, std::size_t)>& body) {
    return pool_.ParallelFor(n, handlers::kChunk, body,
                             [context] { return Expired(context); });
  };
  c.stopped_status = [this, context] {
    return FromGrpc(Stopped(context, "; computation stopped"));
  };
  c.count_work = [this](const wire::KindCounts& counts) {
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
        start_(absl::Now()),
        slot_(service, context) {
    service_->metrics_->CallStarted(method_, kUnary);
  }

  // Takes the call's in-flight slot for `bytes` (see
  // CollisionServiceImpl::Admit); `*why` is the answer when shed.
  bool Admit(std::size_t bytes, grpc::Status* why) {
    return slot_.Take(bytes, why);
  }
  // The request reached the call (see ArrivalLedger).
  void Arrived(std::size_t bytes) { slot_.Arrived(bytes); }
  const CollisionServiceImpl::Slot& slot() const { return slot_; }

  // `counted`: the rejection was already counted under its own reason.
  // `answer_bytes`: the encoded answer's size. The slot is released here
  // (a late OnDone must not hold it); the answer counts as pending until
  // OnDone.
  void Answer(const grpc::Status& s, bool counted = false,
              std::size_t answer_bytes = 0) {
    slot_.Release();
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
  int64_t pending_bytes_ = 0;
  CollisionServiceImpl::Slot slot_;
};

namespace {

// The request's bytes (in one piece: copied only when gRPC received them in
// several slices), decoded by `decode` (collision/wire/pair_wire.h); nullptr
// when they are not in its plain encoding.
template <typename Decode>
std::shared_ptr<handlers::DecodedRequest> DecodeBytes(
    const grpc::ByteBuffer& bytes, Decode decode,
    const wire::RequestLimits& limits) {
  grpc::Slice slice;
  absl::string_view view;
  if (!ContiguousBytes(bytes, &slice, &view)) return nullptr;
  return decode(view, limits);
}

}  // namespace

void CollisionServiceImpl::ServeDecoded(
    grpc::CallbackServerContext* context,
    std::shared_ptr<handlers::DecodedRequest> decoded,
    grpc::ByteBuffer* response_bytes, UnaryCall* reactor) {
  if (Expired(context)) {
    reactor->Answer(Stopped(context, "while the request was parsed"));
    return;
  }
  auto compute = [this, context, decoded, response_bytes, reactor] {
    std::string bytes;
    const grpc::Status s = ToGrpc(decoded->Serve(MakeContext(context), &bytes));
    const std::size_t size = bytes.size();
    if (s.ok()) *response_bytes = BytesOf(std::move(bytes));
    reactor->Answer(s, /*counted=*/false, s.ok() ? size : 0);
  };
  if (ComputesInline(decoded->items())) {
    compute();
    return;
  }
  SubmitCompute(context, compute);
}

template <typename Request, typename Response, typename Handler,
          typename Decode>
grpc::ServerUnaryReactor* CollisionServiceImpl::Unary(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request_bytes,
    grpc::ByteBuffer* response_bytes, const char* method, Handler handler,
    Decode decode) {
  TakeOver(this);  // handed to gRPC's threads in CollisionServer::Start
  auto* reactor = new UnaryCall(this, context, method);
  if (request_bytes->Valid()) reactor->Arrived(request_bytes->Length());
  grpc::Status early = CheckCaller(context, reactor->slot());
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
  if constexpr (!std::is_same_v<Decode, std::nullptr_t>) {
    if (read.ok() && options_.decode_pairs_from_bytes) {
      std::shared_ptr<handlers::DecodedRequest> decoded =
          DecodeBytes(*request_bytes, decode, options_.limits);
      if (decoded != nullptr) {
        ServeDecoded(context, std::move(decoded), response_bytes, reactor);
        return reactor;
      }
    }
  }
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
        ToGrpc(handler(*call->request, call->response, MakeContext(context)));
    if (s.ok()) s = SerializeMessage(*call->response, response_bytes);
    delete call;
    reactor->Answer(s, /*counted=*/false,
                    s.ok() ? response_bytes->Length() : 0);
  };
  if (ComputesInline(ItemCount(*call->request))) {
    compute();
    return reactor;
  }
  SubmitCompute(context, compute);
  return reactor;
}

grpc::ServerUnaryReactor* CollisionServiceImpl::Intersect(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Unary<v1::IntersectRequest, v1::IntersectResponse>(
      context, request, response, "Intersect",
      [](const auto& q, auto* r, const handlers::HandlerContext& c) {
        return handlers::HandleIntersect(q, r, c);
      },
      &handlers::DecodeIntersect);
}

grpc::ServerUnaryReactor* CollisionServiceImpl::ClosestPoint(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Unary<v1::ClosestPointRequest, v1::ClosestPointResponse>(
      context, request, response, "ClosestPoint",
      [](const auto& q, auto* r, const handlers::HandlerContext& c) {
        return handlers::HandleClosestPoint(q, r, c);
      },
      &handlers::DecodeClosestPoint);
}

grpc::ServerUnaryReactor* CollisionServiceImpl::IntersectColumns(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Unary<v1::IntersectColumnsRequest, v1::IntersectColumnsResponse>(
      context, request, response, "IntersectColumns",
      [](const auto& q, auto* r, const handlers::HandlerContext& c) {
        return handlers::HandleIntersectColumns(q, r, c);
      });
}

grpc::ServerUnaryReactor* CollisionServiceImpl::ClosestPointColumns(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Unary<v1::ClosestPointColumnsRequest, v1::ClosestPointColumnsResponse>(
      context, request, response, "ClosestPointColumns",
      [](const auto& q, auto* r, const handlers::HandlerContext& c) {
        return handlers::HandleClosestPointColumns(q, r, c);
      });
}

// QueryStream: each message is one of the four pairwise requests.
struct QueryStreamSession {
  using Request = v1::QueryStreamRequest;
  using Response = v1::QueryStreamResponse;
  static constexpr char kMethod[] = "QueryStream";

  QueryStreamSession(CollisionServiceImpl* s, grpc::CallbackServerContext*)
      : service(s) {}

  grpc::Status Precheck(const grpc::ByteBuffer& bytes) {
    return service->Precheck<Request>(bytes);
  }

  bool ComputeInline(const Request& request) const {
    return service->ComputesInline(Items(request));
  }

  static std::size_t Items(const Request& request) {
    switch (request.query_case()) {
      case Request::kIntersect:
        return static_cast<std::size_t>(request.intersect().pairs_size());
      case Request::kClosestPoint:
        return static_cast<std::size_t>(request.closest_point().queries_size());
      case Request::kIntersectColumns:
        return ItemCount(request.intersect_columns());
      case Request::kClosestPointColumns:
        return ItemCount(request.closest_point_columns());
      default:
        return 0;
    }
  }

  grpc::Status Process(const Request& request, Response* response,
                       grpc::CallbackServerContext* context) {
    return ToGrpc(Handle(request, response, service->MakeContext(context)));
  }

  static absl::Status Handle(const Request& request, Response* response,
                             const handlers::HandlerContext& c) {
    switch (request.query_case()) {
      case Request::kIntersect:
        return handlers::HandleIntersect(request.intersect(),
                                         response->mutable_intersect(), c);
      case Request::kClosestPoint:
        return handlers::HandleClosestPoint(
            request.closest_point(), response->mutable_closest_point(), c);
      case Request::kIntersectColumns:
        return handlers::HandleIntersectColumns(
            request.intersect_columns(), response->mutable_intersect_columns(),
            c);
      case Request::kClosestPointColumns:
        return handlers::HandleClosestPointColumns(
            request.closest_point_columns(),
            response->mutable_closest_point_columns(), c);
      default:
        return absl::InvalidArgumentError(
            "query is required: set intersect, closest_point, "
            "intersect_columns or closest_point_columns");
    }
  }

  // A per-pair query decoded straight from the message's bytes
  // (collision/wire/pair_wire.h); nullptr: parse the message.
  std::shared_ptr<handlers::DecodedRequest> Decode(
      const grpc::ByteBuffer& bytes) const {
    if (!service->options().decode_pairs_from_bytes) return nullptr;
    return DecodeBytes(bytes, &handlers::DecodeQueryStreamMessage,
                       service->options().limits);
  }

  static void ClearAnswer(Response* response) { response->clear_answer(); }
  void AfterAnswer() {}
  void Ended() {}

  CollisionServiceImpl* const service;
};

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
CollisionServiceImpl::QueryStream(grpc::CallbackServerContext* context) {
  TakeOver(this);  // handed to gRPC's threads in CollisionServer::Start
  return new StreamReactor<QueryStreamSession>(this, context);
}

}  // namespace collision::server
