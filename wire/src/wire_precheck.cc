#include "collision/wire/wire_precheck.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"

namespace collision::wire {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// The repeated field every request message keeps its items in.
constexpr uint32_t kItemsField = 1;

bool IsMessageField(uint32_t tag, uint32_t field) {
  return static_cast<uint32_t>(WireFormatLite::GetTagFieldNumber(tag)) ==
             field &&
         WireFormatLite::GetTagWireType(tag) ==
             WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
}

// Adds the occurrences of field 1 at this level (up to the current limit)
// to `count`, stopping once it passes `stop_above`: the work to refuse an
// oversized request is bounded by the limit, not by what was sent (a 10 MB
// request of 5 M empty pairs: 100,001 items read, not 5 M). False when the
// bytes are not a valid encoding.
bool CountItems(CodedInputStream* in, uint64_t stop_above, uint64_t* count) {
  for (uint32_t tag = in->ReadTag(); tag != 0; tag = in->ReadTag()) {
    if (IsMessageField(tag, kItemsField)) {
      uint32_t length = 0;
      if (!in->ReadVarint32(&length) || !in->Skip(static_cast<int>(length))) {
        return false;
      }
      if (++*count > stop_above) return true;
    } else if (!WireFormatLite::SkipField(in, tag)) {
      return false;
    }
  }
  return true;  // the end, or bytes ReadTag could not read: the parse says
}

// The refusal of a request found to hold more items than the limit (how
// many more is not counted, see CountItems).
absl::Status Over(RequestMessage message, const RequestLimits& limits) {
  switch (message) {
    case RequestMessage::kIntersect:
    case RequestMessage::kClosestPoint:
      return InvalidField(
          message == RequestMessage::kIntersect ? "pairs" : "queries",
          absl::StrCat("has more than this server's limit of ",
                       limits.max_batch, " items; split the batch"));
    default:
      return InvalidField(
          "groups", absl::StrCat("has more than this server's limit of ",
                                 limits.max_batch,
                                 " items in groups (a group holds at least "
                                 "one); split the batch"));
  }
}

}  // namespace

absl::Status PrecheckRequestSize(
    google::protobuf::io::ZeroCopyInputStream* bytes, RequestMessage message,
    const RequestLimits& limits) {
  CodedInputStream in(bytes);
  if (message != RequestMessage::kQueryStream) {
    uint64_t count = 0;
    CountItems(&in, limits.max_batch, &count);
    return count > limits.max_batch ? Over(message, limits) : absl::OkStatus();
  }
  // QueryStreamRequest: field 1 is the sequence, fields 2-5 the query (one
  // of the four request messages, in that order). A query field given more
  // than once is merged (or replaced) by the parse, which builds every copy:
  // all copies count.
  uint64_t counts[4] = {0, 0, 0, 0};
  for (uint32_t tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
    const auto field =
        static_cast<uint32_t>(WireFormatLite::GetTagFieldNumber(tag));
    if (field >= 2 && field <= 5 && IsMessageField(tag, field)) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length) || length > INT32_MAX) break;
      const CodedInputStream::Limit limit =
          in.PushLimit(static_cast<int>(length));
      const bool ok = CountItems(&in, limits.max_batch, &counts[field - 2]);
      in.PopLimit(limit);
      if (!ok || counts[field - 2] > limits.max_batch) break;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      break;
    }
  }
  for (int k = 0; k < 4; ++k) {
    if (counts[k] > limits.max_batch) {
      return Over(static_cast<RequestMessage>(k), limits);
    }
  }
  return absl::OkStatus();
}

absl::Status PrecheckSceneRequest(
    google::protobuf::io::ZeroCopyInputStream* bytes, uint64_t max_upserts,
    uint64_t max_queries) {
  // SceneRequest: update = 3 (SceneUpdate: upserts = 3, upsert_columns = 4;
  // a column group holds packed numbers, which do not amplify), queries = 4.
  // Like CountItems, the counts stop once past their limits.
  CodedInputStream in(bytes);
  uint64_t entities = 0;
  uint64_t queries = 0;
  auto count_in = [&in, &entities, max_upserts](uint32_t f1, uint32_t f2) {
    for (uint32_t tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
      if (IsMessageField(tag, f1) || IsMessageField(tag, f2)) {
        if (++entities > max_upserts) return true;
      }
      if (!WireFormatLite::SkipField(&in, tag)) return false;
    }
    return true;
  };
  for (uint32_t tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
    if (IsMessageField(tag, 3)) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length) || length > INT32_MAX) break;
      const CodedInputStream::Limit limit =
          in.PushLimit(static_cast<int>(length));
      const bool ok = count_in(3, 4);
      in.PopLimit(limit);
      if (!ok || entities > max_upserts) break;
    } else {
      if (IsMessageField(tag, 4) && ++queries > max_queries) break;
      if (!WireFormatLite::SkipField(&in, tag)) break;
    }
  }
  if (entities > max_upserts) {
    return absl::ResourceExhaustedError(
        absl::StrCat("update holds more upserts and column groups than this "
                     "scene's limit of ",
                     max_upserts, " entities"));
  }
  if (queries > max_queries) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "queries has more than this server's limit of ", max_queries,
        " per message; split them over several messages"));
  }
  return absl::OkStatus();
}

uint64_t PeekStreamSequence(google::protobuf::io::ZeroCopyInputStream* bytes) {
  CodedInputStream in(bytes);
  uint64_t sequence = 0;
  for (uint32_t tag = in.ReadTag(); tag != 0; tag = in.ReadTag()) {
    if (tag == WireFormatLite::MakeTag(1, WireFormatLite::WIRETYPE_VARINT)) {
      if (!in.ReadVarint64(&sequence)) break;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      break;
    }
  }
  return sequence;
}

}  // namespace collision::wire
