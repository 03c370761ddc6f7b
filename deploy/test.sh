#!/usr/bin/env bash
# The container scale-out test (a CI stage of its own, run as root):
#   1. installs podman and friends from Debian (idempotent);
#   2. debootstraps Debian bookworm (minbase, from the machine's apt mirror)
#      into a cache dir and imports it as debian:bookworm-slim (once);
#   3. builds deploy/Dockerfile (server, load) and deploy/nginx/Dockerfile;
#   4. starts three replicas and the nginx balancer on a private podman
#      network, ports published on 127.0.0.1 only;
#   5. runs collision_load through the balancer twice: run 1 SIGKILLs
#      replica1 mid-run, run 2 SIGTERMs replica2 mid-run; asserts no failed
#      calls in run 1 but those nginx reset mid-answer (INTERNAL, at most
#      --concurrency: see deploy/README.md), the killed replica's share moved
#      to the others
#      (grpc_server_handled_total from each replica's /metrics), the drained
#      replica logged "stopped" and exited 0 well before its shutdown
#      deadline (so the deadline cut no in-flight call), and in run 2 no
#      failure but the drain's CANCELLED race (bounded; see below).
# Containers, the network and temp files are removed on exit; the images and
# the debootstrap cache are kept for the next run.
#
# Environment: COLLISION_DEPLOY_CACHE (default /var/cache/collision-deploy),
# DEPLOY_TEST_REPORT (also write the figures there),
# DEPLOY_TEST_REMOVE_IMAGES=1 (remove the built images at the end),
# DEPLOY_TEST_STRICT_DRAIN=1 (fail on any call the SIGTERM drain cancels; by
# default up to --concurrency CANCELLED calls are reported, not failed: see
# deploy/README.md, "Stopping a replica").
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
log() { echo "deploy-test [$(($(date +%s) - t0))s] $*"; }

cache=${COLLISION_DEPLOY_CACHE:-/var/cache/collision-deploy}
id=cdt$$
work=$(mktemp -d /tmp/deploy-test.XXXXXX)
net=$id-net
subnet=10.89.$((($$ % 150) + 100))
containers=()

# ---- 1. packages ----
need=()
for p in podman buildah runc fuse-overlayfs slirp4netns uidmap debootstrap curl \
         python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    need+=("$p")
