// Optional peer comparison for the 3D hitbox pairs (hitbox3.h, issue #36):
// the same 64k random pairs per pair kind through our scalar functions, FCL
// 0.7 and Bullet 3.24, in one process. Built only when FCL and Bullet are
// found (scripts/install-bench-peers.sh installs them). Rows per pair kind
// (capsule_capsule, box_box, capsule_box, sphere_capsule, sphere_box):
//   ours_intersect  Intersect(a, b, kInclusive): relation and separation.
//   ours_closest    ClosestPoints(a, b): signed distance, points, normal.
//   fcl_collide     fcl::collide, default request (yes/no, libccd GJK).
//   fcl_distance    fcl::distance, default request.
//   bullet_gjk      btGjkPairDetector + btVoronoiSimplexSolver +
//                   btGjkEpaPenetrationDepthSolver into a btPointCollector:
//                   the signed distance (EPA depth when the cores overlap).
// Bullet: the detector is the cheapest direct path that answers yes/no and
// distance for one pair; btCollisionWorld::contactPairTest needs collision
// objects, finds and allocates a collision algorithm and a manifold per call
// and reports only contacts (no distance for separated pairs). The solvers
// are made once and the detector per pair, as btConvexConvexAlgorithm does.
// Shapes keep Bullet's default collision margin (what its users run): 0.04
// rounds box corners and edges, hence a wider agreement band for box kinds.
//
// Peer shapes, collision objects and transforms are built once per pair,
// outside the timed loop, so a peer row times the query alone (its cheapest
// use; a user updating one object per pair pays a transform set on top).
//
// Agreement counters (on the peer rows, from the last timed pass): hit/no-hit
// against ours under the inclusive rule, counted only where |our separation|
// exceeds a band around touching (`disagree`; `disagree_all` counts all),
// and the largest difference of the distance against our separation.
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <benchmark/benchmark.h>
#include <btBulletCollisionCommon.h>
#include <fcl/fcl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_data.h"
#include "collision/core/hitbox3.h"

