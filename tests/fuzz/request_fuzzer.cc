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
//   numbers (validation bounds every magnitude, so nothing overflows).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "server/handlers.h"

namespace {

using collision::server::HandlerContext;
namespace v1 = collision::v1;

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckRejected(const grpc::Status& s) {
  Check(s.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
  Check(!s.error_message().empty());
}

bool Finite(const google::protobuf::RepeatedField<float>& c) {
  for (float x : c) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

void Intersect(const uint8_t* data, size_t size) {
  v1::IntersectRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  v1::IntersectResponse response;
  const grpc::Status s =
      collision::server::HandleIntersect(request, &response, HandlerContext{});
  if (!s.ok()) {
    CheckRejected(s);
    Check(response.results_size() == 0);
    return;
  }
  Check(response.results_size() == request.pairs_size());
  for (const auto& r : response.results()) Check(std::isfinite(r.separation()));
}

void ClosestPoint(const uint8_t* data, size_t size) {
  v1::ClosestPointRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return;
  v1::ClosestPointResponse response;
  const grpc::Status s = collision::server::HandleClosestPoint(
      request, &response, HandlerContext{});
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
  const grpc::Status s = collision::server::HandleIntersectColumns(
      request, &response, HandlerContext{});
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
  const grpc::Status s = collision::server::HandleClosestPointColumns(
      request, &response, HandlerContext{});
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
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
