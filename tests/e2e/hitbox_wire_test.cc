// Capsules and oriented boxes through a real server on 127.0.0.1:0: every
// hitbox pairing answers as the core's hitbox functions answer in process,
// the same bits in both orders; hand-worked cases give the numbers a reader
// can check; every invalid field is refused by its path; scenes hold the
// kinds and rewind them.
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "collision/core/hitbox3.h"
#include "collision/core/scalar.h"
#include "collision/v1/collision.grpc.pb.h"
#include "collision/v1/scene.grpc.pb.h"
#include "collision/wire/convert.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/core/hitbox3_reference.h"
#include "tests/e2e/scene_session_testing.h"
#include "tests/util/local_server.h"
#include "tests/util/shape_proto.h"

namespace collision {
namespace {

using ::testing::HasSubstr;
using test_util::ToProto;

class HitboxWire : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = testing::StartServer({});
    ASSERT_NE(server_, nullptr);
    stub_ = v1::CollisionService::NewStub(grpc::CreateChannel(
        server_->address(), grpc::InsecureChannelCredentials()));
  }

  grpc::Status Intersect(const v1::IntersectRequest& request,
                         v1::IntersectResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    return stub_->Intersect(&context, request, response);
  }
  grpc::Status Closest(const v1::ClosestPointRequest& request,
                       v1::ClosestPointResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    return stub_->ClosestPoint(&context, request, response);
  }

  std::unique_ptr<server::CollisionServer> server_;
  std::unique_ptr<v1::CollisionService::Stub> stub_;
};

// Random hitbox-sized shapes: small integers now and then (exact touching),
// quarter turns and arbitrary unit quaternions.
class Maker {
 public:
  explicit Maker(uint32_t seed) : rng_(seed) {}
  float Coord() {
    if (Chance(0.3)) return float(Int(-4, 4));
    return std::uniform_real_distribution<float>(-5, 5)(rng_);
  }
  float Length() {
    if (Chance(0.1)) return 0.0f;
    if (Chance(0.3)) return float(Int(1, 3));
    return std::uniform_real_distribution<float>(0, 3)(rng_);
  }
  Vec3 Point() { return {Coord(), Coord(), Coord()}; }
  Quat Rotation() {
    if (Chance(0.2)) return Quat{};
    if (Chance(0.2)) {  // a quarter turn about z
      const float h = std::sqrt(0.5f);
      return Quat{h, 0, 0, h};
    }
    std::normal_distribution<double> g;
    double q[4], n = 0;
    for (double& v : q) v = g(rng_), n += v * v;
    n = std::sqrt(n);
    return Quat{float(q[0] / n), float(q[1] / n), float(q[2] / n),
                float(q[3] / n)};
  }
  Shape Of(ShapeKind k) {
    switch (k) {
      case ShapeKind::kPoint3:
        return Point();
      case ShapeKind::kSphere:
        return Sphere{Point(), Length()};
      case ShapeKind::kBox: {
        const Vec3 a = Point();
        return Box{a, {a.x + Length(), a.y + Length(), a.z + Length()}};
      }
      case ShapeKind::kCapsule3: {
        const Vec3 a = Point();
        return Capsule3{a, Chance(0.1) ? a : Point(), Length()};
      }
      case ShapeKind::kOrientedBox:
        return OrientedBox{Point(), {Length(), Length(), Length()}, Rotation()};
      default:
        ADD_FAILURE() << "not a 3D kind";
        return Vec3{};
    }
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }

 private:
  std::mt19937 rng_;
};

constexpr ShapeKind k3D[] = {ShapeKind::kPoint3, ShapeKind::kSphere,
                             ShapeKind::kBox, ShapeKind::kCapsule3,
                             ShapeKind::kOrientedBox};

bool IsHitbox(ShapeKind k) {
  return k == ShapeKind::kCapsule3 || k == ShapeKind::kOrientedBox;
}

