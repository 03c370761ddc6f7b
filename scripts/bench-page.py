#!/usr/bin/env python3
"""Writes one machine's benchmark page from Google Benchmark JSON files.

Each FILE is the output of a benchmark binary run with
`--benchmark_out=FILE --benchmark_out_format=json` (or `--benchmark_format=json`
with stdout saved). The page, docs/machines/NAME.md by default, has a header
with the machine (CPU, cores, MHz, caches, SIMD target), the runs' dates and
the commit, then one table per benchmark binary: each benchmark's time per
iteration (wall and CPU, in the binary's unit), items/s or bytes/s when the
benchmark reports them, and its counters.

CPU: --cpu, else /proc/cpuinfo's 'model name' when the files were written on
this host (their host_name is this machine's), else "unknown". Commit:
--commit, else `git rev-parse --short HEAD` of this repository (the build the
binaries came from should be that commit: say otherwise with --commit).
With --benchmark_repetitions, only the aggregate rows named by --aggregate
(default median) are kept.

  scripts/bench-page.py --name zen5-2vcpu scene.json history.json tick.json
  scripts/bench-page.py --cpu "AMD EPYC 9R45" -o - core.json   # to stdout

Standard library only.
"""

import argparse
import json
import os
import re
import socket
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Keys of a benchmark row that are not user counters.
STANDARD_KEYS = {
    "name", "family_index", "per_family_instance_index", "run_name",
    "run_type", "repetitions", "repetition_index", "threads", "iterations",
    "real_time", "cpu_time", "time_unit", "aggregate_name", "aggregate_unit",
    "label", "error_occurred", "error_message", "skipped", "skip_message",
    "bytes_per_second", "items_per_second", "big_o", "rms", "complexity_n",
}
SIMD_KEYS = ("simd_target", "simd", "hwy_target", "target")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="bench-page.py",
        description=__doc__,
        epilog="Example: scripts/bench-page.py --name zen5-2vcpu "
        "scene.json history.json tick.json (see docs/machines/README.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="Google Benchmark JSON output, one per binary run")
    p.add_argument("--name",
                   help="the machine's page name (letters, digits, '-'); "
                   "default: the files' host_name")
    p.add_argument("--cpu", help="CPU model for the header (default: "
                   "/proc/cpuinfo when run on the machine that ran them)")
    p.add_argument("--simd", help="SIMD target for the header when no file "
                   "carries one (context key simd_target, or a label)")
    p.add_argument("--commit", help="commit the binaries were built from "
                   "(default: git rev-parse --short HEAD)")
    p.add_argument("--note", action="append", default=[],
                   help="a line for the header (the machine's state: "
                   "shared, quiet, ...); may repeat")
    p.add_argument("--aggregate", default="median",
                   help="with repetitions, the aggregate rows kept "
                   "(mean, median, stddev, cv, min...; default median)")
    p.add_argument("-o", "--out",
                   help="output path, '-' for stdout (default: "
                   "docs/machines/NAME.md in this repository)")
    return p.parse_args(argv)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"bench-page.py: {path}: {e}")
    if not isinstance(data, dict) or not isinstance(
            data.get("benchmarks"), list):
        sys.exit(f"bench-page.py: {path}: not Google Benchmark JSON "
                 "(no 'benchmarks' list)")
    data.setdefault("context", {})
    return data


def cpu_here():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def git_commit():
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                             cwd=REPO, capture_output=True, text=True,
                             check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def slug(text):
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s or "machine"


