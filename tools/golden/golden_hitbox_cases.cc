// The hitbox kinds (capsule3, oriented_box): every pairing they take part in,
// closest points on them, and their field errors, worked by hand.
#include "tools/golden/golden_cases.h"

namespace collision::golden {
namespace {

// A quarter turn about z: w = cos(pi/4), z = sin(pi/4). The matrix is snapped
// to an exact permutation, so a box with half-extents (1, 2, 3) turned so
// spans x in [-2, 2], y in [-1, 1], z in [-3, 3] about its centre.
v1::Shape Turned(float x, float y, float z) {
  const float h = 0.70710678f;
  return c::OrientedBox(x, y, z, 1, 2, 3, h, 0, 0, h);
}

}  // namespace

std::vector<Case> HitboxCases() {
  struct Kind {
    const char* name;
    std::vector<std::pair<v1::Shape, v1::Shape>> pairs;
    std::vector<v1::Relation> hand;
    const char* note;
  };
  // Along x from -10 to 10, radius 2.
  const v1::Shape rod = c::Capsule3(-10, 0, 0, 10, 0, 0, 2);
  const v1::Shape box = c::BoxFromMinMax(0, 0, 0, 10, 10, 10);
  const std::vector<Kind> kinds = {
      {"point3_capsule3",
       {{c::Point3(5, 3, 0), rod},
        {c::Point3(5, 2, 0), rod},
        {rod, c::Point3(5, 1, 0)},
        {c::Point3(12, 0, 0), rod}},
       {kD, kT, kO, kT},
       "capsule x in [-10, 10], radius 2: 3, 2 and 1 from the axis; (12, 0, "
       "0) is 2 beyond the end point (10, 0, 0), on the rounded end"},
      {"sphere_capsule3",
       {{c::Sphere(5, 6, 0, 3), rod},
        {c::Sphere(5, 5, 0, 3), rod},
        {rod, c::Sphere(5, 4, 0, 3)}},
       {kD, kT, kO},
       "centre 6, 5 and 4 from the axis against radii 2 + 3: separation 1, "
       "0, -1"},
      {"capsule3_capsule3",
       {{rod, c::Capsule3(0, 7, 0, 10, 7, 0, 3)},
        {rod, c::Capsule3(0, 5, 0, 10, 5, 0, 3)},
        {c::Capsule3(5, -5, 4, 5, 5, 4, 3), rod},
        {c::Capsule3(-1, 0, 0, 1, 0, 0, 0), c::Capsule3(0, -1, 0, 0, 1, 0, 0)}},
       {kD, kT, kO, kT},
       "parallel axes 7 and 5 apart against radii 2 + 3 (separation 2, 0); "
       "a crossing axis 4 above (-1); two zero-radius segments that cross "
       "only touch (segments have no interior)"},
      {"sphere_oriented_box",
       {{c::Sphere(5, 0, 0, 2), Turned(0, 0, 0)},
        {c::Sphere(5, 0, 0, 3), Turned(0, 0, 0)},
        {Turned(0, 0, 0), c::Sphere(0, 0, 0, 1)}},
       {kD, kT, kO},
       "half-extents (1, 2, 3) turned a quarter about z: the face x = 2 is 3 "
       "from (5, 0, 0); a sphere at the centre: -(1 + 1) (radius + the "
       "nearest face, y = 1)"},
      {"capsule3_box",
       {{c::Capsule3(12, 5, 5, 20, 5, 5, 1), box},
        {c::Capsule3(12, 5, 5, 20, 5, 5, 2), box},
        {box, c::Capsule3(-5, 5, 5, 5, 5, 5, 0)}},
       {kD, kT, kO},
       "box [0, 10]^3, capsule end 2 from the face x = 10 (separation 1, "
       "0); a bare segment into the box's interior overlaps"},
      {"capsule3_oriented_box",
       {{c::Capsule3(-10, 0, 5, 10, 0, 5, 1), Turned(0, 0, 0)},
        {c::Capsule3(-10, 0, 5, 10, 0, 5, 2), Turned(0, 0, 0)},
        {Turned(0, 0, 0), c::Capsule3(-10, 0, 5, 10, 0, 5, 3)}},
       {kD, kT, kO},
       "axis at z = 5 over the turned box's top face z = 3: 2 away against "
       "radii 1, 2, 3"},
      {"box_oriented_box",
       {{c::BoxFromMinMax(3, -1, -1, 4, 1, 1), Turned(0, 0, 0)},
        {c::BoxFromMinMax(2, -1, -1, 4, 1, 1), Turned(0, 0, 0)},
        {Turned(0, 0, 0), c::BoxFromMinMax(1, -1, -1, 4, 1, 1)}},
       {kD, kT, kO},
       "the turned box spans x in [-2, 2]: the boxes from x = 3, 2 and 1 "
       "(separation 1, 0, -1)"},
      {"oriented_box_oriented_box",
       {{Turned(0, 0, 0), Turned(5, 0, 0)},
        {Turned(0, 0, 0), Turned(4, 0, 0)},
        {Turned(0, 0, 0), Turned(3, 0, 0)},
        {Turned(0, 0, 0),
         c::OrientedBoxAxisAngle(0, 4, 0, 1, 1, 1, 0, 0, 1, 0.78539816f)}},
       {kD, kT, kO, kD},
       "x extents [-2, 2] and centres 5, 4, 3 apart (separation 1, 0, -1); "
       "a unit cube turned 45 degrees about z at (0, 4, 0) points a corner "
       "down to y = 4 - sqrt(2) = 2.586 over the face y = 1: 1.586 apart"},
  };
  std::vector<Case> v;
  for (const Kind& k : kinds) {
    c::IntersectBatch in = Incl();
    c::IntersectBatch ex = Excl();
    for (const auto& [a, b] : k.pairs) {
      in.Add(a, b);
      ex.Add(a, b);
    }
    v.push_back(I(absl::StrCat("hitbox/", k.name, "/inclusive"),
                  "proto Capsule3, OrientedBox", k.note, in, k.hand));
    v.push_back(I(absl::StrCat("hitbox/", k.name, "/exclusive"),
                  "proto Capsule3, OrientedBox", k.note, ex, k.hand));
  }

  const std::string src = "proto ClosestPointResult";
  v.push_back(CP(
      "hitbox/closest_on_capsule3", src,
      "capsule x in [-10, 10], radius 2. (0, 5, 0): surface (0, 2, 0), "
      "distance 3, normal +y. (0, 1, 0) inside: 1 under the surface, the "
      "closest point is the query itself. Sphere (12, 0, 0) r 1 on the "
      "rounded end's tip: distance 0, inside (inclusive), gap -1, normal +x",
      c::ClosestPointBatch()
          .Add(c::Point3(0, 5, 0), rod)
          .Add(c::Point3(0, 1, 0), rod)
          .Add(c::Sphere(12, 0, 0, 1), rod),
      {{0, 2, 0, 3, false, 0, 1, 0},
       {0, 1, 0, -1, true, 0, 1, 0},
       {12, 0, 0, 0, true, 1, 0, 0}}));
  v.push_back(CP("hitbox/closest_on_oriented_box", src,
                 "the turned box (x in [-2, 2], y in [-1, 1], z in [-3, 3]). "
                 "(0, 0, 5): the top face, (0, 0, 3), distance 2, normal +z. "
                 "(1.5, 0, 0) inside: the face x = 2 is nearest, 0.5 away",
                 c::ClosestPointBatch()
                     .Add(c::Point3(0, 0, 5), Turned(0, 0, 0))
                     .Add(c::Point3(1.5f, 0, 0), Turned(0, 0, 0)),
                 {{0, 0, 3, 2, false, 0, 0, 1},
                  {1.5f, 0, 0, -0.5f, true, 1, 0, 0}}));

  v.push_back(CP(
      "hitbox/closest_from_shape_queries", src,
      "shape queries are measured as shapes (query_point set). The capsule "
      "x in [-10, 10] r 2 against the sphere (0, 5, 0) r 1: its point (0, 2, "
      "0), the sphere's (0, 4, 0), 2 apart, the sphere's outward normal -y. "
      "The box [0, 1]^3 against the box [2, 3]^3: corner (1, 1, 1) to corner "
      "(2, 2, 2), sqrt(3) apart, normal -(1, 1, 1)/sqrt(3). The turned box "
      "against the point3 (5, 0, 0): its face point (2, 0, 0), 3 apart, the "
      "point's normal -x",
      c::ClosestPointBatch()
          .Add(rod, c::Sphere(0, 5, 0, 1))
          .Add(c::BoxFromMinMax(0, 0, 0, 1, 1, 1),
               c::BoxFromMinMax(2, 2, 2, 3, 3, 3))
          .Add(Turned(0, 0, 0), c::Point3(5, 0, 0)),
      {{0, 4, 0, 2, false, 0, -1, 0},
       {2, 2, 2, 1.7320508f, false, -0.57735027f, -0.57735027f, -0.57735027f},
       {5, 0, 0, 3, false, -1, 0, 0}}));

  const std::string err = "proto OrientedBox, Quaternion, Capsule3";
  const v1::Shape ball = c::Sphere(0, 0, 0, 1);
  v.push_back(IErr("hitbox/errors/non_unit_quaternion", err,
                   One(ball, c::OrientedBox(0, 0, 0, 1, 1, 1, 1, 1, 0, 0)),
                   "pairs[0].b.oriented_box.rotation must have unit length"));
  v.push_back(IErr("hitbox/errors/zero_quaternion_is_not_the_identity", err,
                   One(ball, c::OrientedBox(0, 0, 0, 1, 1, 1, 0, 0, 0, 0)),
                   "pairs[0].b.oriented_box.rotation must have unit length"));
  {
    v1::IntersectRequest r =
        One(ball, c::OrientedBox(0, 0, 0, 1, 1, 1, 1, 0, 0, 0));
    r.mutable_pairs(0)->mutable_b()->mutable_oriented_box()->clear_rotation();
    v.push_back(IErr("hitbox/errors/missing_rotation", err, r,
                     "pairs[0].b.oriented_box.rotation is required"));
  }
  v.push_back(IErr(
      "hitbox/errors/negative_half_extent", err,
      One(c::OrientedBox(0, 0, 0, 1, -1, 1, 1, 0, 0, 0), ball),
      "pairs[0].a.oriented_box.half_extents.y must be >= 0, got -1"));
  v.push_back(IErr("hitbox/errors/negative_capsule_radius", err,
                   One(ball, c::Capsule3(0, 0, 0, 1, 0, 0, -3)),
                   "pairs[0].b.capsule3.radius must be >= 0, got -3"));
  v.push_back(IErr("hitbox/errors/capsule3_with_a_2d_shape", err,
                   One(c::Circle(0, 0, 1), c::Capsule3(0, 0, 0, 1, 0, 0, 1)),
                   "pairs[0]: circle vs capsule3 mixes a 2D and a 3D shape"));
  v.push_back(CPErr("hitbox/errors/capsule3_query_on_a_2d_target", err,
                    c::ClosestPointBatch().Add(rod, c::Point(3, 3)).request(),
                    "queries[0]: query capsule3 and target point mix a 2D "
                    "and a 3D shape"));
  return v;
}

}  // namespace collision::golden
