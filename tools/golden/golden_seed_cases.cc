// The seeds' worked examples and readers' questions as golden cases.
#include "tools/golden/golden_cases.h"

namespace collision::golden {

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

}  // namespace collision::golden
