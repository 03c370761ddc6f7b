// Optional peer comparison (built only when FCL, Box2D and GEOS are found;
// scripts/install-bench-peers.sh installs them): the same pairs through our
// SIMD kernels and through each peer's per-pair API, at 64k pairs.
//   sphere_box/{simd_intersect, simd_closest, fcl_collide, fcl_distance}
//   circle_rotated/{simd_intersect, simd_closest, box2d_test_overlap,
//                   box2d_distance, geos_distance_within, geos_distance}
// Peer shapes and transforms are built once, outside the timed loop (their
// construction costs more than the query; docs/references.md).
#include <benchmark/benchmark.h>
#include <box2d/b2_distance.h>
#include <box2d/box2d.h>
#include <fcl/fcl.h>
#include <geos_c.h>

#include <cmath>
#include <memory>
#include <vector>

#include "bench_data.h"
#include "collision/core/batch.h"
#include "collision/core/kernels.h"

namespace collision {
namespace bench {
namespace {

constexpr size_t kPairs = size_t{1} << 16;
constexpr Boundary kB = Boundary::kInclusive;

// ---- Sphere vs box
// -----------------------------------------------------------

struct SphereBoxData {
  Soa soa{10};
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> spheres, boxes;
};

const SphereBoxData& GetSphereBox() {
  static const SphereBoxData* data = [] {
    auto* d = new SphereBoxData;
    Rng rng(0xFC1);
    for (size_t i = 0; i < kPairs; ++i) {
      const Sphere s = RandSphere(rng);
      const Box b = RandBox(rng);
      d->soa.Row({s.center.x, s.center.y, s.center.z, s.radius, b.min.x,
                  b.min.y, b.min.z, b.max.x, b.max.y, b.max.z});
      fcl::Transform3d ts = fcl::Transform3d::Identity();
      ts.translation() = fcl::Vector3d(s.center.x, s.center.y, s.center.z);
      d->spheres.push_back(std::make_unique<fcl::CollisionObjectd>(
          std::make_shared<fcl::Sphered>(s.radius), ts));
      fcl::Transform3d tb = fcl::Transform3d::Identity();
      tb.translation() =
          fcl::Vector3d(0.5 * (b.min.x + b.max.x), 0.5 * (b.min.y + b.max.y),
                        0.5 * (b.min.z + b.max.z));
      d->boxes.push_back(std::make_unique<fcl::CollisionObjectd>(
          std::make_shared<fcl::Boxd>(b.max.x - b.min.x, b.max.y - b.min.y,
                                      b.max.z - b.min.z),
          tb));
    }
    return d;
  }();
  return *data;
}

void Done(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kPairs));
}

void BM_SphereBoxSimdIntersect(benchmark::State& state) {
  const Soa& s = GetSphereBox().soa;
  std::vector<uint8_t> bits(kPairs / 8);
  std::vector<Relation> rel(kPairs);
  std::vector<float> sep(kPairs);
  for (auto _ : state) {
    simd::IntersectSphereBoxColumns(
        {s[0], s[1], s[2], s[3]}, {s[4], s[5], s[6], s[7], s[8], s[9]}, kPairs,
        kB, {nullptr, bits.data(), rel.data(), sep.data()});
    benchmark::ClobberMemory();
  }
  Done(state);
}

void BM_SphereBoxSimdClosest(benchmark::State& state) {
  const Soa& s = GetSphereBox().soa;
  std::vector<std::vector<float>> f(11, std::vector<float>(kPairs));
  std::vector<uint8_t> inside(kPairs);
  const simd::ClosestPointOutputs o{f[0].data(), f[1].data(),  f[2].data(),
                                    f[3].data(), f[4].data(),  f[5].data(),
                                    f[6].data(), f[7].data(),  f[8].data(),
                                    f[9].data(), f[10].data(), inside.data()};
  for (auto _ : state) {
    simd::ClosestPointOnBoxColumns({s[0], s[1], s[2], s[3]},
                                   {s[4], s[5], s[6], s[7], s[8], s[9]}, kPairs,
                                   kB, o);
    benchmark::ClobberMemory();
  }
  Done(state);
}

void BM_SphereBoxFclCollide(benchmark::State& state) {
  const SphereBoxData& d = GetSphereBox();
  std::vector<uint8_t> hit(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) {
      fcl::CollisionRequestd req;
      fcl::CollisionResultd res;
      fcl::collide(d.spheres[i].get(), d.boxes[i].get(), req, res);
      hit[i] = res.isCollision();
    }
    benchmark::ClobberMemory();
  }
  Done(state);
}

