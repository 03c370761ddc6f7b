// Random shapes for the request-path tests: mostly valid fields and, now
// and then, every kind of invalid one (NaN, infinite, out of range,
// negative lengths, missing sub-messages, no kind, non-unit rotations).
#ifndef COLLISION_TESTS_SERVER_SHAPE_TESTING_H_
#define COLLISION_TESTS_SERVER_SHAPE_TESTING_H_

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <variant>

#include "collision/core/shapes.h"
#include "collision/v1/collision.pb.h"

namespace collision::shape_testing {

class Fields {
 public:
  // `odds`: one value in `odds` is invalid, of every kind in turn.
  explicit Fields(uint32_t seed, int odds = 5) : rng_(seed), odds_(odds) {}
  // Mostly valid values; now and then every kind of invalid one.
  float Value(bool length) {
    switch (std::uniform_int_distribution<int>(0, 4 * odds_ - 1)(rng_)) {
      case 0:
        return std::numeric_limits<float>::quiet_NaN();
      case 1:
        return std::numeric_limits<float>::infinity();
      case 2:
        return 2e9f;
      case 3:
        return length ? -1.0f : -1e9f;
      default:
        return std::uniform_real_distribution<float>(length ? 0.0f : -50.0f,
                                                     50.0f)(rng_);
    }
  }
  bool Chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  // 0..8: the Shape oneof's kinds in field order; 9: none set.
  int Kind() { return std::uniform_int_distribution<int>(0, 9)(rng_); }
  // A quaternion's part: mostly of a unit quaternion made in Quaternion().
  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
  int odds_;
};

// Puts min <= max on every axis where both are numbers.
inline void Order(v1::Vec2* min, v1::Vec2* max) {
  if (max->x() < min->x()) {
    const float x = min->x();
    min->set_x(max->x());
    max->set_x(x);
  }
  if (max->y() < min->y()) {
    const float y = min->y();
    min->set_y(max->y());
    max->set_y(y);
  }
}
inline void Order(v1::Vec3* min, v1::Vec3* max) {
  v1::Vec2 lo, hi;
  lo.set_x(min->x());
  lo.set_y(min->y());
  hi.set_x(max->x());
  hi.set_y(max->y());
  Order(&lo, &hi);
  min->set_x(lo.x());
  min->set_y(lo.y());
  max->set_x(hi.x());
  max->set_y(hi.y());
  if (max->z() < min->z()) {
    const float z = min->z();
    min->set_z(max->z());
    max->set_z(z);
  }
}

inline void RandomShape(Fields& f, v1::Shape* s) {
  auto vec2 = [&](v1::Vec2* v, bool length) {
    v->set_x(f.Value(length));
    v->set_y(f.Value(length));
  };
  auto vec3 = [&](v1::Vec3* v) {
    v->set_x(f.Value(false));
    v->set_y(f.Value(false));
    v->set_z(f.Value(false));
  };
  switch (f.Kind()) {
    case 0:
      vec2(s->mutable_point(), false);
      break;
    case 1:
      if (!f.Chance(0.05)) vec2(s->mutable_circle()->mutable_center(), false);
      s->mutable_circle()->set_radius(f.Value(true));
      break;
    case 2: {
      v1::Rect* r = s->mutable_rect();
      vec2(r->mutable_min(), false);
      if (!f.Chance(0.05)) vec2(r->mutable_max(), false);
      if (f.Chance(0.8)) {  // most rects the right way round
        Order(r->mutable_min(), r->mutable_max());
      }
      break;
    }
    case 3: {
      v1::RotatedRect* r = s->mutable_rotated_rect();
      vec2(r->mutable_size(), true);
      vec2(r->mutable_pivot(), false);
      if (!f.Chance(0.05)) vec2(r->mutable_position(), false);
      if (f.Chance(0.5)) {
        r->set_angle(f.Chance(0.2) ? 20000.0f : f.Value(false));
      } else if (f.Chance(0.9)) {
        const float a = f.Value(false);
        r->mutable_rotation()->set_cos(std::cos(a));
        r->mutable_rotation()->set_sin(f.Chance(0.1) ? 0.5f : std::sin(a));
      }
      break;
    }
    case 4:
      vec3(s->mutable_point3());
      break;
    case 5:
      vec3(s->mutable_sphere()->mutable_center());
      s->mutable_sphere()->set_radius(f.Value(true));
      break;
    case 6: {
      v1::Box* b = s->mutable_box();
      vec3(b->mutable_min());
      vec3(b->mutable_max());
      if (f.Chance(0.8)) {
        Order(b->mutable_min(), b->mutable_max());
      }
      break;
    }
    case 7: {
      v1::Capsule3* c = s->mutable_capsule3();
      if (!f.Chance(0.05)) vec3(c->mutable_a());
      if (!f.Chance(0.05)) vec3(c->mutable_b());
      c->set_radius(f.Value(true));
      break;
    }
    case 8: {
      v1::OrientedBox* b = s->mutable_oriented_box();
      if (!f.Chance(0.05)) vec3(b->mutable_center());
      if (!f.Chance(0.05)) {
        v1::Vec3* h = b->mutable_half_extents();
        h->set_x(f.Value(true));
        h->set_y(f.Value(true));
        h->set_z(f.Value(true));
      }
      if (!f.Chance(0.05)) {
        // Unit (normalised in double, rounded to float), and now and then
        // scaled off unit length or with one invalid part.
        std::normal_distribution<double> g;
        double q[4];
        double n = 0;
        for (double& v : q) v = g(f.rng()), n += v * v;
        n = std::sqrt(n);
        const double scale = f.Chance(0.1) ? 1.01 : 1.0;
        v1::Quaternion* r = b->mutable_rotation();
        r->set_w(static_cast<float>(q[0] / n * scale));
        r->set_x(static_cast<float>(q[1] / n * scale));
        r->set_y(static_cast<float>(q[2] / n * scale));
        r->set_z(f.Chance(0.05) ? f.Value(false)
                                : static_cast<float>(q[3] / n * scale));
      }
      break;
    }
    default:
      break;  // no kind set
  }
}

inline bool SameBits(const Shape& a, const Shape& b) {
  if (a.index() != b.index()) return false;
  // Every alternative is a plain struct of floats.
  return std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        return std::memcmp(&x, &y, sizeof(T)) == 0;
      },
      a);
}

