// Writes the cross-language golden vectors (testdata/golden/golden.json) to
// stdout. Run by hand when the cases or the contract change, never by tests:
//
//   ninja -C build collision_golden_gen
//   build/tools/golden/collision_golden_gen > testdata/golden/golden.json
//
// Requests are built with the C++ client's shape builders (the seeds'
// parametrisations) and written as canonical proto3 JSON. Expected answers
// come from the scalar reference (collision::Intersect / ClosestPoint) after
// the server's own validation (server::Parse*Request), which also supplies the
// expected error messages. Cases marked hand_checked carry the answer worked
// out by hand (relations, closest points); the generator aborts if the scalar
// reference disagrees with it, so the file cannot silently drift from the
// hand review.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collision/client/shapes.h"
#include "collision/core/scalar.h"
#include "google/protobuf/util/json_util.h"
#include "server/convert.h"

namespace collision::golden {
namespace {

namespace c = collision::client;

constexpr float kHalfPi = 1.57079637f;  // float(pi / 2): an exact quarter turn
constexpr float kPi6 = 0.52359879f;     // float(pi / 6), 30 degrees
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

constexpr v1::Relation kD = v1::RELATION_DISJOINT;
constexpr v1::Relation kT = v1::RELATION_TOUCHING;
constexpr v1::Relation kO = v1::RELATION_OVERLAPPING;

// A closest-point answer worked out by hand.
struct HandClosest {
  float x, y, z;  // closest_point
  float signed_distance;
  bool inside;
  float nx, ny, nz;  // normal
};

struct Case {
  std::string name;
  std::string source;  // where the case comes from (seed, proto comment)
  std::string note;    // what it shows, and the hand computation
  std::optional<v1::IntersectRequest> intersect;
  std::optional<v1::ClosestPointRequest> closest;
  // Hand-checked answers (empty: not hand-checked).
  std::vector<v1::Relation> hand_relations;
  std::vector<HandClosest> hand_closest;
  // Error cases: the substring (field path and reason) a client must see.
  std::string message_contains;
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "collision_golden_gen: %s\n", what.c_str());
  std::exit(1);
}

std::string Json(const google::protobuf::Message& m) {
  std::string out;
  const auto s = google::protobuf::util::MessageToJsonString(m, &out);
  if (!s.ok()) Die(s.ToString());
  return out;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

const char* CodeName(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
      return "INVALID_ARGUMENT";
    default:
      Die(absl::StrCat("unexpected status code ", static_cast<int>(code)));
  }
}

bool Near(float got, float want) {
  return std::fabs(got - want) <= 1e-5f * std::max(1.0f, std::fabs(want));
}

// Computes the expected answer of one case: "response" or "error" JSON.
std::string Expect(const Case& k) {
  const server::RequestLimits limits;
  absl::Status status;
  std::string response;
  if (k.intersect) {
    auto parsed = server::ParseIntersectRequest(*k.intersect, limits);
    status = parsed.status();
    if (parsed.ok()) {
      std::vector<IntersectResult> results;
      for (const ShapePair& p : parsed->pairs) {
        results.push_back(Intersect(p.a, p.b, parsed->boundary));
      }
      v1::IntersectResponse r;
      server::FillIntersectResponse(*parsed, results, &r);
      if (!k.hand_relations.empty()) {
        if (k.hand_relations.size() != results.size()) Die(k.name + ": count");
        for (size_t i = 0; i < results.size(); ++i) {
          const Relation got = results[i].relation;
          const v1::Relation want = k.hand_relations[i];
          const bool same = (got == Relation::kDisjoint && want == kD) ||
                            (got == Relation::kTouching && want == kT) ||
                            (got == Relation::kOverlapping && want == kO);
          if (!same)
            Die(absl::StrCat(k.name, ": hand relation differs at ", i));
        }
      }
      response = Json(r);
    }
  } else {
    auto parsed = server::ParseClosestPointRequest(*k.closest, limits);
    status = parsed.status();
    if (parsed.ok()) {
      v1::ClosestPointResponse r;
      std::vector<ClosestPointResult> results;
      for (const ClosestPointItem& item : parsed->items) {
        results.push_back(
            ClosestPoint(item.query, item.target, parsed->boundary));
      }
      server::FillClosestPointResponse(results, &r);
      if (!k.hand_closest.empty()) {
        if (k.hand_closest.size() != results.size()) Die(k.name + ": count");
        for (size_t i = 0; i < results.size(); ++i) {
          const ClosestPointResult& g = results[i];
          const HandClosest& w = k.hand_closest[i];
          if (!Near(g.closest_point.x, w.x) || !Near(g.closest_point.y, w.y) ||
              !Near(g.closest_point.z, w.z) ||
              !Near(g.signed_distance, w.signed_distance) ||
              g.inside != w.inside || !Near(g.normal.x, w.nx) ||
              !Near(g.normal.y, w.ny) || !Near(g.normal.z, w.nz)) {
            Die(absl::StrCat(k.name, ": hand closest point differs at ", i));
          }
        }
      }
      response = Json(r);
    }
  }
  if (k.message_contains.empty() != status.ok()) {
    Die(absl::StrCat(k.name, ": expected ",
                     k.message_contains.empty() ? "success" : "an error",
                     ", got ", status.ToString()));
  }
  if (!status.ok()) {
    const std::string message(status.message());
    if (message.find(k.message_contains) == std::string::npos) {
      Die(absl::StrCat(k.name, ": message lacks '", k.message_contains,
                       "': ", message));
    }
    return absl::StrCat(
        "\"error\": {\"code\": ", Quote(CodeName(status.code())),
        ", \"message_contains\": ", Quote(k.message_contains),
        ", \"message\": ", Quote(message), "}");
  }
  return absl::StrCat("\"response\": ", response);
}

// ---- Case builders ---------------------------------------------------------

c::IntersectBatch Incl() {
  c::IntersectBatch b;
  b.Inclusive().WithRelation().WithSeparation();
  return b;
}
c::IntersectBatch Excl() {
  c::IntersectBatch b;
  b.Exclusive().WithRelation().WithSeparation();
  return b;
}

Case I(std::string name, std::string source, std::string note,
       const c::IntersectBatch& b, std::vector<v1::Relation> hand = {}) {
  Case k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.note = std::move(note);
  k.intersect = b.request();
  k.hand_relations = std::move(hand);
  return k;
}

Case IErr(std::string name, std::string source, const v1::IntersectRequest& r,
          std::string contains) {
  Case k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.note = "rejected whole with INVALID_ARGUMENT; the message names the field";
  k.intersect = r;
  k.message_contains = std::move(contains);
  return k;
}

Case CP(std::string name, std::string source, std::string note,
        const c::ClosestPointBatch& b, std::vector<HandClosest> hand = {}) {
  Case k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.note = std::move(note);
  k.closest = b.request();
  k.hand_closest = std::move(hand);
  return k;
}

Case CPErr(std::string name, std::string source,
           const v1::ClosestPointRequest& r, std::string contains) {
  Case k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.note = "rejected whole with INVALID_ARGUMENT; the message names the field";
  k.closest = r;
  k.message_contains = std::move(contains);
  return k;
}

v1::IntersectRequest One(v1::Shape a, v1::Shape b) {
  return c::IntersectBatch().Add(std::move(a), std::move(b)).request();
}

std::vector<Case> SeedCases() {
  std::vector<Case> v;
  const std::string s0 = "seed 000";
  v.push_back(
      I("seed000/corner_size_rect_is_min_corner", s0,
        "rect (x=10, y=20, w=10, h=10) is corner + size: min (10,20), "
        "max (20,30). Circle (4,16) r 2: nearest (10,20), d^2 = 52 > 4: "
        "disjoint",
        Incl().Add(c::Circle(4, 16, 2), c::RectFromCornerSize(10, 20, 10, 10)),
        {kD}));
  v.push_back(
      I("seed000/same_numbers_as_centre_half_extents_differ", s0,
        "reader question 'corner or centre?': read as centre (10,20) "
        "+ half-extents (5,5) the rect is [5,15]x[15,25]; circle (4,16) "
        "r 2: nearest (5,16), d = 1 < 2: overlapping",
        Incl().Add(c::Circle(4, 16, 2),
                   c::RectFromCenterHalfExtents(10, 20, 5, 5)),
        {kO}));
  v.push_back(
      I("seed000/strict_less_touching_is_not_a_hit", s0,
        "seed 000 writes `<`: exclusive rule. Circle (25,25) r 5, rect "
        "corner (10,20) size 10x10: nearest (20,25), d = 5 = r: "
        "touching, hit false",
        Excl().Add(c::Circle(25, 25, 5), c::RectFromCornerSize(10, 20, 10, 10)),
        {kT}));
  v.push_back(
      I("seed000/circle_fully_inside_rect_is_a_hit", s0,
        "reader question 'circle completely inside?': centre (15,25) "
        "inside rect [10,20]x[20,30] clamps to itself, d = 0 < r: "
        "overlapping under both rules; separation -(2 + 5) = -7. "
        "Second pair: rect fully inside a circle of radius 100",
        Excl()
            .Add(c::Circle(15, 25, 2), c::RectFromCornerSize(10, 20, 10, 10))
            .Add(c::Circle(15, 25, 100), c::RectFromCornerSize(10, 20, 10, 10)),
        {kO, kO}));
  v.push_back(I("seed000/y_down_top_left_and_y_up_bottom_left", s0,
                "reader question 'top-left or bottom-left?': the min corner is "
                "top-left on a y-down screen, bottom-left in y-up. y-down: "
                "rect corner (0,0) size 4x2, circles (2,3) and (2,-1) r 1 "
                "touch the bottom and top edges. The same scene in y-up "
                "(y' = 10 - y): rect min (0,8) max (4,10), circles (2,7) and "
                "(2,11): touching too",
                Incl()
                    .Add(c::Circle(2, 3, 1), c::RectFromCornerSize(0, 0, 4, 2))
                    .Add(c::Circle(2, -1, 1), c::RectFromCornerSize(0, 0, 4, 2))
                    .Add(c::Circle(2, 7, 1), c::RectFromMinMax(0, 8, 4, 10))
                    .Add(c::Circle(2, 11, 1), c::RectFromMinMax(0, 8, 4, 10)),
                {kT, kT, kT, kT}));
  v.push_back(
      I("seed000/rotated_about_centre_by_45_degrees", s0,
        "commenter: un-rotate the circle about the rect centre. Square "
        "corner (10,20) size 10 turned 45 deg about (15,25); circle "
        "(21,25) r 0.5: local = R(-45)(6,0) = (4.24,-4.24), inside "
        "[-5,5]^2: overlapping (the unrotated square would miss)",
        Incl().Add(c::Circle(21, 25, 0.5f),
                   c::RotatedRectAboutCenter(10, 20, 10, 10, kHalfPi / 2)),
        {kO}));
  v.push_back(IErr("seed000/negative_radius_is_rejected", s0,
                   One(c::Circle(5, 5, -1), c::RectFromCornerSize(0, 0, 4, 4)),
                   "pairs[0].a.circle.radius must be >= 0, got -1"));

  const std::string s1 = "seed 001";
  v.push_back(
      I("seed001/example_tables_do_not_collide", s1,
        "r = {x=10, y=20, w=10, h=10}, c = {x=64, y=64, r=15}: nearest "
        "(20,30), d = sqrt(44^2 + 34^2) = 55.6 > 15. player {10,20,8,8} "
        "vs ball {30,40,8}: nearest (18,28), d = sqrt(288) = 17.0 > 8",
        Incl()
            .Add(c::RectFromCornerSize(10, 20, 10, 10), c::Circle(64, 64, 15))
            .Add(c::RectFromCornerSize(10, 20, 8, 8), c::Circle(30, 40, 8)),
        {kD, kD}));
  auto pixels = [](c::IntersectBatch b) {
    return b.Add(c::Circle(25, 25, 5), c::RectFromCornerSize(10, 20, 10, 10))
        .Add(c::Circle(23, 34, 5), c::RectFromCornerSize(10, 20, 10, 10))
        .Add(c::Circle(23, 34, 4), c::RectFromCornerSize(10, 20, 10, 10))
        .Add(c::Circle(23, 34, 6), c::RectFromCornerSize(10, 20, 10, 10));
  };
  const char* pixel_note =
      "integer pixels, rect (10,20,10,10): circle (25,25) r 5 touches the "
      "right edge (d = 5); circle (23,34) is (3,4) from the corner (20,30): "
      "d = 5 exactly, so r 5 touches, r 4 misses, r 6 overlaps";
  v.push_back(I("seed001/touching_on_integer_pixels_counts", s1, pixel_note,
                pixels(Incl()), {kT, kT, kD, kO}));
  v.push_back(I("seed001/touching_on_integer_pixels_exclusive", s1, pixel_note,
                pixels(Excl()), {kT, kT, kD, kO}));
  v.push_back(I("seed001/zero_width_rect_is_a_segment", s1,
                "rect corner (0,0) size 0x10 is the segment x = 0: circle "
                "(3,5) r 3 touches it; point (0,5) lies on it (touching: a "
                "segment has no interior)",
                Incl()
                    .Add(c::Circle(3, 5, 3), c::RectFromCornerSize(0, 0, 0, 10))
                    .Add(c::Point(0, 5), c::RectFromCornerSize(0, 0, 0, 10)),
                {kT, kT}));

  const std::string s2 = "seed 002";
  v.push_back(
      I("seed002/arvo_sphere_box_tangent", s2,
        "sphere (3,4,4) r 3 vs box [0,2]^3: per-axis excess (1,2,2), "
        "d^2 = 9 = r^2: tangency",
        Incl().Add(c::Sphere(3, 4, 4, 3), c::BoxFromMinMax(0, 0, 0, 2, 2, 2)),
        {kT}));
  v.push_back(
      I("seed002/half_extents_intersection_tangency_separation", s2,
        "rect centre (0,0) half (2,1), p = (5,5): u = max(|p-c| - h, 0) "
        "= (3,4), |u| = 5: r 5 tangency, r 6 intersection, r 4 "
        "separation (distance 1)",
        Incl()
            .Add(c::Circle(5, 5, 5), c::RectFromCenterHalfExtents(0, 0, 2, 1))
            .Add(c::Circle(5, 5, 6), c::RectFromCenterHalfExtents(0, 0, 2, 1))
            .Add(c::Circle(5, 5, 4), c::RectFromCenterHalfExtents(0, 0, 2, 1)),
        {kT, kO, kD}));
  v.push_back(I("seed002/larsson_far_sphere_is_disjoint", s2,
                "sphere (10,0,0) r 1 vs box [-1,1]^3: excess 9 on x, "
                "separation 9 - 1 = 8",
                Incl().Add(c::Sphere(10, 0, 0, 1),
                           c::BoxFromCenterHalfExtents(0, 0, 0, 1, 1, 1)),
                {kD}));
  v.push_back(I("seed002/box_from_centre_half_extents_3d", s2,
                "box centre (0,0,0) half 2: point3 (1,1,1) strictly inside "
                "(overlapping), point3 (2,2,2) is its corner (touching)",
                Excl()
                    .Add(c::Point3(1, 1, 1),
                         c::BoxFromCenterHalfExtents(0, 0, 0, 2, 2, 2))
                    .Add(c::Point3(2, 2, 2),
                         c::BoxFromCenterHalfExtents(0, 0, 0, 2, 2, 2)),
                {kO, kT}));

  const std::string s3 = "seed 003";
  auto left_edge_pivot = [] {
    return c::RotatedRectFromPivot(4, 2, 0, 1, 10, 10, kHalfPi);
  };
  v.push_back(I("seed003/pivot_centre_of_left_edge_quarter_turn", s3,
                "size 4x2, pivot (0,1) = centre of the left edge, at (10,10), "
                "angle float(pi/2) (exact quarter turn): local [0,4]x[-1,1], "
                "world x in [9,11], y in [10,14]. Points: (10,13) -> local "
                "(3,0) inside; (10,15) -> (5,0) 1 away; (11,12) -> (2,-1) on "
                "an edge; (9,10) -> (0,1) a corner",
                Incl()
                    .Add(c::Point(10, 13), left_edge_pivot())
                    .Add(c::Point(10, 15), left_edge_pivot())
                    .Add(c::Point(11, 12), left_edge_pivot())
                    .Add(c::Point(9, 10), left_edge_pivot()),
                {kO, kD, kT, kT}));
  auto corner_pivot = [] {
    return c::RotatedRectFromPivot(4, 2, 0, 0, 0, 0, 0.5f);
  };
  v.push_back(I("seed003/pivot_at_min_corner_half_radian", s3,
                "size 4x2 turned 0.5 rad about its min corner at the origin. "
                "Point (1.27573, 1.83644) = R(0.5)(2,1), the centre: inside. "
                "(-1,1) -> local (-0.398, 1.357): 0.398 outside, so a circle "
                "r 0.5 overlaps and r 0.3 misses",
                Incl()
                    .Add(c::Point(1.27573f, 1.83644f), corner_pivot())
                    .Add(c::Point(-1, 1), corner_pivot())
                    .Add(c::Circle(-1, 1, 0.5f), corner_pivot())
                    .Add(c::Circle(-1, 1, 0.3f), corner_pivot()),
                {kO, kD, kO, kD}));
  auto outside_pivot = [] {
    return c::RotatedRectFromPivotCosSin(4, 2, -2, 0, 0, 0, 0, 1);
  };
  v.push_back(I("seed003/pivot_outside_rect_exact_cos_sin", s3,
                "pivot (-2,0) lies outside: local [2,6]x[0,2], turned by the "
                "exact rotation (cos, sin) = (0, 1): world x in [-2,0], y in "
                "[2,6]. (-1,4) inside; (1,1) -> local (1,-1): corner (2,0) is "
                "sqrt(2) away",
                Incl()
                    .Add(c::Point(-1, 4), outside_pivot())
                    .Add(outside_pivot(), c::Point(1, 1)),
                {kO, kD}));
  v.push_back(
      I("seed003/negative_quarter_turn_is_exact", s3,
        "angle -float(pi/2) about the min corner: size 4x2 occupies x "
        "in [0,2], y in [-4,0]. (1,-3) inside, (2,-4) the far corner "
        "(touching exactly), (3,-4) 1 away. -5 * float(pi/2) is the same "
        "turn",
        Incl()
            .Add(c::Point(1, -3),
                 c::RotatedRectFromPivot(4, 2, 0, 0, 0, 0, -kHalfPi))
            .Add(c::Point(2, -4),
                 c::RotatedRectFromPivot(4, 2, 0, 0, 0, 0, -kHalfPi))
            .Add(c::Point(3, -4),
                 c::RotatedRectFromPivot(4, 2, 0, 0, 0, 0, -kHalfPi))
            .Add(c::Point(2, -4),
                 c::RotatedRectFromPivot(4, 2, 0, 0, 0, 0, -5 * kHalfPi)),
        {kO, kT, kD, kT}));

  const std::string s4 = "seed 004";
  v.push_back(I("seed004/theta_30_degrees_is_angle_minus_theta", s4,
                "rect top-left (10,10) 20x10 turned about its centre (20,15) "
                "by seed 004's theta = 30 deg, i.e. angle = -pi/6 here. Circle "
                "(29.8,14) r 0.5: seed's un-rotation R(theta)(9.8,-1) = "
                "(8.99,4.03), inside [-10,10]x[-5,5]: overlapping",
                Incl().Add(c::Circle(29.8f, 14, 0.5f),
                           c::RotatedRectAboutCenter(10, 10, 20, 10, -kPi6)),
                {kO}));
  v.push_back(
      I("seed004/theta_passed_unchanged_turns_the_other_way", s4,
        "same shapes with angle = +pi/6 (the sign readers flip): local "
        "R(-theta)(9.8,-1) = (7.99,-5.77), 0.77 beyond the edge y = -5: "
        "disjoint",
        Incl().Add(c::Circle(29.8f, 14, 0.5f),
                   c::RotatedRectAboutCenter(10, 10, 20, 10, kPi6)),
        {kD}));
  v.push_back(I("seed004/degrees_passed_as_radians", s4,
                "-30 given as radians instead of degrees: local = "
                "R(30 rad)(9.8,-1) = (0.52,-9.84), far outside: disjoint. "
                "DegreesToRadians(-30) = -pi/6 gives the overlapping answer",
                Incl()
                    .Add(c::Circle(29.8f, 14, 0.5f),
                         c::RotatedRectAboutCenter(10, 10, 20, 10, -30))
                    .Add(c::Circle(29.8f, 14, 0.5f),
                         c::RotatedRectAboutCenter(10, 10, 20, 10,
                                                   c::DegreesToRadians(-30))),
                {kD, kO}));
  v.push_back(I("seed004/negative_radians_equal_positive_counterpart", s4,
                "BradGreens converts negative radians to positive: -pi/6 and "
                "2pi - pi/6 are the same turn (the circle is 0.97 inside, far "
                "from float rounding)",
                Incl()
                    .Add(c::Circle(29.8f, 14, 0.5f),
                         c::RotatedRectAboutCenter(10, 10, 20, 10, -kPi6))
                    .Add(c::Circle(29.8f, 14, 0.5f),
                         c::RotatedRectAboutCenter(10, 10, 20, 10,
                                                   5.75958653f)),  // 2pi - pi/6
                {kO, kO}));
  auto about_centre = [] {
    return c::RotatedRectAboutCenter(10, 10, 20, 10, c::DegreesToRadians(90));
  };
  const float r2 = std::sqrt(0.5f);
  v.push_back(CP("seed004/closest_point_on_quarter_turned_rect", s4,
                 "rect (10,10) 20x10 turned 90 deg about (20,15) covers x in "
                 "[15,25], y in [5,25]. Point (30,30): closest (25,25), "
                 "distance sqrt(50), normal (1,1)/sqrt(2). Centre (20,15): "
                 "inside; nearest faces are local -y/+y (5 away), -y wins the "
                 "tie, world normal R(90)(0,-1) = (1,0), surface (25,15). "
                 "Circle (30,30) r 10: gap sqrt(50) - 10",
                 c::ClosestPointBatch()
                     .Add(c::Point(30, 30), about_centre())
                     .Add(c::Point(20, 15), about_centre())
                     .Add(c::Circle(30, 30, 10), about_centre()),
                 {{25, 25, 0, std::sqrt(50.0f), false, r2, r2, 0},
                  {20, 15, 0, -5, true, 1, 0, 0},
                  {25, 25, 0, std::sqrt(50.0f), false, r2, r2, 0}}));
  return v;
}

// Every supported pair kind: disjoint, touching and overlapping rows, under
// both boundary rules.
std::vector<Case> PairKindCases() {
  struct Kind {
    const char* name;
    std::vector<std::pair<v1::Shape, v1::Shape>> pairs;
    std::vector<v1::Relation> hand;
    const char* note;
  };
  const v1::Shape unit_rect = c::RectFromMinMax(0, 0, 10, 10);
  const v1::Shape box = c::BoxFromMinMax(0, 0, 0, 10, 10, 10);
  // Corner (0,0), size 4x2 turned a quarter: x in [-2,0], y in [0,4].
  const v1::Shape rot = c::RotatedRectFromPivot(4, 2, 0, 0, 0, 0, kHalfPi);
  const std::vector<Kind> kinds = {
      {"point_point",
       {{c::Point(0, 0), c::Point(3, 4)}, {c::Point(1, 1), c::Point(1, 1)}},
       {kD, kT},
       "5 apart; coincident points touch (never overlap)"},
      {"point_circle",
       {{c::Point(6, 8), c::Circle(0, 0, 5)},
        {c::Point(3, 4), c::Circle(0, 0, 5)},
        {c::Circle(0, 0, 5), c::Point(1, 1)}},
       {kD, kT, kO},
       "3-4-5 triangles; the last pair in reverse order"},
      {"circle_circle",
       {{c::Circle(0, 0, 1), c::Circle(5, 0, 1)},
        {c::Circle(0, 0, 2), c::Circle(5, 0, 3)},
        {c::Circle(0, 0, 2), c::Circle(4, 0, 3)}},
       {kD, kT, kO},
       "centres 5 apart: radii 1+1 (gap 3), 2+3 (touch), 2+3 at 4 (-1)"},
      {"point_rect",
       {{c::Point(12, 5), unit_rect},
        {c::Point(10, 5), unit_rect},
        {unit_rect, c::Point(5, 5)}},
       {kD, kT, kO},
       "rect [0,10]^2: 2 outside, on the edge, centre (depth 5)"},
      {"circle_rect",
       {{c::Circle(13, 14, 4), unit_rect},
        {c::Circle(13, 14, 5), unit_rect},
        {unit_rect, c::Circle(13, 14, 6)}},
       {kD, kT, kO},
       "corner (10,10) is 5 from (13,14)"},
      {"point_rotated_rect",
       {{c::Point(1, 2), rot}, {c::Point(0, 3), rot}, {rot, c::Point(-1, 2)}},
       {kD, kT, kO},
       "quarter-turned 4x2 about its min corner: x in [-2,0], y in [0,4]"},
      {"circle_rotated_rect",
       {{c::Circle(3, 2, 2), rot},
        {c::Circle(3, 2, 3), rot},
        {rot, c::Circle(3, 2, 4)}},
       {kD, kT, kO},
       "(3,2) is 3 from the edge x = 0"},
      {"rect_rect",
       {{c::RectFromMinMax(0, 0, 1, 1), c::RectFromMinMax(4, 5, 6, 6)},
        {c::RectFromMinMax(0, 0, 1, 1), c::RectFromMinMax(1, 0, 2, 1)},
        {c::RectFromMinMax(0, 0, 1, 1), c::RectFromMinMax(1, 1, 2, 2)},
        {c::RectFromMinMax(0, 0, 2, 2), c::RectFromMinMax(1, 1, 3, 3)}},
       {kD, kT, kT, kO},
       "gaps (3,4) -> 5; shared edge; shared corner; overlap 1"},
      {"point3_point3",
       {{c::Point3(0, 0, 0), c::Point3(2, 3, 6)},
        {c::Point3(1, 2, 3), c::Point3(1, 2, 3)}},
       {kD, kT},
       "distance 7; coincident"},
      {"point3_sphere",
       {{c::Point3(4, 6, 12), c::Sphere(0, 0, 0, 7)},
        {c::Point3(2, 3, 6), c::Sphere(0, 0, 0, 7)},
        {c::Sphere(0, 0, 0, 7), c::Point3(1, 1, 1)}},
       {kD, kT, kO},
       "2-3-6-7 quadruples"},
      {"sphere_sphere",
       {{c::Sphere(0, 0, 0, 3), c::Sphere(2, 3, 6, 3)},
        {c::Sphere(0, 0, 0, 3), c::Sphere(2, 3, 6, 4)},
        {c::Sphere(0, 0, 0, 3), c::Sphere(2, 3, 6, 5)}},
       {kD, kT, kO},
       "centres 7 apart"},
      {"point3_box",
       {{c::Point3(12, 5, 5), box},
        {c::Point3(10, 10, 10), box},
        {box, c::Point3(5, 5, 5)}},
       {kD, kT, kO},
       "box [0,10]^3: 2 outside, a corner, the centre"},
      {"sphere_box",
       {{c::Sphere(12, 13, 16, 6), box},
        {c::Sphere(12, 13, 16, 7), box},
        {box, c::Sphere(12, 13, 16, 8)}},
       {kD, kT, kO},
       "(12,13,16) is (2,3,6) from the corner: 7 away"},
      {"box_box",
       {{c::BoxFromMinMax(0, 0, 0, 1, 1, 1),
         c::BoxFromMinMax(3, 4, 13, 5, 5, 14)},
        {c::BoxFromMinMax(0, 0, 0, 1, 1, 1),
         c::BoxFromMinMax(1, 0, 0, 2, 1, 1)},
        {c::BoxFromMinMax(0, 0, 0, 2, 2, 2),
         c::BoxFromMinMax(1, 1, 1, 3, 3, 3)}},
       {kD, kT, kO},
       "gaps (2,3,12) -> 12.37; shared face; overlap 1"},
  };
  std::vector<Case> v;
  c::IntersectBatch mixed_in = Incl();
  std::vector<v1::Relation> mixed_hand;
  for (const Kind& k : kinds) {
    c::IntersectBatch in = Incl();
    c::IntersectBatch ex = Excl();
    for (const auto& [a, b] : k.pairs) {
      in.Add(a, b);
      ex.Add(a, b);
    }
    v.push_back(I(absl::StrCat("kinds/", k.name, "/inclusive"),
                  "proto ShapePair", k.note, in, k.hand));
    v.push_back(I(absl::StrCat("kinds/", k.name, "/exclusive"),
                  "proto ShapePair", k.note, ex, k.hand));
  }
  // Every kind interleaved in one request: the batch groups pairs by kind and
  // must put each answer back at its index.
  for (size_t row = 0; row < 4; ++row) {
    for (const Kind& k : kinds) {
      if (row >= k.pairs.size()) continue;
      mixed_in.Add(k.pairs[row].first, k.pairs[row].second);
      mixed_hand.push_back(k.hand[row]);
    }
  }
  v.push_back(I("kinds/all_kinds_interleaved_in_one_batch", "proto ShapePair",
                "the rows above, interleaved kind by kind", mixed_in,
                mixed_hand));
  // Relation and separation off: only hit is set.
  c::IntersectBatch bare;
  bare.Exclusive()
      .Add(c::Circle(0, 0, 2), c::Circle(4, 0, 3))
      .Add(c::Circle(0, 0, 2), c::Circle(5, 0, 3));
  v.push_back(I(
      "kinds/hit_only_without_relation_or_separation", "proto IntersectRequest",
      "include_relation and include_separation false: only hit", bare));
  v.push_back(I(
      "range/far_from_origin_touching_on_integers", "proto conventions",
      "circle (1000003,1000004) r 5 vs rect [0,1e6]^2: (3,4) from the "
      "corner, exact in float: touching. Point (1e9,0) on the edge of "
      "[-1e9,1e9]^2: the magnitude bound is inclusive",
      Incl()
          .Add(c::Circle(1000003, 1000004, 5),
               c::RectFromMinMax(0, 0, 1e6f, 1e6f))
          .Add(c::Point(1e9f, 0), c::RectFromMinMax(-1e9f, -1e9f, 1e9f, 1e9f)),
      {kT, kT}));
  v.push_back(
      I("range/zero_sizes_are_valid", "proto conventions",
        "zero-radius circle = a point; zero-size rect = a point; "
        "zero-size box",
        Incl()
            .Add(c::Circle(1, 1, 0), c::RectFromMinMax(0, 0, 2, 2))
            .Add(c::Circle(1, 1, 0), c::RectFromMinMax(1, 1, 1, 1))
            .Add(c::Sphere(0, 0, 3, 0), c::BoxFromMinMax(0, 0, 0, 0, 0, 0)),
        {kO, kT, kD}));
  return v;
}

std::vector<Case> ClosestCases() {
  std::vector<Case> v;
  const std::string src = "proto ClosestPointResult";
  const v1::Shape sq = c::RectFromMinMax(0, 0, 10, 10);
  v.push_back(
      CP("closest/rect_inside_outside_and_ties", src,
         "rect [0,10]^2. (3,5): nearest face -x, distance -3. (5,5): "
         "all four faces tie, -x wins. (13,14): corner (10,10), d 5, "
         "normal (0.6,0.8). (10,10): on the corner, +x and +y tie at 0, "
         "+x wins. (0,0): -x. Circle (3,6) r 1: gap -3 - 1 = -4",
         c::ClosestPointBatch()
             .Add(c::Point(3, 5), sq)
             .Add(c::Point(5, 5), sq)
             .Add(c::Point(13, 14), sq)
             .Add(c::Point(10, 10), sq)
             .Add(c::Point(0, 0), sq)
             .Add(c::Circle(3, 6, 1), sq),
         {{3, 5, 0, -3, true, -1, 0, 0},
          {5, 5, 0, -5, true, -1, 0, 0},
          {10, 10, 0, 5, false, 0.6f, 0.8f, 0},
          {10, 10, 0, 0, true, 1, 0, 0},
          {0, 0, 0, 0, true, -1, 0, 0},
          {3, 6, 0, -3, true, -1, 0, 0}}));
  v.push_back(CP("closest/minus_y_beats_plus_y", src,
                 "rect [0,10]x[0,4], point (5,2): -y and +y both 2 away, -y "
                 "wins: surface (5,0), normal (0,-1)",
                 c::ClosestPointBatch().Add(c::Point(5, 2),
                                            c::RectFromMinMax(0, 0, 10, 4)),
                 {{5, 2, 0, -2, true, 0, -1, 0}}));
  auto on_edge = [&](c::ClosestPointBatch b) {
    return b.Add(c::Point(10, 5), sq).Add(c::Point(5, 0), c::Circle(0, 0, 5));
  };
  v.push_back(CP("closest/on_boundary_inclusive_is_inside", src,
                 "(10,5) on the +x edge, (5,0) on a circle r 5: distance 0, "
                 "inside under the inclusive rule",
                 on_edge(c::ClosestPointBatch().Inclusive()),
                 {{10, 5, 0, 0, true, 1, 0, 0}, {5, 0, 0, 0, true, 1, 0, 0}}));
  v.push_back(
      CP("closest/on_boundary_exclusive_is_outside", src,
         "the same points under the exclusive rule: inside false",
         on_edge(c::ClosestPointBatch().Exclusive()),
         {{10, 5, 0, 0, false, 1, 0, 0}, {5, 0, 0, 0, false, 1, 0, 0}}));
  v.push_back(CP("closest/centre_at_circle_or_point_centre_is_plus_x", src,
                 "query at the target's centre: normal +x by convention. "
                 "Circle (2,3) r 4: surface (6,3), distance -4. Point target "
                 "(1,1) at (1,1): distance 0, inside (inclusive)",
                 c::ClosestPointBatch()
                     .Add(c::Point(2, 3), c::Circle(2, 3, 4))
                     .Add(c::Point(1, 1), c::Point(1, 1))
                     .Add(c::Point(0, 9), c::Circle(0, 0, 3)),
                 {{2, 3, 0, -4, true, 1, 0, 0},
                  {1, 1, 0, 0, true, 1, 0, 0},
                  {0, 3, 0, 6, false, 0, 1, 0}}));
  const v1::Shape cube = c::BoxFromMinMax(0, 0, 0, 4, 4, 4);
  v.push_back(CP("closest/box_and_sphere_3d", src,
                 "box [0,4]^3: sphere (2,2,7) r 1 -> (2,2,4), d 3, gap 2, "
                 "normal +z; centre (2,2,2): six faces tie, -x wins; corner "
                 "(4,4,4): +x wins; (1,2,2): -x. Sphere (0,0,0) r 3 from "
                 "(0,0,9): (0,0,3), d 6, normal +z",
                 c::ClosestPointBatch()
                     .Add(c::Sphere(2, 2, 7, 1), cube)
                     .Add(c::Point3(2, 2, 2), cube)
                     .Add(c::Point3(4, 4, 4), cube)
                     .Add(c::Point3(1, 2, 2), cube)
                     .Add(c::Point3(0, 0, 9), c::Sphere(0, 0, 0, 3))
                     .Add(c::Point3(0, 0, 0), c::Sphere(0, 0, 0, 3))
                     .Add(c::Point3(5, 5, 5), c::Point3(5, 5, 5)),
                 {{2, 2, 4, 3, false, 0, 0, 1},
                  {2, 2, 2, -2, true, -1, 0, 0},
                  {4, 4, 4, 0, true, 1, 0, 0},
                  {1, 2, 2, -1, true, -1, 0, 0},
                  {0, 0, 3, 6, false, 0, 0, 1},
                  {0, 0, 0, -3, true, 1, 0, 0},
                  {5, 5, 5, 0, true, 1, 0, 0}}));
  v.push_back(
      CP("closest/rotated_rect_pivot_quarter_turn", "seed 003",
         "size 4x2, pivot (0,1), at (10,10), quarter turn: world x in "
         "[9,11], y in [10,14]. (10,16) -> (10,14), d 2, normal +y. "
         "(12,12) -> (11,12), d 1, normal +x",
         c::ClosestPointBatch()
             .Add(c::Point(10, 16),
                  c::RotatedRectFromPivot(4, 2, 0, 1, 10, 10, kHalfPi))
             .Add(c::Point(12, 12),
                  c::RotatedRectFromPivot(4, 2, 0, 1, 10, 10, kHalfPi)),
         {{10, 14, 0, 2, false, 0, 1, 0}, {11, 12, 0, 1, false, 1, 0, 0}}));
  return v;
}

std::vector<Case> ErrorCases() {
  std::vector<Case> v;
  const std::string src = "proto conventions / server/convert.cc";
  const v1::Shape ok = c::Circle(0, 0, 1);
  v.push_back(IErr("errors/nan_coordinate", src,
                   One(c::Circle(kNaN, 0, 1), c::Point(0, 0)),
                   "pairs[0].a.circle.center.x must be finite"));
  v.push_back(IErr("errors/infinite_radius", src,
                   One(ok, c::Circle(0, 0, kInf)),
                   "pairs[0].b.circle.radius must be finite"));
  v.push_back(IErr("errors/magnitude_over_1e9", src, One(c::Point(2e9f, 0), ok),
                   "pairs[0].a.point.x must be within [-1e9, 1e9]"));
  v.push_back(IErr("errors/angle_over_1e4", src,
                   One(ok, c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, 2e4f)),
                   "pairs[0].b.rotated_rect.angle must be within [-1e4, 1e4]"));
  v.push_back(
      IErr("errors/non_unit_rotation", src,
           One(ok, c::RotatedRectFromPivotCosSin(1, 1, 0, 0, 0, 0, 1, 1)),
           "pairs[0].b.rotated_rect.rotation (cos, sin) must have unit "
           "length"));
  v.push_back(IErr("errors/negative_size", src,
                   One(ok, c::RotatedRectFromPivot(-1, 1, 0, 0, 0, 0, 0)),
                   "pairs[0].b.rotated_rect.size.x must be >= 0, got -1"));
  v.push_back(IErr("errors/rect_max_below_min", src,
                   One(ok, c::RectFromMinMax(0, 0, -1, 1)),
                   "pairs[0].b.rect.max.x must be >= min.x (0), got -1"));
  v.push_back(IErr("errors/box_max_below_min_z", src,
                   One(c::BoxFromMinMax(0, 0, 5, 1, 1, 4), c::Point3(0, 0, 0)),
                   "pairs[0].a.box.max.z must be >= min.z (5), got 4"));
  {
    v1::IntersectRequest r = One(ok, ok);
    r.mutable_pairs(0)->mutable_a()->Clear();
    v.push_back(IErr("errors/unset_shape_oneof", src, r,
                     "pairs[0].a has no shape set"));
  }
  {
    v1::IntersectRequest r = One(ok, ok);
    r.mutable_pairs(0)->clear_b();
    v.push_back(IErr("errors/missing_shape", src, r, "pairs[0].b is required"));
  }
  {
    v1::IntersectRequest r =
        One(ok, c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, 0));
    r.mutable_pairs(0)
        ->mutable_b()
        ->mutable_rotated_rect()
        ->clear_orientation();
    v.push_back(IErr("errors/unset_orientation_oneof", src, r,
                     "pairs[0].b.rotated_rect.orientation is required"));
  }
  {
    v1::IntersectRequest r = One(ok, ok);
    r.mutable_pairs(0)->mutable_a()->mutable_circle()->clear_center();
    v.push_back(IErr("errors/missing_center", src, r,
                     "pairs[0].a.circle.center is required"));
  }
  v.push_back(IErr("errors/unsupported_pair_rect_rotated_rect", src,
                   One(c::RectFromMinMax(0, 0, 1, 1),
                       c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, 0)),
                   "pairs[0]: rect vs rotated_rect is not a supported pair"));
  v.push_back(IErr("errors/mixed_2d_and_3d", src,
                   One(ok, c::BoxFromMinMax(0, 0, 0, 1, 1, 1)),
                   "pairs[0]: circle vs box mixes a 2D and a 3D shape"));
  {
    v1::IntersectRequest r = One(ok, ok);
    r.set_boundary(v1::BOUNDARY_RULE_UNSPECIFIED);
    v.push_back(
        IErr("errors/unspecified_boundary", src, r, "boundary is required"));
  }
  {
    v1::IntersectRequest r;
    r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    v.push_back(IErr("errors/empty_batch", src, r, "pairs must not be empty"));
  }
  v.push_back(IErr("errors/second_item_and_every_bad_field_named", src,
                   c::IntersectBatch()
                       .Add(ok, ok)
                       .Add(c::Circle(0, 0, -2), c::RectFromMinMax(0, 0, -1, 1))
                       .request(),
                   "pairs[1].a.circle.radius must be >= 0, got -2; "
                   "pairs[1].b.rect.max.x must be >= min.x (0), got -1"));
  v.push_back(CPErr(
      "errors/closest_point_query_must_be_a_ball", src,
      c::ClosestPointBatch().Add(c::RectFromMinMax(0, 0, 1, 1), ok).request(),
      "queries[0].query must be a point, circle, point3 or "
      "sphere, got rect"));
  v.push_back(CPErr("errors/closest_point_mixed_2d_and_3d", src,
                    c::ClosestPointBatch()
                        .Add(c::Point(0, 0), c::BoxFromMinMax(0, 0, 0, 1, 1, 1))
                        .request(),
                    "queries[0]: query point and target box mix a 2D and a 3D "
                    "shape"));
  v.push_back(CPErr("errors/closest_point_negative_sphere_radius", src,
                    c::ClosestPointBatch()
                        .Add(c::Point3(0, 0, 0), c::Sphere(0, 0, 0, -1))
                        .request(),
                    "queries[0].target.sphere.radius must be >= 0, got -1"));
  {
    v1::ClosestPointRequest r;
    r.set_boundary(v1::BOUNDARY_RULE_EXCLUSIVE);
    v.push_back(CPErr("errors/closest_point_empty_batch", src, r,
                      "queries must not be empty"));
  }
  {
    v1::ClosestPointRequest r =
        c::ClosestPointBatch().Add(c::Point(0, 0), ok).request();
    r.clear_boundary();
    v.push_back(CPErr("errors/closest_point_unspecified_boundary", src, r,
                      "boundary is required"));
  }
  return v;
}

