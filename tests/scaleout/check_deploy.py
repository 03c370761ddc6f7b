#!/usr/bin/python3
"""Checks deploy/ against the server it deploys.

Every collision_server argument in the Kubernetes manifests, compose.yaml and
the Dockerfile must be a flag the built binary accepts with that value (the
binary itself parses them: `collision_server ARGS --version` exits 0 only if
every flag and value is valid); ports, probe service names and drain timing
must agree with the flags and with server/server.h.

usage: check_deploy.py SERVER_BINARY SOURCE_DIR
"""
import glob
import os
import re
import subprocess
import sys

import yaml

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def duration_seconds(text):
    """An absl duration flag value ("2s", "1m30s", "500ms", "0") in seconds."""
    if text in ("0", "inf"):
        return 0.0 if text == "0" else float("inf")
    units = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
    parts = re.findall(r"([0-9.]+)(h|ms|us|ns|m|s)", text)
    if "".join(n + u for n, u in parts) != text:
        raise ValueError("not a duration: " + text)
    return sum(float(n) * units[u] for n, u in parts)


def bytes_of(quantity):
    """A Kubernetes memory quantity (1Gi, 512Mi, 1e9) in bytes."""
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "K": 1000,
             "M": 1000 ** 2, "G": 1000 ** 3}
    m = re.fullmatch(r"([0-9.e+]+)([KMG]i?)?", str(quantity))
    if not check(m, "memory quantity %r not understood" % quantity):
        return 0
    return int(float(m.group(1)) * units.get(m.group(2) or "", 1))


def flags_of(args):
    out = {}
    for a in args:
        m = re.fullmatch(r"--([a-z_0-9]+)(?:=(.*))?", a)
        if check(m, "argument %r is not of the form --flag[=value]" % a):
            out[m.group(1)] = "true" if m.group(2) is None else m.group(2)
    return out


def server_flag_defaults(binary):
    """Flag name -> default, from `collision_server --helpfull`."""
    text = subprocess.run([binary, "--helpfull"], capture_output=True,
                          text=True, timeout=30).stdout
    section = text[text.find("server/main.cc"):]
    section = section[:section.find("\n\n  Flags from") if "\n\n  Flags from" in section else None]
    defaults = {}
    for m in re.finditer(r"--([a-z_0-9]+) \(.*?\);\s+default: (.*?);",
                         section, re.S):
        defaults[m.group(1)] = m.group(2).strip('"')
    return defaults


def check_args_accepted(binary, where, args):
    """The binary parses the arguments itself (absl exits 1 on a bad one)."""
    r = subprocess.run([binary] + list(args) + ["--version"],
                       capture_output=True, text=True, timeout=30)
    check(r.returncode == 0, "%s: collision_server rejects %s: %s" %
          (where, args, r.stderr.strip()))


def port_of(address):
    return int(address.rsplit(":", 1)[1])


