// Fuzz target for the whole request path: bytes -> protobuf parse ->
// validation -> dispatcher / columnar kernels -> response, for all four query
// kinds. The first byte picks the kind; the rest is the serialized request.
//
// Invariants checked on every input (a failure aborts, so the fuzzer and the
// corpus replay both report it):
// - the handler never crashes, hangs or trips a sanitizer;
// - a rejected request gets INVALID_ARGUMENT with a non-empty message and an
//   empty response;
// - an accepted request gets exactly one answer per item, with finite
//   numbers (validation bounds every magnitude, so nothing overflows);
// - the wire precheck (item counts on the bytes) agrees with the parse, and
//   a QueryStream message's sequence read off its bytes is the parsed one
//   (first byte % 8 of 4..7; 0..3 pick the four handlers);
// - the per-pair decoder that skips the messages (pair_wire.h) answers what
//   it takes with the message path's bytes exactly;
// - a scene message (first byte >= 0xF0) is rejected whole with a named
//   code and nothing applied, or applied with one finite result per query.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "collision/handlers/pairs.h"
#include "collision/handlers/scene.h"
#include "collision/wire/scene_request.h"
#include "collision/wire/wire_precheck.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace {

namespace v1 = collision::v1;
namespace handlers = collision::handlers;
namespace wire = collision::wire;

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckRejected(const absl::Status& s) {
  Check(s.code() == absl::StatusCode::kInvalidArgument);
  Check(!s.message().empty());
}

