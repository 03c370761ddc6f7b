#include "collision/wire/pair_wire.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "collision/core/scalar.h"
#include "collision/wire/shape_parser.h"

namespace collision::wire {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "fixed32 floats are copied as they lie on the wire");

// Protobuf's wire types used by collision.v1's per-pair messages.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kLength = 2;
constexpr uint32_t kFixed32 = 5;

constexpr uint32_t Tag(uint32_t field, uint32_t wire_type) {
  return field << 3 | wire_type;
}

// The decoder below works on a position `p` and the end of the message it
// is in; every read checks the end, and a false return means "not the plain
// encoding", never an error of its own. Everything is inlined into the
// per-item loop so that positions stay in registers: passed through memory,
// each step waited on the store of the one before (2.5x slower;
// docs/decisions/0019-pair-decoder-inlined.md).
#define COLLISION_WIRE_INLINE inline __attribute__((always_inline))

COLLISION_WIRE_INLINE bool Varint(const uint8_t*& p, const uint8_t* end,
                                  uint64_t* value) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p == end) return false;
    const uint8_t byte = *p++;
    v |= uint64_t{byte & 0x7Fu} << shift;
    if (byte < 0x80) {
      *value = v;
      return true;
    }
  }
  return false;
}

COLLISION_WIRE_INLINE bool ReadTag(const uint8_t*& p, const uint8_t* end,
                                   uint32_t* tag) {
  if (p != end && *p < 0x80) {  // every tag of these messages
    *tag = *p++;
    return true;
  }
  uint64_t v;
  if (!Varint(p, end, &v) || v > UINT32_MAX) return false;
  *tag = static_cast<uint32_t>(v);
  return true;
}

COLLISION_WIRE_INLINE bool Fixed32(const uint8_t*& p, const uint8_t* end,
                                   float* value) {
  if (end - p < 4) return false;
  std::memcpy(value, p, 4);
  p += 4;
  return true;
}

// A length-delimited field: `*sub_end` is where its bytes end; `p` stays
// at their start.
COLLISION_WIRE_INLINE bool Length(const uint8_t*& p, const uint8_t* end,
                                  const uint8_t** sub_end) {
  if (p != end && *p < 0x80) {  // under 128 bytes: every shape
    const uint8_t n = *p++;
    if (n > end - p) return false;
    *sub_end = p + n;
    return true;
  }
  uint64_t n;
  if (!Varint(p, end, &n) || n > static_cast<uint64_t>(end - p)) return false;
  *sub_end = p + n;
  return true;
}

// Vec2, Vec3, Rotation and Quaternion in [p, end): `n` float fields
// numbered 1..n, stored at `out`.
COLLISION_WIRE_INLINE bool DecodeFloats(const uint8_t* p, const uint8_t* end,
                                        uint32_t n, float* out) {
  // The usual case first: every field, once, in order (no value is 0).
  if (n <= 3 && end - p == 5 * n && p[0] == Tag(1, kFixed32) &&
      p[5] == Tag(2, kFixed32) && (n == 2 || p[10] == Tag(3, kFixed32))) {
    std::memcpy(&out[0], p + 1, 4);
    std::memcpy(&out[1], p + 6, 4);
    if (n == 3) std::memcpy(&out[2], p + 11, 4);
    return true;
  }
  while (p != end) {
    uint32_t tag;
    if (!ReadTag(p, end, &tag) || (tag & 7) != kFixed32) return false;
    const uint32_t field = tag >> 3;
    if (field < 1 || field > n) return false;
    if (!Fixed32(p, end, &out[field - 1])) return false;  // the last wins
  }
  return true;
}

