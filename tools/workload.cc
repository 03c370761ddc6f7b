#include "tools/workload.h"

#include <cmath>
#include <random>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "collision/client/client.h"
#include "collision/client/shapes.h"
#include "google/protobuf/util/json_util.h"
#include "tools/verify.h"

namespace collision::load {
namespace {

namespace c = collision::client;

// Portable draws: std::uniform_real_distribution's output is not fixed by
// the standard, these are.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  // Uniform in [lo, hi), from the top 24 bits.
  float Uniform(float lo, float hi) {
    const float u = float(engine_() >> 40) * (1.0f / 16777216.0f);
    return lo + (hi - lo) * u;
  }
  template <typename T>
  T Pick(const std::vector<std::pair<T, double>>& mix) {
    double total = 0;
    for (const auto& [value, weight] : mix) total += weight;
    double x = double(engine_() >> 11) * 0x1.0p-53 * total;
    for (const auto& [value, weight] : mix) {
      if (x < weight) return value;
      x -= weight;
    }
    return mix.back().first;
  }

 private:
  std::mt19937_64 engine_;
};

constexpr float kWorld = 1000;

std::pair<v1::Shape, v1::Shape> MakePair(Rng& r, PairKind kind, Rpc rpc) {
  const float x = r.Uniform(0, kWorld), y = r.Uniform(0, kWorld),
              z = r.Uniform(0, kWorld);
  // The second shape lands near the first so that about half the pairs hit.
  auto near = [&](float v) { return v + r.Uniform(-40, 40); };
  const float radius = r.Uniform(1, 20);
  const float w = r.Uniform(1, 40), h = r.Uniform(1, 40), d = r.Uniform(1, 40);
  const bool closest = rpc == Rpc::kClosestPoint;
  switch (kind) {
    case PairKind::kCircleCircle:
      return {c::Circle(x, y, radius), c::Circle(near(x), near(y), h / 2)};
    case PairKind::kCircleRect:
      return {c::Circle(x, y, radius),
              c::RectFromCornerSize(near(x) - w / 2, near(y) - h / 2, w, h)};
    case PairKind::kCircleRotatedRect:
      return {c::Circle(x, y, radius),
              c::RotatedRectFromPivot(w, h, r.Uniform(0, w), r.Uniform(0, h),
                                      near(x), near(y),
                                      r.Uniform(-3.14159f, 3.14159f))};
    case PairKind::kRectRect:
      return {closest ? c::Point(x, y) : c::RectFromCornerSize(x, y, w, h),
              c::RectFromCornerSize(near(x), near(y), h, w)};
    case PairKind::kSphereSphere:
      return {c::Sphere(x, y, z, radius),
              c::Sphere(near(x), near(y), near(z), h / 2)};
    case PairKind::kSphereBox:
      return {c::Sphere(x, y, z, radius),
              c::BoxFromCenterHalfExtents(near(x), near(y), near(z), w / 2,
                                          h / 2, d / 2)};
    case PairKind::kBoxBox:
      return {closest
                  ? c::Point3(x, y, z)
                  : c::BoxFromCenterHalfExtents(x, y, z, w / 2, h / 2, d / 2),
              c::BoxFromCenterHalfExtents(near(x), near(y), near(z), h / 2,
                                          d / 2, w / 2)};
    default:
      break;
  }
  // The hitbox kinds: capsules (limbs) of length up to 40 and oriented
  // boxes turned about a random axis, near each other like parts of one
  // body. A closest-point query is a point3 where the pairing's first
  // shape is not a ball.
  auto capsule = [&](float cx, float cy, float cz) {
    return c::Capsule3(cx, cy, cz, cx + r.Uniform(-20, 20),
                       cy + r.Uniform(-20, 20), cz + r.Uniform(-20, 20),
                       radius);
  };
  auto oriented = [&](float cx, float cy, float cz) {
    return c::OrientedBoxAxisAngle(cx, cy, cz, w / 2, h / 2, d / 2,
                                   r.Uniform(-1, 1), r.Uniform(-1, 1),
                                   r.Uniform(-1, 1),
                                   r.Uniform(-3.14159f, 3.14159f));
  };
  const v1::Shape first =
      closest ? c::Point3(x, y, z)
      : kind == PairKind::kCapsuleCapsule || kind == PairKind::kCapsuleBox ||
              kind == PairKind::kCapsuleOrientedBox
          ? capsule(x, y, z)
      : kind == PairKind::kBoxOrientedBox
          ? c::BoxFromCenterHalfExtents(x, y, z, w / 2, h / 2, d / 2)
      : kind == PairKind::kOrientedBoxOrientedBox ? oriented(x, y, z)
                                                  : c::Sphere(x, y, z, radius);
  switch (kind) {
    case PairKind::kSphereCapsule:
    case PairKind::kCapsuleCapsule:
      return {first, capsule(near(x), near(y), near(z))};
    case PairKind::kCapsuleBox:
      return {first, c::BoxFromCenterHalfExtents(near(x), near(y), near(z),
                                                 h / 2, d / 2, w / 2)};
    case PairKind::kSphereOrientedBox:
    case PairKind::kCapsuleOrientedBox:
    case PairKind::kBoxOrientedBox:
    case PairKind::kOrientedBoxOrientedBox:
      return {first, oriented(near(x), near(y), near(z))};
    default:  // closest-point kinds: never in a kind mix (ParseKindMix)
      break;
  }
  return {};
}

void Serialize(Item* item);

absl::Status BuildRequest(Item* item, bool exclusive) {
  const v1::BoundaryRule rule =
      exclusive ? v1::BOUNDARY_RULE_EXCLUSIVE : v1::BOUNDARY_RULE_INCLUSIVE;
  if (item->op.rpc == Rpc::kIntersect) {
    if (item->op.wire == Wire::kPairs) {
      auto req = std::make_shared<v1::IntersectRequest>();
      req->set_boundary(rule);
      for (const auto& [a, b] : item->shapes) {
        auto* p = req->add_pairs();
        *p->mutable_a() = a;
        *p->mutable_b() = b;
      }
      item->intersect = std::move(req);
    } else {
      auto batch = std::make_shared<c::IntersectColumnsBatch>();
      if (exclusive) batch->Exclusive();
      for (const auto& [a, b] : item->shapes) batch->Add(a, b);
      if (!batch->status().ok()) return batch->status();
      item->intersect_columns = std::move(batch);
    }
  } else {
    if (item->op.wire == Wire::kPairs) {
      auto req = std::make_shared<v1::ClosestPointRequest>();
      req->set_boundary(rule);
      for (const auto& [a, b] : item->shapes) {
        auto* q = req->add_queries();
        *q->mutable_query() = a;
        *q->mutable_target() = b;
      }
      item->closest = std::move(req);
    } else {
      auto batch = std::make_shared<c::ClosestPointColumnsBatch>();
      if (exclusive) batch->Exclusive();
      for (const auto& [a, b] : item->shapes) batch->Add(a, b);
      if (!batch->status().ok()) return batch->status();
      item->closest_columns = std::move(batch);
    }
  }
  Serialize(item);
  return absl::OkStatus();
}

// Sets the item's method and its request serialised once.
void Serialize(Item* item) {
  if (item->intersect) {
    item->method = c::Client::MethodPath("Intersect");
    item->serialized = item->intersect->SerializeAsString();
  } else if (item->closest) {
    item->method = c::Client::MethodPath("ClosestPoint");
    item->serialized = item->closest->SerializeAsString();
  } else if (item->intersect_columns) {
    item->method = c::Client::MethodPath("IntersectColumns");
    item->serialized = item->intersect_columns->request().SerializeAsString();
  } else {
    item->method = c::Client::MethodPath("ClosestPointColumns");
    item->serialized = item->closest_columns->request().SerializeAsString();
  }
  grpc::Slice slice(item->serialized);
  item->serialized_buffer = std::make_shared<const grpc::ByteBuffer>(&slice, 1);
}

// "name[:weight],..." into (value, weight) with `lookup` naming values.
template <typename T, typename Lookup>
absl::StatusOr<std::vector<std::pair<T, double>>> ParseMix(
    const std::string& text, const char* what, Lookup lookup) {
  std::vector<std::pair<T, double>> out;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<std::string> nw = absl::StrSplit(part, ':');
    double weight = 1;
    if (nw.size() > 2 ||
        (nw.size() == 2 &&
         (!absl::SimpleAtod(nw[1], &weight) || !(weight > 0)))) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": bad entry \"", part, "\" (want name[:weight>0])"));
    }
    T value;
    if (!lookup(nw[0], &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": unknown name \"", nw[0], "\""));
    }
    out.emplace_back(value, weight);
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is empty"));
  }
  return out;
}

}  // namespace