namespace collision {
namespace bench {
namespace {

constexpr size_t kPairs = size_t{1} << 16;
constexpr Boundary kB = Boundary::kInclusive;

// ---- Random shapes ------------------------------------------------------
//
// Sizes 0.1 to 10: sphere radius [0.05, 5], capsule radius [0.05, 2] and
// segment length [0.1, 10], box sides [0.1, 10]. Centres over [-100, 100]^3,
// the second shape offset by [-spread, spread]^3 from the first, the spread
// chosen per kind so that 30-50% of the pairs hit.

// Uniform random rotation (Shoemake), rounded to float.
Quat RandQuat(Rng& r) {
  const double u1 = r.Uniform(0, 1), u2 = r.Uniform(0, 2 * M_PI),
               u3 = r.Uniform(0, 2 * M_PI);
  const double s1 = std::sqrt(1 - u1), s2 = std::sqrt(u1);
  return {static_cast<float>(s2 * std::cos(u3)),
          static_cast<float>(s1 * std::sin(u2)),
          static_cast<float>(s1 * std::cos(u2)),
          static_cast<float>(s2 * std::sin(u3))};
}

Vec3 Rotate(const Quat& q, const Vec3& v) {
  const Mat3 m = RotationMatrix(q);
  return {m.m[0] * v.x + m.m[1] * v.y + m.m[2] * v.z,
          m.m[3] * v.x + m.m[4] * v.y + m.m[5] * v.z,
          m.m[6] * v.x + m.m[7] * v.y + m.m[8] * v.z};
}

void Rand(Rng& r, const Vec3& c, Sphere* s) { *s = {c, r.Uniform(0.05f, 5)}; }

void Rand(Rng& r, const Vec3& c, Capsule3* cap) {
  const float h = 0.5f * r.Uniform(0.1f, 10);
  const Vec3 d = Rotate(RandQuat(r), {0, 0, h});
  *cap = {{c.x - d.x, c.y - d.y, c.z - d.z},
          {c.x + d.x, c.y + d.y, c.z + d.z},
          r.Uniform(0.05f, 2)};
}

void Rand(Rng& r, const Vec3& c, OrientedBox* b) {
  *b = {c,
        {0.5f * r.Uniform(0.1f, 10), 0.5f * r.Uniform(0.1f, 10),
         0.5f * r.Uniform(0.1f, 10)},
        RandQuat(r)};
}

// ---- The same shapes for the peers (double for FCL, float for Bullet) ----

struct Pose {
  double center[3];
  double quat[4];  // w, x, y, z; unit in double
};

Pose PoseOf(const Vec3& c, const Quat& q) {
  const double n = std::sqrt(double{q.w} * q.w + double{q.x} * q.x +
                             double{q.y} * q.y + double{q.z} * q.z);
  return {{c.x, c.y, c.z}, {q.w / n, q.x / n, q.y / n, q.z / n}};
}

// A capsule's pose: centre at the segment's midpoint, local z along it.
Pose PoseOf(const Capsule3& c, double* length) {
  const double d[3] = {double{c.b.x} - c.a.x, double{c.b.y} - c.a.y,
                       double{c.b.z} - c.a.z};
  *length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  Pose p{{0.5 * (double{c.a.x} + c.b.x), 0.5 * (double{c.a.y} + c.b.y),
          0.5 * (double{c.a.z} + c.b.z)},
         {1, 0, 0, 0}};
  if (*length == 0) return p;
  const double u[3] = {d[0] / *length, d[1] / *length, d[2] / *length};
  if (u[2] < -1 + 1e-12) {  // z to -z: half a turn about x
    p.quat[0] = 0;
    p.quat[1] = 1;
    return p;
  }
  // The shortest arc from z to u: (1 + z.u, z x u), normalised.
  const double w = 1 + u[2], x = -u[1], y = u[0];
  const double n = std::sqrt(w * w + x * x + y * y);
  p.quat[0] = w / n;
  p.quat[1] = x / n;
  p.quat[2] = y / n;
  p.quat[3] = 0;
  return p;
}

struct PeerShape {
  std::unique_ptr<fcl::CollisionObjectd> fcl;
  std::unique_ptr<btConvexShape> bullet;
  btTransform bullet_pose;
};

PeerShape MakePeer(std::shared_ptr<fcl::CollisionGeometryd> geometry,
                   std::unique_ptr<btConvexShape> bullet, const Pose& p) {
  fcl::Transform3d tf = fcl::Transform3d::Identity();
  tf.linear() = fcl::Quaterniond(p.quat[0], p.quat[1], p.quat[2], p.quat[3])
                    .toRotationMatrix();
  tf.translation() = fcl::Vector3d(p.center[0], p.center[1], p.center[2]);
  PeerShape s;
  s.fcl = std::make_unique<fcl::CollisionObjectd>(std::move(geometry), tf);
  s.bullet = std::move(bullet);
  s.bullet_pose.setRotation(btQuaternion(
      static_cast<btScalar>(p.quat[1]), static_cast<btScalar>(p.quat[2]),
      static_cast<btScalar>(p.quat[3]), static_cast<btScalar>(p.quat[0])));
  s.bullet_pose.setOrigin(btVector3(static_cast<btScalar>(p.center[0]),
                                    static_cast<btScalar>(p.center[1]),
                                    static_cast<btScalar>(p.center[2])));
  return s;
}

PeerShape Peer(const Sphere& s) {
  return MakePeer(std::make_shared<fcl::Sphered>(s.radius),
                  std::make_unique<btSphereShape>(s.radius),
                  PoseOf(s.center, Quat{}));
}

PeerShape Peer(const Capsule3& c) {
  double length = 0;
  const Pose p = PoseOf(c, &length);
  return MakePeer(
      std::make_shared<fcl::Capsuled>(c.radius, length),
      std::make_unique<btCapsuleShapeZ>(c.radius, static_cast<float>(length)),
      p);
}

PeerShape Peer(const OrientedBox& b) {
  const Vec3& h = b.half_extents;
  return MakePeer(std::make_shared<fcl::Boxd>(2.0 * h.x, 2.0 * h.y, 2.0 * h.z),
                  std::make_unique<btBoxShape>(btVector3(h.x, h.y, h.z)),
                  PoseOf(b.center, b.rotation));
}

// ---- One pair kind's data -------------------------------------------------

template <typename A, typename B>
struct PairData {
  std::vector<A> a;
  std::vector<B> b;
  std::vector<PeerShape> peer_a, peer_b;
  std::vector<float> separation;  // ours, the reference for agreement
  float band_fcl = 0, band_bullet = 0;
};

template <typename A, typename B>
const PairData<A, B>& Data(uint64_t seed, float spread, float band_bullet) {
  static const PairData<A, B>* data = [&] {
    auto* d = new PairData<A, B>;
    d->band_fcl = 1e-3f;
    d->band_bullet = band_bullet;
    Rng rng(seed);
    d->a.resize(kPairs);
    d->b.resize(kPairs);
    for (size_t i = 0; i < kPairs; ++i) {
      const Vec3 ca = RandV3(rng);
      const Vec3 cb = {ca.x + rng.Uniform(-spread, spread),
                       ca.y + rng.Uniform(-spread, spread),
                       ca.z + rng.Uniform(-spread, spread)};
      Rand(rng, ca, &d->a[i]);
      Rand(rng, cb, &d->b[i]);
      d->peer_a.push_back(Peer(d->a[i]));
      d->peer_b.push_back(Peer(d->b[i]));
      d->separation.push_back(Intersect(d->a[i], d->b[i], kB).separation);
    }
    return d;
  }();
  return *data;
}

void Done(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kPairs));
}

// Agreement of a peer's answers (hit, and distance where it has one) with
// our separation.
struct Agreement {
  size_t disagree = 0, disagree_all = 0, first = kPairs;
  double max_err_disjoint = 0, max_err_overlap = 0;
};

Agreement Compare(const std::vector<float>& ours,
                  const std::vector<uint8_t>& hit,
                  const std::vector<double>* dist, float band) {
  Agreement g;
  for (size_t i = 0; i < kPairs; ++i) {
    if ((ours[i] <= 0) != (hit[i] != 0)) {
      ++g.disagree_all;
      if (std::fabs(ours[i]) > band) {
        ++g.disagree;
        g.first = std::min(g.first, i);
      }
    }
    if (dist == nullptr || std::fabs(ours[i]) <= band) continue;
    const double err = std::fabs((*dist)[i] - ours[i]);
    if (ours[i] > 0 && (*dist)[i] > 0) {
      g.max_err_disjoint = std::max(g.max_err_disjoint, err);
    } else if (ours[i] < 0 && (*dist)[i] < 0) {
      g.max_err_overlap = std::max(g.max_err_overlap, err);
    }
  }
  return g;
}

void Report(benchmark::State& state, const Agreement& g, bool distance,
            bool depth) {
  state.counters["disagree"] = static_cast<double>(g.disagree);
  state.counters["disagree_all"] = static_cast<double>(g.disagree_all);
  if (distance) state.counters["max_err_disjoint"] = g.max_err_disjoint;
  if (depth) state.counters["max_err_overlap"] = g.max_err_overlap;
}

// ---- The rows --------------------------------------------------------------

template <typename A, typename B>
void OursIntersect(benchmark::State& state, const PairData<A, B>& d) {
  std::vector<float> sep(kPairs);
  size_t hits = 0;
  for (auto _ : state) {
    hits = 0;
    for (size_t i = 0; i < kPairs; ++i) {
      const IntersectResult r = Intersect(d.a[i], d.b[i], kB);
      sep[i] = r.separation;
      hits += r.hit;
    }
    benchmark::DoNotOptimize(sep.data());
    benchmark::ClobberMemory();
  }
  Done(state);
  state.counters["hit_share"] = static_cast<double>(hits) / kPairs;
}

template <typename A, typename B>
void OursClosest(benchmark::State& state, const PairData<A, B>& d) {
  std::vector<Distance3> out(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) out[i] = ClosestPoints(d.a[i], d.b[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  Done(state);
  // ClosestPoints' distance against Intersect's separation: the same number
  // by the header's contract.
  double max_diff = 0;
  for (size_t i = 0; i < kPairs; ++i) {
    max_diff = std::max(max_diff,
                        std::fabs(double{out[i].distance} - d.separation[i]));
  }
  state.counters["max_diff_vs_intersect"] = max_diff;
}

template <typename A, typename B>
void FclCollide(benchmark::State& state, const PairData<A, B>& d) {
  std::vector<uint8_t> hit(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) {
      fcl::CollisionRequestd req;
      fcl::CollisionResultd res;
      fcl::collide(d.peer_a[i].fcl.get(), d.peer_b[i].fcl.get(), req, res);
      hit[i] = res.isCollision();
    }
    benchmark::ClobberMemory();
  }
  Done(state);
  Report(state, Compare(d.separation, hit, nullptr, d.band_fcl), false, false);
}

template <typename A, typename B>
void FclDistance(benchmark::State& state, const PairData<A, B>& d) {
  std::vector<double> dist(kPairs);
  for (auto _ : state) {
    for (size_t i = 0; i < kPairs; ++i) {
      fcl::DistanceRequestd req;
      fcl::DistanceResultd res;
      fcl::distance(d.peer_a[i].fcl.get(), d.peer_b[i].fcl.get(), req, res);
      dist[i] = res.min_distance;
    }
    benchmark::ClobberMemory();
  }
  Done(state);
  // Unsigned by default: <= 0 when the shapes meet (FCL gives -1 or 0).
  std::vector<uint8_t> hit(kPairs);
  for (size_t i = 0; i < kPairs; ++i) hit[i] = dist[i] <= 0;
  Report(state, Compare(d.separation, hit, &dist, d.band_fcl), true, false);
}

template <typename A, typename B>
void BulletGjk(benchmark::State& state, const PairData<A, B>& d) {
  btVoronoiSimplexSolver simplex;
  btGjkEpaPenetrationDepthSolver epa;
  std::vector<double> dist(kPairs);
  size_t no_result = 0;
  for (auto _ : state) {
    no_result = 0;
    for (size_t i = 0; i < kPairs; ++i) {
      btGjkPairDetector detector(d.peer_a[i].bullet.get(),
                                 d.peer_b[i].bullet.get(), &simplex, &epa);
      btGjkPairDetector::ClosestPointInput in;
      in.m_transformA = d.peer_a[i].bullet_pose;
      in.m_transformB = d.peer_b[i].bullet_pose;
      btPointCollector out;
      detector.getClosestPoints(in, out, nullptr);
      dist[i] = out.m_hasResult ? out.m_distance : 1e30;
      no_result += !out.m_hasResult;
    }
    benchmark::ClobberMemory();
  }
  Done(state);
  std::vector<uint8_t> hit(kPairs);
  for (size_t i = 0; i < kPairs; ++i) hit[i] = dist[i] <= 0;
  Report(state, Compare(d.separation, hit, &dist, d.band_bullet), true, true);
  state.counters["no_result"] = static_cast<double>(no_result);
}

template <typename A, typename B>
void Register(const std::string& kind, uint64_t seed, float spread,
              float band_bullet) {
  auto data = [=]() -> const PairData<A, B>& {
    return Data<A, B>(seed, spread, band_bullet);
  };
  benchmark::RegisterBenchmark(
      (kind + "/ours_intersect").c_str(),
      [=](benchmark::State& s) { OursIntersect(s, data()); });
  benchmark::RegisterBenchmark(
      (kind + "/ours_closest").c_str(),
      [=](benchmark::State& s) { OursClosest(s, data()); });
  benchmark::RegisterBenchmark(
      (kind + "/fcl_collide").c_str(),
      [=](benchmark::State& s) { FclCollide(s, data()); });
  benchmark::RegisterBenchmark(
      (kind + "/fcl_distance").c_str(),
      [=](benchmark::State& s) { FclDistance(s, data()); });
  benchmark::RegisterBenchmark(
      (kind + "/bullet_gjk").c_str(),
      [=](benchmark::State& s) { BulletGjk(s, data()); });
}

}  // namespace
}  // namespace bench
}  // namespace collision

int main(int argc, char** argv) {
  using namespace collision;         // NOLINT
  using namespace collision::bench;  // NOLINT
  // Bullet's default margin (0.04) rounds box corners and edges: up to
  // 0.04 * (sqrt(3) - 1) ~ 0.03 of distance near a corner, twice that
  // between two boxes. Spreads: 30-50% hits.
  Register<Capsule3, Capsule3>("capsule_capsule", 0xCC, 4.5f, 1e-3f);
  Register<OrientedBox, OrientedBox>("box_box", 0xBB, 7.5f, 0.06f);
  Register<Capsule3, OrientedBox>("capsule_box", 0xCB, 6.0f, 0.05f);
  Register<Sphere, Capsule3>("sphere_capsule", 0x5C, 5.5f, 1e-3f);
  Register<Sphere, OrientedBox>("sphere_box", 0x5B, 7.0f, 0.05f);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