// The core's own answer, from hitbox3.h's typed functions (not through the
// Shape dispatch the server uses): points as spheres of radius 0, boxes as
// AsOrientedBox, the pair in the order the typed function takes it.
IntersectResult Typed(const Shape& a, const Shape& b, Boundary rule) {
  auto sphere = [](const Shape& s) {
    if (const auto* p = std::get_if<Vec3>(&s)) return Sphere{*p, 0};
    return std::get<Sphere>(s);
  };
  // A capsule whose ends coincide is its sphere (hitbox3.h), and a sphere
  // against a sphere or a box is scalar.h's.
  for (const Shape* s : {&a, &b}) {
    const auto* c = std::get_if<Capsule3>(s);
    if (c == nullptr || c->a.x != c->b.x || c->a.y != c->b.y ||
        c->a.z != c->b.z) {
      continue;
    }
    const Shape ball = Sphere{c->a, c->radius};
    const Shape& other = s == &a ? b : a;
    if (IsBall(KindOf(other))) {
      return IntersectSphereSphere(sphere(ball), sphere(other), rule);
    }
    if (const auto* box = std::get_if<Box>(&other)) {
      return IntersectSphereBox(sphere(ball), *box, rule);
    }
    return s == &a ? Typed(ball, b, rule) : Typed(a, ball, rule);
  }
  auto obb = [](const Shape& s) {
    if (const auto* box = std::get_if<Box>(&s)) return AsOrientedBox(*box);
    return std::get<OrientedBox>(s);
  };
  const ShapeKind ka = KindOf(a), kb = KindOf(b);
  const bool ball_a = IsBall(ka), ball_b = IsBall(kb);
  const bool cap_a = ka == ShapeKind::kCapsule3;
  const bool cap_b = kb == ShapeKind::kCapsule3;
  if (ball_b && !ball_a) return Typed(b, a, rule);
  if (cap_b && !cap_a && !ball_a) return Typed(b, a, rule);
  if (ka == ShapeKind::kOrientedBox && kb == ShapeKind::kBox) {
    return Typed(b, a, rule);  // box_oriented_box: the box first
  }
  // Same kinds: the order whose bytes compare lower first (hitbox3.h).
  if (ka == kb && ka != ShapeKind::kBox && !ball_a &&
      std::visit(
          [&b](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            return std::memcmp(&x, std::get_if<T>(&b), sizeof(T)) > 0;
          },
          a)) {
    return Typed(b, a, rule);
  }
  if (ball_a) {
    if (cap_b) return Intersect(sphere(a), std::get<Capsule3>(b), rule);
    return Intersect(sphere(a), obb(b), rule);
  }
  if (cap_a) {
    if (cap_b) {
      return Intersect(std::get<Capsule3>(a), std::get<Capsule3>(b), rule);
    }
    return Intersect(std::get<Capsule3>(a), obb(b), rule);
  }
  return Intersect(obb(a), obb(b), rule);
}