std::string OpName(Op op) {
  const char* wire = op.wire == Wire::kPairs     ? "pairs"
                     : op.wire == Wire::kColumns ? "columns"
                                                 : "stream";
  return absl::StrCat(op.rpc == Rpc::kIntersect ? "intersect" : "closest", "_",
                      wire);
}

absl::StatusOr<std::vector<std::pair<Op, double>>> ParseOpMix(
    const std::string& text) {
  return ParseMix<Op>(text, "rpc mix", [](const std::string& name, Op* op) {
    for (Rpc rpc : {Rpc::kIntersect, Rpc::kClosestPoint}) {
      for (Wire wire : {Wire::kPairs, Wire::kColumns, Wire::kStream}) {
        if (OpName(Op{rpc, wire}) == name) {
          *op = Op{rpc, wire};
          return true;
        }
      }
    }
    return false;
  });
}

absl::StatusOr<std::vector<std::pair<PairKind, double>>> ParseKindMix(
    const std::string& text) {
  return ParseMix<PairKind>(text, "kind mix",
                            [](const std::string& name, PairKind* kind) {
                              for (int k = 0; k < kPairKinds; ++k) {
                                if (name == kWorkKindTable[k].name) {
                                  *kind = static_cast<PairKind>(k);
                                  return true;
                                }
                              }
                              return false;
                            });
}