void Write(const std::vector<Case>& cases) {
  std::printf(
      "{\n"
      "  \"description\": \"collision.v1 golden vectors. Requests and "
      "responses are canonical proto3 JSON (lowerCamelCase names, defaults "
      "omitted). See README.md beside this file.\",\n"
      "  \"generator\": \"tools/golden/generate_golden.cc\",\n"
      "  \"comparison\": {\"exact\": [\"hit\", \"relation\", \"inside\", "
      "\"error.code\"], \"float_absolute\": 1e-05, \"float_relative\": 1e-05, "
      "\"float_rule\": \"|got - want| <= float_absolute or |got - want| <= "
      "float_relative * max(|got|, |want|)\", \"error_rule\": \"code equal "
      "and message contains message_contains\"},\n"
      "  \"cases\": [\n");
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& k = cases[i];
    const bool hand = !k.hand_relations.empty() || !k.hand_closest.empty() ||
                      !k.message_contains.empty();
    std::printf(
        "    {\"name\": %s,\n     \"rpc\": %s, \"source\": %s, "
        "\"hand_checked\": %s,\n     \"note\": %s,\n     \"request\": %s,\n"
        "     %s}%s\n",
        Quote(k.name).c_str(),
        Quote(k.intersect ? "Intersect" : "ClosestPoint").c_str(),
        Quote(k.source).c_str(), hand ? "true" : "false", Quote(k.note).c_str(),
        Json(k.intersect
                 ? static_cast<const google::protobuf::Message&>(*k.intersect)
                 : *k.closest)
            .c_str(),
        Expect(k).c_str(), i + 1 < cases.size() ? "," : "");
  }
  std::printf("  ]\n}\n");
}

}  // namespace
}  // namespace collision::golden

int main() {
  namespace g = collision::golden;
  std::vector<g::Case> all = g::SeedCases();
  for (auto* more : {&g::PairKindCases, &g::ClosestCases, &g::ErrorCases}) {
    for (g::Case& k : more()) all.push_back(std::move(k));
  }
  g::Write(all);
  return 0;
}
