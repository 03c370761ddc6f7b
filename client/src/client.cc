#include "collision/client/client.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <type_traits>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "common/tsan_handoff.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace collision::client {
namespace {

constexpr char kPushbackTrailer[] = "grpc-retry-pushback-ms";

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": cannot read \"", path, "\": ", std::strerror(errno)));
  }
  std::ostringstream s;
  s << in.rdbuf();
  if (s.str().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": \"", path, "\" is empty"));
  }
  return s.str();
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> Credentials(
    const TlsOptions& tls) {
  if (!tls.enabled) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  if (!tls.root_ca_file.empty()) {
    absl::StatusOr<std::string> ca =
        ReadFile(tls.root_ca_file, "tls.root_ca_file");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *std::move(ca);
  }
  if (tls.cert_chain_file.empty() != tls.private_key_file.empty()) {
    return absl::InvalidArgumentError(
        "tls.cert_chain_file and tls.private_key_file go together");
  }
  if (!tls.cert_chain_file.empty()) {
    absl::StatusOr<std::string> cert =
        ReadFile(tls.cert_chain_file, "tls.cert_chain_file");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key =
        ReadFile(tls.private_key_file, "tls.private_key_file");
    if (!key.ok()) return key.status();
    ssl.pem_cert_chain = *std::move(cert);
    ssl.pem_private_key = *std::move(key);
  }
  return grpc::SslCredentials(ssl);
}

absl::Status CheckMetadata(const std::string& key, const std::string& value) {
  const bool key_ok =
      !key.empty() &&
      key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_.") ==
          std::string::npos;
  if (!key_ok || absl::StartsWith(key, "grpc-") || key == "authorization") {
    return absl::InvalidArgumentError(absl::StrCat(
        "metadata key \"", key,
        "\" must be lowercase letters, digits, '-', '_' or '.', not "
        "grpc-* nor authorization (use bearer_token)"));
  }
  for (const char c : value) {
    if (c < 0x20 || c > 0x7e) {
      return absl::InvalidArgumentError(absl::StrCat(
          "metadata value of \"", key, "\" must be printable ASCII"));
    }
  }
  return absl::OkStatus();
}

std::string Seconds(absl::Duration d) {
  return absl::StrFormat("%.6fs", absl::ToDoubleSeconds(d));
}

}  // namespace

absl::Status StatusFromCall(const grpc::Status& s,
                            const grpc::ClientContext& context) {
  if (s.ok()) return absl::OkStatus();
  absl::Status out(static_cast<absl::StatusCode>(s.error_code()),
                   s.error_message());
  AttachFieldViolations(s.error_details(), &out);
  const auto& trailers = context.GetServerTrailingMetadata();
  auto it = trailers.find(kPushbackTrailer);
  if (it != trailers.end()) {
    out.SetPayload(
        kPushbackPayloadUrl,
        absl::Cord(std::string(it->second.data(), it->second.size())));
  }
  return out;
}

// Callback calls in flight. The Client's destructor waits until none is
// left, because each call's ClientContext holds a reference to the channel:
// were the last one dropped on the gRPC thread that ran the callback, the
// channel's destructor would join that very thread (gRPC 1.51's shared
// callback queue) and free the queue under its other threads, which crashed
// collision_load at exit in about 1 of 30 runs.
struct PendingCalls {
  // std::mutex, not absl::Mutex: Debian's absl is not built for
  // ThreadSanitizer, so its locks would hide the ordering from it.
  std::mutex mu;
  std::condition_variable none_left;
  int64_t count = 0;  // guarded by mu
};

// Detaches a finished call's context from its cancellation, if any.
struct CancellationAccess {
  static void Detach(Cancellation* cancellation, grpc::ClientContext* context) {
    if (cancellation != nullptr) cancellation->Detach(context);
  }
};