def main():
    binary, src = sys.argv[1], sys.argv[2]
    deploy = os.path.join(src, "deploy")
    defaults = server_flag_defaults(binary)
    check(len(defaults) >= 10 and "drain_grace" in defaults,
          "could not read the server's flags from --helpfull: %s" % defaults)
    # The server reports health under the service's full name
    # (kHealthServiceName in server/server.h): package + service of the proto.
    proto = open(os.path.join(src, "proto/collision/v1/collision.proto")).read()
    package = re.search(r"^package\s+([\w.]+);", proto, re.M)
    service = re.search(r"^service\s+(\w+)", proto, re.M)
    check(package and service, "no package or service in collision.proto")
    health_name = "%s.%s" % (package.group(1), service.group(1))
    health_names = {"", health_name}

    # ---- Kubernetes ----
    docs = []
    for path in sorted(glob.glob(os.path.join(deploy, "k8s", "*.yaml"))):
        for doc in yaml.safe_load_all(open(path)):
            if doc:
                docs.append((os.path.basename(path), doc))
    kinds = {}
    for name, doc in docs:
        kinds.setdefault(doc["kind"], []).append(doc)
    for kind in ("Deployment", "Service", "HorizontalPodAutoscaler",
                 "PodDisruptionBudget"):
        check(kind in kinds, "no %s in deploy/k8s" % kind)

    dep = kinds["Deployment"][0]
    pod = dep["spec"]["template"]["spec"]
    labels = dep["spec"]["template"]["metadata"]["labels"]
    check(dep["spec"]["selector"]["matchLabels"].items() <= labels.items(),
          "Deployment selector does not match its pod labels")
    container = [c for c in pod["containers"]
                 if c["name"] == "collision-server"][0]
    args = container.get("args", [])
    flags = flags_of(args)
    for f in flags:
        check(f in defaults, "k8s arg --%s is not a collision_server flag" % f)
    check_args_accepted(binary, "k8s Deployment", args)
    value = lambda f: flags.get(f, defaults.get(f))

    grpc_port = port_of(value("address"))
    metrics_address = value("metrics_address")
    check(metrics_address, "k8s: --metrics_address is not set")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check(ports.get("grpc") == grpc_port,
          "containerPort grpc %s != --address port %s" %
          (ports.get("grpc"), grpc_port))
    if metrics_address:
        check(ports.get("metrics") == port_of(metrics_address),
              "containerPort metrics != --metrics_address port")
    check(not value("address").startswith("127."),
          "--address must listen on all interfaces in a pod")
    # Probes go to the health-only port when there is one (plaintext, so
    # they work with TLS on the main port), else to the main port.
    health_address = value("health_address")
    probe_port = grpc_port
    if health_address:
        probe_port = port_of(health_address)
        check(ports.get("health") == probe_port,
              "containerPort health %s != --health_address port %s" %
              (ports.get("health"), probe_port))
        check(not health_address.startswith("127."),
              "--health_address must listen on all interfaces in a pod")

    probes = {}
    for kind in ("readinessProbe", "livenessProbe"):
        probe = container.get(kind)
        if not check(probe and "grpc" in probe, "%s is not a grpc probe" % kind):
            continue
        probes[kind] = probe
        check(probe["grpc"]["port"] == probe_port,
              "%s port %s != the health port %s" %
              (kind, probe["grpc"]["port"], probe_port))
        service = probe["grpc"].get("service", "")
        check(service in health_names, "%s service %r is not one the server "
              "reports (%s)" % (kind, service, sorted(health_names)))
    if "readinessProbe" in probes:
        check(probes["readinessProbe"]["grpc"].get("service") == health_name,
              "readinessProbe should check %s" % health_name)

    # Drain timing.
    grace = duration_seconds(value("drain_grace"))
    deadline = duration_seconds(value("shutdown_deadline"))
    pre_stop = 0.0
    hook = container.get("lifecycle", {}).get("preStop", {})
    if "exec" in hook:
        cmd = hook["exec"]["command"]
        if os.path.basename(cmd[0]) == "sleep":
            pre_stop = float(cmd[1])
    elif "sleep" in hook:
        pre_stop = float(hook["sleep"]["seconds"])
    tgps = pod.get("terminationGracePeriodSeconds", 30)
    check(tgps >= pre_stop + grace + deadline + 1,
          "terminationGracePeriodSeconds %s < preStop %s + drain_grace %s + "
          "shutdown_deadline %s + 1" % (tgps, pre_stop, grace, deadline))
    if "readinessProbe" in probes:
        r = probes["readinessProbe"]
        detect = r.get("periodSeconds", 10) * r.get("failureThreshold", 3)
        check(detect <= grace, "readiness notices NOT_SERVING after %ss, later "
              "than --drain_grace %ss" % (detect, grace))
    if "livenessProbe" in probes:
        l = probes["livenessProbe"]
        kill_after = l.get("periodSeconds", 10) * l.get("failureThreshold", 3)
        check(kill_after > grace + deadline,
              "liveness (%ss) could kill a pod during its drain (%ss)" %
              (kill_after, grace + deadline))
    res = container.get("resources", {})
    check("requests" in res and "limits" in res, "no resource requests/limits")
    # The memory guard must fire below the container's memory limit, with
    # room for what the guard's 50 ms check lets in, or the OOM killer ends
    # the pod mid-call instead of a clean exit.
    limit = bytes_of(res.get("limits", {}).get("memory", "0"))
    guard = int(value("memory_limit_bytes"))
    check(guard > 0 and limit >= guard * 1.25,
          "memory limit %s is not >= 1.25 x --memory_limit_bytes %s" %
          (limit, guard))
    check(container.get("securityContext", {}).get("readOnlyRootFilesystem"),
          "readOnlyRootFilesystem is not set")
    # The server never calls the Kubernetes API: no token in the pod.
    check(pod.get("automountServiceAccountToken") is False,
          "automountServiceAccountToken is not false")
    # Reflection lists the API to anyone who connects: off in production.
    check(str(value("reflection")).lower() == "false",
          "--reflection is on in the production manifest")
    # With an HPA, the Deployment's replica count belongs to it: a
    # `replicas` field would reset the scale on every apply.
    hpa_targets = {h["spec"]["scaleTargetRef"]["name"]
                   for h in kinds["HorizontalPodAutoscaler"]}
    if dep["metadata"]["name"] in hpa_targets:
        check("replicas" not in dep["spec"],
              "Deployment sets replicas next to an HPA that scales it")
    workers = int(value("worker_threads"))
    cpu_limit = str(res.get("limits", {}).get("cpu", "0"))
    cpus = float(cpu_limit[:-1]) / 1000 if cpu_limit.endswith("m") else float(cpu_limit)
    check(workers > 0 and workers <= max(1, cpus),
          "--worker_threads=%s should be set and at most the CPU limit %s" %
          (workers, cpu_limit))

    # Services: selectors match the pods, target ports exist, one headless.
    port_names = set(ports) | set(map(str, ports.values()))
    headless = 0
    for svc in kinds["Service"]:
        spec = svc["spec"]
        check(spec["selector"].items() <= labels.items(),
              "Service %s selects no collision pod" % svc["metadata"]["name"])
        for p in spec["ports"]:
            check(str(p.get("targetPort", p["port"])) in port_names,
                  "Service %s targetPort %s is not a container port" %
                  (svc["metadata"]["name"], p.get("targetPort")))
        if spec.get("clusterIP") == "None":
            headless += 1
            check(any(p.get("targetPort") in ("grpc", grpc_port)
                      for p in spec["ports"]),
                  "the headless Service does not expose the gRPC port")
    check(headless == 1, "want exactly one headless Service, got %d" % headless)
    check(any(s["spec"].get("clusterIP") != "None" for s in kinds["Service"]),
          "no regular (cluster IP) Service")

    hpa = kinds["HorizontalPodAutoscaler"][0]["spec"]
    check(hpa["scaleTargetRef"]["name"] == dep["metadata"]["name"],
          "HPA does not target the Deployment")
    check(hpa["minReplicas"] >= 2, "HPA minReplicas < 2: no redundancy")
    pdb = kinds["PodDisruptionBudget"][0]["spec"]
    check(pdb["selector"]["matchLabels"].items() <= labels.items(),
          "PDB selects no collision pod")
    if "minAvailable" in pdb:
        check(pdb["minAvailable"] < hpa["minReplicas"],
              "PDB minAvailable >= minReplicas blocks every node drain")

    # ---- compose.yaml ----
    compose = yaml.safe_load(open(os.path.join(deploy, "compose.yaml")))
    services = compose["services"]
    replicas = [n for n, s in services.items()
                if s.get("build", {}).get("target") == "server"]
    check(len(replicas) >= 2, "compose: fewer than two server replicas")
    for n in replicas:
        s = services[n]
        cflags = flags_of(s.get("command", []))
        for f in cflags:
            check(f in defaults, "compose %s: --%s is not a server flag" % (n, f))
        check_args_accepted(binary, "compose " + n, s.get("command", []))
        check(str(s.get("stop_grace_period", "10s")).endswith("s") and
              duration_seconds(s.get("stop_grace_period", "10s")) >=
              duration_seconds(cflags.get("drain_grace", defaults["drain_grace"])) +
              duration_seconds(cflags.get("shutdown_deadline",
                                          defaults["shutdown_deadline"])),
              "compose %s: stop_grace_period shorter than the drain" % n)
    for n, s in services.items():
        for p in s.get("ports", []):
            check(p.startswith("127.0.0.1:"),
                  "compose %s publishes %s beyond loopback" % (n, p))
    nginx = open(os.path.join(deploy, "nginx", "nginx.conf")).read()
    for n in replicas:
        port = port_of(flags_of(services[n]["command"]).get(
            "address", defaults["address"]))
        check("server %s:%d" % (n, port) in nginx,
              "nginx upstream lacks %s:%d" % (n, port))
    check(re.search(r"listen\s+\d+\s+http2", nginx), "nginx does not listen h2")
    check("grpc_pass" in nginx, "nginx does not grpc_pass")

    # ---- Dockerfile: CMD flags and HEALTHCHECK ----
    dockerfile = open(os.path.join(deploy, "Dockerfile")).read()
    server_stage = dockerfile[dockerfile.find("AS server"):]
    cmd = re.search(r"^CMD (\[.*?\])", server_stage, re.M | re.S)
    cmd_args = yaml.safe_load(cmd.group(1))
    check_args_accepted(binary, "Dockerfile CMD", cmd_args)
    health = re.search(r"HEALTHCHECK.*?CMD (\[.*?\])", server_stage, re.S)
    hc = yaml.safe_load(health.group(1).replace("\\\n", ""))
    hflags = flags_of(hc[1:])
    check(hflags.get("service", "") in health_names,
          "HEALTHCHECK service %r unknown" % hflags.get("service"))
    check(port_of(hflags["target"]) == port_of(flags_of(cmd_args)["address"]),
          "HEALTHCHECK port != the CMD's --address port")
    check(not any("-march" in line for line in dockerfile.splitlines()
                  if not line.lstrip().startswith("#")),
          "Dockerfile sets -march")

    if failures:
        print("check_deploy: %d problem(s):" % len(failures))
        for f in failures:
            print("  - " + f)
        return 1
    print("check_deploy: OK (k8s: %d objects; compose: %d replicas; "
          "drain %.0fs + %.0fs + preStop %.0fs <= grace period %ss)" %
          (len(docs), len(replicas), grace, deadline, pre_stop, tgps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
