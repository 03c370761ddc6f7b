#!/usr/bin/env python3
"""Turns collision_bench (and optionally collision_peers_bench) JSON output
into the README tables: pairs/s per variant, SIMD/scalar ratios from the same
run, and the 4M-pair case as a fraction of the read bandwidth measured in the
same binary.

  collision_bench --benchmark_out=core.json --benchmark_out_format=json
  collision_peers_bench --benchmark_out=peers.json --benchmark_out_format=json
  core/bench/summarize.py core.json [peers.json]
"""
import json
import sys
from collections import defaultdict

SIZES = [1024, 65536, 4194304]


def load(path):
    with open(path) as f:
        data = json.load(f)
    return data["context"], [b for b in data["benchmarks"]
                             if b.get("run_type", "iteration") == "iteration"]


def fmt(rate):
    if rate is None:
        return "-"
    if rate >= 1e9:
        return f"{rate / 1e9:.2f} G"
    return f"{rate / 1e6:.0f} M"


def ratio(a, b):
    return f"{a / b:.1f}x" if a and b else "-"


def bound_table(rate, kernels):
    """simd_hit against load_bound (a loop in the same binary that only loads
    the kernel's columns and writes the bits), the seeds' scalar loop, and the
    full-result kernel (simd)."""
    rows = [k for k in kernels if (k, "load_bound", SIZES[0]) in rate]
    if not rows:
        return
    print("\nHit kernels against the load bound (load_bound: same columns "
          "loaded, one Xor each, bits written; same binary and dispatch):\n")
    print("| kernel | pairs | load_bound | simd_hit | % of bound | "
          "scalar_seed | hit / seed | simd (full) | hit / full |")
    print("|" + " --- |" * 9)
    for k in rows:
        for s in SIZES:
            b = rate.get((k, "load_bound", s))
            h = rate.get((k, "simd_hit", s))
            seed = rate.get((k, "scalar_seed", s))
            full = rate.get((k, "simd", s))
            pct = f"{h / b:.0%}" if h and b else "-"
            size = f"{s // 1024}k" if s < 2**20 else f"{s // 2**20}M"
            print(f"| {k} | {size} | {fmt(b)}/s | {fmt(h)}/s | {pct} | "
                  f"{fmt(seed)}/s | {ratio(h, seed)} | {fmt(full)}/s | "
                  f"{ratio(h, full)} |")
    if ("sqrt_bound", "simd", SIZES[0]) in rate:
        print("\nOne vector square root per pair (sqrt_bound, the bound of the "
              "full-result ball kernels): " + ", ".join(
                  f"{fmt(rate.get(('sqrt_bound', 'simd', s)))}/s" for s in SIZES)
              + " at 1k, 64k, 4M.")