namespace {

// One callback call: owns everything gRPC needs until it completes.
template <typename Request, typename Response>
struct AsyncCall {
  grpc::ClientContext context;
  std::shared_ptr<const Request> request;
  Response response;
  Callback<Response> done;
  std::shared_ptr<Cancellation> cancellation;
};

// The status of a batch (columns batches record the pairs they left out);
// other batches are always fine.
template <typename Batch>
absl::Status BatchStatus(const Batch& batch) {
  if constexpr (std::is_same_v<Batch, IntersectColumnsBatch> ||
                std::is_same_v<Batch, ClosestPointColumnsBatch>) {
    return batch.status();
  } else {
    (void)batch;
    return absl::OkStatus();
  }
}

template <typename Request, typename Response, typename Start,
          typename PrepareFn>
void StartAsync(std::shared_ptr<PendingCalls> pending,
                std::shared_ptr<const Request> request, Callback<Response> done,
                const CallOptions& options, Start start, PrepareFn prepare) {
  auto* call = new AsyncCall<Request, Response>;
  if (absl::Status s = prepare(&call->context, options); !s.ok()) {
    delete call;
    done(s);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(pending->mu);
    ++pending->count;
  }
  call->request = std::move(request);
  call->done = std::move(done);
  call->cancellation = options.cancellation;
  grpc::ClientContext* context = &call->context;
  const Request* request_ptr = call->request.get();
  Response* response = &call->response;
  HandOff(call);  // to the gRPC thread that completes the call
  start(context, request_ptr, response,
        [call, pending = std::move(pending)](grpc::Status s) {
          TakeOver(call);
          {
            std::unique_ptr<AsyncCall<Request, Response>> owned(call);
            CancellationAccess::Detach(owned->cancellation.get(),
                                       &owned->context);
            if (s.ok()) {
              owned->done(std::move(owned->response));
            } else {
              owned->done(StatusFromCall(s, owned->context));
            }
          }  // the context and its channel reference are gone
          std::lock_guard<std::mutex> lock(pending->mu);
          if (--pending->count == 0) pending->none_left.notify_all();
        });
}

template <typename Response, typename Request, typename AsyncFn>
std::future<absl::StatusOr<Response>> AsFuture(Request request, AsyncFn async) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<Response>>>();
  std::future<absl::StatusOr<Response>> future = promise->get_future();
  async(std::make_shared<const Request>(std::move(request)),
        [promise](absl::StatusOr<Response> r) {
          promise->set_value(std::move(r));
        });
  return future;
}

}  // namespace

std::optional<absl::Duration> RetryPushback(const absl::Status& status) {
  auto payload = status.GetPayload(kPushbackPayloadUrl);
  if (!payload.has_value()) return std::nullopt;
  int64_t ms = 0;
  if (!absl::SimpleAtoi(std::string(*payload), &ms) || ms < 0) {
    return std::nullopt;
  }
  return absl::Milliseconds(ms);
}

std::string ServiceConfigJson(const ClientOptions& options) {
  std::string json = "{";
  if (!options.load_balancing_policy.empty()) {
    absl::StrAppend(&json, R"("loadBalancingConfig":[{")",
                    options.load_balancing_policy, R"(":{}}])");
  }
  const RetryOptions& r = options.retry;
  if (r.enabled) {
    if (json.size() > 1) json += ",";
    absl::StrAppend(
        &json,
        R"("methodConfig":[{"name":[{"service":"collision.v1.CollisionService"}],)",
        R"("retryPolicy":{"maxAttempts":)", r.max_attempts,
        R"(,"initialBackoff":")", Seconds(r.initial_backoff),
        R"(","maxBackoff":")", Seconds(r.max_backoff),
        R"(","backoffMultiplier":)", r.backoff_multiplier,
        R"(,"retryableStatusCodes":["UNAVAILABLE"]}}],)",
        R"("retryThrottling":{"maxTokens":)", r.max_tokens, R"(,"tokenRatio":)",
        absl::StrFormat("%.3f", r.token_ratio), "}");
  }
  if (!options.health_check_service.empty()) {
    if (json.size() > 1) json += ",";
    absl::StrAppend(&json, R"("healthCheckConfig":{"serviceName":")",
                    options.health_check_service, R"("})");
  }
  return json + "}";
}

Client::Client(std::shared_ptr<grpc::Channel> channel,
               const ClientOptions& options)
    : options_(options),
      channel_(std::move(channel)),
      stub_(v1::CollisionService::NewStub(channel_)),
      health_(grpc::health::v1::Health::NewStub(channel_)),
      pending_(std::make_shared<PendingCalls>()) {}