def num(v):
    """A number as a reader wants it: 3-4 significant digits, thousands
    separated, no exponent below 1e15."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return str(v)
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}".rstrip("0").rstrip(".")
    if a >= 1:
        return f"{v:.3g}"
    if a >= 1e-4:
        return f"{v:.3g}"
    return f"{v:.2e}"


def rate(v, unit):
    """items/s or bytes/s with an SI prefix (binary for bytes)."""
    if not isinstance(v, (int, float)):
        return str(v)
    if unit == "B/s":
        for p, d in (("GiB/s", 2**30), ("MiB/s", 2**20), ("KiB/s", 2**10)):
            if abs(v) >= d:
                return f"{v / d:.3g} {p}"
        return f"{v:.3g} B/s"
    for p, d in (("G/s", 1e9), ("M/s", 1e6), ("k/s", 1e3)):
        if abs(v) >= d:
            return f"{v / d:.3g} {p}"
    return f"{v:.3g} /s"


def cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def caches(context):
    out = []
    for c in context.get("caches") or []:
        size = c.get("size", 0)
        if size >= 2**20 and size % 2**20 == 0:
            s = f"{size // 2**20} MiB"
        else:
            s = f"{size // 1024} KiB"
        share = c.get("num_sharing", 0)
        out.append(f"L{c.get('level', '?')} {c.get('type', '')} {s}"
                   + (f" (shared by {share})" if share and share > 1 else ""))
    return ", ".join(out)


def counters_of(row):
    if isinstance(row.get("counters"), dict):
        return {k: v for k, v in row["counters"].items()
                if k not in ("items_per_second", "bytes_per_second")}
    return {k: v for k, v in row.items()
            if k not in STANDARD_KEYS and isinstance(v, (int, float))
            and not isinstance(v, bool)}


def rate_of(row, key):
    if key in row:
        return row[key]
    c = row.get("counters")
    if isinstance(c, dict):
        return c.get(key)
    return None


def simd_of(data):
    found = []
    ctx = data["context"]
    for k in SIMD_KEYS:
        if isinstance(ctx.get(k), str) and ctx[k]:
            found.append(ctx[k])
            break
    for row in data["benchmarks"]:
        label = row.get("label") or ""
        m = re.search(r"(?:simd|target)[=:]\s*([A-Za-z0-9_]+)", label)
        if m:
            found.append(m.group(1))
    return found


def rows_of(data, aggregate):
    rows = data["benchmarks"]
    if any(r.get("run_type") == "aggregate" for r in rows):
        rows = [r for r in rows if r.get("run_type") == "aggregate"
                and r.get("aggregate_name") == aggregate]
    return rows


def table(data, aggregate):
    rows = rows_of(data, aggregate)
    if not rows:
        return ["(no rows" + (f" with the aggregate '{aggregate}'"
                              if data["benchmarks"] else "") + ")", ""]
    has_items = any(rate_of(r, "items_per_second") is not None for r in rows)
    has_bytes = any(rate_of(r, "bytes_per_second") is not None for r in rows)
    has_label = any(r.get("label") for r in rows)
    counter_names = []
    for r in rows:
        for k in counters_of(r):
            if k not in counter_names:
                counter_names.append(k)
    head = ["benchmark", "time/iter", "CPU/iter", "iterations"]
    if has_items:
        head.append("items/s")
    if has_bytes:
        head.append("bytes/s")
    head += counter_names
    if has_label:
        head.append("label")
    # Text for the name and the label, numbers right-aligned.
    align = ["---"] + ["---:"] * (len(head) - 1)
    if has_label:
        align[-1] = "---"
    lines = ["| " + " | ".join(cell(h) for h in head) + " |",
             "| " + " | ".join(align) + " |"]
    for r in rows:
        unit = r.get("time_unit", "ns")
        name = r.get("name", "?")
        if r.get("run_type") == "aggregate":
            name = r.get("run_name") or name  # without the _median suffix
        if r.get("error_occurred") or r.get("skipped"):
            msg = r.get("error_message") or r.get("skip_message") or "skipped"
            out = [name, f"error: {msg}"] + [""] * (len(head) - 2)
        else:
            out = [name, f"{num(r.get('real_time'))} {unit}",
                   f"{num(r.get('cpu_time'))} {unit}",
                   num(r.get("iterations", ""))]
            if r.get("run_type") == "aggregate":
                out[3] = f"{r.get('repetitions', '?')} repetitions"
            if has_items:
                v = rate_of(r, "items_per_second")
                out.append("" if v is None else rate(v, "/s"))
            if has_bytes:
                v = rate_of(r, "bytes_per_second")
                out.append("" if v is None else rate(v, "B/s"))
            c = counters_of(r)
            out += [num(c[k]) if k in c else "" for k in counter_names]
            if has_label:
                out.append(r.get("label", ""))
        lines.append("| " + " | ".join(cell(x) for x in out) + " |")
    lines.append("")
    return lines


def page(files, datas, args):
    ctxs = [d["context"] for d in datas]
    hosts = []
    for c in ctxs:
        if c.get("host_name") and c["host_name"] not in hosts:
            hosts.append(c["host_name"])
    if len(hosts) > 1:
        print("bench-page.py: warning: the files come from several hosts ("
              + ", ".join(hosts) + "); a page is one machine's",
              file=sys.stderr)
    name = slug(args.name or (hosts[0] if hosts else "machine"))
    cpu = args.cpu
    if not cpu and hosts == [socket.gethostname()]:
        cpu = cpu_here()
    cpu = cpu or "unknown (pass --cpu)"
    cores = sorted({c.get("num_cpus") for c in ctxs} - {None})
    mhz = sorted({c.get("mhz_per_cpu") for c in ctxs} - {None})
    simd = []
    for d in datas:
        for t in simd_of(d):
            if t not in simd:
                simd.append(t)
    if not simd and args.simd:
        simd = [args.simd]
    dates = sorted({c.get("date", "") for c in ctxs} - {""})
    builds = sorted({c.get("library_build_type", "") for c in ctxs} - {""})
    commit = args.commit or git_commit() or "unknown"
    cache = next((caches(c) for c in ctxs if c.get("caches")), "")

    out = [f"# {name}", "",
           "Generated by `scripts/bench-page.py` from "
           + ", ".join(f"`{os.path.basename(f)}`" for f in files)
           + "; see [README.md](README.md) for how. Compare ratios within "
           "one run; absolute times move with the machine's neighbours.", "",
           "| | |", "| --- | --- |",
           f"| CPU | {cell(cpu)} |",
           f"| cores | {', '.join(str(c) for c in cores) or 'unknown'} |"]
    if mhz:
        out.append(f"| MHz per CPU (as reported) | "
                   f"{', '.join(num(m) for m in mhz)} |")
    if cache:
        out.append(f"| caches | {cell(cache)} |")
    out.append(f"| SIMD target | {cell(', '.join(simd)) or 'not reported'} |")
    out.append(f"| date | {cell(', '.join(dates)) or 'unknown'} |")
    out.append(f"| commit | `{cell(commit)}` |")
    if hosts:
        out.append(f"| host | {cell(', '.join(hosts))} |")
    if builds:
        out.append(f"| benchmark library build | {cell(', '.join(builds))} |")
    for c in ctxs:
        if c.get("cpu_scaling_enabled"):
            out.append("| note | CPU frequency scaling was on: times are "
                       "noisier |")
            break
    for n in args.note:
        out.append(f"| note | {cell(n)} |")
    out.append("")

    seen = {}
    for f, d in zip(files, datas):
        exe = os.path.basename(d["context"].get("executable", "")) \
            or os.path.splitext(os.path.basename(f))[0]
        seen[exe] = seen.get(exe, 0) + 1
    for f, d in zip(files, datas):
        c = d["context"]
        exe = os.path.basename(c.get("executable", "")) \
            or os.path.splitext(os.path.basename(f))[0]
        title = exe if seen[exe] == 1 else f"{exe} ({os.path.basename(f)})"
        out += [f"## {title}", ""]
        info = []
        if c.get("date"):
            info.append(f"run {c['date']}")
        la = c.get("load_avg")
        if isinstance(la, list) and la:
            info.append("load average " + " / ".join(num(x) for x in la))
        if any(r.get("run_type") == "aggregate" for r in d["benchmarks"]):
            info.append(f"the {args.aggregate} of the repetitions")
        if info:
            out += ["; ".join(info) + ".", ""]
        out += table(d, args.aggregate)
    return name, "\n".join(out).rstrip("\n") + "\n"


def main(argv):
    args = parse_args(argv)
    datas = [load(f) for f in args.files]
    name, text = page(args.files, datas, args)
    if args.out == "-":
        sys.stdout.write(text)
        return 0
    path = args.out or os.path.join(REPO, "docs", "machines", name + ".md")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
