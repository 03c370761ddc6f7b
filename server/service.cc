#include "server/service.h"

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/tsan_handoff.h"

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

bool Expired(grpc::CallbackServerContext* context) {
  return context->IsCancelled() ||
         std::chrono::system_clock::now() > context->deadline();
}

}  // namespace

CollisionServiceImpl::CollisionServiceImpl(const ServiceOptions& options,
                                           Metrics* metrics)
    : options_(options), metrics_(metrics), pool_(options.worker_threads) {}

bool CollisionServiceImpl::Admit() {
  const int now = in_flight_.fetch_add(1) + 1;
  if (now > options_.max_in_flight) {
    in_flight_.fetch_sub(1);
    metrics_->Rejected("overloaded");
    return false;
  }
  metrics_->SetInFlight(now);
  return true;
}

void CollisionServiceImpl::Release() {
  metrics_->SetInFlight(in_flight_.fetch_sub(1) - 1);
}

grpc::Status CollisionServiceImpl::Overloaded() const {
  return grpc::Status(
      grpc::StatusCode::UNAVAILABLE,
      absl::StrCat("server overloaded: ", options_.max_in_flight,
                   " requests in flight; retry after ",
                   options_.retry_pushback_ms, " ms"));
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
    if (context->IsCancelled()) {
      metrics_->Rejected("cancelled");
      return grpc::Status(grpc::StatusCode::CANCELLED,
                          "call cancelled; computation stopped");
    }
    metrics_->Rejected("deadline");
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                        "deadline exceeded; computation stopped");
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

