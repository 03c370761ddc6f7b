#include "collision/wire/convert.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collision/core/kernels.h"
#include "collision/core/scalar.h"
#include "collision/wire/shape_parser.h"

namespace collision::wire {

void Violations::Add(std::string field, std::string why) {
  if (listed_.size() < kMaxDetailedViolations) {
    listed_.push_back({std::move(field), std::move(why), false});
  }
  ++count_;
}

void Violations::AddItem(std::string item, std::string why) {
  if (listed_.size() < kMaxDetailedViolations) {
    listed_.push_back({std::move(item), std::move(why), true});
  }
  ++count_;
}

absl::Status Violations::ToStatus() const {
  std::string message;
  const std::size_t in_message =
      std::min<std::size_t>(listed_.size(), kMaxListedViolations);
  for (std::size_t i = 0; i < in_message; ++i) {
    const Entry& e = listed_[i];
    absl::StrAppend(&message, i == 0 ? "" : "; ", e.field,
                    e.field.empty() ? "" : (e.item ? ": " : " "), e.why);
  }
  if (count_ > in_message) {
    absl::StrAppend(&message, "; and ", count_ - in_message,
                    " more invalid fields");
  }
  v1::BadRequest details;
  std::size_t bytes = 0;
  for (const Entry& e : listed_) {
    // field and why, plus a few bytes of tags and lengths each.
    bytes += e.field.size() + e.why.size() + 8;
    if (bytes > kMaxDetailBytes) break;
    v1::BadRequest::FieldViolation* v = details.add_field_violations();
    v->set_field(e.field);
    v->set_description(e.why);
  }
  const std::size_t detailed = details.field_violations_size();
  if (count_ > detailed) {
    details.add_field_violations()->set_description(
        absl::StrCat("and ", count_ - detailed, " more invalid fields"));
  }
  absl::Status status = absl::InvalidArgumentError(message);
  status.SetPayload(kBadRequestTypeUrl,
                    absl::Cord(details.SerializeAsString()));
  return status;
}

absl::Status InvalidField(std::string field, std::string why) {
  Violations v;
  v.Add(std::move(field), std::move(why));
  return v.ToStatus();
}

v1::BadRequest BadRequestOf(const absl::Status& status) {
  v1::BadRequest out;
  if (auto payload = status.GetPayload(kBadRequestTypeUrl)) {
    out.ParseFromString(std::string(*payload));
  }
  return out;
}

namespace {

const char* const kSupportedPairs =
    "supported: point|circle vs point|circle|rect|rotated_rect, rect vs rect, "
    "point3|sphere vs point3|sphere|box, box vs box";

}  // namespace

std::optional<Boundary> ParseBoundary(v1::BoundaryRule rule, Violations* v,
                                      BoundaryUse use) {
  switch (rule) {
    case v1::BOUNDARY_RULE_INCLUSIVE:
      return Boundary::kInclusive;
    case v1::BOUNDARY_RULE_EXCLUSIVE:
      return Boundary::kExclusive;
    case v1::BOUNDARY_RULE_UNSPECIFIED:
      v->Add("boundary",
             use == BoundaryUse::kHits
                 ? "is required: BOUNDARY_RULE_INCLUSIVE (touching "
                   "is a hit) or BOUNDARY_RULE_EXCLUSIVE (only overlap is a "
                   "hit)"
                 : "is required: BOUNDARY_RULE_INCLUSIVE (a query "
                   "exactly on the target's boundary is inside) or "
                   "BOUNDARY_RULE_EXCLUSIVE (it is not)");
      return std::nullopt;
    default:
      v->Add("boundary",
             absl::StrCat("has unknown value ", static_cast<int>(rule),
                          "; use BOUNDARY_RULE_INCLUSIVE or "
                          "BOUNDARY_RULE_EXCLUSIVE"));
      return std::nullopt;
  }
}

// Checks the batch size up front: an empty or oversized batch is rejected
// without looking at its items.
absl::Status CheckBatchSize(std::size_t size, const char* field,
                            const RequestLimits& limits) {
  if (size == 0) {
    return InvalidField(field, "must not be empty");
  }
  if (size > limits.max_batch) {
    return InvalidField(
        field,
        absl::StrCat("has ", size, " items, over this server's limit of ",
                     limits.max_batch, "; split the batch"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ParsedIntersect> ParseIntersectRequest(
    const v1::IntersectRequest& request, const RequestLimits& limits) {
  if (auto s = CheckBatchSize(static_cast<std::size_t>(request.pairs_size()),
                              "pairs", limits);
      !s.ok()) {
    return s;
  }
  Violations violations;
  Parser parser(&violations);
  ParsedIntersect out;
  const std::optional<Boundary> boundary =
      ParseBoundary(request.boundary(), &violations);
  out.boundary = boundary.value_or(Boundary::kInclusive);
  out.include_relation = request.include_relation();
  out.include_separation = request.include_separation();
  out.pairs.reserve(request.pairs_size());
  for (int i = 0; i < request.pairs_size(); ++i) {
    const v1::ShapePair& pair = request.pairs(i);
    const std::string path = absl::StrCat("pairs[", i, "]");
    std::optional<Shape> a =
        parser.ParseShape(pair.has_a(), pair.a(), path + ".a");
    std::optional<Shape> b =
        parser.ParseShape(pair.has_b(), pair.b(), path + ".b");
    if (!a || !b) continue;
    const ShapeKind ka = KindOf(*a);
    const ShapeKind kb = KindOf(*b);
    const std::optional<WorkKind> kind = IntersectWorkKind(ka, kb);
    if (!kind) {
      violations.AddItem(
          path, absl::StrCat(KindName(ka), " vs ", KindName(kb),
                             Is3D(ka) != Is3D(kb) ? " mixes a 2D and a 3D shape"
                                                  : " is not a supported pair",
                             " (", kSupportedPairs, ")"));
      continue;
    }
    if (violations.empty()) {
      ++out.counts[static_cast<int>(*kind)];
      out.pairs.push_back({*std::move(a), *std::move(b)});
    }
  }
  if (!violations.empty()) return violations.ToStatus();
  return out;
}

absl::StatusOr<ParsedClosestPoint> ParseClosestPointRequest(
    const v1::ClosestPointRequest& request, const RequestLimits& limits) {
  if (auto s = CheckBatchSize(static_cast<std::size_t>(request.queries_size()),
                              "queries", limits);
      !s.ok()) {
    return s;
  }
  Violations violations;
  Parser parser(&violations);
  ParsedClosestPoint out;
  const std::optional<Boundary> boundary =
      ParseBoundary(request.boundary(), &violations, BoundaryUse::kInside);
  out.boundary = boundary.value_or(Boundary::kInclusive);
  out.items.reserve(request.queries_size());
  for (int i = 0; i < request.queries_size(); ++i) {
    const v1::ClosestPointQuery& item = request.queries(i);
    const std::string path = absl::StrCat("queries[", i, "]");
    std::optional<Shape> q =
        parser.ParseShape(item.has_query(), item.query(), path + ".query");
    std::optional<Shape> t =
        parser.ParseShape(item.has_target(), item.target(), path + ".target");
    if (q && !IsClosestPointQuery(KindOf(*q))) {
      violations.Add(path + ".query",
                     absl::StrCat("must be a point, circle, point3 or sphere, "
                                  "got ",
                                  KindName(KindOf(*q)),
                                  " (in 3D also a capsule3, box or "
                                  "oriented_box)"));
      continue;
    }
    if (!q || !t) continue;
    if (Is3D(KindOf(*q)) != Is3D(KindOf(*t))) {
      violations.AddItem(
          path, absl::StrCat("query ", KindName(KindOf(*q)), " and target ",
                             KindName(KindOf(*t)), " mix a 2D and a 3D shape"));
      continue;
    }
    if (violations.empty()) {
      ++out.counts[static_cast<int>(*ClosestWorkKind(KindOf(*q), KindOf(*t)))];
      out.items.push_back({*std::move(q), *std::move(t)});
    }
  }
  if (!violations.empty()) return violations.ToStatus();
  return out;
}

v1::Relation ToProto(Relation r) {
  switch (r) {
    case Relation::kDisjoint:
      return v1::RELATION_DISJOINT;
    case Relation::kTouching:
      return v1::RELATION_TOUCHING;
    case Relation::kOverlapping:
      return v1::RELATION_OVERLAPPING;
  }
  return v1::RELATION_UNSPECIFIED;
}

void SetVec3(const Vec3& v, v1::Vec3* out) {
  out->set_x(v.x);
  out->set_y(v.y);
  out->set_z(v.z);
}

void SetClosestPointResult(const ClosestPointResult& r,
                           v1::ClosestPointResult* out) {
  SetVec3(r.closest_point, out->mutable_closest_point());
  SetVec3(r.surface_point, out->mutable_surface_point());
  SetVec3(r.normal, out->mutable_normal());
  out->set_signed_distance(r.signed_distance);
  out->set_gap(r.gap);
  out->set_inside(r.inside);
  if (r.has_query_point) SetVec3(r.query_point, out->mutable_query_point());
}

void FillIntersectResponse(const ParsedIntersect& request,
                           const std::vector<IntersectResult>& results,
                           v1::IntersectResponse* response) {
  response->Clear();
  response->mutable_results()->Reserve(static_cast<int>(results.size()));
  for (const IntersectResult& r : results) {
    v1::IntersectResult* out = response->add_results();
    out->set_hit(r.hit);
    if (request.include_relation) out->set_relation(ToProto(r.relation));
    if (request.include_separation) out->set_separation(r.separation);
  }
}

void FillClosestPointResponse(const std::vector<ClosestPointResult>& results,
                              v1::ClosestPointResponse* response) {
  response->Clear();
  response->mutable_results()->Reserve(static_cast<int>(results.size()));
  for (const ClosestPointResult& r : results) {
    SetClosestPointResult(r, response->add_results());
  }
}

}  // namespace collision::wire