done
if ((${#need[@]})); then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${need[@]}"
fi

# runc (crun fails on setrlimit and the mixed cgroup layout of these
# machines) and explicit ulimits, for builds and runs alike.
cat >"$work/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF=$work/containers.conf
pm() { podman --runtime runc "$@"; }
run_flags=(--runtime runc --ulimit nofile=20000:20000 --ulimit nproc=4096:4096)

dump_logs() {
  local keep=/tmp/deploy-test-logs.$id
  mkdir -p "$keep"
  for c in "${containers[@]}"; do
    podman logs "$c" >"$keep/$c.log" 2>&1 || true
    echo "---- podman logs $c (last 20 lines)"
    podman logs --tail 20 "$c" 2>&1 || true
  done
  echo "full container logs kept in $keep"
}
cleanup() {
  local rc=$?
  ((rc == 0)) || dump_logs
  for c in "${containers[@]}"; do podman rm -f -t 0 "$c" >/dev/null 2>&1 || true; done
  podman network rm -f "$net" >/dev/null 2>&1 || true
  if [ "${DEPLOY_TEST_REMOVE_IMAGES:-0}" = 1 ]; then
    podman rmi -f localhost/collision-server:latest localhost/collision-load:latest \
      localhost/collision-nginx:latest >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  log "exit $rc"
}
trap cleanup EXIT
fail() { echo "deploy-test: FAIL: $*" >&2; exit 1; }

# ---- 2. base image ----
base=docker.io/library/debian:bookworm-slim
if ! podman image exists "$base"; then
  rootfs=$cache/bookworm-minbase
  if [ ! -f "$rootfs.done" ]; then
    # The first bookworm mirror of the machine's own apt sources (deb822 or
    # one-line format), so that nothing but the configured mirror is used.
    mirror=$(awk '
      /^URIs:/ {u=$2} /^Suites:/ {s=$0}
      /^$/ {if (s ~ /[ \t]bookworm([ \t]|$)/ && u != "") {print u; exit} u=""; s=""}
      END {if (s ~ /[ \t]bookworm([ \t]|$)/ && u != "") print u}
    ' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -1)
    if [ -z "$mirror" ]; then
      mirror=$(awk '$1 == "deb" {for (i = 2; i < NF; i++) if ($i !~ /^\[/ && $(i+1) == "bookworm") {print $i; exit}}' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -1)
    fi
    [ -n "$mirror" ] || fail "no bookworm mirror in the apt sources"
    log "debootstrap bookworm (minbase) from $mirror"
    rm -rf "$rootfs"
    mkdir -p "$cache"
    timeout 900 debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
      { tail -20 "$work/debootstrap.log"; fail "debootstrap"; }
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    touch "$rootfs.done"
  fi
  log "importing $rootfs as $base"
  tar -C "$rootfs" --numeric-owner -c . |
    podman import --change 'CMD ["/bin/bash"]' - "$base" >/dev/null
fi

# ---- 3. images ----
build() {
  local started=$(date +%s)
  timeout 1500 podman build --runtime runc --pull=never --format docker "$@" \
    >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "podman build $*"; }
  log "built ${*: -2:1} in $(($(date +%s) - started))s"
}
# All images from one snapshot of the sources (what deploy/Dockerfile
# copies), so that edits made meanwhile cannot give the two targets
# different trees or defeat the layer cache between them.
ctx=$work/context
mkdir -p "$ctx"
# The sources are what the Dockerfile's COPY lines name (one list, there).
sources=$(awk '$1 == "COPY" && $2 !~ /^--/ { for (i = 2; i < NF; i++) print $i }' \
  deploy/Dockerfile | grep -v '^deploy/' | sort -u)
[ -n "$sources" ] || fail "no COPY sources in deploy/Dockerfile"
# shellcheck disable=SC2086  # one word per path
tar -c .dockerignore $sources deploy | tar -x -C "$ctx"
log "building images"
build -f "$ctx/deploy/Dockerfile" --target server -t localhost/collision-server:latest "$ctx"
build -f "$ctx/deploy/Dockerfile" --target load -t localhost/collision-load:latest "$ctx"
build -f "$ctx/deploy/nginx/Dockerfile" -t localhost/collision-nginx:latest "$ctx/deploy/nginx"

# ---- 4. replicas and balancer ----
pm network create --subnet "$subnet.0/24" "$net" >/dev/null
drain_grace=2s
shutdown_deadline=10s
hosts=()
for i in 1 2 3; do
  c=$id-replica$i
  containers+=("$c")
  # Without systemd podman cannot schedule the image's HEALTHCHECK and says
  # so on stderr (harmless, filtered); the script runs the check itself.
  pm run -d --name "$c" "${run_flags[@]}" --read-only --network "$net" \
    --ip "$subnet.1$i" -p 127.0.0.1::9464 localhost/collision-server:latest \
    --address=0.0.0.0:50051 --metrics_address=0.0.0.0:9464 \
    --drain_grace=$drain_grace --shutdown_deadline=$shutdown_deadline \
    >/dev/null 2> >(grep -v 'systemd connection' >&2)
  hosts+=(--add-host "replica$i:$subnet.1$i")
done
b=$id-balancer
containers+=("$b")
pm run -d --name "$b" "${run_flags[@]}" --read-only --network "$net" \
  --ip "$subnet.10" "${hosts[@]}" -p 127.0.0.1::8081 \
  localhost/collision-nginx:latest >/dev/null

# Ready = the image's own HEALTHCHECK (collision_probe) passes; bounded.
metrics_port=()
for i in 1 2 3; do
  c=$id-replica$i
  for n in $(seq 60); do
    podman healthcheck run "$c" >/dev/null 2>&1 && break
    [ "$n" -lt 60 ] || fail "$c never became healthy"
    sleep 0.5
  done
  metrics_port[$i]=$(podman port "$c" 9464/tcp | head -1 | sed 's/.*://')
done
bport=$(podman port "$b" 8081/tcp | head -1 | sed 's/.*://')
for n in $(seq 60); do
  curl -sf "http://127.0.0.1:$bport/healthz" >/dev/null && break
  [ "$n" -lt 60 ] || fail "nginx never answered /healthz"
  sleep 0.5
done
# The gRPC health service answers through the balancer.
pm run --rm "${run_flags[@]}" --read-only --network "$net" \
  --entrypoint /usr/local/bin/collision_probe localhost/collision-load:latest \
  --target="$subnet.10:8080" --service=collision.v1.CollisionService --timeout=10s ||
  fail "no health answer through the balancer"
log "3 replicas healthy (metrics on 127.0.0.1:${metrics_port[1]},${metrics_port[2]},${metrics_port[3]}), balancer up"

# Calls answered OK by replica $1 so far (sum over methods).
handled() {
  curl -sf --max-time 5 "http://127.0.0.1:${metrics_port[$1]}/metrics" |
    awk '/^grpc_server_handled_total\{/ && /grpc_code="OK"/ {s += $NF} END {printf "%d\n", s}'
}

# ---- 5. load, SIGKILL, SIGTERM ----
# Two load runs through the balancer (concurrency 8, retries on UNAVAILABLE,
# the load tool's default): run 1 SIGKILLs replica1 mid-run, run 2 SIGTERMs
# replica2 mid-run. Separate runs keep each event's failures apart.
mkdir -p "$work/out" && chmod 777 "$work/out"
concurrency=8
start_load() {  # name duration_s
  containers+=("$1")
  pm run -d --name "$1" "${run_flags[@]}" --read-only --network "$net" \
    -v "$work/out:/out" localhost/collision-load:latest \
    --target="$subnet.10:8080" --concurrency=$concurrency --batch=100 \
    --duration="$2s" --warmup=1s --deadline=10s --retries=4 \
    --progress=off --json_out="/out/$1.json" >/dev/null
}
finish_load() {  # name
  timeout 60 podman wait "$1" >/dev/null || fail "load run $1 did not end"
  podman logs "$1" 2>&1 | sed "s/^/  $1: /"
  [ -s "$work/out/$1.json" ] || fail "no report from $1"
}
declare -A at
start_load "$id-load1" 18
sleep 3
for i in 1 2 3; do at[a$i]=$(handled $i); done
sleep 5
for i in 1 2 3; do at[b$i]=$(handled $i); done
log "SIGKILL replica1"
pm kill --signal KILL "$id-replica1" >/dev/null
sleep 7
for i in 2 3; do at[c$i]=$(handled $i); done
finish_load "$id-load1"

start_load "$id-load2" 14
sleep 3
for i in 2 3; do at[d$i]=$(handled $i); done
sleep 3
for i in 2 3; do at[e$i]=$(handled $i); done
log "SIGTERM replica2"
pm kill --signal TERM "$id-replica2" >/dev/null
timeout 30 podman wait "$id-replica2" >/dev/null || fail "replica2 did not stop"
r2_exit=$(podman inspect -f '{{.State.ExitCode}}' "$id-replica2")
podman logs "$id-replica2" >"$work/replica2.log" 2>&1 || true
at[f3]=$(handled 3)
sleep 4
at[g3]=$(handled 3)
finish_load "$id-load2"

# ---- assertions and figures ----
rc=0
python3 - "$work/out/$id-load1.json" "$work/out/$id-load2.json" \
  "$work/replica2.log" "$r2_exit" "$drain_grace" "$shutdown_deadline" \
  "$concurrency" "${DEPLOY_TEST_STRICT_DRAIN:-0}" \
  "${at[a1]} ${at[a2]} ${at[a3]} ${at[b1]} ${at[b2]} ${at[b3]} ${at[c2]} ${at[c3]} ${at[d2]} ${at[d3]} ${at[e2]} ${at[e3]} ${at[f3]} ${at[g3]}" \
  >"$work/figures.txt" <<'PY' || rc=$?
import datetime, json, re, sys
kill_run, drain_run = (json.load(open(p)) for p in sys.argv[1:3])
r2_log = open(sys.argv[3]).read()
r2_exit = int(sys.argv[4])
grace, deadline = (float(x.rstrip("s")) for x in sys.argv[5:7])
concurrency, strict_drain = int(sys.argv[7]), sys.argv[8] == "1"
a1, a2, a3, b1, b2, b3, c2, c3, d2, d3, e2, e3, f3, g3 = map(int, sys.argv[9].split())
all_up = [b1 - a1, b2 - a2, b3 - a3]
after_kill = [0, c2 - b2, c3 - b3]
two_up = [0, e2 - d2, e3 - d3]
after_drain = [0, 0, g3 - f3]

def when(pattern):
    m = re.search(r"^(\S+) (?:INFO|WARN|ERROR) +collision_server: " + pattern, r2_log, re.M)
    return m and datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ")
t_signal, t_stopped = when("signal 15"), when("stopped")
drain_s = (t_stopped - t_signal).total_seconds() if t_signal and t_stopped else -1

def shares(v):
    t = sum(v) or 1
    return " / ".join("%5d (%3.0f%%)" % (x, 100.0 * x / t) for x in v)

def summary(name, r):
    return ("%s: %d calls, %d failed %s, %.0f calls/s, p50 %.1f ms, p99 %.1f ms, max %.0f ms" % (
        name, r["requests"], r["errors"], r.get("status_counts"),
        r["requests_per_second"], r["latency_us"]["p50"] / 1e3,
        r["latency_us"]["p99"] / 1e3, r["latency_us"]["max"] / 1e3))

problems = []
# A call whose answer nginx had begun to forward when replica1 died is
# reset (RST_STREAM, INTERNAL): committed, so gRPC does not retry it. At most
# the calls in flight; every other failure is a problem.
kill_reset = kill_run["status_counts"].get("INTERNAL", 0)
if kill_run["errors"] - kill_reset != 0 or kill_reset > concurrency:
    problems.append("SIGKILL run: %d failed calls %s" % (kill_run["errors"], kill_run["status_counts"]))
drain_cancelled = drain_run["status_counts"].get("CANCELLED", 0)
if drain_run["errors"] - drain_cancelled != 0:
    problems.append("SIGTERM run: failed calls other than CANCELLED: %s" % drain_run["status_counts"])
if drain_cancelled > (0 if strict_drain else concurrency):
    problems.append("SIGTERM run: %d calls CANCELLED by the drain" % drain_cancelled)
if min(kill_run["requests"], drain_run["requests"]) <= 0:
    problems.append("no calls made")
if min(all_up) <= 0.15 * sum(all_up):
    problems.append("calls were not spread over the three replicas before the kill")
if min(after_kill[1:]) <= 0.35 * sum(after_kill):
    problems.append("replica2/3 did not split replica1's share after the kill")
if after_drain[2] <= 0:
    problems.append("replica3 served nothing after replica2 drained")
if r2_exit != 0:
    problems.append("drained replica2 exited %d" % r2_exit)
if not (0 <= drain_s < grace + deadline):
    problems.append("replica2 SIGTERM -> stopped took %.2fs (not logged, or it hit "
                    "its shutdown deadline and cut calls)" % drain_s)

print("3 replicas + nginx (grpc_pass) + collision_load (concurrency %d, batch 100, retries on UNAVAILABLE), all in podman" % concurrency)
print(summary("run 1, replica1 SIGKILLed", kill_run))
print(summary("run 2, replica2 SIGTERMed", drain_run))
print("OK calls per replica (1 / 2 / 3), 5 s, all up:          " + shares(all_up))
print("OK calls per replica, 7 s after the SIGKILL of replica1: " + shares(after_kill))
print("OK calls per replica, 3 s before the SIGTERM, run 2:     " + shares(two_up))
print("OK calls per replica, 4 s after replica2 drained:        " + shares(after_drain))
print("rate per replica all up -> after the kill (calls/s):  %s -> %s" % (
    " / ".join("%.0f" % (x / 5.0) for x in all_up),
    " / ".join("%.0f" % (x / 7.0) for x in after_kill)))
print("replica2: SIGTERM -> 'stopped' in %.2f s (drain_grace %.0fs, shutdown_deadline %.0fs), exit %d; CANCELLED during its drain: %d" % (
    drain_s, grace, deadline, r2_exit, drain_cancelled))
for p in problems:
    print("PROBLEM: " + p)
sys.exit(1 if problems else 0)
PY
cat "$work/figures.txt"
log "total $(($(date +%s) - t0))s"
[ -z "${DEPLOY_TEST_REPORT:-}" ] || cp "$work/figures.txt" "$DEPLOY_TEST_REPORT"
((rc == 0)) || fail "see PROBLEM lines"
log "OK"
