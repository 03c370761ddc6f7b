#include "tools/peers/pairs.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace collision::peers {
namespace {

// Uniform in [lo, hi), from the generator's bits (not from
// std::uniform_real_distribution, whose output is library-defined).
double Uniform(std::mt19937_64& rng, double lo, double hi) {
  return lo + (hi - lo) * static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

void PlaceRect(std::mt19937_64& rng, CircleRectPair* p) {
  p->min_x = static_cast<float>(Uniform(rng, 0, 1000));
  p->min_y = static_cast<float>(Uniform(rng, 0, 1000));
  p->max_x = p->min_x + static_cast<float>(Uniform(rng, 0.5, 50));
  p->max_y = p->min_y + static_cast<float>(Uniform(rng, 0.5, 50));
}

void PlaceCentreAround(std::mt19937_64& rng, CircleRectPair* p) {
  const double cx = 0.5 * (double{p->min_x} + p->max_x);
  const double cy = 0.5 * (double{p->min_y} + p->max_y);
  p->x = static_cast<float>(cx + Uniform(rng, -60, 60));
  p->y = static_cast<float>(cy + Uniform(rng, -60, 60));
}

double Distance(const CircleRectPair& p) {
  const double qx = std::clamp<double>(p.x, p.min_x, p.max_x);
  const double qy = std::clamp<double>(p.y, p.min_y, p.max_y);
  return std::hypot(p.x - qx, p.y - qy);
}

}  // namespace

std::vector<CircleRectPair> MakePairs(uint64_t seed, int n) {
  std::mt19937_64 rng(seed);
  std::vector<CircleRectPair> pairs(static_cast<size_t>(std::max(n, 0)));
  for (CircleRectPair& p : pairs) {
    const double kind = Uniform(rng, 0, 1);
    if (kind < 0.70) {
      PlaceRect(rng, &p);
      PlaceCentreAround(rng, &p);
      p.r = static_cast<float>(Uniform(rng, 0.5, 30));
    } else if (kind < 0.95) {
      // Radius = distance * (1 +- a few float32 ulps): the answer turns on
      // the last bits. Centres inside the rectangle (distance 0) are
      // redrawn: there both answer "hit" for any radius.
      PlaceRect(rng, &p);
      do {
        PlaceCentreAround(rng, &p);
      } while (Distance(p) < 1e-3);
      const double ulps = Uniform(rng, -4, 4) * 0x1.0p-24;
      p.r = static_cast<float>(Distance(p) * (1 + ulps));
    } else {
      // Integers: the centre k to the left of the rectangle, radius k.
      p.min_x = static_cast<float>(std::floor(Uniform(rng, 0, 1000)));
      p.min_y = static_cast<float>(std::floor(Uniform(rng, 0, 1000)));
      p.max_x = p.min_x + static_cast<float>(std::floor(Uniform(rng, 1, 50)));
      p.max_y = p.min_y + static_cast<float>(std::floor(Uniform(rng, 1, 50)));
      const float k = static_cast<float>(std::floor(Uniform(rng, 1, 30)));
      p.x = p.min_x - k;
      p.y = static_cast<float>(std::floor(Uniform(rng, p.min_y, p.max_y)));
      p.r = k;
    }
  }
  return pairs;
}

double MarginDouble(const CircleRectPair& p) {
  const double qx = std::clamp<double>(p.x, p.min_x, p.max_x);
  const double qy = std::clamp<double>(p.y, p.min_y, p.max_y);
  const double dx = p.x - qx;
  const double dy = p.y - qy;
  return dx * dx + dy * dy - double{p.r} * p.r;
}

v1::IntersectRequest MakeIntersect(absl::Span<const CircleRectPair> pairs) {
  v1::IntersectRequest request;
  request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  request.mutable_pairs()->Reserve(static_cast<int>(pairs.size()));
  for (const CircleRectPair& p : pairs) {
    v1::ShapePair* pair = request.add_pairs();
    v1::Circle* circle = pair->mutable_a()->mutable_circle();
    circle->mutable_center()->set_x(p.x);
    circle->mutable_center()->set_y(p.y);
    circle->set_radius(p.r);
    v1::Rect* rect = pair->mutable_b()->mutable_rect();
    rect->mutable_min()->set_x(p.min_x);
    rect->mutable_min()->set_y(p.min_y);
    rect->mutable_max()->set_x(p.max_x);
    rect->mutable_max()->set_y(p.max_y);
  }
  return request;
}

namespace {

void FillBalls(absl::Span<const CircleRectPair> pairs, v1::BallColumns2* out) {
  for (const CircleRectPair& p : pairs) {
    out->add_x(p.x);
    out->add_y(p.y);
    out->add_radius(p.r);
  }
}

void FillRects(absl::Span<const CircleRectPair> pairs, v1::RectColumns* out) {
  for (const CircleRectPair& p : pairs) {
    out->add_min_x(p.min_x);
    out->add_min_y(p.min_y);
    out->add_max_x(p.max_x);
    out->add_max_y(p.max_y);
  }
}

}  // namespace

v1::IntersectColumnsRequest MakeIntersectColumns(
    absl::Span<const CircleRectPair> pairs) {
  v1::IntersectColumnsRequest request;
  request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  v1::CircleRectColumns* group = request.add_groups()->mutable_circle_rect();
  FillBalls(pairs, group->mutable_a());
  FillRects(pairs, group->mutable_b());
  return request;
}

v1::ClosestPointRequest MakeClosestPoint(
    absl::Span<const CircleRectPair> pairs) {
  v1::ClosestPointRequest request;
  request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  request.mutable_queries()->Reserve(static_cast<int>(pairs.size()));
  for (const CircleRectPair& p : pairs) {
    v1::ClosestPointQuery* query = request.add_queries();
    v1::Circle* circle = query->mutable_query()->mutable_circle();
    circle->mutable_center()->set_x(p.x);
    circle->mutable_center()->set_y(p.y);
    circle->set_radius(p.r);
    v1::Rect* rect = query->mutable_target()->mutable_rect();
    rect->mutable_min()->set_x(p.min_x);
    rect->mutable_min()->set_y(p.min_y);
    rect->mutable_max()->set_x(p.max_x);
    rect->mutable_max()->set_y(p.max_y);
  }
  return request;
}

v1::ClosestPointColumnsRequest MakeClosestPointColumns(
    absl::Span<const CircleRectPair> pairs) {
  v1::ClosestPointColumnsRequest request;
  request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  v1::ClosestPointColumnGroup* group = request.add_groups();
  FillBalls(pairs, group->mutable_queries2());
  FillRects(pairs, group->mutable_rects());
  return request;
}

}  // namespace collision::peers
