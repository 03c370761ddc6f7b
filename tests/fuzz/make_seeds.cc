// Writes the seed corpus of request_fuzzer (one file per request: a kind
// byte + the serialized request), built from the client's builders so every
// shape, wire form and a few invalid inputs are represented.
//   make_fuzz_seeds tests/fuzz/corpus
#include <cmath>
#include <fstream>
#include <string>

#include "collision/client/shapes.h"
#include "collision/v1/scene.pb.h"

namespace c = collision::client;
namespace v1 = collision::v1;

namespace {

int written = 0;

void Write(const std::string& dir, char kind,
           const google::protobuf::Message& m) {
  std::ofstream out(dir + "/seed-" + std::to_string(written++),
                    std::ios::binary);
  out << kind << m.SerializeAsString();
}

// Scene messages (fuzz kinds 0xF0 2D, 0xF1 3D): an update with per-entity
// and column upserts, a removal, and one query of each kind.
void WriteScene(const std::string& dir, bool three_d) {
  v1::SceneRequest r;
  r.set_sequence(7);
  v1::SceneUpdate* u = r.mutable_update();
  u->set_tick(3);
  u->add_removals(2);
  v1::SceneEntity* e = u->add_upserts();
  e->set_id(10);
  e->set_category(3);
  v1::EntityColumns* g = u->add_upsert_columns();
  g->add_ids(11);
  g->add_ids(12);
  if (three_d) {
    auto* s = e->mutable_shape()->mutable_box();
    s->mutable_min()->set_x(0), s->mutable_max()->set_x(1);
    s->mutable_max()->set_y(1), s->mutable_max()->set_z(1);
    auto* b = g->mutable_spheres();
    for (float v : {0.0f, 2.0f}) b->add_x(v), b->add_y(v), b->add_z(v);
    b->add_radius(1), b->add_radius(0.5f);
  } else {
    auto* rr = e->mutable_shape()->mutable_rotated_rect();
    rr->mutable_size()->set_x(2), rr->mutable_size()->set_y(1);
    rr->mutable_pivot()->set_x(1), rr->mutable_position()->set_y(3);
    rr->set_angle(0.25f);
    auto* b = g->mutable_circles();
    for (float v : {0.0f, 2.0f}) b->add_x(v), b->add_y(v);
    b->add_radius(1), b->add_radius(0.5f);
  }
  v1::SceneQuery* overlap = r.add_queries();
  auto* c = three_d ? nullptr : overlap->mutable_overlap()->mutable_shape();
  if (c != nullptr) {
    c->mutable_circle()->mutable_center()->set_x(1);
    c->mutable_circle()->set_radius(2);
  } else {
    auto* s = overlap->mutable_overlap()->mutable_shape()->mutable_sphere();
    s->mutable_center()->set_x(1);
    s->set_radius(2);
  }
  overlap->mutable_overlap()->set_include_separation(true);
  overlap->set_mask(1);
  v1::SceneQuery* nearest = r.add_queries();
  if (three_d) {
    nearest->mutable_nearest()->mutable_shape()->mutable_point3()->set_x(5);
  } else {
    nearest->mutable_nearest()->mutable_shape()->mutable_point()->set_x(5);
  }
  nearest->mutable_nearest()->set_k(2);
  v1::SceneQuery* ray = r.add_queries();
  ray->mutable_raycast()->mutable_origin()->set_x(-5);
  ray->mutable_raycast()->mutable_direction()->set_x(1);
  ray->mutable_raycast()->set_max_distance(20);
  ray->mutable_raycast()->set_all_hits(true);
  v1::SceneQuery* sweep = r.add_queries();
  sweep->mutable_sweep()->mutable_origin()->set_y(-5);
  sweep->mutable_sweep()->mutable_direction()->set_y(1);
  sweep->mutable_sweep()->set_max_distance(20);
  sweep->mutable_sweep()->set_radius(0.5f);
  sweep->set_exclude_id(11);
  std::ofstream out(dir + (three_d ? "/seed-scene-3d" : "/seed-scene-2d"),
                    std::ios::binary);
  out << static_cast<char>(three_d ? 0xF1 : 0xF0) << r.SerializeAsString();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  c::IntersectBatch all;
  all.WithRelation().WithSeparation();
  all.Add(c::Circle(5, 5, 2), c::RectFromCornerSize(7, 0, 4, 10))
      .Add(c::Point(1, 1), c::RotatedRectFromPivot(4, 2, 1, 1, 0, 0, 0.7f))
      .Add(c::Point(1, 1),
           c::RotatedRectFromPivotCosSin(4, 2, 0, 0, 0, 0, 0, 1))
      .Add(c::Circle(0, 0, 1), c::Circle(2, 0, 1))
      .Add(c::RectFromMinMax(0, 0, 1, 1), c::RectFromMinMax(1, 1, 2, 2))
      .Add(c::Sphere(0, 0, 3, 1), c::BoxFromMinMax(-2, -2, -2, 2, 2, 2))
      .Add(c::Point3(0, 0, 0), c::Sphere(0, 0, 1, 1))
      .Add(c::BoxFromMinMax(0, 0, 0, 1, 1, 1),
           c::BoxFromMinMax(1, 0, 0, 2, 1, 1));
  Write(dir, 0, all.request());
  c::IntersectBatch bad;
  bad.Add(c::Circle(0, 0, -1), c::Point(NAN, 0))
      .Add(c::RectFromMinMax(0, 0, 1, 1), c::Sphere(0, 0, 0, 1e20f));
  Write(dir, 0, bad.request());
  c::ClosestPointBatch cp;
  cp.Add(c::Point(3, 5), c::RectFromCornerSize(0, 0, 10, 10))
      .Add(c::Circle(0, 5, 1), c::Circle(0, 0, 2))
      .Add(c::Point(1, 1), c::RotatedRectAboutCenter(0, 0, 4, 2, 0.3f))
      .Add(c::Sphere(2, 2, 7, 1), c::BoxFromMinMax(0, 0, 0, 4, 4, 4))
      .Add(c::Point3(0, 0, 0), c::Point3(0, 0, 0));
  Write(dir, 1, cp.request());
  // Columns: one group of each intersect kind, with a few pairs.
  v1::IntersectColumnsRequest cols;
  cols.set_boundary(v1::BOUNDARY_RULE_EXCLUSIVE);
  cols.set_include_relation(true);
  cols.set_include_separation(true);
  auto* cr = cols.add_groups()->mutable_circle_rect();
  for (int i = 0; i < 9; ++i) {
    cr->mutable_a()->add_x(float(i)), cr->mutable_a()->add_y(0);
    cr->mutable_a()->add_radius(1);
    cr->mutable_b()->add_min_x(float(i) + 1), cr->mutable_b()->add_min_y(0);
    cr->mutable_b()->add_max_x(float(i) + 2), cr->mutable_b()->add_max_y(1);
  }
  auto* rr = cols.add_groups()->mutable_circle_rotated_rect();
  rr->mutable_a()->add_x(0), rr->mutable_a()->add_y(0);
  auto* b = rr->mutable_b();
  b->add_size_x(2), b->add_size_y(2), b->add_pivot_x(1), b->add_pivot_y(1);
  b->add_position_x(0), b->add_position_y(0), b->add_angle(0.5f);
  auto* bb = cols.add_groups()->mutable_box_box();
  for (auto* box : {bb->mutable_a(), bb->mutable_b()}) {
    box->add_min_x(0), box->add_min_y(0), box->add_min_z(0);
    box->add_max_x(1), box->add_max_y(1), box->add_max_z(1);
  }
  Write(dir, 2, cols);
  v1::ClosestPointColumnsRequest cpc;
  cpc.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  auto* g = cpc.add_groups();
  g->mutable_queries2()->add_x(3), g->mutable_queries2()->add_y(4);
  auto* rects = g->mutable_rects();
  rects->add_min_x(0), rects->add_min_y(0), rects->add_max_x(1);
  rects->add_max_y(1);
  auto* g3 = cpc.add_groups();
  g3->mutable_queries3()->add_x(0), g3->mutable_queries3()->add_y(0);
  g3->mutable_queries3()->add_z(0);
  auto* spheres = g3->mutable_spheres();
  spheres->add_x(0), spheres->add_y(0), spheres->add_z(0);
  spheres->add_radius(1);
  Write(dir, 3, cpc);
  WriteScene(dir, false);
  WriteScene(dir, true);
  return 0;
}