Client::~Client() {
  std::unique_lock<std::mutex> lock(pending_->mu);
  pending_->none_left.wait(lock, [this] { return pending_->count == 0; });
}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(
    const std::string& target, const ClientOptions& options) {
  if (target.empty()) return absl::InvalidArgumentError("target is empty");
  if (options.timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("timeout must be > 0");
  }
  if (options.stream_timeout <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("stream_timeout must be > 0");
  }
  const RetryOptions& r = options.retry;
  if (r.enabled &&
      (r.max_attempts < 2 || r.initial_backoff <= absl::ZeroDuration() ||
       r.max_backoff < r.initial_backoff || r.backoff_multiplier <= 0 ||
       r.max_tokens <= 0 || r.token_ratio <= 0)) {
    return absl::InvalidArgumentError(
        "retry: need max_attempts >= 2, 0 < initial_backoff <= max_backoff, "
        "backoff_multiplier > 0, max_tokens > 0 and token_ratio > 0");
  }
  if (options.health_check_service.find_first_of("\"\\") != std::string::npos) {
    return absl::InvalidArgumentError(
        "health_check_service has a quote or backslash");
  }
  if (options.bearer_token.find_first_of("\r\n") != std::string::npos) {
    return absl::InvalidArgumentError("bearer_token has a line break");
  }
  for (const auto& [key, value] : options.metadata) {
    if (absl::Status s = CheckMetadata(key, value); !s.ok()) return s;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      Credentials(options.tls);
  if (!credentials.ok()) return credentials.status();

  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  args.SetServiceConfigJSON(ServiceConfigJson(options));
  if (options.tls.enabled && !options.tls.server_name_override.empty()) {
    args.SetSslTargetNameOverride(options.tls.server_name_override);
  }
  if (options.own_connection)
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(target, *credentials, args);
  if (channel == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot create a channel to ", target));
  }
  return std::unique_ptr<Client>(new Client(std::move(channel), options));
}

void Client::Prepare(grpc::ClientContext* context,
                     absl::Duration timeout) const {
  if (timeout != absl::InfiniteDuration()) {
    context->set_deadline(std::chrono::system_clock::now() +
                          absl::ToChronoMicroseconds(timeout));
  }
  if (!options_.bearer_token.empty()) {
    context->AddMetadata("authorization",
                         absl::StrCat("Bearer ", options_.bearer_token));
  }
  for (const auto& [key, value] : options_.metadata) {
    context->AddMetadata(key, value);
  }
}

void Cancellation::Cancel() {
  // Under the lock, so that no call detaches (and frees its context)
  // meanwhile. TryCancel never runs a call's callback on this thread: gRPC
  // runs application callbacks on its own threads, or after the callback
  // this thread may be in has returned.
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_ = true;
  for (grpc::ClientContext* context : live_) context->TryCancel();
}

bool Cancellation::cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cancelled_;
}

bool Cancellation::Attach(grpc::ClientContext* context) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_) return false;
  live_.push_back(context);
  return true;
}

void Cancellation::Detach(grpc::ClientContext* context) {
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase(std::remove(live_.begin(), live_.end(), context), live_.end());
}

absl::Status Client::PrepareCall(grpc::ClientContext* context,
                                 const CallOptions& call) const {
  if (call.timeout < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("CallOptions.timeout must be >= 0");
  }
  for (const auto& [key, value] : call.metadata) {
    if (absl::Status s = CheckMetadata(key, value); !s.ok()) return s;
  }
  Prepare(context, call.timeout == absl::ZeroDuration() ? options_.timeout
                                                        : call.timeout);
  for (const auto& [key, value] : call.metadata) {
    context->AddMetadata(key, value);
  }
  if (call.cancellation != nullptr && !call.cancellation->Attach(context)) {
    return absl::CancelledError("cancelled before it was sent");
  }
  return absl::OkStatus();
}