def main():
    context, benches = load(sys.argv[1])
    rate = {}          # (kernel, variant, size) -> items/s
    bw_pair = {}       # (kernel, variant, size) -> bytes/s
    read_bw = {}       # working-set bytes -> bytes/s
    triad_bw = {}
    for b in benches:
        name = b["name"]
        if name.startswith("BM_Read/"):
            read_bw[int(name.split("/")[1])] = b["bytes_per_second"]
            continue
        if name.startswith("BM_Triad/"):
            triad_bw[int(name.split("/")[1])] = b["bytes_per_second"]
            continue
        kernel, variant, size = name.split("/")
        rate[(kernel, variant, int(size))] = b.get("items_per_second")
        bw_pair[(kernel, variant, int(size))] = b.get("bytes_per_pair")

    print(f"SIMD target: {context.get('simd_target')}; "
          f"{context.get('num_cpus')} CPUs @ {context.get('mhz_per_cpu')} MHz; "
          f"date {context.get('date')}\n")
    print("Memory bandwidth (same binary), GB/s:\n")
    print("| working set | read | triad |\n| --- | --- | --- |")
    for ws in sorted(read_bw):
        print(f"| {ws / 2**20:.2f} MiB | {read_bw[ws] / 1e9:.1f} | "
              f"{triad_bw.get(ws, 0) / 1e9:.1f} |")

    # DRAM read bandwidth: the largest working set.
    dram = read_bw[max(read_bw)] if read_bw else None

    kernels = []
    for (k, _, _) in rate:
        if k not in kernels:
            kernels.append(k)

    def table(title, pairs, with_bw, prefix=None, exclude=()):
        print(f"\n{title}\n")
        head = "| kernel | variant | " + " | ".join(
            f"{s // 1024}k" if s < 2**20 else f"{s // 2**20}M" for s in SIZES)
        head += " | ratio 1k | ratio 64k | ratio 4M |"
        if with_bw:
            head += " 4M bytes/s vs DRAM read |"
        print(head)
        print("|" + " --- |" * (head.count("|") - 1))
        for k in kernels:
            if prefix and not k.startswith(prefix):
                continue
            if any(k.startswith(e) for e in exclude):
                continue
            for base, fast in pairs:
                if ((k, fast, SIZES[0]) not in rate or
                        (k, base, SIZES[0]) not in rate):
                    continue
                for v in (base, fast):
                    row = f"| {k} | {v} | " + " | ".join(
                        fmt(rate.get((k, v, s))) + "/s" for s in SIZES)
                    if v == fast:
                        row += " | " + " | ".join(
                            ratio(rate.get((k, fast, s)), rate.get((k, base, s)))
                            for s in SIZES)
                        if with_bw and dram:
                            r = rate.get((k, v, SIZES[-1]))
                            bpp = bw_pair.get((k, v, SIZES[-1]))
                            row += f" | {r * bpp / dram:.0%} ({bpp:g} B/pair) |"
                        else:
                            row += " |"
                    else:
                        row += " | | | |" + (" |" if with_bw else "")
                    print(row)

    table("Intersect, full result (scalar_ref: scalar.h per pair; simd: bits + "
          "relation + separation):",
          [("scalar_ref", "simd"), ("scalar_sincos", "simd")], True,
          exclude=("closest_", "batch_"))
    table("Intersect, hit only (scalar_seed: the seeds' inline loop; simd_hit: "
          "bitset only):", [("scalar_seed", "simd_hit")], True)
    bound_table(rate, kernels)
    table("ClosestPoint (simd: all 11 float columns + inside):",
          [("scalar_ref", "simd")], True, prefix="closest_")
    table("Dispatcher on mixed batches:", [("scalar_ref", "dispatch")], False)
    table("Rotation from angle:", [("scalar", "simd")], False)
    if ("circle_rotated_angle", "simd", 1024) in rate:
        print("\nRotated rect, in-kernel sin/cos vs precomputed cos/sin "
              "(simd, full result):\n")
        for s in SIZES:
            a = rate.get(("circle_rotated_angle", "simd", s))
            c = rate.get(("circle_rotated_cossin", "simd", s))
            sc = rate.get(("circle_rotated_angle", "scalar_sincos", s))
            print(f"- {s} pairs: angle {fmt(a)}/s, cos/sin {fmt(c)}/s, "
                  f"scalar sincosf loop {fmt(sc)}/s; angle/scalar "
                  f"{ratio(a, sc)}, angle/cos-sin {a / c:.2f}")

    if len(sys.argv) > 2:
        _, peers = load(sys.argv[2])
        r = {b["name"]: b["items_per_second"] for b in peers}
        print("\nPeers, 64k pairs, pairs/s (same pairs):\n")
        print("| query | ours | peer | peer pairs/s | ours / peer |")
        print("| --- | --- | --- | --- | --- |")
        rows = [
            ("sphere-box hit", "BM_SphereBoxSimdIntersect", "FCL collide",
             "BM_SphereBoxFclCollide"),
            ("sphere-box distance", "BM_SphereBoxSimdClosest", "FCL distance",
             "BM_SphereBoxFclDistance"),
            ("circle-rotated box hit", "BM_RotatedSimdIntersect",
             "Box2D b2TestOverlap", "BM_RotatedBox2dTestOverlap"),
            ("circle-rotated box distance", "BM_RotatedSimdClosest",
             "Box2D b2Distance", "BM_RotatedBox2dDistance"),
            ("point/circle-polygon within r", "BM_RotatedSimdIntersect",
             "GEOS DistanceWithin", "BM_RotatedGeosDistanceWithin"),
            ("point-polygon distance", "BM_RotatedSimdClosest", "GEOS Distance",
             "BM_RotatedGeosDistance"),
        ]
        for q, ours, peer, peer_name in rows:
            if ours in r and peer_name in r:
                print(f"| {q} | {fmt(r[ours])}/s | {peer} | "
                      f"{fmt(r[peer_name])}/s | {r[ours] / r[peer_name]:.0f}x |")


if __name__ == "__main__":
    main()
