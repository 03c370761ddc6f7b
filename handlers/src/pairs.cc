#include "collision/handlers/pairs.h"

#include <vector>

#include "absl/types/span.h"
#include "collision/core/batch.h"
#include "collision/wire/columns.h"
#include "collision/wire/pair_wire.h"

namespace collision::handlers {

using wire::DecodeClosestPointRequest;
using wire::DecodeIntersectRequest;
using wire::EncodeClosestPointResponse;
using wire::EncodeIntersectResponse;
using wire::EncodeQueryStreamAnswer;
using wire::FillClosestPointResponse;
using wire::FillIntersectResponse;
using wire::ParseClosestPointRequest;
using wire::ParsedClosestPoint;
using wire::ParsedIntersect;
using wire::ParseIntersectRequest;
using wire::SplitQueryStreamRequest;
using wire::StreamQuery;
using wire::ValidateClosestPointColumns;
using wire::ValidateIntersectColumns;

namespace {

absl::Status ComputeIntersect(const ParsedIntersect& parsed,
                              const HandlerContext& context,
                              std::vector<IntersectResult>* results) {
  results->resize(parsed.pairs.size());
  const absl::Span<const ShapePair> pairs(parsed.pairs);
  const bool done =
      context.run(pairs.size(), [&](std::size_t begin, std::size_t end) {
        IntersectBatch(pairs.subspan(begin, end - begin), parsed.boundary,
                       absl::MakeSpan(*results).subspan(begin, end - begin));
      });
  if (!done) return context.stopped_status();
  context.count_work(parsed.counts);
  return absl::OkStatus();
}

absl::Status ComputeClosestPoint(const ParsedClosestPoint& parsed,
                                 const HandlerContext& context,
                                 std::vector<ClosestPointResult>* results) {
  results->resize(parsed.items.size());
  const absl::Span<const ClosestPointItem> items(parsed.items);
  const bool done =
      context.run(items.size(), [&](std::size_t begin, std::size_t end) {
        ClosestPointBatch(items.subspan(begin, end - begin), parsed.boundary,
                          absl::MakeSpan(*results).subspan(begin, end - begin));
      });
  if (!done) return context.stopped_status();
  context.count_work(parsed.counts);
  return absl::OkStatus();
}

class DecodedIntersect final : public DecodedRequest {
 public:
  ParsedIntersect parsed;

  std::size_t items() const override { return parsed.pairs.size(); }
  absl::Status Serve(const HandlerContext& context,
                     std::string* response) override {
    std::vector<IntersectResult> results;
    const absl::Status s = ComputeIntersect(parsed, context, &results);
    if (s.ok()) EncodeIntersectResponse(parsed, results, response);
    return s;
  }
};

class DecodedClosestPoint final : public DecodedRequest {
 public:
  ParsedClosestPoint parsed;

  std::size_t items() const override { return parsed.items.size(); }
  absl::Status Serve(const HandlerContext& context,
                     std::string* response) override {
    std::vector<ClosestPointResult> results;
    const absl::Status s = ComputeClosestPoint(parsed, context, &results);
    if (s.ok()) EncodeClosestPointResponse(results, response);
    return s;
  }
};

// A per-pair request inside a QueryStream message: its answer wrapped in
// the QueryStreamResponse.
class DecodedStreamQuery final : public DecodedRequest {
 public:
  DecodedStreamQuery(const StreamQuery& query,
                     std::unique_ptr<DecodedRequest> request)
      : query_{query.sequence, query.field, {}}, request_(std::move(request)) {}

  std::size_t items() const override { return request_->items(); }
  absl::Status Serve(const HandlerContext& context,
                     std::string* response) override {
    std::string answer;
    const absl::Status s = request_->Serve(context, &answer);
    if (s.ok()) EncodeQueryStreamAnswer(query_, answer, response);
    return s;
  }

 private:
  const StreamQuery query_;  // its `request` bytes are not kept
  const std::unique_ptr<DecodedRequest> request_;
};

}  // namespace

absl::Status HandleIntersect(const v1::IntersectRequest& request,
                             v1::IntersectResponse* response,
                             const HandlerContext& context) {
  absl::StatusOr<ParsedIntersect> parsed =
      ParseIntersectRequest(request, context.limits);
  if (!parsed.ok()) return parsed.status();
  std::vector<IntersectResult> results;
  const absl::Status s = ComputeIntersect(*parsed, context, &results);
  if (s.ok()) FillIntersectResponse(*parsed, results, response);
  return s;
}

absl::Status HandleClosestPoint(const v1::ClosestPointRequest& request,
                                v1::ClosestPointResponse* response,
                                const HandlerContext& context) {
  absl::StatusOr<ParsedClosestPoint> parsed =
      ParseClosestPointRequest(request, context.limits);
  if (!parsed.ok()) return parsed.status();
  std::vector<ClosestPointResult> results;
  const absl::Status s = ComputeClosestPoint(*parsed, context, &results);
  if (s.ok()) FillClosestPointResponse(results, response);
  return s;
}

std::unique_ptr<DecodedRequest> DecodeIntersect(absl::string_view bytes,
                                                const RequestLimits& limits) {
  auto decoded = std::make_unique<DecodedIntersect>();
  if (!DecodeIntersectRequest(bytes, limits, &decoded->parsed)) return nullptr;
  return decoded;
}

std::unique_ptr<DecodedRequest> DecodeClosestPoint(
    absl::string_view bytes, const RequestLimits& limits) {
  auto decoded = std::make_unique<DecodedClosestPoint>();
  if (!DecodeClosestPointRequest(bytes, limits, &decoded->parsed)) {
    return nullptr;
  }
  return decoded;
}

absl::Status HandleIntersectColumns(const v1::IntersectColumnsRequest& request,
                                    v1::IntersectColumnsResponse* response,
                                    const HandlerContext& context) {
  KindCounts counts{};
  if (absl::Status s =
          ValidateIntersectColumns(request, context.limits, &counts);
      !s.ok()) {
    return s;
  }
  if (!ComputeIntersectColumns(request, context.run, response)) {
    response->Clear();
    return context.stopped_status();
  }
  context.count_work(counts);
  return absl::OkStatus();
}

absl::Status HandleClosestPointColumns(
    const v1::ClosestPointColumnsRequest& request,
    v1::ClosestPointColumnsResponse* response, const HandlerContext& context) {
  KindCounts counts{};
  if (absl::Status s =
          ValidateClosestPointColumns(request, context.limits, &counts);
      !s.ok()) {
    return s;
  }
  if (!ComputeClosestPointColumns(request, context.run, response)) {
    response->Clear();
    return context.stopped_status();
  }
  context.count_work(counts);
  return absl::OkStatus();
}

std::unique_ptr<DecodedRequest> DecodeQueryStreamMessage(
    absl::string_view bytes, const RequestLimits& limits) {
  StreamQuery query;
  if (!SplitQueryStreamRequest(bytes, &query)) return nullptr;
  std::unique_ptr<DecodedRequest> request =
      query.field == 2 ? DecodeIntersect(query.request, limits)
                       : DecodeClosestPoint(query.request, limits);
  if (request == nullptr) return nullptr;
  return std::make_unique<DecodedStreamQuery>(query, std::move(request));
}

}  // namespace collision::handlers