TEST_F(HitboxWire, EveryHitboxPairingAnswersAsTheCoreInBothOrders) {
  Maker m(71);
  std::vector<std::pair<Shape, Shape>> pairs;
  while (pairs.size() < 3000) {
    const ShapeKind a = k3D[m.Int(0, 4)];
    const ShapeKind b = k3D[m.Int(0, 4)];
    if (!IsHitbox(a) && !IsHitbox(b)) continue;
    const Shape x = m.Of(a), y = m.Of(b);
    pairs.emplace_back(x, y);  // and the other way round, next
    pairs.emplace_back(y, x);
  }
  // Touching on purpose, in integers: a capsule along x of radius 1 on an
  // unturned box's face, a sphere on a capsule, two capsules end to end.
  for (int i = -3; i <= 3; ++i) {
    const Shape touching[][2] = {
        {Capsule3{{float(i), 0, 0}, {float(i + 3), 0, 0}, 1},
         OrientedBox{{float(i + 1), 2, 0}, {1, 1, 1}, {}}},
        {Sphere{{float(i), 3, 0}, 1}, Capsule3{{-5, 0, 0}, {5, 0, 0}, 2}},
        {Capsule3{{float(i), 0, 0}, {float(i + 1), 0, 0}, 1},
         Capsule3{{float(i + 3), 0, 0}, {float(i + 4), 0, 0}, 1}},
    };
    for (const auto& t : touching) {
      pairs.emplace_back(t[0], t[1]);
      pairs.emplace_back(t[1], t[0]);
    }
  }
  for (Boundary rule : {Boundary::kInclusive, Boundary::kExclusive}) {
    v1::IntersectRequest request;
    request.set_boundary(rule == Boundary::kInclusive
                             ? v1::BOUNDARY_RULE_INCLUSIVE
                             : v1::BOUNDARY_RULE_EXCLUSIVE);
    request.set_include_relation(true);
    request.set_include_separation(true);
    for (const auto& [a, b] : pairs) {
      v1::ShapePair* p = request.add_pairs();
      ToProto(a, p->mutable_a());
      ToProto(b, p->mutable_b());
    }
    v1::IntersectResponse response;
    const grpc::Status status = Intersect(request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ASSERT_EQ(response.results_size(), static_cast<int>(pairs.size()));
    int hits = 0, touching = 0, mismatches = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const IntersectResult want = Typed(pairs[i].first, pairs[i].second, rule);
      const v1::IntersectResult& got = response.results(static_cast<int>(i));
      if (got.hit() != want.hit || got.relation() != wire::ToProto(want.relation) ||
          got.separation() != want.separation) {
        if (++mismatches <= 5) {
          ADD_FAILURE() << "pair " << i << ": " << request.pairs(i).DebugString()
                        << " got " << got.DebugString() << " want hit "
                        << want.hit << " separation " << want.separation;
        }
      }
      hits += got.hit();
      touching += got.relation() == v1::RELATION_TOUCHING;
    }
    EXPECT_EQ(mismatches, 0);
    // Both orders give the same bits.
    for (int i = 0; i + 1 < response.results_size(); i += 2) {
      EXPECT_EQ(response.results(i).SerializeAsString(),
                response.results(i + 1).SerializeAsString())
          << "pair " << i;
    }
    // The sample reaches every answer: hits, misses, and touching.
    EXPECT_GT(hits, 300);
    EXPECT_LT(hits, int(pairs.size()) - 300);
    if (rule == Boundary::kInclusive) {
      EXPECT_GT(touching, 0);
    }
  }
}

// Worked by hand (docs/semantics.md gives the same conventions).
TEST_F(HitboxWire, HandWorkedIntersectCases) {
  const float s2 = std::sqrt(0.5f);  // a quarter turn: w = cos(pi/4)
  const float s8 = 0.9238795f, c8 = 0.38268343f;  // 45 degrees about z
  struct Case {
    const char* name;
    Shape a, b;
    v1::Relation relation;
    float separation;
  };
  const Capsule3 rod{{0, 0, 0}, {10, 0, 0}, 1};
  const Case cases[] = {
      // The box's near face y = 2 is 2 from the axis: 2 - 1 = 1 apart.
      {"capsule 1 from a box", rod, OrientedBox{{5, 3, 0}, {1, 1, 1}, {}},
       v1::RELATION_DISJOINT, 1.0f},
      {"capsule touching a face", rod, OrientedBox{{5, 2, 0}, {1, 1, 1}, {}},
       v1::RELATION_TOUCHING, 0.0f},
      // The same box turned 45 degrees about z: its corner points at the
      // axis, at 3 - sqrt(2) from it.
      {"capsule and a diamond's corner", rod,
       OrientedBox{{5, 3, 0}, {1, 1, 1}, {s8, 0, 0, c8}},
       v1::RELATION_DISJOINT, 3.0f - std::sqrt(2.0f) - 1.0f},
      // A 2 x 4 x 6 box turned a quarter about z is 4 x 2 x 6: the axis-
      // aligned box [2, 4] x [-1, 1] x [-3, 3] overlaps it by 0 along x.
      {"quarter-turned box against the box beside it",
       OrientedBox{{0, 0, 0}, {1, 2, 3}, {s2, 0, 0, s2}},
       Box{{2, 0, 0}, {4, 1, 1}}, v1::RELATION_TOUCHING, 0.0f},
      // Parallel capsules 3 apart, radii 1 and 1.5: 0.5 apart.
      {"parallel capsules", rod, Capsule3{{2, 3, 0}, {8, 3, 0}, 1.5f},
       v1::RELATION_DISJOINT, 0.5f},
      // A sphere of radius 1 centred 0.5 inside the capsule's surface.
      {"sphere in a capsule", Sphere{{5, 0.5f, 0}, 1}, rod,
       v1::RELATION_OVERLAPPING, -1.5f},
  };
  for (const Case& c : cases) {
    for (bool swap : {false, true}) {
      v1::IntersectRequest request;
      request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
      request.set_include_relation(true);
      request.set_include_separation(true);
      v1::ShapePair* p = request.add_pairs();
      ToProto(swap ? c.b : c.a, p->mutable_a());
      ToProto(swap ? c.a : c.b, p->mutable_b());
      v1::IntersectResponse response;
      ASSERT_TRUE(Intersect(request, &response).ok()) << c.name;
      EXPECT_EQ(response.results(0).relation(), c.relation) << c.name;
      EXPECT_NEAR(response.results(0).separation(), c.separation, 2e-6)
          << c.name;
    }
  }
}