void BM_SphereBoxFclDistance(benchmark::State& state) {
  const SphereBoxData& d = GetSphereBox();
  std::vector<double> dist(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) {
      fcl::DistanceRequestd req;
      fcl::DistanceResultd res;
      fcl::distance(d.spheres[i].get(), d.boxes[i].get(), req, res);
      dist[i] = res.min_distance;
    }
    benchmark::ClobberMemory();
  }
  Done(state);
}

// ---- Circle vs rotated rectangle
// ---------------------------------------------

struct RotatedData {
  Soa soa{11};
  std::vector<b2CircleShape> circles;
  std::vector<b2PolygonShape> boxes;
  std::vector<b2Transform> box_xf;
  GEOSContextHandle_t geos = nullptr;
  std::vector<GEOSGeometry*> points, polygons;
  std::vector<double> radius;
};

const RotatedData& GetRotated() {
  static const RotatedData* data = [] {
    auto* d = new RotatedData;
    d->geos = GEOS_init_r();
    Rng rng(0xB0C);
    for (size_t i = 0; i < kPairs; ++i) {
      const Circle c = RandCircle(rng);
      const float angle = RandAngle(rng);
      const RotatedRect r = RandRotated(rng, angle);  // pivot at the centre
      d->soa.Row({c.center.x, c.center.y, c.radius, r.size.x, r.size.y,
                  r.pivot.x, r.pivot.y, r.position.x, r.position.y,
                  r.rotation.cos, r.rotation.sin});
      b2CircleShape circle;
      circle.m_p.Set(c.center.x, c.center.y);
      circle.m_radius = c.radius;
      d->circles.push_back(circle);
      b2PolygonShape box;
      box.SetAsBox(std::max(r.size.x * 0.5f, 1e-3f),
                   std::max(r.size.y * 0.5f, 1e-3f));
      d->boxes.push_back(box);
      d->box_xf.emplace_back(b2Vec2(r.position.x, r.position.y), b2Rot(angle));
      d->points.push_back(
          GEOSGeom_createPointFromXY_r(d->geos, c.center.x, c.center.y));
      GEOSCoordSequence* seq = GEOSCoordSeq_create_r(d->geos, 5, 2);
      const float lx[] = {-r.pivot.x, r.size.x - r.pivot.x,
                          r.size.x - r.pivot.x, -r.pivot.x, -r.pivot.x};
      const float ly[] = {-r.pivot.y, -r.pivot.y, r.size.y - r.pivot.y,
                          r.size.y - r.pivot.y, -r.pivot.y};
      for (unsigned k = 0; k < 5; ++k) {
        const double wx =
            r.position.x + r.rotation.cos * lx[k] - r.rotation.sin * ly[k];
        const double wy =
            r.position.y + r.rotation.sin * lx[k] + r.rotation.cos * ly[k];
        GEOSCoordSeq_setXY_r(d->geos, seq, k, wx, wy);
      }
      GEOSGeometry* shell = GEOSGeom_createLinearRing_r(d->geos, seq);
      d->polygons.push_back(
          GEOSGeom_createPolygon_r(d->geos, shell, nullptr, 0));
      d->radius.push_back(c.radius);
    }
    return d;
  }();
  return *data;
}