// Where each field of a shape message goes in ShapeFields::v (see there):
// a sub-message of `floats` numbers, or one float (floats == 0).
struct FieldSlot {
  uint8_t floats = 0xFF;  // 0xFF: no such field
  uint8_t at = 0;
};
struct KindLayout {
  FieldSlot fields[6];  // by field number, 1..5
};
constexpr FieldSlot kNone{};
constexpr FieldSlot Message(uint8_t floats, uint8_t at) { return {floats, at}; }
constexpr FieldSlot Float(uint8_t at) { return {0, at}; }
// Indexed by the Shape oneof's field number; point and point3 (1 and 5)
// are a Vec2 / Vec3 themselves and have no layout.
constexpr int kLastKindField = 9;
constexpr KindLayout kLayouts[kLastKindField + 1] = {
    {},
    {},
    {{kNone, Message(2, 0), Float(2)}},       // circle
    {{kNone, Message(2, 0), Message(2, 2)}},  // rect
    {{kNone, Message(2, 0), Message(2, 2), Message(2, 4), Float(6),
      Message(2, 7)}},  // rotated_rect
    {},
    {{kNone, Message(3, 0), Float(3)}},       // sphere
    {{kNone, Message(3, 0), Message(3, 3)}},  // box
    {{kNone, Message(3, 0), Message(3, 3), Float(6)}},  // capsule3
    {{kNone, Message(3, 0), Message(3, 3), Message(4, 6)}},  // oriented_box
};
static_assert(kLastKindField == v1::Shape::kOrientedBox &&
              kLastKindField == kShapeKinds,
              "a layout per Shape field");

COLLISION_WIRE_INLINE bool DecodeShapeFields(const uint8_t* p,
                                             const uint8_t* end, int kind,
                                             ShapeFields* f) {
  f->kind = kind;
  if (kind == v1::Shape::kPoint) return DecodeFloats(p, end, 2, f->v);
  if (kind == v1::Shape::kPoint3) return DecodeFloats(p, end, 3, f->v);
  const KindLayout& layout = kLayouts[kind];
  while (p != end) {
    uint32_t tag;
    if (!ReadTag(p, end, &tag)) return false;
    const uint32_t field = tag >> 3;
    if (field < 1 || field > 5) return false;
    const FieldSlot slot = layout.fields[field];
    if (slot.floats == 0xFF) return false;
    if (slot.floats == 0) {
      if ((tag & 7) != kFixed32 || !Fixed32(p, end, &f->v[slot.at])) {
        return false;
      }
    } else {
      // A message field twice would be merged: left to the message path.
      const uint8_t* sub_end;
      if ((tag & 7) != kLength || f->has(static_cast<int>(field)) ||
          !Length(p, end, &sub_end) ||
          !DecodeFloats(p, sub_end, slot.floats, &f->v[slot.at])) {
        return false;
      }
      p = sub_end;
    }
    f->present |= 1u << field;
  }
  return true;
}

// A Shape message in [p, end): exactly one of its fields, once.
COLLISION_WIRE_INLINE bool DecodeShape(const uint8_t* p, const uint8_t* end,
                                       Shape* out) {
  uint32_t tag;
  const uint8_t* body_end;
  if (!ReadTag(p, end, &tag) || (tag & 7) != kLength ||
      !Length(p, end, &body_end) || body_end != end) {
    return false;
  }
  const uint32_t kind = tag >> 3;
  if (kind < 1 || kind > kLastKindField) return false;
  ShapeFields f;
  return DecodeShapeFields(p, end, static_cast<int>(kind), &f) &&
         ShapeFromFields(f, out);
}

// ShapePair and ClosestPointQuery in [p, end): two required shapes,
// fields 1 and 2.
bool DecodeTwoShapes(const uint8_t* p, const uint8_t* end, Shape* first,
                     Shape* second) {
  bool seen[3] = {false, false, false};
  while (p != end) {
    uint32_t tag;
    const uint8_t* sub_end;
    if (!ReadTag(p, end, &tag) || (tag & 7) != kLength) return false;
    const uint32_t field = tag >> 3;
    if ((field != 1 && field != 2) || seen[field] ||
        !Length(p, end, &sub_end) ||
        !DecodeShape(p, sub_end, field == 1 ? first : second)) {
      return false;
    }
    p = sub_end;
    seen[field] = true;
  }
  return seen[1] && seen[2];
}