TEST_F(HitboxWire, ClosestPointOnCapsulesAndOrientedBoxes) {
  const float s2 = std::sqrt(0.5f);
  struct Case {
    const char* name;
    Shape query, target;
    Vec3 closest, surface, normal;
    float signed_distance, gap;
    bool inside;
  };
  const Capsule3 rod{{-10, 0, 0}, {10, 0, 0}, 2};
  // Half-extents (1, 2, 3) turned a quarter about z: x extent 2, y extent 1.
  const OrientedBox turned{{0, 0, 0}, {1, 2, 3}, {s2, 0, 0, s2}};
  const Case cases[] = {
      {"point above a capsule", Vec3{0, 5, 0}, rod, {0, 2, 0}, {0, 2, 0},
       {0, 1, 0}, 3, 3, false},
      // Beyond the end: measured from the end point (10, 0, 0), at
      // sqrt(2^2 + 4^2) = 4.4721; the surface 2 along (2, 0, 4) / 4.4721.
      {"sphere beyond a capsule's end", Sphere{{12, 0, 4}, 1}, rod,
       {10.894427f, 0, 1.7888544f}, {10.894427f, 0, 1.7888544f},
       {0.4472136f, 0, 0.8944272f}, 2.4721360f, 1.4721360f, false},
      {"point inside a capsule", Vec3{0, 1, 0}, rod, {0, 1, 0}, {0, 2, 0},
       {0, 1, 0}, -1, -1, true},
      {"point above a turned box", Vec3{0, 0, 5}, turned, {0, 0, 3},
       {0, 0, 3}, {0, 0, 1}, 2, 2, false},
      {"point inside a turned box", Vec3{1.5f, 0, 0}, turned, {1.5f, 0, 0},
       {2, 0, 0}, {1, 0, 0}, -0.5f, -0.5f, true},
  };
  for (const Case& c : cases) {
    v1::ClosestPointRequest request;
    request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    v1::ClosestPointQuery* q = request.add_queries();
    ToProto(c.query, q->mutable_query());
    ToProto(c.target, q->mutable_target());
    v1::ClosestPointResponse response;
    const grpc::Status status = Closest(request, &response);
    ASSERT_TRUE(status.ok()) << c.name << ": " << status.error_message();
    const v1::ClosestPointResult& r = response.results(0);
    auto near = [&](const v1::Vec3& got, Vec3 want, const char* what) {
      EXPECT_NEAR(got.x(), want.x, 1e-5) << c.name << " " << what;
      EXPECT_NEAR(got.y(), want.y, 1e-5) << c.name << " " << what;
      EXPECT_NEAR(got.z(), want.z, 1e-5) << c.name << " " << what;
    };
    near(r.closest_point(), c.closest, "closest");
    near(r.surface_point(), c.surface, "surface");
    near(r.normal(), c.normal, "normal");
    EXPECT_NEAR(r.signed_distance(), c.signed_distance, 1e-5) << c.name;
    EXPECT_NEAR(r.gap(), c.gap, 1e-5) << c.name;
    EXPECT_EQ(r.inside(), c.inside) << c.name;
  }
}