template <typename Request, typename Response, typename Handler>
grpc::ServerUnaryReactor* CollisionServiceImpl::Unary(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request_bytes,
    grpc::ByteBuffer* response_bytes, const char* method, Handler handler) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::Time start = absl::Now();
  metrics_->CallStarted(method, kUnary);
  metrics_->MessageReceived(method, kUnary);
  auto finish = [this, reactor, method, start](const grpc::Status& s) {
    if (s.ok()) metrics_->MessageSent(method, kUnary);
    if (s.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      metrics_->Rejected("invalid_argument");
    }
    metrics_->CallHandled(method, kUnary, s.error_code(),
                          absl::ToDoubleSeconds(absl::Now() - start));
    HandOff(this);  // the server's shutdown waits for this call to finish
    reactor->Finish(s);
  };
  if (grpc::Status auth = Authenticate(context); !auth.ok()) {
    finish(auth);
    return reactor;
  }
  // Admitted before parsing: under overload, excess requests cost no parse.
  if (!Admit()) {
    context->AddTrailingMetadata("grpc-retry-pushback-ms",
                                 std::to_string(options_.retry_pushback_ms));
    finish(Overloaded());
    return reactor;
  }
  auto* call = new ArenaCall<Request, Response>;
  if (!ParseMessage(*request_bytes, call->request)) {
    delete call;
    Release();
    finish(NotAMessage<Request>("request", request_bytes->Length()));
    return reactor;
  }
  // Computes, encodes the response, frees the call's arena, answers.
  auto compute = [this, context, call, response_bytes, handler, finish] {
    grpc::Status s =
        handler(*call->request, call->response, MakeContext(context));
    if (s.ok()) s = SerializeMessage(*call->response, response_bytes);
    delete call;
    Release();
    finish(s);
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

// One message at a time: read, compute on the pool, write, read the next.
// Responses therefore leave in request order. A rejected message gets a
// response with `error` and the stream goes on; a message that is not a
// QueryStreamRequest at all (its sequence unknowable) ends the stream with
// INVALID_ARGUMENT naming its position.
class QueryStreamReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  QueryStreamReactor(CollisionServiceImpl* service,
                     grpc::CallbackServerContext* context)
      : service_(service), context_(context), start_(absl::Now()) {
    service_->metrics_->CallStarted("QueryStream", kBidi);
    if (grpc::Status auth = service_->Authenticate(context); !auth.ok()) {
      End(auth);
      return;
    }
    Read();
  }

  void OnReadDone(bool ok) override {
    TakeOver(this);
    if (!ok) {  // the client half-closed, or the call is gone
      End(grpc::Status::OK);
      return;
    }
    ++messages_;
    service_->metrics_->MessageReceived("QueryStream", kBidi);
    request_.Clear();
    if (!ParseMessage(request_bytes_, &request_)) {
      service_->metrics_->Rejected("invalid_argument");
      End(NotAMessage<v1::QueryStreamRequest>(
          absl::StrCat("message ", messages_, " of the stream"),
          request_bytes_.Length()));
      return;
    }
    request_bytes_.Clear();
    response_.Clear();
    response_.set_sequence(request_.sequence());
    if (!service_->Admit()) {
      SetError(service_->Overloaded());
      Write();
      return;
    }
    if (!service_->options_.before_compute &&
        ItemCount() <= service_->options_.inline_max_items) {
      Process();
      service_->Release();
      Write();
      return;
    }
    service_->pool_.Submit([this] {
      if (service_->options_.before_compute) {
        service_->options_.before_compute(context_);
      }
      Process();
      service_->Release();
      Write();
    });
  }

  void OnWriteDone(bool ok) override {
    TakeOver(this);
    if (!ok) {
      End(grpc::Status(grpc::StatusCode::CANCELLED, "stream write failed"));
      return;
    }
    service_->metrics_->MessageSent("QueryStream", kBidi);
    Read();
  }

  void OnDone() override {
    TakeOver(this);
    service_->metrics_->CallHandled(
        "QueryStream", kBidi,
        context_->IsCancelled() ? grpc::StatusCode::CANCELLED : end_code_,
        absl::ToDoubleSeconds(absl::Now() - start_));
    HandOff(service_);  // the server's shutdown waits for OnDone to return
    delete this;
  }

 private:
  // The reactor's three ways on; each hands it to the next callback.
  void Read() {
    HandOff(this);
    StartRead(&request_bytes_);
  }
  void End(const grpc::Status& s) {
    end_code_ = s.error_code();
    HandOff(this);
    Finish(s);
  }

  // Encodes response_ and sends it.
  void Write() {
    const grpc::Status s = SerializeMessage(response_, &response_bytes_);
    if (!s.ok()) {
      End(s);
      return;
    }
    HandOff(this);
    StartWrite(&response_bytes_);
  }

  void SetError(const grpc::Status& s) {
    response_.clear_answer();
    response_.mutable_error()->set_code(static_cast<int>(s.error_code()));
    response_.mutable_error()->set_message(s.error_message());
    if (s.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      service_->metrics_->Rejected("invalid_argument");
    }
  }

  std::size_t ItemCount() const {
    switch (request_.query_case()) {
      case v1::QueryStreamRequest::kIntersect:
        return static_cast<std::size_t>(request_.intersect().pairs_size());
      case v1::QueryStreamRequest::kClosestPoint:
        return static_cast<std::size_t>(
            request_.closest_point().queries_size());
      case v1::QueryStreamRequest::kIntersectColumns:
        return server::ItemCount(request_.intersect_columns());
      case v1::QueryStreamRequest::kClosestPointColumns:
        return server::ItemCount(request_.closest_point_columns());
      default:
        return 0;
    }
  }

  void Process() {
    const HandlerContext c = service_->MakeContext(context_);
    grpc::Status s;
    switch (request_.query_case()) {
      case v1::QueryStreamRequest::kIntersect:
        s = HandleIntersect(request_.intersect(), response_.mutable_intersect(),
                            c);
        break;
      case v1::QueryStreamRequest::kClosestPoint:
        s = HandleClosestPoint(request_.closest_point(),
                               response_.mutable_closest_point(), c);
        break;
      case v1::QueryStreamRequest::kIntersectColumns:
        s = HandleIntersectColumns(request_.intersect_columns(),
                                   response_.mutable_intersect_columns(), c);
        break;
      case v1::QueryStreamRequest::kClosestPointColumns:
        s = HandleClosestPointColumns(request_.closest_point_columns(),
                                      response_.mutable_closest_point_columns(),
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
  v1::QueryStreamRequest request_;
  v1::QueryStreamResponse response_;
};

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
CollisionServiceImpl::QueryStream(grpc::CallbackServerContext* context) {
  return new QueryStreamReactor(this, context);
}

}  // namespace collision::server
