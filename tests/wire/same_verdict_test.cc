// One invalid number gets one verdict wherever it is sent: as a shape of a
// pairwise Intersect, a scene entity, a row of scene entity columns and the
// shape of a scene overlap query. Each path has its own fast check and
// falls back to field_rules.h for the message; a path that checked
// differently (accepted a NaN, or named another reason) shows up here.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "collision/wire/convert.h"
#include "collision/wire/scene_request.h"
#include "gtest/gtest.h"

namespace collision::wire {
namespace {

// Sets one field of a valid shape to `bad`, in the per-shape form and in
// the one-row columns form.
struct FieldCase {
  const char* name;
  bool three_d;
  std::function<void(float bad, v1::Shape*)> shape;
  std::function<void(float bad, v1::EntityColumns*)> columns;
};

void Vec2Of(float x, float y, v1::Vec2* v) { v->set_x(x), v->set_y(y); }
void Vec3Of(float x, float y, float z, v1::Vec3* v) {
  v->set_x(x), v->set_y(y), v->set_z(z);
}

v1::Circle* CircleIn(v1::Shape* s) {
  v1::Circle* c = s->mutable_circle();
  Vec2Of(1, 2, c->mutable_center());
  c->set_radius(1);
  return c;
}
v1::BallColumns2* CirclesIn(v1::EntityColumns* g) {
  v1::BallColumns2* c = g->mutable_circles();
  c->add_x(1), c->add_y(2), c->add_radius(1);
  return c;
}
v1::Rect* RectIn(v1::Shape* s) {
  v1::Rect* r = s->mutable_rect();
  Vec2Of(0, 0, r->mutable_min());
  Vec2Of(2, 3, r->mutable_max());
  return r;
}
v1::RectColumns* RectsIn(v1::EntityColumns* g) {
  v1::RectColumns* r = g->mutable_rects();
  r->add_min_x(0), r->add_min_y(0), r->add_max_x(2), r->add_max_y(3);
  return r;
}
v1::RotatedRect* RotatedIn(v1::Shape* s, bool by_angle) {
  v1::RotatedRect* r = s->mutable_rotated_rect();
  Vec2Of(2, 3, r->mutable_size());
  Vec2Of(1, 1.5f, r->mutable_pivot());
  Vec2Of(5, 6, r->mutable_position());
  if (by_angle) {
    r->set_angle(0.5f);
  } else {
    r->mutable_rotation()->set_cos(1);
    r->mutable_rotation()->set_sin(0);
  }
  return r;
}
v1::RotatedRectColumns* RotatedsIn(v1::EntityColumns* g, bool by_angle) {
  v1::RotatedRectColumns* r = g->mutable_rotated_rects();
  r->add_size_x(2), r->add_size_y(3), r->add_pivot_x(1), r->add_pivot_y(1.5f);
  r->add_position_x(5), r->add_position_y(6);
  if (by_angle) {
    r->add_angle(0.5f);
  } else {
    r->add_cos(1), r->add_sin(0);
  }
  return r;
}
v1::Sphere* SphereIn(v1::Shape* s) {
  v1::Sphere* b = s->mutable_sphere();
  Vec3Of(1, 2, 3, b->mutable_center());
  b->set_radius(1);
  return b;
}
v1::BallColumns3* SpheresIn(v1::EntityColumns* g) {
  v1::BallColumns3* b = g->mutable_spheres();
  b->add_x(1), b->add_y(2), b->add_z(3), b->add_radius(1);
  return b;
}
v1::Box* BoxIn(v1::Shape* s) {
  v1::Box* b = s->mutable_box();
  Vec3Of(0, 0, 0, b->mutable_min());
  Vec3Of(1, 2, 3, b->mutable_max());
  return b;
}
v1::BoxColumns* BoxesIn(v1::EntityColumns* g) {
  v1::BoxColumns* b = g->mutable_boxes();
  b->add_min_x(0), b->add_min_y(0), b->add_min_z(0);
  b->add_max_x(1), b->add_max_y(2), b->add_max_z(3);
  return b;
}

std::vector<FieldCase> Cases() {
  return {
      {"circle.center.x", false,
       [](float v, v1::Shape* s) { CircleIn(s)->mutable_center()->set_x(v); },
       [](float v, v1::EntityColumns* g) { CirclesIn(g)->set_x(0, v); }},
      {"circle.radius", false,
       [](float v, v1::Shape* s) { CircleIn(s)->set_radius(v); },
       [](float v, v1::EntityColumns* g) { CirclesIn(g)->set_radius(0, v); }},
      {"rect.min.y", false,
       [](float v, v1::Shape* s) { RectIn(s)->mutable_min()->set_y(v); },
       [](float v, v1::EntityColumns* g) { RectsIn(g)->set_min_y(0, v); }},
      {"rect.max.x", false,
       [](float v, v1::Shape* s) { RectIn(s)->mutable_max()->set_x(v); },
       [](float v, v1::EntityColumns* g) { RectsIn(g)->set_max_x(0, v); }},
      {"rotated_rect.size.x", false,
       [](float v, v1::Shape* s) {
         RotatedIn(s, true)->mutable_size()->set_x(v);
       },
       [](float v, v1::EntityColumns* g) {
         RotatedsIn(g, true)->set_size_x(0, v);
       }},
      {"rotated_rect.pivot.y", false,
       [](float v, v1::Shape* s) {
         RotatedIn(s, true)->mutable_pivot()->set_y(v);
       },
       [](float v, v1::EntityColumns* g) {
         RotatedsIn(g, true)->set_pivot_y(0, v);
       }},
      {"rotated_rect.position.x", false,
       [](float v, v1::Shape* s) {
         RotatedIn(s, true)->mutable_position()->set_x(v);
       },
       [](float v, v1::EntityColumns* g) {
         RotatedsIn(g, true)->set_position_x(0, v);
       }},
      {"rotated_rect.angle", false,
       [](float v, v1::Shape* s) { RotatedIn(s, true)->set_angle(v); },
       [](float v, v1::EntityColumns* g) {
         RotatedsIn(g, true)->set_angle(0, v);
       }},
      {"rotated_rect.rotation.sin", false,
       [](float v, v1::Shape* s) {
         RotatedIn(s, false)->mutable_rotation()->set_sin(v);
       },
       [](float v, v1::EntityColumns* g) {
         RotatedsIn(g, false)->set_sin(0, v);
       }},
      {"sphere.center.z", true,
       [](float v, v1::Shape* s) { SphereIn(s)->mutable_center()->set_z(v); },
       [](float v, v1::EntityColumns* g) { SpheresIn(g)->set_z(0, v); }},
      {"sphere.radius", true,
       [](float v, v1::Shape* s) { SphereIn(s)->set_radius(v); },
       [](float v, v1::EntityColumns* g) { SpheresIn(g)->set_radius(0, v); }},
      {"box.min.z", true,
       [](float v, v1::Shape* s) { BoxIn(s)->mutable_min()->set_z(v); },
       [](float v, v1::EntityColumns* g) { BoxesIn(g)->set_min_z(0, v); }},
      {"box.max.y", true,
       [](float v, v1::Shape* s) { BoxIn(s)->mutable_max()->set_y(v); },
       [](float v, v1::EntityColumns* g) { BoxesIn(g)->set_max_y(0, v); }},
  };
}

// The reasons a status gives, sorted ("" for OK), without the field paths,
// which differ by path on purpose.
std::vector<std::string> Reasons(const absl::Status& status) {
  if (status.ok()) return {""};
  std::vector<std::string> out;
  const v1::BadRequest bad = BadRequestOf(status);
  for (const auto& v : bad.field_violations()) {
    out.push_back(v.description());
  }
  if (out.empty()) out.push_back(std::string(status.message()));
  std::sort(out.begin(), out.end());
  return out;
}

struct Paths {
  explicit Paths(bool three_d)
      : scene(three_d ? SceneDimension::k3D : SceneDimension::k2D) {
    v1::SceneConfig config;
    config.set_dimension(three_d ? v1::DIMENSION_3D : v1::DIMENSION_2D);
    config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    config.set_max_entities(10);
    settings = *ParseSceneConfig(config, limits);
    if (three_d) {
      Vec3Of(0, 0, 0, point.mutable_point3());
    } else {
      Vec2Of(0, 0, point.mutable_point());
    }
  }
  absl::Status Pairwise(const v1::Shape& s) const {
    v1::IntersectRequest r;
    r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    v1::ShapePair* p = r.add_pairs();
    *p->mutable_a() = s;
    *p->mutable_b() = point;
    return ParseIntersectRequest(r, RequestLimits{}).status();
  }
  absl::Status Message(const v1::SceneRequest& r) const {
    return ParseSceneMessage(r, settings, std::nullopt, scene, limits, false)
        .status();
  }
  absl::Status Entity(const v1::Shape& s) const {
    v1::SceneRequest r;
    r.mutable_update()->set_tick(1);
    v1::SceneEntity* e = r.mutable_update()->add_upserts();
    e->set_id(1);
    *e->mutable_shape() = s;
    return Message(r);
  }
  absl::Status Columns(const v1::EntityColumns& g) const {
    v1::SceneRequest r;
    r.mutable_update()->set_tick(1);
    *r.mutable_update()->add_upsert_columns() = g;
    r.mutable_update()->mutable_upsert_columns(0)->add_ids(1);
    return Message(r);
  }
  absl::Status Overlap(const v1::Shape& s) const {
    v1::SceneRequest r;
    *r.add_queries()->mutable_overlap()->mutable_shape() = s;
    return Message(r);
  }

