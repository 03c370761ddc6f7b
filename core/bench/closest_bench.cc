// ClosestPoint kernels and the mixed-batch dispatcher against their scalar
// references, at 1k/64k/4M.
//   closest_<target>/scalar_ref  scalar.h function per query -> AoS results
//   closest_<target>/simd        kernel, all 11 float columns + inside
//   batch_<query>_mixed/scalar_ref  Intersect/ClosestPoint per item
//   batch_<query>_mixed/dispatch    IntersectBatch/ClosestPointBatch
#include <vector>

#include "bench_data.h"
#include "bench_util.h"
#include "collision/core/batch.h"
#include "collision/core/kernels.h"
#include "collision/core/scalar.h"

namespace collision {
namespace bench {
namespace {

constexpr Boundary kB = Boundary::kInclusive;

struct Outputs {
  std::vector<std::vector<float>> f;
  std::vector<uint8_t> inside;
  simd::ClosestPointOutputs o;
  explicit Outputs(size_t n) : f(11, std::vector<float>(n)), inside(n) {
    o = {f[0].data(), f[1].data(), f[2].data(),  f[3].data(),
         f[4].data(), f[5].data(), f[6].data(),  f[7].data(),
         f[8].data(), f[9].data(), f[10].data(), inside.data()};
  }
};

struct OnCircle {
  static constexpr const char* kName = "closest_circle";
  static constexpr size_t kCols = 6;
  static constexpr size_t kOut = 8;  // floats written per query (2D)
  struct Pair {
    Circle q, t;
  };
  static Pair Gen(Rng& r) { return {RandCircle(r), RandCircle(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.q.center.x, p.q.center.y, p.q.radius, p.t.center.x, p.t.center.y,
           p.t.radius});
  }
  static ClosestPointResult Ref(const Pair& p) {
    return ClosestPointOnCircle(p.q.center, p.q.radius, p.t, kB);
  }
  static void Simd(const Soa& s, size_t n, const simd::ClosestPointOutputs& o) {
    simd::ClosestPointOnCircleColumns({s[0], s[1], s[2]}, {s[3], s[4], s[5]}, n,
                                      kB, o);
  }
};

struct OnRect {
  static constexpr const char* kName = "closest_rect";
  static constexpr size_t kCols = 7;
  static constexpr size_t kOut = 8;
  struct Pair {
    Circle q;
    Rect t;
  };
  static Pair Gen(Rng& r) { return {RandCircle(r), RandRect(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.q.center.x, p.q.center.y, p.q.radius, p.t.min.x, p.t.min.y,
           p.t.max.x, p.t.max.y});
  }
  static ClosestPointResult Ref(const Pair& p) {
    return ClosestPointOnRect(p.q.center, p.q.radius, p.t, kB);
  }
  static void Simd(const Soa& s, size_t n, const simd::ClosestPointOutputs& o) {
    simd::ClosestPointOnRectColumns({s[0], s[1], s[2]},
                                    {s[3], s[4], s[5], s[6]}, n, kB, o);
  }
};

struct OnRotated {
  static constexpr const char* kName = "closest_rotated_cossin";
  static constexpr size_t kCols = 11;
  static constexpr size_t kOut = 8;
  struct Pair {
    Circle q;
    RotatedRect t;
  };
  static Pair Gen(Rng& r) {
    const Circle q = RandCircle(r);
    return {q, RandRotated(r, RandAngle(r))};
  }
  static void Row(Soa& s, const Pair& p) {
    const RotatedRect& b = p.t;
    s.Row({p.q.center.x, p.q.center.y, p.q.radius, b.size.x, b.size.y,
           b.pivot.x, b.pivot.y, b.position.x, b.position.y, b.rotation.cos,
           b.rotation.sin});
  }
  static ClosestPointResult Ref(const Pair& p) {
    return ClosestPointOnRotatedRect(p.q.center, p.q.radius, p.t, kB);
  }
  static void Simd(const Soa& s, size_t n, const simd::ClosestPointOutputs& o) {
    simd::ClosestPointOnRotatedRectColumns(
        {s[0], s[1], s[2]}, {s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]},
        n, kB, o);
  }
};

struct OnSphere {
  static constexpr const char* kName = "closest_sphere";
  static constexpr size_t kCols = 8;
  static constexpr size_t kOut = 11;
  struct Pair {
    Sphere q, t;
  };
  static Pair Gen(Rng& r) { return {RandSphere(r), RandSphere(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.q.center.x, p.q.center.y, p.q.center.z, p.q.radius, p.t.center.x,
           p.t.center.y, p.t.center.z, p.t.radius});
  }
  static ClosestPointResult Ref(const Pair& p) {
    return ClosestPointOnSphere(p.q.center, p.q.radius, p.t, kB);
  }
  static void Simd(const Soa& s, size_t n, const simd::ClosestPointOutputs& o) {
    simd::ClosestPointOnSphereColumns({s[0], s[1], s[2], s[3]},
                                      {s[4], s[5], s[6], s[7]}, n, kB, o);
  }
};

struct OnBox {
  static constexpr const char* kName = "closest_box";
  static constexpr size_t kCols = 10;
  static constexpr size_t kOut = 11;
  struct Pair {
    Sphere q;
    Box t;
  };
  static Pair Gen(Rng& r) { return {RandSphere(r), RandBox(r)}; }
  static void Row(Soa& s, const Pair& p) {
    s.Row({p.q.center.x, p.q.center.y, p.q.center.z, p.q.radius, p.t.min.x,
           p.t.min.y, p.t.min.z, p.t.max.x, p.t.max.y, p.t.max.z});
  }
  static ClosestPointResult Ref(const Pair& p) {
    return ClosestPointOnBox(p.q.center, p.q.radius, p.t, kB);
  }
  static void Simd(const Soa& s, size_t n, const simd::ClosestPointOutputs& o) {
    simd::ClosestPointOnBoxColumns({s[0], s[1], s[2], s[3]},
                                   {s[4], s[5], s[6], s[7], s[8], s[9]}, n, kB,
                                   o);
  }
};

template <class K>
struct Data {
  std::vector<typename K::Pair> aos;
  Soa soa{K::kCols};
};

template <class K>
void Register() {
  const auto get = [] {
    return &Cached<Data<K>>([] {
      Data<K> d;
      Rng rng(0xC1 + K::kCols);
      d.aos.reserve(kMaxPairs);
      d.soa.Reserve(kMaxPairs);
      for (size_t i = 0; i < kMaxPairs; ++i) {
        d.aos.push_back(K::Gen(rng));
        K::Row(d.soa, d.aos.back());
      }
      return d;
    });
  };
  const std::string name = K::kName;
  RegisterSizes(name + "/scalar_ref",
                sizeof(typename K::Pair) + sizeof(ClosestPointResult),
                [get](benchmark::State& state, size_t n) {
                  const auto* d = get();
                  std::vector<ClosestPointResult> out(n);
                  for (auto _ : state) {
                    for (size_t i = 0; i < n; ++i) out[i] = K::Ref(d->aos[i]);
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes(name + "/simd", 4.0 * (K::kCols + K::kOut) + 1,
                [get](benchmark::State& state, size_t n) {
                  const auto* d = get();
                  Outputs out(n);
                  for (auto _ : state) {
                    K::Simd(d->soa, n, out.o);
                    benchmark::ClobberMemory();
                  }
                });
}

// Mixed batches as the server hands them over: shapes in variants, kinds
// shuffled, ball second half of the time.
struct MixedData {
  std::vector<ShapePair> pairs;
  std::vector<ClosestPointItem> items;
};

Shape RandShape(Rng& r, int kind) {
  switch (kind) {
    case 0:
      return RandV2(r);
    case 1:
      return RandCircle(r);
    case 2:
      return RandRect(r);
    case 3:
      return RandRotated(r, RandAngle(r));
    case 4:
      return RandV3(r);
    case 5:
      return RandSphere(r);
    default:
      return RandBox(r);
  }
}

const MixedData& GetMixed() {
  return Cached<MixedData>([] {
    MixedData d;
    Rng rng(0x313);
    d.pairs.reserve(kMaxPairs);
    d.items.reserve(kMaxPairs);
    while (d.pairs.size() < kMaxPairs) {
      const int a = static_cast<int>(rng.Next() % 7);
      const int b = static_cast<int>(rng.Next() % 7);
      const auto ka = static_cast<ShapeKind>(a), kb = static_cast<ShapeKind>(b);
      if (IsSupportedIntersectPair(ka, kb)) {
        d.pairs.push_back({RandShape(rng, a), RandShape(rng, b)});
      }
      if (IsSupportedClosestPointPair(ka, kb) && d.items.size() < kMaxPairs) {
        d.items.push_back({RandShape(rng, a), RandShape(rng, b)});
      }
    }
    while (d.items.size() < kMaxPairs) d.items.push_back(d.items.front());
    return d;
  });
}

void RegisterMixed() {
  RegisterSizes("batch_intersect_mixed/scalar_ref",
                sizeof(ShapePair) + sizeof(IntersectResult),
                [](benchmark::State& state, size_t n) {
                  const MixedData& d = GetMixed();
                  std::vector<IntersectResult> out(n);
                  for (auto _ : state) {
                    for (size_t i = 0; i < n; ++i) {
                      out[i] = Intersect(d.pairs[i].a, d.pairs[i].b, kB);
                    }
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes("batch_intersect_mixed/dispatch",
                sizeof(ShapePair) + sizeof(IntersectResult),
                [](benchmark::State& state, size_t n) {
                  const MixedData& d = GetMixed();
                  std::vector<IntersectResult> out(n);
                  for (auto _ : state) {
                    IntersectBatch(absl::MakeConstSpan(d.pairs.data(), n), kB,
                                   absl::MakeSpan(out));
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes("batch_closest_mixed/scalar_ref",
                sizeof(ClosestPointItem) + sizeof(ClosestPointResult),
                [](benchmark::State& state, size_t n) {
                  const MixedData& d = GetMixed();
                  std::vector<ClosestPointResult> out(n);
                  for (auto _ : state) {
                    for (size_t i = 0; i < n; ++i) {
                      out[i] =
                          ClosestPoint(d.items[i].query, d.items[i].target, kB);
                    }
                    benchmark::ClobberMemory();
                  }
                });
  RegisterSizes("batch_closest_mixed/dispatch",
                sizeof(ClosestPointItem) + sizeof(ClosestPointResult),
                [](benchmark::State& state, size_t n) {
                  const MixedData& d = GetMixed();
                  std::vector<ClosestPointResult> out(n);
                  for (auto _ : state) {
                    ClosestPointBatch(absl::MakeConstSpan(d.items.data(), n),
                                      kB, absl::MakeSpan(out));
                    benchmark::ClobberMemory();
                  }
                });
}

int RegisterAll() {
  Register<OnCircle>();
  Register<OnRect>();
  Register<OnRotated>();
  Register<OnSphere>();
  Register<OnBox>();
  RegisterMixed();
  return 0;
}

const int kRegistered = RegisterAll();

}  // namespace
}  // namespace bench
}  // namespace collision