TEST_F(HitboxWire, EveryInvalidFieldIsRefusedByItsPath) {
  struct Case {
    const char* why;
    std::function<void(v1::Shape*)> spoil;
    const char* message;
  };
  const OrientedBox box{{0, 0, 0}, {1, 1, 1}, {}};
  const Capsule3 capsule{{0, 0, 0}, {1, 0, 0}, 1};
  const std::vector<Case> cases = {
      {"non-unit quaternion",
       [&](v1::Shape* s) {
         ToProto(box, s);
         s->mutable_oriented_box()->mutable_rotation()->set_w(0.9f);
       },
       "pairs[0].b.oriented_box.rotation must have unit length"},
      {"all-zero quaternion (an unset w)",
       [&](v1::Shape* s) {
         ToProto(box, s);
         s->mutable_oriented_box()->mutable_rotation()->set_w(0);
       },
       "pairs[0].b.oriented_box.rotation must have unit length"},
      {"no rotation",
       [&](v1::Shape* s) {
         ToProto(box, s);
         s->mutable_oriented_box()->clear_rotation();
       },
       "pairs[0].b.oriented_box.rotation is required"},
      {"NaN in the quaternion",
       [&](v1::Shape* s) {
         ToProto(box, s);
         s->mutable_oriented_box()->mutable_rotation()->set_y(NAN);
       },
       "pairs[0].b.oriented_box.rotation must be finite"},
      {"negative half-extent",
       [&](v1::Shape* s) {
         ToProto(box, s);
         s->mutable_oriented_box()->mutable_half_extents()->set_y(-1);
       },
       "pairs[0].b.oriented_box.half_extents.y must be >= 0, got -1"},
      {"no half-extents",
       [&](v1::Shape* s) {
         ToProto(box, s);
         s->mutable_oriented_box()->clear_half_extents();
       },
       "pairs[0].b.oriented_box.half_extents is required"},
      {"capsule without its second end",
       [&](v1::Shape* s) {
         ToProto(capsule, s);
         s->mutable_capsule3()->clear_b();
       },
       "pairs[0].b.capsule3.b is required"},
      {"capsule of negative radius",
       [&](v1::Shape* s) {
         ToProto(capsule, s);
         s->mutable_capsule3()->set_radius(-2);
       },
       "pairs[0].b.capsule3.radius must be >= 0, got -2"},
      {"capsule end out of range",
       [&](v1::Shape* s) {
         ToProto(capsule, s);
         s->mutable_capsule3()->mutable_a()->set_z(2e9f);
       },
       "pairs[0].b.capsule3.a.z must be within [-1e9, 1e9]"},
  };
  for (const Case& c : cases) {
    v1::IntersectRequest request;
    request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    v1::ShapePair* p = request.add_pairs();
    ToProto(Sphere{{0, 0, 0}, 1}, p->mutable_a());
    c.spoil(p->mutable_b());
    v1::IntersectResponse response;
    const grpc::Status status = Intersect(request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.why;
    EXPECT_THAT(status.error_message(), HasSubstr(c.message)) << c.why;
  }
  // A hitbox pairs with 3D shapes only.
  v1::IntersectRequest mixed;
  mixed.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  ToProto(Circle{{0, 0}, 1}, mixed.add_pairs()->mutable_a());
  ToProto(capsule, mixed.mutable_pairs(0)->mutable_b());
  v1::IntersectResponse ignored;
  const grpc::Status two_d = Intersect(mixed, &ignored);
  EXPECT_EQ(two_d.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(two_d.error_message(), HasSubstr("pairs[0]"));
  v1::ClosestPointRequest query;
  query.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  ToProto(capsule, query.add_queries()->mutable_query());
  ToProto(Circle{{0, 0}, 1}, query.mutable_queries(0)->mutable_target());
  v1::ClosestPointResponse closest;
  const grpc::Status flat_target = Closest(query, &closest);
  EXPECT_EQ(flat_target.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(flat_target.error_message(),
              HasSubstr("queries[0]: query capsule3 and target circle mix a "
                        "2D and a 3D shape"));
}

// A character's hitboxes as scene entities, moved over two ticks and shot
// at in between: the rewound ray sees the interpolated poses (worked by
// hand), overlap and nearest see the latest.
TEST_F(HitboxWire, ScenesHoldCapsulesAndOrientedBoxesRewound) {
  scene_testing::Session session(*server_);
  v1::SceneRequest config = scene_testing::Config(v1::DIMENSION_3D);
  config.mutable_config()->set_history_ticks(8);
  ASSERT_FALSE(session.Send(config).has_error());
  const float s2 = std::sqrt(0.5f);
  auto update = [&](uint64_t tick, float lift, Quat turn) {
    v1::SceneRequest r;
    r.mutable_update()->set_tick(tick);
    v1::SceneEntity* leg = r.mutable_update()->add_upserts();
    leg->set_id(17);  // player 1, part 1
    ToProto(Capsule3{{0, lift, 0}, {10, lift, 0}, 1}, leg->mutable_shape());
    v1::SceneEntity* head = r.mutable_update()->add_upserts();
    head->set_id(18);  // player 1, part 2
    ToProto(OrientedBox{{20, 0, 0}, {1, 2, 3}, turn}, head->mutable_shape());
    return r;
  };
  ASSERT_FALSE(session.Send(update(1, 0, Quat{})).has_error());
  v1::SceneRequest second = update(2, 2, Quat{s2, 0, 0, s2});
  // Rays along +y at x = 5 (through the capsule) and at x = 21.5 (through
  // the box), at tick 1 + 0.5.
  for (float x : {5.0f, 21.5f}) {
    v1::SceneQuery* q = second.add_queries();
    q->mutable_at()->set_tick(1);
    q->mutable_at()->set_fraction(0.5f);
    v1::RaycastQuery* ray = q->mutable_raycast();
    ray->mutable_origin()->set_x(x);
    ray->mutable_origin()->set_y(-10);
    ray->mutable_direction()->set_y(1);
    ray->set_max_distance(100);
  }
  // The latest tick: a sphere over the turned box's top face (z = 3).
  v1::SceneQuery* overlap = second.add_queries();
  ToProto(Sphere{{20, 0, 4}, 1.5f}, overlap->mutable_overlap()->mutable_shape());
  overlap->mutable_overlap()->set_include_separation(true);
  v1::SceneQuery* nearest = second.add_queries();
  ToProto(Vec3{5, 10, 0}, nearest->mutable_nearest()->mutable_shape());
  nearest->mutable_nearest()->set_k(1);
  const v1::SceneResponse r = session.Send(second);
  ASSERT_FALSE(r.has_error()) << r.error().message();
  ASSERT_EQ(r.results_size(), 4);
  // Capsule halfway up: its axis at y = 1, its surface at y = 0: t = 10.
  ASSERT_EQ(r.results(0).hits_size(), 1);
  EXPECT_EQ(r.results(0).hits(0).id(), 17u);
  EXPECT_NEAR(r.results(0).hits(0).distance(), 10.0f, 1e-5);
  EXPECT_NEAR(r.results(0).hits(0).normal().y(), -1.0f, 1e-6);
  // The box halfway through a quarter turn about z: turned 45 degrees.
  // Relative to its centre the ray is X = 1.5, Y = t - 10; in the box frame
  // u = (X + Y) / sqrt(2), v = (Y - X) / sqrt(2), inside for |u| <= 1 and
  // |v| <= 2: it enters through the face v = -2, at Y = 1.5 - 2 sqrt(2),
  // whose outward normal is (sqrt(1/2), -sqrt(1/2), 0).
  const double entry = 10.0 + 1.5 - 2.0 * std::sqrt(2.0);
  ASSERT_EQ(r.results(1).hits_size(), 1);
  EXPECT_EQ(r.results(1).hits(0).id(), 18u);
  EXPECT_NEAR(r.results(1).hits(0).distance(), entry, 1e-5);
  EXPECT_NEAR(r.results(1).hits(0).normal().x(), std::sqrt(0.5), 1e-6);
  EXPECT_NEAR(r.results(1).hits(0).normal().y(), -std::sqrt(0.5), 1e-6);
  // The sphere 1 above the face z = 3 (radius 1.5): 0.5 deep.
  ASSERT_EQ(r.results(2).hits_size(), 1);
  EXPECT_EQ(r.results(2).hits(0).id(), 18u);
  EXPECT_NEAR(r.results(2).hits(0).separation(), -0.5f, 1e-6);
  // Nearest to (5, 10, 0): the capsule at its latest pose (axis y = 2),
  // 7 away from its surface.
  ASSERT_EQ(r.results(3).hits_size(), 1);
  EXPECT_EQ(r.results(3).hits(0).id(), 17u);
  EXPECT_NEAR(r.results(3).hits(0).closest().signed_distance(), 7.0f, 1e-5);
  EXPECT_TRUE(session.Close().ok());
}

// The same hitboxes given as columns answer as given one by one; a bad row
// is named by its group, column family and row.
TEST_F(HitboxWire, SceneColumnsOfHitboxesAnswerAsPerEntityUpserts) {
  const float s2 = std::sqrt(0.5f);
  const Capsule3 limb{{0, 0, 0}, {10, 0, 0}, 1};
  const OrientedBox head{{20, 0, 0}, {1, 2, 3}, {s2, 0, 0, s2}};
  auto ask = [](v1::SceneRequest* r) {
    for (float x : {5.0f, 20.5f}) {
      v1::RaycastQuery* ray = r->add_queries()->mutable_raycast();
      ray->mutable_origin()->set_x(x);
      ray->mutable_origin()->set_y(-10);
      ray->mutable_direction()->set_y(1);
      ray->set_max_distance(100);
    }
  };
  std::vector<std::string> answers;
  for (bool columns : {false, true}) {
    scene_testing::Session session(*server_);
    ASSERT_FALSE(
        session.Send(scene_testing::Config(v1::DIMENSION_3D)).has_error());
    v1::SceneRequest r;
    r.mutable_update()->set_tick(1);
    if (columns) {
      v1::EntityColumns* c = r.mutable_update()->add_upsert_columns();
      c->add_ids(1);
      v1::Capsule3Columns* caps = c->mutable_capsules();
      caps->add_a_x(limb.a.x), caps->add_a_y(limb.a.y), caps->add_a_z(0);
      caps->add_b_x(limb.b.x), caps->add_b_y(limb.b.y), caps->add_b_z(0);
      caps->add_radius(limb.radius);
      v1::EntityColumns* o = r.mutable_update()->add_upsert_columns();
      o->add_ids(2);
      v1::OrientedBoxColumns* box = o->mutable_oriented_boxes();
      box->add_center_x(20), box->add_center_y(0), box->add_center_z(0);
      box->add_half_x(1), box->add_half_y(2), box->add_half_z(3);
      box->add_rotation_w(s2), box->add_rotation_x(0);
      box->add_rotation_y(0), box->add_rotation_z(s2);
    } else {
      v1::SceneEntity* a = r.mutable_update()->add_upserts();
      a->set_id(1);
      ToProto(limb, a->mutable_shape());
      v1::SceneEntity* b = r.mutable_update()->add_upserts();
      b->set_id(2);
      ToProto(head, b->mutable_shape());
    }
    ask(&r);
    v1::SceneResponse answer = session.Send(r);
    ASSERT_FALSE(answer.has_error()) << answer.error().message();
    ASSERT_EQ(answer.results_size(), 2);
    EXPECT_EQ(answer.results(0).hits_size(), 1);
    EXPECT_EQ(answer.results(1).hits_size(), 1);
    answer.clear_sequence();
    answers.push_back(answer.SerializeAsString());
    if (columns) {
      // Row 1 of a group turned by a quaternion of length 2.
      v1::SceneRequest bad;
      bad.mutable_update()->set_tick(2);
      v1::EntityColumns* o = bad.mutable_update()->add_upsert_columns();
      v1::OrientedBoxColumns* box = o->mutable_oriented_boxes();
      for (int row = 0; row < 2; ++row) {
        o->add_ids(10 + row);
        box->add_center_x(0), box->add_center_y(0), box->add_center_z(0);
        box->add_half_x(1), box->add_half_y(1), box->add_half_z(1);
        box->add_rotation_w(row == 1 ? 2.0f : 1.0f), box->add_rotation_x(0);
        box->add_rotation_y(0), box->add_rotation_z(0);
      }
      const v1::SceneResponse refused = session.Send(bad);
      ASSERT_TRUE(refused.has_error());
      EXPECT_THAT(refused.error().message(),
                  HasSubstr("update.upsert_columns[0].oriented_boxes[1]."
                            "rotation must have unit length"));
    }
    EXPECT_TRUE(session.Close().ok());
  }
  EXPECT_EQ(answers[0], answers[1]);
}

// Capsule, box and oriented-box queries are measured as shapes: on random
// pairs against every 3D target, the answer's two points lie on the two
// surfaces, their distance and the separation equal the independent double
// reference's (tests/core/hitbox3_reference.h), and the normal points from
// the target's point to the query's.
TEST_F(HitboxWire, ShapeQueriesMeetTheIndependentReference) {
  namespace ref = hitbox3_reference;
  Maker m(83);
  constexpr ShapeKind kQueries[] = {ShapeKind::kCapsule3, ShapeKind::kBox,
                                    ShapeKind::kOrientedBox};
  std::vector<std::pair<Shape, Shape>> items;
  for (int i = 0; i < 600; ++i) {
    items.emplace_back(m.Of(kQueries[i % 3]), m.Of(k3D[m.Int(0, 4)]));
  }
  v1::ClosestPointRequest request;
  request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  for (const auto& [q, t] : items) {
    v1::ClosestPointQuery* item = request.add_queries();
    ToProto(q, item->mutable_query());
    ToProto(t, item->mutable_target());
  }
  v1::ClosestPointResponse response;
  const grpc::Status status = Closest(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.results_size(), static_cast<int>(items.size()));
  // Every shape as what the reference takes: a capsule (a sphere is one of
  // length 0) or an oriented box.
  auto obb = [](const Shape& s) {
    if (const auto* box = std::get_if<Box>(&s)) return AsOrientedBox(*box);
    return std::get<OrientedBox>(s);
  };
  auto capsule = [](const Shape& s) -> std::optional<Capsule3> {
    if (const auto* p = std::get_if<Vec3>(&s)) return Capsule3{*p, *p, 0};
    if (const auto* b = std::get_if<Sphere>(&s)) {
      return Capsule3{b->center, b->center, b->radius};
    }
    if (const auto* c = std::get_if<Capsule3>(&s)) return *c;
    return std::nullopt;
  };
  auto separation = [&](const Shape& a, const Shape& b) {
    const auto ca = capsule(a), cb = capsule(b);
    if (ca && cb) return ref::CapsuleCapsule(*ca, *cb);
    if (ca) return ref::CapsuleBox(*ca, obb(b));
    if (cb) return ref::CapsuleBox(*cb, obb(a));
    return ref::BoxBox(obb(a), obb(b));
  };
  // Distance from p to the shape's surface from outside (0 inside).
  auto off_surface = [&](const Shape& s, const ref::D3& p) {
    if (const auto c = capsule(s)) {
      return std::max(
          0.0, ref::PointSegmentDistance(p, ref::D(c->a), ref::D(c->b)) -
                   c->radius);
    }
    return ref::PointBoxDistance(ref::MakeBox(obb(s)), p);
  };
  auto d3 = [](const v1::Vec3& v) { return ref::D3{v.x(), v.y(), v.z()}; };
  int apart = 0, meeting = 0;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& [q, t] = items[i];
    const v1::ClosestPointResult& r = response.results(static_cast<int>(i));
    const double want = separation(q, t);
    SCOPED_TRACE(::testing::Message() << "item " << i << ": "
                                    << request.queries(static_cast<int>(i))
                                           .ShortDebugString());
    ASSERT_TRUE(r.has_query_point());
    EXPECT_NEAR(r.signed_distance(), want, 2e-5);
    EXPECT_EQ(r.gap(), r.signed_distance());
    EXPECT_EQ(r.inside(), r.signed_distance() <= 0.0f);
    if (want < 1e-3) {
      ++meeting;
      continue;
    }
    ++apart;
    const ref::D3 qp = d3(r.query_point()), sp = d3(r.surface_point());
    EXPECT_LT(off_surface(q, qp), 2e-5);  // on (or in) the query
    EXPECT_LT(off_surface(t, sp), 2e-5);  // on (or in) the target
    EXPECT_NEAR(ref::Norm(ref::Sub(qp, sp)), want, 2e-5);
    const ref::D3 gap = ref::Sub(qp, sp);
    const ref::D3 dir = ref::Mul(gap, 1.0 / ref::Norm(gap));
    EXPECT_GT(ref::Dot(dir, d3(r.normal())), 1.0 - 1e-3);
    EXPECT_EQ(r.closest_point().SerializeAsString(),
              r.surface_point().SerializeAsString());
  }
  EXPECT_GT(apart, 200);
  EXPECT_GT(meeting, 50);
}

}  // namespace
}  // namespace collision
