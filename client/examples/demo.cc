// collision_demo: waits for a server to be healthy, sends one Intersect and
// one ClosestPoint batch built from the seeds' own examples, prints answers.
//
//   collision_demo --target=127.0.0.1:50051
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "collision/client/client.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "server address");

namespace c = collision::client;
namespace v1 = collision::v1;

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto client = c::Client::Create(absl::GetFlag(FLAGS_target));
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    return 1;
  }
  if (absl::Status s = (*client)->WaitUntilServing(absl::Seconds(10));
      !s.ok()) {
    std::fprintf(stderr, "server not ready: %s\n", s.ToString().c_str());
    return 1;
  }

  struct Named {
    const char* what;
    v1::Shape a, b;
  };
  const Named pairs[] = {
      {"seed 001: ball r=15 at (64,64) vs brick (10,20) 10x10",
       c::Circle(64, 64, 15), c::RectFromCornerSize(10, 20, 10, 10)},
      {"circle r=2 at (5,5) touching rect corner-size (7,0) 4x10",
       c::Circle(5, 5, 2), c::RectFromCornerSize(7, 0, 4, 10)},
      {"circle fully inside a rect", c::Circle(50, 50, 1),
       c::RectFromMinMax(0, 0, 100, 100)},
      {"point (0,3) on the edge of a 4x2 rect turned 90 deg at (0,0)",
       c::Point(0, 3),
       c::RotatedRectFromPivot(4, 2, 0, 0, 0, 0, c::DegreesToRadians(90))},
      {"sphere r=1 at (0,0,3) vs box centre 0 half 2 (touching)",
       c::Sphere(0, 0, 3, 1), c::BoxFromCenterHalfExtents(0, 0, 0, 2, 2, 2)},
  };
  c::IntersectBatch batch;
  batch.WithRelation().WithSeparation();
  for (const Named& p : pairs) batch.Add(p.a, p.b);

  for (bool exclusive : {false, true}) {
    if (exclusive) batch.Exclusive();
    auto response = (*client)->Intersect(batch);
    if (!response.ok()) {
      std::fprintf(stderr, "Intersect: %s\n",
                   response.status().ToString().c_str());
      return 1;
    }
    std::printf("Intersect, boundary %s:\n",
                exclusive ? "EXCLUSIVE" : "INCLUSIVE");
    for (int i = 0; i < response->results_size(); ++i) {
      const v1::IntersectResult& r = response->results(i);
      std::printf("  %-60s hit=%-5s %-20s separation=%g\n", pairs[i].what,
                  r.hit() ? "true" : "false",
                  v1::Relation_Name(r.relation()).c_str(), r.separation());
    }
  }

  c::ClosestPointBatch closest;
  closest.Add(c::Point(12, 5), c::RectFromCornerSize(0, 0, 10, 10));
  closest.Add(c::Point(3, 5), c::RectFromCornerSize(0, 0, 10, 10));
  closest.Add(c::Circle(0, 5, 1), c::Circle(0, 0, 2));
  auto cp = (*client)->ClosestPoint(closest);
  if (!cp.ok()) {
    std::fprintf(stderr, "ClosestPoint: %s\n", cp.status().ToString().c_str());
    return 1;
  }
  std::printf("ClosestPoint:\n");
  for (const v1::ClosestPointResult& r : cp->results()) {
    std::printf(
        "  closest=(%g,%g) surface=(%g,%g) normal=(%g,%g) signed_distance=%g "
        "gap=%g inside=%s\n",
        r.closest_point().x(), r.closest_point().y(), r.surface_point().x(),
        r.surface_point().y(), r.normal().x(), r.normal().y(),
        r.signed_distance(), r.gap(), r.inside() ? "true" : "false");
  }

  // A bad request, to show what an error looks like.
  c::IntersectBatch bad;
  bad.Add(c::Circle(0, 0, -1), c::Point(0, 0));
  auto err = (*client)->Intersect(bad);
  std::printf("Invalid request -> %s\n", err.status().ToString().c_str());
  // The same faults for programs: one entry per field (FieldViolations).
  for (const c::FieldViolation& v : c::FieldViolations(err.status())) {
    std::printf("  field %s: %s\n", v.field.c_str(), v.description.c_str());
  }
  return err.ok() ? 1 : 0;
}
