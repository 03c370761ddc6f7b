#include "server/handlers.h"

#include <vector>

#include "absl/types/span.h"
#include "collision/core/batch.h"

namespace collision::server {

grpc::Status HandleIntersect(const v1::IntersectRequest& request,
                             v1::IntersectResponse* response,
                             const HandlerContext& context) {
  absl::StatusOr<ParsedIntersect> parsed =
      ParseIntersectRequest(request, context.limits);
  if (!parsed.ok()) return ToGrpc(parsed.status());
  std::vector<IntersectResult> results(parsed->pairs.size());
  const absl::Span<const ShapePair> pairs(parsed->pairs);
  const bool done =
      context.run(pairs.size(), [&](std::size_t begin, std::size_t end) {
        IntersectBatch(pairs.subspan(begin, end - begin), parsed->boundary,
                       absl::MakeSpan(results).subspan(begin, end - begin));
      });
  if (!done) return context.stopped_status();
  FillIntersectResponse(*parsed, results, response);
  context.count_work(parsed->counts);
  return grpc::Status::OK;
}

grpc::Status HandleClosestPoint(const v1::ClosestPointRequest& request,
                                v1::ClosestPointResponse* response,
                                const HandlerContext& context) {
  absl::StatusOr<ParsedClosestPoint> parsed =
      ParseClosestPointRequest(request, context.limits);
  if (!parsed.ok()) return ToGrpc(parsed.status());
  std::vector<ClosestPointResult> results(parsed->items.size());
  const absl::Span<const ClosestPointItem> items(parsed->items);
  const bool done =
      context.run(items.size(), [&](std::size_t begin, std::size_t end) {
        ClosestPointBatch(items.subspan(begin, end - begin), parsed->boundary,
                          absl::MakeSpan(results).subspan(begin, end - begin));
      });
  if (!done) return context.stopped_status();
  FillClosestPointResponse(results, response);
  context.count_work(parsed->counts);
  return grpc::Status::OK;
}

grpc::Status HandleIntersectColumns(const v1::IntersectColumnsRequest& request,
                                    v1::IntersectColumnsResponse* response,
                                    const HandlerContext& context) {
  KindCounts counts{};
  if (absl::Status s =
          ValidateIntersectColumns(request, context.limits, &counts);
      !s.ok()) {
    return ToGrpc(s);
  }
  if (!ComputeIntersectColumns(request, context.run, response)) {
    response->Clear();
    return context.stopped_status();
  }
  context.count_work(counts);
  return grpc::Status::OK;
}

grpc::Status HandleClosestPointColumns(
    const v1::ClosestPointColumnsRequest& request,
    v1::ClosestPointColumnsResponse* response, const HandlerContext& context) {
  KindCounts counts{};
  if (absl::Status s =
          ValidateClosestPointColumns(request, context.limits, &counts);
      !s.ok()) {
    return ToGrpc(s);
  }
  if (!ComputeClosestPointColumns(request, context.run, response)) {
    response->Clear();
    return context.stopped_status();
  }
  context.count_work(counts);
  return grpc::Status::OK;
}

}  // namespace collision::server
