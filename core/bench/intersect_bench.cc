// Intersect: scalar reference (array of structs, one call per pair, as the
// seeds hold the data) vs the SIMD kernels, per pair kind, at 1k/64k/4M.
//   <kind>/scalar_ref   scalar.h function per pair -> IntersectResult AoS
//   <kind>/simd         kernel: hit bits + relation + separation
//   <kind>/scalar_seed  the seeds' inline hit-only loop (bool per pair)
//   <kind>/simd_hit     kernel: hit bits only
//   <kind>/load_bound   loads the same columns, writes bits (bound_bench.cc)
#include <algorithm>
#include <cmath>
#include <vector>

#include "bench_data.h"
#include "bench_util.h"
#include "bound_bench.h"
#include "collision/core/kernels.h"
#include "collision/core/scalar.h"

namespace collision {
namespace bench {
namespace {

constexpr Boundary kB = Boundary::kInclusive;

inline float Clamp(float c, float lo, float hi) {
  return std::max(lo, std::min(c, hi));
}

struct CircleCircle {
  static constexpr const char* kName = "circle_circle";
  static constexpr size_t kCols = 6;
  struct Pair {
    Circle a, b;
  };
  static Pair Gen(Rng& r) { return {RandCircle(r), RandCircle(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.a.center.x, p.a.center.y, p.a.radius, p.b.center.x, p.b.center.y,
           p.b.radius});
  }
  static IntersectResult Ref(const Pair& p) {
    return IntersectCircleCircle(p.a, p.b, kB);
  }
  static bool Seed(const Pair& p) {
    const float dx = p.a.center.x - p.b.center.x;
    const float dy = p.a.center.y - p.b.center.y;
    const float r = p.a.radius + p.b.radius;
    return dx * dx + dy * dy <= r * r;
  }
  static void Simd(const Soa& s, size_t n, const simd::IntersectOutputs& o) {
    simd::IntersectCircleCircleColumns({s[0], s[1], s[2]}, {s[3], s[4], s[5]},
                                       n, kB, o);
  }
};

struct CircleRect {
  static constexpr const char* kName = "circle_rect";
  static constexpr size_t kCols = 7;
  struct Pair {
    Circle a;
    Rect b;
  };
  static Pair Gen(Rng& r) { return {RandCircle(r), RandRect(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.a.center.x, p.a.center.y, p.a.radius, p.b.min.x, p.b.min.y,
           p.b.max.x, p.b.max.y});
  }
  static IntersectResult Ref(const Pair& p) {
    return IntersectCircleRect(p.a, p.b, kB);
  }
  static bool Seed(const Pair& p) {
    const float dx = p.a.center.x - Clamp(p.a.center.x, p.b.min.x, p.b.max.x);
    const float dy = p.a.center.y - Clamp(p.a.center.y, p.b.min.y, p.b.max.y);
    return dx * dx + dy * dy <= p.a.radius * p.a.radius;
  }
  static void Simd(const Soa& s, size_t n, const simd::IntersectOutputs& o) {
    simd::IntersectCircleRectColumns({s[0], s[1], s[2]},
                                     {s[3], s[4], s[5], s[6]}, n, kB, o);
  }
};

struct CircleRotated {
  static constexpr const char* kName = "circle_rotated_cossin";
  static constexpr size_t kCols = 11;
  struct Pair {
    Circle a;
    RotatedRect b;
  };
  static Pair Gen(Rng& r) {
    const Circle c = RandCircle(r);
    return {c, RandRotated(r, RandAngle(r))};
  }
  static void Row(Soa& s, const Pair& p) {
    const RotatedRect& b = p.b;
    s.Row({p.a.center.x, p.a.center.y, p.a.radius, b.size.x, b.size.y,
           b.pivot.x, b.pivot.y, b.position.x, b.position.y, b.rotation.cos,
           b.rotation.sin});
  }
  static IntersectResult Ref(const Pair& p) {
    return IntersectCircleRotatedRect(p.a, p.b, kB);
  }
  static bool Seed(const Pair& p) {
    const RotatedRect& b = p.b;
    const float rx = p.a.center.x - b.position.x;
    const float ry = p.a.center.y - b.position.y;
    const float c = b.rotation.cos, s = b.rotation.sin;
    const float lx = c * rx + s * ry, ly = c * ry - s * rx;
    const float dx = lx - Clamp(lx, -b.pivot.x, b.size.x - b.pivot.x);
    const float dy = ly - Clamp(ly, -b.pivot.y, b.size.y - b.pivot.y);
    return dx * dx + dy * dy <= p.a.radius * p.a.radius;
  }
  static void Simd(const Soa& s, size_t n, const simd::IntersectOutputs& o) {
    simd::IntersectCircleRotatedRectColumns(
        {s[0], s[1], s[2]}, {s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]},
        n, kB, o);
  }
};

struct RectRect {
  static constexpr const char* kName = "rect_rect";
  static constexpr size_t kCols = 8;
  struct Pair {
    Rect a, b;
  };
  static Pair Gen(Rng& r) { return {RandRect(r), RandRect(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.a.min.x, p.a.min.y, p.a.max.x, p.a.max.y, p.b.min.x, p.b.min.y,
           p.b.max.x, p.b.max.y});
  }
  static IntersectResult Ref(const Pair& p) {
    return IntersectRectRect(p.a, p.b, kB);
  }
  static bool Seed(const Pair& p) {
    return p.a.min.x <= p.b.max.x && p.b.min.x <= p.a.max.x &&
           p.a.min.y <= p.b.max.y && p.b.min.y <= p.a.max.y;
  }
  static void Simd(const Soa& s, size_t n, const simd::IntersectOutputs& o) {
    simd::IntersectRectRectColumns({s[0], s[1], s[2], s[3]},
                                   {s[4], s[5], s[6], s[7]}, n, kB, o);
  }
};

struct SphereSphere {
  static constexpr const char* kName = "sphere_sphere";
  static constexpr size_t kCols = 8;
  struct Pair {
    Sphere a, b;
  };
  static Pair Gen(Rng& r) { return {RandSphere(r), RandSphere(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.a.center.x, p.a.center.y, p.a.center.z, p.a.radius, p.b.center.x,
           p.b.center.y, p.b.center.z, p.b.radius});
  }
  static IntersectResult Ref(const Pair& p) {
    return IntersectSphereSphere(p.a, p.b, kB);
  }
  static bool Seed(const Pair& p) {
    const float dx = p.a.center.x - p.b.center.x;
    const float dy = p.a.center.y - p.b.center.y;
    const float dz = p.a.center.z - p.b.center.z;
    const float r = p.a.radius + p.b.radius;
    return dx * dx + dy * dy + dz * dz <= r * r;
  }
  static void Simd(const Soa& s, size_t n, const simd::IntersectOutputs& o) {
    simd::IntersectSphereSphereColumns({s[0], s[1], s[2], s[3]},
                                       {s[4], s[5], s[6], s[7]}, n, kB, o);
  }
};

struct SphereBox {
  static constexpr const char* kName = "sphere_box";
  static constexpr size_t kCols = 10;
  struct Pair {
    Sphere a;
    Box b;
  };
  static Pair Gen(Rng& r) { return {RandSphere(r), RandBox(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.a.center.x, p.a.center.y, p.a.center.z, p.a.radius, p.b.min.x,
           p.b.min.y, p.b.min.z, p.b.max.x, p.b.max.y, p.b.max.z});
  }
  static IntersectResult Ref(const Pair& p) {
    return IntersectSphereBox(p.a, p.b, kB);
  }
  static bool Seed(const Pair& p) {
    const Vec3& c = p.a.center;
    const float dx = c.x - Clamp(c.x, p.b.min.x, p.b.max.x);
    const float dy = c.y - Clamp(c.y, p.b.min.y, p.b.max.y);
    const float dz = c.z - Clamp(c.z, p.b.min.z, p.b.max.z);
    return dx * dx + dy * dy + dz * dz <= p.a.radius * p.a.radius;
  }
  static void Simd(const Soa& s, size_t n, const simd::IntersectOutputs& o) {
    simd::IntersectSphereBoxColumns({s[0], s[1], s[2], s[3]},
                                    {s[4], s[5], s[6], s[7], s[8], s[9]}, n, kB,
                                    o);
  }
};

struct BoxBox {
  static constexpr const char* kName = "box_box";
  static constexpr size_t kCols = 12;
  struct Pair {
    Box a, b;
  };
  static Pair Gen(Rng& r) { return {RandBox(r), RandBox(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.a.min.x, p.a.min.y, p.a.min.z, p.a.max.x, p.a.max.y, p.a.max.z,
           p.b.min.x, p.b.min.y, p.b.min.z, p.b.max.x, p.b.max.y, p.b.max.z});
  }
  static IntersectResult Ref(const Pair& p) {
    return IntersectBoxBox(p.a, p.b, kB);
  }
  static bool Seed(const Pair& p) {
    return p.a.min.x <= p.b.max.x && p.b.min.x <= p.a.max.x &&
           p.a.min.y <= p.b.max.y && p.b.min.y <= p.a.max.y &&
           p.a.min.z <= p.b.max.z && p.b.min.z <= p.a.max.z;
  }
  static void Simd(const Soa& s, size_t n, const simd::IntersectOutputs& o) {
    simd::IntersectBoxBoxColumns({s[0], s[1], s[2], s[3], s[4], s[5]},
                                 {s[6], s[7], s[8], s[9], s[10], s[11]}, n, kB,
                                 o);
  }
};

template <class K>
struct Data {
  std::vector<typename K::Pair> aos;
  Soa soa{K::kCols};
};

template <class K>
const Data<K>& GetData() {
  return Cached<Data<K>>([] {
    Data<K> d;
    Rng rng(0xB5 + K::kCols);
    d.aos.reserve(kMaxPairs);
    d.soa.Reserve(kMaxPairs);
    for (size_t i = 0; i < kMaxPairs; ++i) {
      d.aos.push_back(K::Gen(rng));
      K::Row(d.soa, d.aos.back());
    }
    return d;
  });
}

template <class K>
void Register() {
  const std::string name = K::kName;
  const double in = 4.0 * K::kCols;
  RegisterSizes(name + "/scalar_ref",
                sizeof(typename K::Pair) + sizeof(IntersectResult),
                [](benchmark::State& state, size_t n) {
                  const auto& d = GetData<K>();
                  std::vector<IntersectResult> out(n);
                  for (auto _ : state) {
                    for (size_t i = 0; i < n; ++i) out[i] = K::Ref(d.aos[i]);
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes(
      name + "/simd", in + 5.125, [](benchmark::State& state, size_t n) {
        const auto& d = GetData<K>();
        std::vector<uint8_t> bits(n / 8 + 1);
        std::vector<Relation> rel(n);
        std::vector<float> sep(n);
        for (auto _ : state) {
          K::Simd(d.soa, n, {nullptr, bits.data(), rel.data(), sep.data()});
          benchmark::ClobberMemory();
        }
      });
  RegisterSizes(name + "/scalar_seed", sizeof(typename K::Pair) + 1,
                [](benchmark::State& state, size_t n) {
                  const auto& d = GetData<K>();
                  std::vector<uint8_t> hit(n);
                  for (auto _ : state) {
                    for (size_t i = 0; i < n; ++i) hit[i] = K::Seed(d.aos[i]);
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes(name + "/simd_hit", in + 0.125,
                [](benchmark::State& state, size_t n) {
                  const auto& d = GetData<K>();
                  std::vector<uint8_t> bits(n / 8 + 1);
                  for (auto _ : state) {
                    K::Simd(d.soa, n, {nullptr, bits.data(), nullptr, nullptr});
                    benchmark::ClobberMemory();
                  }
                });
  RegisterLoadBound(
      name, K::kCols, []() -> const Soa& { return GetData<K>().soa; },
      in + 0.125);
}

// Rotated rectangle with the rotation given as an angle (as on the wire).
struct AngleData {
  std::vector<CircleRotated::Pair> aos;  // rotation unused; angle below
  std::vector<float> angle;
  Soa soa{10};
};

const AngleData& GetAngleData() {
  return Cached<AngleData>([] {
    AngleData d;
    Rng rng(0xA7);
    d.aos.reserve(kMaxPairs);
    d.angle.reserve(kMaxPairs);
    d.soa.Reserve(kMaxPairs);
    for (size_t i = 0; i < kMaxPairs; ++i) {
      const Circle c = RandCircle(rng);
      const float angle = RandAngle(rng);
      const RotatedRect b = RandRotated(rng, angle);
      d.aos.push_back({c, b});
      d.angle.push_back(angle);
      d.soa.Row({c.center.x, c.center.y, c.radius, b.size.x, b.size.y,
                 b.pivot.x, b.pivot.y, b.position.x, b.position.y, angle});
    }
    return d;
  });
}

void RegisterAngle() {
  // Scalar: RotationFromAngle (std::cos/std::sin, i.e. sincosf) per pair,
  // then the reference intersect.
  RegisterSizes("circle_rotated_angle/scalar_sincos", 4.0 * 10 + 8,
                [](benchmark::State& state, size_t n) {
                  const AngleData& d = GetAngleData();
                  std::vector<IntersectResult> out(n);
                  for (auto _ : state) {
                    for (size_t i = 0; i < n; ++i) {
                      RotatedRect b = d.aos[i].b;
                      b.rotation = RotationFromAngle(d.angle[i]);
                      out[i] = IntersectCircleRotatedRect(d.aos[i].a, b, kB);
                    }
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes("circle_rotated_angle/simd", 4.0 * 10 + 5.125,
                [](benchmark::State& state, size_t n) {
                  const Soa& s = GetAngleData().soa;
                  std::vector<uint8_t> bits(n / 8 + 1);
                  std::vector<Relation> rel(n);
                  std::vector<float> sep(n);
                  for (auto _ : state) {
                    simd::IntersectCircleRotatedRectAngleColumns(
                        {s[0], s[1], s[2]},
                        {s[3], s[4], s[5], s[6], s[7], s[8], s[9]}, n, kB,
                        {nullptr, bits.data(), rel.data(), sep.data()});
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes("rotation_from_angle/scalar", 12,
                [](benchmark::State& state, size_t n) {
                  const AngleData& d = GetAngleData();
                  std::vector<Rotation> out(n);
                  for (auto _ : state) {
                    for (size_t i = 0; i < n; ++i) {
                      out[i] = RotationFromAngle(d.angle[i]);
                    }
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes(
      "rotation_from_angle/simd", 12, [](benchmark::State& state, size_t n) {
        const AngleData& d = GetAngleData();
        std::vector<float> c(n), s(n);
        for (auto _ : state) {
          simd::RotationFromAngleColumns(d.angle.data(), n, c.data(), s.data());
          benchmark::ClobberMemory();
        }
      });
}

int RegisterAll() {
  RegisterSqrtBound();
  Register<CircleCircle>();
  Register<CircleRect>();
  Register<CircleRotated>();
  RegisterAngle();
  Register<RectRect>();
  Register<SphereSphere>();
  Register<SphereBox>();
  Register<BoxBox>();
  return 0;
}

const int kRegistered = RegisterAll();

}  // namespace
}  // namespace bench
}  // namespace collision