bool Finite(const google::protobuf::RepeatedField<float>& c) {
  for (float x : c) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

// The decoder that skips the messages (pair_wire.h) may refuse anything,
// but what it takes must parse, be accepted by the message path and be
// answered with the very bytes the message path serializes.
template <typename Response>
void CheckDecoded(handlers::DecodedRequest* decoded, bool parsed,
                  const absl::Status& s, const Response& response) {
  if (decoded == nullptr) return;
  Check(parsed && s.ok());
  std::string fast;
  Check(decoded->Serve(handlers::HandlerContext{}, &fast).ok());
  Check(fast == response.SerializeAsString());
}

void Intersect(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto decoded = handlers::DecodeIntersect(bytes, {});
  v1::IntersectRequest request;
  const bool parsed = request.ParseFromArray(data, static_cast<int>(size));
  Check(parsed || decoded == nullptr);
  if (!parsed) return;
  v1::IntersectResponse response;
  const absl::Status s =
      handlers::HandleIntersect(request, &response, handlers::HandlerContext{});
  CheckDecoded(decoded.get(), parsed, s, response);
  if (!s.ok()) {
    CheckRejected(s);
    Check(response.results_size() == 0);
    return;
  }
  Check(response.results_size() == request.pairs_size());
  for (const auto& r : response.results()) Check(std::isfinite(r.separation()));
}

void ClosestPoint(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto decoded = handlers::DecodeClosestPoint(bytes, {});
  v1::ClosestPointRequest request;
  const bool parsed = request.ParseFromArray(data, static_cast<int>(size));
  Check(parsed || decoded == nullptr);
  if (!parsed) return;
  v1::ClosestPointResponse response;
  const absl::Status s =
      handlers::HandleClosestPoint(request, &response, handlers::HandlerContext{});
  CheckDecoded(decoded.get(), parsed, s, response);
  if (!s.ok()) {
    CheckRejected(s);
    Check(response.results_size() == 0);
    return;
  }
  Check(response.results_size() == request.queries_size());
  for (const auto& r : response.results()) {
    Check(std::isfinite(r.signed_distance()) && std::isfinite(r.gap()));
    Check(std::isfinite(r.normal().x()) && std::isfinite(r.normal().y()) &&
          std::isfinite(r.normal().z()));
  }
}

void IntersectColumns(const uint8_t* data, size_t size) {
  v1::IntersectColumnsRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  v1::IntersectColumnsResponse response;
  const absl::Status s =
      handlers::HandleIntersectColumns(request, &response, handlers::HandlerContext{});
  if (!s.ok()) {
    CheckRejected(s);
    Check(response.groups_size() == 0);
    return;
  }
  Check(response.groups_size() == request.groups_size());
  for (const auto& g : response.groups()) {
    Check(g.hit_bits().size() == (g.count() + 7) / 8);
    Check(Finite(g.separations()));
  }
}

void ClosestPointColumns(const uint8_t* data, size_t size) {
  v1::ClosestPointColumnsRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  v1::ClosestPointColumnsResponse response;
  const absl::Status s = handlers::HandleClosestPointColumns(
      request, &response, handlers::HandlerContext{});
  if (!s.ok()) {
    CheckRejected(s);
    Check(response.groups_size() == 0);
    return;
  }
  Check(response.groups_size() == request.groups_size());
  for (const auto& g : response.groups()) {
    Check(g.inside_bits().size() == (g.count() + 7) / 8);
    Check(Finite(g.signed_distance()) && Finite(g.gap()) &&
          Finite(g.normal_x()) && Finite(g.closest_x()));
  }
}

// The wire precheck (item counts on the bytes, before parsing) agrees with
// the parse: whenever the bytes parse, the precheck rejects exactly the
// messages holding more items than the limit. A small limit makes both
// sides of it reachable.
template <typename Request>
void Precheck(const uint8_t* data, size_t size,
              std::size_t items_of(const Request&)) {
  wire::RequestLimits limits;
  limits.max_batch = 8;
  google::protobuf::io::ArrayInputStream in(data, static_cast<int>(size));
  const absl::Status s =
      wire::PrecheckRequestSize(&in, wire::kRequestMessage<Request>, limits);
  Request request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  Check(s.ok() == (items_of(request) <= limits.max_batch));
  if (!s.ok()) Check(s.code() == absl::StatusCode::kInvalidArgument);
}

std::size_t Pairs(const v1::IntersectRequest& r) {
  return static_cast<std::size_t>(r.pairs_size());
}
std::size_t Queries(const v1::ClosestPointRequest& r) {
  return static_cast<std::size_t>(r.queries_size());
}
template <typename Columns>
std::size_t Groups(const Columns& r) {
  return static_cast<std::size_t>(r.groups_size());
}

// A QueryStream message: the sequence read off the bytes is the parsed one,
// the precheck bounds the query's items, and the query is answered as its
// unary twin would answer it.
void StreamMessage(const uint8_t* data, size_t size) {
  google::protobuf::io::ArrayInputStream peek(data, static_cast<int>(size));
  const uint64_t sequence = wire::PeekStreamSequence(&peek);
  wire::RequestLimits limits;
  limits.max_batch = 8;
  google::protobuf::io::ArrayInputStream in(data, static_cast<int>(size));
  const absl::Status pre = wire::PrecheckRequestSize(
      &in, wire::RequestMessage::kQueryStream, limits);
  const auto decoded = handlers::DecodeQueryStreamMessage(
      absl::string_view(reinterpret_cast<const char*>(data), size), limits);
  v1::QueryStreamRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) {
    Check(decoded == nullptr);
    return;
  }
  Check(sequence == request.sequence());
  if (decoded != nullptr) {
    // Taken from the bytes: answered as the message path answers it.
    v1::QueryStreamResponse reference;
    reference.set_sequence(request.sequence());
    const handlers::HandlerContext context{limits};
    absl::Status s = absl::CancelledError();
    if (request.has_intersect()) {
      s = handlers::HandleIntersect(request.intersect(),
                                reference.mutable_intersect(), context);
    } else if (request.has_closest_point()) {
      s = handlers::HandleClosestPoint(request.closest_point(),
                                   reference.mutable_closest_point(), context);
    }
    Check(s.ok());
    std::string fast;
    Check(decoded->Serve(context, &fast).ok());
    Check(fast == reference.SerializeAsString());
  }
  std::size_t items = 0;
  switch (request.query_case()) {
    case v1::QueryStreamRequest::kIntersect:
      items = Pairs(request.intersect());
      break;
    case v1::QueryStreamRequest::kClosestPoint:
      items = Queries(request.closest_point());
      break;
    case v1::QueryStreamRequest::kIntersectColumns:
      items = Groups(request.intersect_columns());
      break;
    case v1::QueryStreamRequest::kClosestPointColumns:
      items = Groups(request.closest_point_columns());
      break;
    default:
      break;
  }
  // The precheck counts every copy of a repeated query field (the parse
  // keeps only the last), so it may reject more, never less.
  if (items > limits.max_batch) Check(!pre.ok());
  const std::string query =
      request.has_intersect() ? request.intersect().SerializeAsString() : "";
  if (request.has_intersect()) {
    Intersect(reinterpret_cast<const uint8_t*>(query.data()), query.size());
  }
}