// The fields both requests share: the items (field 1, whose bytes are
// handed to `item`), the boundary (2) and, for Intersect, two flags (3, 4).
template <typename Item>
bool DecodeRequest(absl::string_view bytes, const RequestLimits& limits,
                   Boundary* boundary, bool flags[2], Item item) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint8_t* const end = p + bytes.size();
  uint64_t rule = 0;
  std::size_t items = 0;
  while (p != end) {
    uint32_t tag;
    if (!ReadTag(p, end, &tag)) return false;
    uint64_t value;
    switch (tag) {
      case Tag(1, kLength): {
        const uint8_t* sub_end;
        if (++items > limits.max_batch || !Length(p, end, &sub_end) ||
            !item(p, sub_end)) {
          return false;
        }
        p = sub_end;
        break;
      }
      case Tag(2, kVarint):
        if (!Varint(p, end, &rule)) return false;  // the last one wins
        break;
      case Tag(3, kVarint):
      case Tag(4, kVarint):
        if (flags == nullptr || !Varint(p, end, &value)) return false;
        flags[(tag >> 3) - 3] = value != 0;
        break;
      default:
        return false;
    }
  }
  if (items == 0) return false;
  if (rule == v1::BOUNDARY_RULE_INCLUSIVE) {
    *boundary = Boundary::kInclusive;
  } else if (rule == v1::BOUNDARY_RULE_EXCLUSIVE) {
    *boundary = Boundary::kExclusive;
  } else {
    return false;
  }
  return true;
}

// A guess at the item count from the size, for one allocation in the usual
// case (a pair of small shapes takes ~30-60 bytes).
std::size_t ExpectedItems(absl::string_view bytes,
                          const RequestLimits& limits) {
  return std::min(bytes.size() / 24 + 1, limits.max_batch);
}

void PutFloat(uint8_t tag, float value, std::string* out) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (bits == 0) return;  // proto3: +0 is not written, -0 is
  out->push_back(static_cast<char>(tag));
  out->append(reinterpret_cast<const char*>(&value), 4);
}

// A Vec3 sub-message that is always present (SetVec3).
void PutVec3(uint8_t tag, const Vec3& v, std::string* out) {
  out->push_back(static_cast<char>(tag));
  const std::size_t length_at = out->size();
  out->push_back(0);
  PutFloat(Tag(1, kFixed32), v.x, out);
  PutFloat(Tag(2, kFixed32), v.y, out);
  PutFloat(Tag(3, kFixed32), v.z, out);
  (*out)[length_at] = static_cast<char>(out->size() - length_at - 1);
}

}  // namespace

bool DecodeIntersectRequest(absl::string_view bytes,
                            const RequestLimits& limits, ParsedIntersect* out) {
  *out = ParsedIntersect{};
  out->pairs.reserve(ExpectedItems(bytes, limits));
  bool flags[2] = {false, false};
  const bool ok = DecodeRequest(
      bytes, limits, &out->boundary, flags,
      [out](const uint8_t* p, const uint8_t* end) {
        ShapePair pair;
        if (!DecodeTwoShapes(p, end, &pair.a, &pair.b)) return false;
        const ShapeKind a = KindOf(pair.a);
        const ShapeKind b = KindOf(pair.b);
        const std::optional<WorkKind> kind = IntersectWorkKind(a, b);
        if (!kind) return false;
        ++out->counts[static_cast<int>(*kind)];
        out->pairs.push_back(std::move(pair));
        return true;
      });
  out->include_relation = flags[0];
  out->include_separation = flags[1];
  return ok;
}

bool DecodeClosestPointRequest(absl::string_view bytes,
                               const RequestLimits& limits,
                               ParsedClosestPoint* out) {
  *out = ParsedClosestPoint{};
  out->items.reserve(ExpectedItems(bytes, limits));
  return DecodeRequest(
      bytes, limits, &out->boundary, nullptr,
      [out](const uint8_t* p, const uint8_t* end) {
        ClosestPointItem item;
        if (!DecodeTwoShapes(p, end, &item.query, &item.target)) return false;
        const ShapeKind q = KindOf(item.query);
        const ShapeKind t = KindOf(item.target);
        const std::optional<WorkKind> kind = ClosestWorkKind(q, t);
        if (!kind) return false;
        ++out->counts[static_cast<int>(*kind)];
        out->items.push_back(std::move(item));
        return true;
      });
}

