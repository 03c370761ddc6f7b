// Every pair kind, the closest-point tie-breaks and the error cases.
#include "tools/golden/golden_cases.h"

namespace collision::golden {

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
  const std::string src = "proto conventions / wire/src/convert.cc";
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

}  // namespace collision::golden