// A scene message, twice, against a scene that already holds a few
// entities: rejected whole with a named code, or applied with one finite
// result per query and the entity count the response reports; the precheck
// on the bytes never lets through what the parse finds over a limit.
void SceneMessage(bool three_d, const uint8_t* data, size_t size) {
  wire::SceneLimits limits;
  limits.max_entities = 64;
  limits.max_queries = 16;
  limits.max_hits = 32;
  v1::SceneConfig config;
  config.set_dimension(three_d ? v1::DIMENSION_3D : v1::DIMENSION_2D);
  config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  const absl::StatusOr<wire::SceneSettings> settings =
      wire::ParseSceneConfig(config, limits);
  Check(settings.ok());
  collision::Scene scene(settings->dimension);
  collision::SceneHistory history(settings->dimension, 8);
  for (uint64_t id = 1; id <= 4; ++id) {
    const float c = static_cast<float>(id);
    if (three_d) {
      scene.Upsert(id, collision::Sphere{{c, c, c}, 1.0f}, 1);
      history.Upsert(id, collision::Sphere{{c, c, c}, 1.0f}, 1);
    } else {
      scene.Upsert(id, collision::Circle{{c, c}, 1.0f}, 1);
      history.Upsert(id, collision::Circle{{c, c}, 1.0f}, 1);
    }
  }
  scene.Commit();
  history.Commit(1);
  google::protobuf::io::ArrayInputStream in(data, static_cast<int>(size));
  const absl::Status pre =
      wire::PrecheckSceneRequest(&in, limits.max_entities, limits.max_queries);
  v1::SceneRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  if (request.queries_size() > static_cast<int>(limits.max_queries)) {
    Check(!pre.ok());
  }
  std::optional<uint64_t> tick = 1;
  for (int round = 0; round < 2; ++round) {
    const std::size_t before = scene.size();
    absl::StatusOr<wire::ParsedSceneMessage> parsed =
        wire::ParseSceneMessage(request, *settings, tick, scene, limits,
                                /*config_allowed=*/false);
    if (!parsed.ok()) {
      Check(parsed.status().code() == absl::StatusCode::kInvalidArgument ||
            parsed.status().code() == absl::StatusCode::kResourceExhausted);
      Check(!parsed.status().message().empty());
      Check(scene.size() == before);
      continue;
    }
    Check(pre.ok() || request.queries_size() <= 16);
    handlers::ApplySceneUpdate(parsed->update, &scene, &history);
    if (parsed->update.present) tick = parsed->update.tick;
    Check(scene.size() <= limits.max_entities);
    v1::SceneResponse response;
    handlers::AnswerSceneQueries(parsed->queries, scene, &history, tick, limits,
                             &response);
    Check(response.results_size() == request.queries_size());
    for (const auto& result : response.results()) {
      Check(static_cast<std::size_t>(result.hits_size()) <= limits.max_hits);
      for (const auto& hit : result.hits()) {
        Check(std::isfinite(hit.distance()) && std::isfinite(hit.separation()));
        Check(std::isfinite(hit.point().x()) &&
              std::isfinite(hit.normal().x()));
        Check(std::isfinite(hit.closest().gap()));
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // First bytes 0xF0..0xFF: a scene message (older seeds use small values).
  if (data[0] >= 0xF0) {
    SceneMessage((data[0] & 1) != 0, data + 1, size - 1);
    return 0;
  }
  switch (data[0] % 8) {
    case 4:
      Precheck<v1::IntersectRequest>(data + 1, size - 1, Pairs);
      Precheck<v1::ClosestPointRequest>(data + 1, size - 1, Queries);
      return 0;
    case 5:
      Precheck<v1::IntersectColumnsRequest>(data + 1, size - 1, Groups);
      Precheck<v1::ClosestPointColumnsRequest>(data + 1, size - 1, Groups);
      return 0;
    case 6:
    case 7:
      StreamMessage(data + 1, size - 1);
      return 0;
    default:
      break;
  }
  switch (data[0] % 4) {
    case 0:
      Intersect(data + 1, size - 1);
      break;
    case 1:
      ClosestPoint(data + 1, size - 1);
      break;
    case 2:
      IntersectColumns(data + 1, size - 1);
      break;
    default:
      ClosestPointColumns(data + 1, size - 1);
      break;
  }
  return 0;
}