bool SplitQueryStreamRequest(absl::string_view bytes, StreamQuery* out) {
  *out = StreamQuery{};
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint8_t* const end = p + bytes.size();
  while (p != end) {
    uint32_t tag;
    if (!ReadTag(p, end, &tag)) return false;
    if (tag == Tag(1, kVarint)) {
      if (!Varint(p, end, &out->sequence)) return false;  // the last wins
      continue;
    }
    // intersect (2) or closest_point (3), once: a second one would be
    // merged into it, or replace it (oneof), as protobuf decides.
    const uint32_t field = tag >> 3;
    const uint8_t* sub_end;
    if ((tag & 7) != kLength || (field != 2 && field != 3) || out->field != 0 ||
        !Length(p, end, &sub_end)) {
      return false;
    }
    out->field = static_cast<int>(field);
    out->request = absl::string_view(reinterpret_cast<const char*>(p),
                                     static_cast<std::size_t>(sub_end - p));
    p = sub_end;
  }
  return out->field != 0;
}

void EncodeQueryStreamAnswer(const StreamQuery& query, absl::string_view answer,
                             std::string* out) {
  auto varint = [out](uint64_t v) {
    while (v >= 0x80) {
      out->push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    out->push_back(static_cast<char>(v));
  };
  out->reserve(out->size() + answer.size() + 16);
  if (query.sequence != 0) {
    out->push_back(static_cast<char>(Tag(1, kVarint)));
    varint(query.sequence);
  }
  // QueryStreamResponse: intersect = 3, closest_point = 4.
  out->push_back(
      static_cast<char>(Tag(static_cast<uint32_t>(query.field + 1), kLength)));
  varint(answer.size());
  out->append(answer.data(), answer.size());
}

void EncodeIntersectResponse(const ParsedIntersect& request,
                             const std::vector<IntersectResult>& results,
                             std::string* out) {
  out->reserve(out->size() + results.size() * 11);
  for (const IntersectResult& r : results) {
    // An IntersectResult is at most 9 bytes: its length is one byte.
    out->push_back(static_cast<char>(Tag(1, kLength)));
    const std::size_t length_at = out->size();
    out->push_back(0);
    if (r.hit) {
      out->push_back(static_cast<char>(Tag(1, kVarint)));
      out->push_back(1);
    }
    if (request.include_relation) {
      const int relation = ToProto(r.relation);
      if (relation != 0) {
        out->push_back(static_cast<char>(Tag(2, kVarint)));
        out->push_back(static_cast<char>(relation));
      }
    }
    if (request.include_separation) {
      PutFloat(Tag(3, kFixed32), r.separation, out);
    }
    (*out)[length_at] = static_cast<char>(out->size() - length_at - 1);
  }
}

void EncodeClosestPointResponse(const std::vector<ClosestPointResult>& results,
                                std::string* out) {
  out->reserve(out->size() + results.size() * 82);
  for (const ClosestPointResult& r : results) {
    // A ClosestPointResult is at most 80 bytes: its length is one byte.
    out->push_back(static_cast<char>(Tag(1, kLength)));
    const std::size_t length_at = out->size();
    out->push_back(0);
    PutVec3(Tag(1, kLength), r.closest_point, out);
    PutVec3(Tag(2, kLength), r.surface_point, out);
    PutVec3(Tag(3, kLength), r.normal, out);
    PutFloat(Tag(4, kFixed32), r.signed_distance, out);
    PutFloat(Tag(5, kFixed32), r.gap, out);
    if (r.inside) {
      out->push_back(static_cast<char>(Tag(6, kVarint)));
      out->push_back(1);
    }
    if (r.has_query_point) PutVec3(Tag(7, kLength), r.query_point, out);
    (*out)[length_at] = static_cast<char>(out->size() - length_at - 1);
  }
}

}  // namespace collision::wire
