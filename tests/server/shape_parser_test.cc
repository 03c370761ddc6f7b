// FastShape (no field paths, for large batches) must accept exactly the
// shapes Parser::ParseShape accepts, and convert them to the same values,
// rotations included: random shapes, valid and invalid field by field.
#include "server/shape_parser.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "gtest/gtest.h"

namespace collision::server {
namespace {

class Fields {
 public:
  explicit Fields(uint32_t seed) : rng_(seed) {}
  // Mostly valid values; now and then every kind of invalid one.
  float Value(bool length) {
    switch (std::uniform_int_distribution<int>(0, 19)(rng_)) {
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
  int Kind() { return std::uniform_int_distribution<int>(0, 7)(rng_); }

 private:
  std::mt19937 rng_;
};

void RandomShape(Fields& f, v1::Shape* s) {
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
    case 2:
      vec2(s->mutable_rect()->mutable_min(), false);
      if (!f.Chance(0.05)) vec2(s->mutable_rect()->mutable_max(), false);
      break;
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
    case 6:
      vec3(s->mutable_box()->mutable_min());
      vec3(s->mutable_box()->mutable_max());
      break;
    default:
      break;  // no kind set
  }
}

bool SameBits(const Shape& a, const Shape& b) {
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

TEST(FastShape, AcceptsExactlyWhatTheParserAcceptsWithTheSameValues) {
  Fields f(3);
  int accepted = 0;
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    v1::Shape s;
    RandomShape(f, &s);
    Shape fast;
    const bool ok = FastShape(s, &fast);
    Violations v;
    Parser parser(&v);
    const std::optional<Shape> slow = parser.ParseShape(true, s, "shape");
    ASSERT_EQ(ok, v.empty()) << s.DebugString() << v.ToStatus();
    if (ok) {
      ASSERT_TRUE(slow.has_value());
      EXPECT_TRUE(SameBits(fast, *slow)) << s.DebugString();
      ++accepted;
    } else {
      ++rejected;
    }
  }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace collision::server