  SceneLimits limits;
  SceneSettings settings;
  collision::Scene scene;
  v1::Shape point;
};

TEST(SameVerdict,
     AnInvalidNumberIsRefusedAlikeByPairsSceneEntitiesColumnsAndQueries) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const float bad_values[] = {std::nanf(""), kInf, -kInf, -1.0f, 2e9f,
                              -2e9f,         2e4f, 1.5f,  1e-30f};
  int refused = 0;
  for (const FieldCase& c : Cases()) {
    const Paths paths(c.three_d);
    for (float bad : bad_values) {
      v1::Shape shape;
      c.shape(bad, &shape);
      v1::EntityColumns columns;
      c.columns(bad, &columns);
      const std::vector<std::string> pairwise = Reasons(paths.Pairwise(shape));
      SCOPED_TRACE(testing::Message() << c.name << " = " << bad);
      EXPECT_EQ(Reasons(paths.Entity(shape)), pairwise);
      EXPECT_EQ(Reasons(paths.Columns(columns)), pairwise);
      EXPECT_EQ(Reasons(paths.Overlap(shape)), pairwise);
      if (pairwise != std::vector<std::string>{""}) ++refused;
    }
  }
  // NaN and the infinities everywhere, and the out-of-range values: the
  // comparison above compared refusals, not only acceptances.
  EXPECT_GE(refused, 13 * 3 + 13);
}

}  // namespace
}  // namespace collision::wire