void BM_RotatedSimdIntersect(benchmark::State& state) {
  const Soa& s = GetRotated().soa;
  std::vector<uint8_t> bits(kPairs / 8);
  std::vector<Relation> rel(kPairs);
  std::vector<float> sep(kPairs);
  for (auto _ : state) {
    simd::IntersectCircleRotatedRectColumns(
        {s[0], s[1], s[2]}, {s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]},
        kPairs, kB, {nullptr, bits.data(), rel.data(), sep.data()});
    benchmark::ClobberMemory();
  }
  Done(state);
}

void BM_RotatedSimdClosest(benchmark::State& state) {
  const Soa& s = GetRotated().soa;
  std::vector<std::vector<float>> f(11, std::vector<float>(kPairs));
  std::vector<uint8_t> inside(kPairs);
  const simd::ClosestPointOutputs o{f[0].data(), f[1].data(),  f[2].data(),
                                    f[3].data(), f[4].data(),  f[5].data(),
                                    f[6].data(), f[7].data(),  f[8].data(),
                                    f[9].data(), f[10].data(), inside.data()};
  for (auto _ : state) {
    simd::ClosestPointOnRotatedRectColumns(
        {s[0], s[1], s[2]}, {s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]},
        kPairs, kB, o);
    benchmark::ClobberMemory();
  }
  Done(state);
}

void BM_RotatedBox2dTestOverlap(benchmark::State& state) {
  const RotatedData& d = GetRotated();
  b2Transform identity;
  identity.SetIdentity();
  std::vector<uint8_t> hit(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) {
      hit[i] = b2TestOverlap(&d.circles[i], 0, &d.boxes[i], 0, identity,
                             d.box_xf[i]);
    }
    benchmark::ClobberMemory();
  }
  Done(state);
}

void BM_RotatedBox2dDistance(benchmark::State& state) {
  const RotatedData& d = GetRotated();
  b2Transform identity;
  identity.SetIdentity();
  std::vector<float> dist(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) {
      b2DistanceInput in;
      in.proxyA.Set(&d.circles[i], 0);
      in.proxyB.Set(&d.boxes[i], 0);
      in.transformA = identity;
      in.transformB = d.box_xf[i];
      in.useRadii = true;
      b2SimplexCache cache;
      cache.count = 0;
      b2DistanceOutput out;
      b2Distance(&out, &cache, &in);
      dist[i] = out.distance;
    }
    benchmark::ClobberMemory();
  }
  Done(state);
}

// PostGIS ST_DWithin(point, polygon, r): the circle-vs-rotated-rect hit.
void BM_RotatedGeosDistanceWithin(benchmark::State& state) {
  const RotatedData& d = GetRotated();
  std::vector<uint8_t> hit(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) {
      hit[i] =
          GEOSDistanceWithin_r(d.geos, d.points[i], d.polygons[i], d.radius[i]);
    }
    benchmark::ClobberMemory();
  }
  Done(state);
}

// PostGIS ST_Distance(point, polygon): the closest-point distance.
void BM_RotatedGeosDistance(benchmark::State& state) {
  const RotatedData& d = GetRotated();
  std::vector<double> dist(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) {
      GEOSDistance_r(d.geos, d.points[i], d.polygons[i], &dist[i]);
    }
    benchmark::ClobberMemory();
  }
  Done(state);
}

BENCHMARK(BM_SphereBoxSimdIntersect);
BENCHMARK(BM_SphereBoxSimdClosest);
BENCHMARK(BM_SphereBoxFclCollide);
BENCHMARK(BM_SphereBoxFclDistance);
BENCHMARK(BM_RotatedSimdIntersect);
BENCHMARK(BM_RotatedSimdClosest);
BENCHMARK(BM_RotatedBox2dTestOverlap);
BENCHMARK(BM_RotatedBox2dDistance);
BENCHMARK(BM_RotatedGeosDistanceWithin);
BENCHMARK(BM_RotatedGeosDistance);

}  // namespace
}  // namespace bench
}  // namespace collision

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("simd_target", collision::SimdTargetName());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