#define COLLISION_CLIENT_RPC(Rpc, Request, Response, Batch)                 \
  absl::StatusOr<v1::Response> Client::Rpc(const v1::Request& request,      \
                                           const CallOptions& call) const { \
    grpc::ClientContext context;                                            \
    if (absl::Status s = PrepareCall(&context, call); !s.ok()) return s;    \
    v1::Response response;                                                  \
    grpc::Status s = stub_->Rpc(&context, request, &response);              \
    CancellationAccess::Detach(call.cancellation.get(), &context);          \
    if (!s.ok()) return StatusFromCall(s, context);                         \
    return response;                                                        \
  }                                                                         \
  void Client::Rpc##Async(std::shared_ptr<const v1::Request> request,       \
                          Callback<v1::Response> done,                      \
                          const CallOptions& call) const {                  \
    StartAsync<v1::Request, v1::Response>(                                  \
        pending_, std::move(request), std::move(done), call,                \
        [this](grpc::ClientContext* context, const v1::Request* req,        \
               v1::Response* resp, std::function<void(grpc::Status)> cb) {  \
          stub_->async()->Rpc(context, req, resp, std::move(cb));           \
        },                                                                  \
        [this](grpc::ClientContext* context, const CallOptions& options) {  \
          return PrepareCall(context, options);                             \
        });                                                                 \
  }                                                                         \
  void Client::Rpc##Async(const Batch& batch, Callback<v1::Response> done,  \
                          const CallOptions& call) const {                  \
    if (absl::Status s = BatchStatus(batch); !s.ok()) return done(s);       \
    Rpc##Async(std::make_shared<const v1::Request>(batch.request()),        \
               std::move(done), call);                                      \
  }                                                                         \
  std::future<absl::StatusOr<v1::Response>> Client::Rpc##Future(            \
      v1::Request request, const CallOptions& call) const {                 \
    return AsFuture<v1::Response>(                                          \
        std::move(request),                                                 \
        [this, &call](std::shared_ptr<const v1::Request> r,                 \
                      Callback<v1::Response> done) {                        \
          Rpc##Async(std::move(r), std::move(done), call);                  \
        });                                                                 \
  }                                                                         \
  std::future<absl::StatusOr<v1::Response>> Client::Rpc##Future(            \
      const Batch& batch, const CallOptions& call) const {                  \
    if (absl::Status s = BatchStatus(batch); !s.ok()) {                     \
      std::promise<absl::StatusOr<v1::Response>> failed;                    \
      failed.set_value(s);                                                  \
      return failed.get_future();                                           \
    }                                                                       \
    return Rpc##Future(batch.request(), call);                              \
  }

// The four unary RPCs share one shape; a macro keeps them identical.
COLLISION_CLIENT_RPC(Intersect, IntersectRequest, IntersectResponse,
                     IntersectBatch)
COLLISION_CLIENT_RPC(ClosestPoint, ClosestPointRequest, ClosestPointResponse,
                     ClosestPointBatch)
COLLISION_CLIENT_RPC(IntersectColumns, IntersectColumnsRequest,
                     IntersectColumnsResponse, IntersectColumnsBatch)
COLLISION_CLIENT_RPC(ClosestPointColumns, ClosestPointColumnsRequest,
                     ClosestPointColumnsResponse, ClosestPointColumnsBatch)
#undef COLLISION_CLIENT_RPC

absl::StatusOr<std::unique_ptr<QuerySession>> Client::OpenSession(
    const SessionOptions& options) const {
  if (options.max_reopens_per_reply < 0 ||
      options.first_backoff < absl::ZeroDuration() ||
      options.max_backoff < options.first_backoff) {
    return absl::InvalidArgumentError(
        "session: need max_reopens_per_reply >= 0 and 0 <= first_backoff <= "
        "max_backoff");
  }
  return std::unique_ptr<QuerySession>(new QuerySession(*this, options));
}

absl::StatusOr<bool> Client::IsServing(const std::string& service) const {
  grpc::ClientContext context;
  Prepare(&context, options_.timeout);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status s = health_->Check(&context, request, &response);
  if (!s.ok()) return StatusFromCall(s, context);
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

absl::Status Client::WaitUntilServing(absl::Duration timeout) const {
  const absl::Time end = absl::Now() + timeout;
  absl::Status last = absl::DeadlineExceededError("no health answer yet");
  while (absl::Now() < end) {
    // Wait for the connection itself first, bounded by what is left.
    channel_->WaitForConnected(absl::ToChronoTime(
        std::min(end, absl::Now() + absl::Milliseconds(200))));
    absl::StatusOr<bool> serving = IsServing();
    if (serving.ok() && *serving) return absl::OkStatus();
    last = serving.ok() ? absl::UnavailableError("health: NOT_SERVING")
                        : serving.status();
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::DeadlineExceededError(absl::StrCat("not serving after ",
                                                  absl::FormatDuration(timeout),
                                                  ": ", last.ToString()));
}

}  // namespace collision::client