absl::StatusOr<Workload> Workload::Create(const WorkloadOptions& options) {
  if (options.batch < 1)
    return absl::InvalidArgumentError("batch must be >= 1");
  if (options.pool < 1) return absl::InvalidArgumentError("pool must be >= 1");
  if (options.ops.empty() || options.kinds.empty()) {
    return absl::InvalidArgumentError("empty rpc or kind mix");
  }
  Workload w;
  w.options_ = options;
  w.items_.resize(static_cast<std::size_t>(options.pool));
  for (int i = 0; i < options.pool; ++i) {
    // One generator per item: item i does not depend on the pool size.
    Rng r(options.seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i));
    Item& item = w.items_[static_cast<std::size_t>(i)];
    item.op = r.Pick(options.ops);
    item.pairs = options.batch;
    item.shapes.reserve(static_cast<std::size_t>(options.batch));
    for (int p = 0; p < options.batch; ++p) {
      item.shapes.push_back(MakePair(r, r.Pick(options.kinds), item.op.rpc));
    }
    if (absl::Status s = BuildRequest(&item, options.exclusive); !s.ok()) {
      return s;
    }
    if (options.verify) ComputeExpected(&item, options.exclusive);
  }
  return w;
}

absl::StatusOr<Workload> Workload::FromJson(const WorkloadOptions& options,
                                            const std::string& json) {
  if (options.ops.size() != 1 || options.ops[0].first.wire != Wire::kPairs) {
    return absl::InvalidArgumentError(
        "a request file takes one --rpc: intersect_pairs or closest_pairs");
  }
  Workload w;
  w.options_ = options;
  Item item;
  item.op = options.ops[0].first;
  bool exclusive = false;
  google::protobuf::util::JsonParseOptions strict;  // unknown fields: error
  auto parse = [&](google::protobuf::Message* m) -> absl::Status {
    const auto s = google::protobuf::util::JsonStringToMessage(json, m, strict);
    if (s.ok()) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("request file is not a ", m->GetDescriptor()->name(),
                     " in proto JSON: ", s.ToString()));
  };
  if (item.op.rpc == Rpc::kIntersect) {
    auto req = std::make_shared<v1::IntersectRequest>();
    if (absl::Status s = parse(req.get()); !s.ok()) return s;
    for (const v1::ShapePair& p : req->pairs()) {
      item.shapes.emplace_back(p.a(), p.b());
    }
    exclusive = req->boundary() == v1::BOUNDARY_RULE_EXCLUSIVE;
    item.intersect = std::move(req);
  } else {
    auto req = std::make_shared<v1::ClosestPointRequest>();
    if (absl::Status s = parse(req.get()); !s.ok()) return s;
    for (const v1::ClosestPointQuery& q : req->queries()) {
      item.shapes.emplace_back(q.query(), q.target());
    }
    exclusive = req->boundary() == v1::BOUNDARY_RULE_EXCLUSIVE;
    item.closest = std::move(req);
  }
  item.pairs = static_cast<int>(item.shapes.size());
  Serialize(&item);
  if (options.verify) ComputeExpected(&item, exclusive);
  w.options_.batch = item.pairs;
  w.options_.pool = 1;
  w.options_.exclusive = exclusive;
  w.items_.push_back(std::move(item));
  return w;
}

}  // namespace collision::load