inline v1::BoundaryRule RandomRule(Fields& f) {
  if (f.Chance(0.05)) return v1::BOUNDARY_RULE_UNSPECIFIED;
  if (f.Chance(0.02)) return static_cast<v1::BoundaryRule>(7);
  return f.Chance(0.5) ? v1::BOUNDARY_RULE_INCLUSIVE
                       : v1::BOUNDARY_RULE_EXCLUSIVE;
}

// A serialized IntersectRequest of 0 to `max_items` random pairs.
inline std::string RandomIntersect(Fields& f, std::mt19937& rng,
                                   int max_items = 6) {
  v1::IntersectRequest r;
  r.set_boundary(RandomRule(f));
  r.set_include_relation(f.Chance(0.5));
  r.set_include_separation(f.Chance(0.5));
  const int n = std::uniform_int_distribution<int>(0, max_items)(rng);
  for (int i = 0; i < n; ++i) {
    v1::ShapePair* p = r.add_pairs();
    if (!f.Chance(0.01)) RandomShape(f, p->mutable_a());
    if (!f.Chance(0.01)) RandomShape(f, p->mutable_b());
  }
  return r.SerializeAsString();
}

// A serialized ClosestPointRequest of 0 to `max_items` random queries.
inline std::string RandomClosestPoint(Fields& f, std::mt19937& rng,
                                      int max_items = 6) {
  v1::ClosestPointRequest r;
  r.set_boundary(RandomRule(f));
  const int n = std::uniform_int_distribution<int>(0, max_items)(rng);
  for (int i = 0; i < n; ++i) {
    v1::ClosestPointQuery* q = r.add_queries();
    if (!f.Chance(0.01)) RandomShape(f, q->mutable_query());
    if (!f.Chance(0.01)) RandomShape(f, q->mutable_target());
  }
  return r.SerializeAsString();
}

}  // namespace collision::shape_testing

#endif  // COLLISION_TESTS_SERVER_SHAPE_TESTING_H_
