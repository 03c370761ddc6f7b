#!/usr/bin/python3
"""Runs the fenced blocks of the repository's Markdown files as written.

Every fenced block of every Markdown file of the repository (README.md,
docs/, the packages' READMEs, ...) is run as a user would run it, or says
why not: the nearest non-blank line above its opening fence is one of

  <!-- snippet: run [in DIR] [as FILE] [net] [exit=CODES] -->
  <!-- snippet: file PATH -->
  <!-- snippet: skip REASON -->

so a new block without a marker, or a skip without a reason, fails the test
(--check alone does only that, in a second). Blocks run in file order, one
file after the other, README.md first, each in a fresh process:

  sh      `bash -eo pipefail` on the block
  python  `python3 FILE`, the python3 of the user's venv
  js      `node FILE`; FILE is an ES module (.mjs) when the block has an
          import statement, else CommonJS (.js)
  cpp     a block without main() is the body of one: its # lines go to file
          scope (<collision/client/client.h> when it has none), the rest into
          `int main() {}`; compiled with `c++ -std=c++17` and the flags of
          `pkg-config collision-client` (from /opt/collision), then run
  file    the block is written to PATH (a C++ block wrapped as above) for
          later blocks to build (a CMakeLists.txt, a main.cc)

`in DIR` is the working directory (default: the repository), `as FILE` where
the block is saved (default: a scratch file; for js, in the working
directory, where the package resolves from). ~ is the user's home.
`exit=0,4` lists the exit codes that pass (default 0): a load run's exit 4
says the server shed calls, which a busy machine makes it do.

The user's machine, made before the first block, from what this build tree
built: a copy of the repository's files as a fresh clone has them, at
~/collision, with build/release a link to this build tree (the docs' build
folder, made by ./scripts/demo.sh); the C++ client installed with `cmake
--install BUILD --component client --prefix /opt/collision`; a venv made by
clients/python/build_wheel.py --venv (`/usr/bin/python3 -m venv
--system-site-packages`, Debian's python3-grpcio) with the wheel in it and
first on PATH; and a Node project, ~/my-app, with the tarball of `npm pack`
installed by `npm install`. That project's package-lock.json holds the
packages of clients/node/package-lock.json, so npm installs (the setup's
and the docs' `npm install` of the tarball) resolve at those versions; the
setup, and every block marked `net`, checks that they did.

The address. The docs call a server at 127.0.0.1:50051, and say /tmp and
/opt; a test must neither bind a fixed port of a shared machine nor write
there. Rewriting the docs' commands (another port) would not run them as
written, and an address from an environment variable in every snippet
would make each longer than what a reader types. So each block runs in its own Linux namespaces (unshare: as root, or in a user
namespace): a mount namespace where /tmp and /opt are this machine's folders
of the build tree, a PID namespace (nothing a block starts outlives it), and
a network namespace of its own, where a collision_server listens on
127.0.0.1:50051 (started by the test, waited for on its port file and then
on the health service, stopped with SIGTERM after the block, exit 0
expected). Only a block marked `net` (one that installs from the npm
registry) keeps the machine's network, and gets no server.

After each block the clone must be as a fresh clone is (`git status`):
a command the docs tell users to run from the repository must not leave
files in it (after a failure the clone is restored for the next block).
Each block gets at most --timeout seconds.

  tests/docs/snippets_test.py --check
  tests/docs/snippets_test.py --build build/ci [--only docs/clients.md]
"""

import argparse
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ADDRESS = "127.0.0.1:50051"
# The namespaces' side of this script needs Debian's python3-grpcio.
PYTHON = "/usr/bin/python3"

MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
OPEN_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^`\s]*)\s*$")
LANGS = {"sh": "sh", "bash": "sh", "shell": "sh", "python": "python",
         "py": "python", "js": "js", "javascript": "js", "cpp": "cpp",
         "c++": "cpp", "cmake": "cmake"}


class Block:
    def __init__(self, path, line, lang, body, marker):
        self.path, self.line, self.lang = path, line, lang
        self.body, self.marker = body, marker
        self.kind, self.reason, self.options = None, None, {}

    def __str__(self):
        return f"{self.path}:{self.line} {self.lang or '(no language)'}"


def markdown_files(source):
    """The repository's Markdown files, as git lists them (tracked and
    untracked, not ignored), README.md first."""
    out = subprocess.run(
        ["git", "-c", "safe.directory=*", "-C", source, "ls-files", "--cached", "--others",
         "--exclude-standard", "*.md"], check=True, capture_output=True,
        text=True).stdout.split()
    files = sorted(f for f in set(out)
                   if os.path.exists(os.path.join(source, f)))
    return sorted(files, key=lambda f: f != "README.md")


def dedent(line, indent):
    """The line without the fence's indentation (a block in a list item)."""
    cut = len(line) - len(line.lstrip(" "))
    return line[min(cut, indent):]


def parse_blocks(source, path):
    """The fenced blocks of one Markdown file, with their markers."""
    with open(os.path.join(source, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = OPEN_FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m.group(1)), m.group(2), m.group(3)
        close = re.compile(r"^\s*" + re.escape(fence[0]) + "{" +
                           str(len(fence)) + r",}\s*$")
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        body = "\n".join(dedent(l, indent) for l in lines[i + 1:j]) + "\n"
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = MARKER.match(lines[k]) if k >= 0 else None
        blocks.append(Block(path, i + 1, info.lower(), body,
                            marker.group(1) if marker else None))
        i = j + 1
    return blocks


def read_marker(block):
    """Fills block.kind/reason/options from its marker; returns an error
    message, or None."""
    if block.marker is None:
        return ("no <!-- snippet: run|file PATH|skip REASON --> marker on the "
                "line above it")
    words = block.marker.split()
    kind = words[0] if words else ""
    block.kind = kind
    lang = LANGS.get(block.lang)
    if kind == "skip":
        block.reason = " ".join(words[1:])
        return None if block.reason else "skip without a reason"
    if kind == "file":
        if len(words) != 2:
            return "file takes one PATH"
        block.options["as"] = words[1]
        return None
    if kind != "run":
        return f"unknown marker {kind!r}"
    if lang not in ("sh", "python", "js", "cpp"):
        return f"cannot run a block of language {block.lang!r}"
    rest = words[1:]
    while rest:
        word = rest.pop(0)
        if word in ("in", "as") and rest:
            block.options[word] = rest.pop(0)
        elif word == "net":
            block.options["net"] = True
        elif re.fullmatch(r"exit=\d+(,\d+)*", word):
            block.options["exit"] = [int(c) for c in word[5:].split(",")]
        else:
            return f"unknown run option {word!r}"
    return None


def collect(source, only):
    blocks, errors = [], []
    for path in markdown_files(source):
        if only and path not in only:
            continue
        for block in parse_blocks(source, path):
            error = read_marker(block)
            if error:
                errors.append(f"{block}: {error}")
            blocks.append(block)
    return blocks, errors


# ---------------------------------------------------------------------------
# Inside a block's namespaces (this script run again with --inside JOB).

def loopback_up():
    """ip link set lo up, without iproute2: SIOCGIFFLAGS, then SIOCSIFFLAGS
    with IFF_UP."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, 0x8913, req))[1]
        fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", b"lo", flags | 0x1))


def start_server(binary, scratch):
    """collision_server on ADDRESS; returns the process once its port file
    exists and the health service says SERVING (bounded, 20 s)."""
    import grpc  # Debian's python3-grpcio, only needed here
    port_file = os.path.join(scratch, "server.port")
    log = open(os.path.join(scratch, "server.log"), "w")
    proc = subprocess.Popen([binary, f"--address={ADDRESS}",
                             f"--port_file={port_file}", "--drain_grace=0s"],
                            stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 20
    while not os.path.exists(port_file):
        try:
            proc.wait(timeout=0.05)
            raise RuntimeError(f"collision_server exited {proc.returncode}")
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                raise RuntimeError("collision_server wrote no port file in 20 s")
    with grpc.insecure_channel(ADDRESS) as channel:
        check = channel.unary_unary("/grpc.health.v1.Health/Check",
                                    request_serializer=lambda b: b,
                                    response_deserializer=lambda b: b)
        reply = check(b"", timeout=max(1, deadline - time.monotonic()),
                      wait_for_ready=True)
    if reply != b"\x08\x01":  # HealthCheckResponse{status: SERVING}
        raise RuntimeError(f"collision_server health answered {reply!r}")
    return proc


def mount_machine(binds, keep):
    """Mounts each (folder, target) of `binds` over its target (/tmp, /opt).
    A path of `keep` below a target (a build tree in /tmp) stays visible:
    it is bound first onto the same place inside the folder, and the folder
    is then bound recursively, with it."""
    for folder, target in binds:
        for path in keep:
            if (path + "/").startswith(target + "/"):
                inner = os.path.join(folder, os.path.relpath(path, target))
                os.makedirs(inner, exist_ok=True)
                subprocess.run(["mount", "--bind", path, inner], check=True)
        subprocess.run(["mount", "--rbind", folder, target], check=True)


def inside(job_file):
    with open(job_file) as f:
        job = json.load(f)
    mount_machine(job["binds"], job["keep"])
    server = None
    if job["server"]:
        loopback_up()
        server = start_server(job["server"], job["scratch"])
        print(f"[collision_server on {ADDRESS}]", flush=True)
    try:
        code = subprocess.run(job["argv"], cwd=job["cwd"], env=job["env"],
                              timeout=job["timeout"]).returncode
    except subprocess.TimeoutExpired:
        print(f"[timed out after {job['timeout']} s]", flush=True)
        code = 124
    if server is not None:
        server.send_signal(signal.SIGTERM)
        try:
            server_code = server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server_code = "none in 20 s"
        if server_code != 0:
            print(f"[collision_server exited {server_code}; its log:]")
            with open(os.path.join(job["scratch"], "server.log")) as f:
                print(f.read(), flush=True)
            code = code or 1
    return code


# ---------------------------------------------------------------------------
# The user's machine, and running one block on it.

class Machine:
    def __init__(self, args):
        self.args = args
        self.work = os.path.abspath(args.work)
        self.home = os.path.join(self.work, "home")
        self.tmp = os.path.join(self.work, "tmp")
        self.opt = os.path.join(self.work, "opt")
        self.scratch = os.path.join(self.work, "scratch")
        self.clone = os.path.join(self.home, "collision")
        self.venv = os.path.join(self.home, "venv")
        self.app = os.path.join(self.home, "my-app")
        self.build = os.path.abspath(args.build)
        # What the blocks must still see where it is, should it lie in /tmp:
        # the checkout too (cmake --install reads its headers), as a fresh
        # clone may well be in /tmp.
        self.keep = sorted({os.path.realpath(p) for p in (
            self.work, self.build, os.path.dirname(os.path.abspath(args.server)),
            os.path.dirname(os.path.abspath(args.protoc)),
            os.path.dirname(os.path.abspath(args.grpc_python_plugin)), HERE,
            os.path.dirname(os.path.dirname(HERE)))})
        self.unshare = ["unshare", "--fork", "--pid", "--mount-proc",
                        "--mount", "--kill-child"]
        if os.geteuid() != 0:
            self.unshare += ["--user", "--map-root-user"]

    def env(self):
        env = {"HOME": self.home, "LANG": "C.UTF-8", "TERM": "dumb", "VIRTUAL_ENV": self.venv,
               "PATH": f"{self.venv}/bin:/usr/local/sbin:/usr/local/bin:"
                       "/usr/sbin:/usr/bin:/sbin:/bin"}
        # How this machine reaches the npm registry, if it was told.
        for key, value in os.environ.items():
            if key.lower().startswith("npm_config_") or key.lower() in (
                    "http_proxy", "https_proxy", "no_proxy"):
                env[key] = value
        return env

    def expand(self, path, base):
        if path == "~" or path.startswith("~/"):
            return self.home + path[1:]
        return os.path.join(base, path)

    def run(self, argv, cwd, name, server=True, net=False, env=None):
        """Runs argv in the namespaces; returns (exit code, output)."""
        os.makedirs(self.scratch, exist_ok=True)
        job = {"binds": [[self.tmp, "/tmp"], [self.opt, "/opt"]],
               "keep": self.keep,
               "server": self.args.server if server and not net else None,
               "scratch": self.scratch, "argv": argv, "cwd": cwd,
               "env": env or self.env(), "timeout": self.args.timeout}
        job_file = os.path.join(self.scratch, f"{name}.json")
        with open(job_file, "w") as f:
            json.dump(job, f)
        ns = self.unshare + ([] if net else ["--net"])
        proc = subprocess.Popen(
            ns + ["--", PYTHON, os.path.abspath(__file__),
                  "--inside", job_file], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            out, _ = proc.communicate(timeout=self.args.timeout + 60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return 124, out + "\n[killed: the namespace did not end]"
        return proc.returncode, out

    def setup(self):
        probe = subprocess.run(self.unshare + ["--net", "true"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            sys.exit("the blocks run in Linux namespaces (unshare as root, or "
                     "unprivileged user namespaces), which this machine "
                     f"refused: {probe.stderr.strip()}")
        shutil.rmtree(self.work, ignore_errors=True)
        for d in (self.home, self.tmp, self.opt, self.scratch):
            os.makedirs(d)
        self.make_clone()
        steps = [
            ("cmake --install (the C++ client)",
             ["cmake", "--install", self.build, "--component", "client",
              "--prefix", "/opt/collision"], self.home, False),
            ("build_wheel.py --venv (the Python wheel, a venv)",
             ["/usr/bin/python3", "clients/python/build_wheel.py",
              os.path.join(self.work, "wheel"), "--venv", self.venv,
              "--protoc", self.args.protoc, "--grpc-python-plugin",
              self.args.grpc_python_plugin], self.clone, False),
            ("npm pack (the Node tarball)",
             ["npm", "pack", "--pack-destination", self.work],
             os.path.join(self.clone, "clients", "node"), False),
        ]
        for title, argv, cwd, net in steps:
            self.setup_step(title, argv, cwd, net)
        self.make_app()
        self.setup_step("npm install (the tarball, into ~/my-app)",
                        ["npm", "install", "--no-audit", "--no-fund",
                         os.path.join(self.work, "collision-client-"
                                      f"{self.node_version()}.tgz")],
                        self.app, True)
        unlocked = self.unlocked_versions()
        if unlocked:
            sys.exit(f"setup: {unlocked}")
        status = self.clone_status()
        if status:
            sys.exit(f"the setup left the clone changed:\n{status}")

    def setup_step(self, title, argv, cwd, net):
        started = time.monotonic()
        code, out = self.run(argv, cwd, "setup", server=False, net=net)
        if code != 0:
            sys.exit(f"setup: {title} failed ({code}):\n{out}")
        print(f"setup: {title} ({time.monotonic() - started:.1f} s)",
              flush=True)

    def make_clone(self):
        """The repository's files, as a fresh clone has them (plus files not
        committed yet, so that a change is tested before its commit), in a
        git repository of its own, and build/release."""
        src = self.args.source
        files = subprocess.run(
            ["git", "-c", "safe.directory=*", "-C", src, "ls-files", "-z", "--cached", "--others",
             "--exclude-standard"], check=True, capture_output=True,
            text=True).stdout.split("\0")
        for rel in filter(None, files):
            path = os.path.join(src, rel)
            if os.path.isfile(path) or os.path.islink(path):
                os.makedirs(os.path.dirname(os.path.join(self.clone, rel)),
                            exist_ok=True)
                shutil.copy2(path, os.path.join(self.clone, rel),
                             follow_symlinks=False)
        git = ["git", "-C", self.clone, "-c", "user.name=docs",
               "-c", "user.email=docs@localhost", "-c", "commit.gpgsign=false"]
        for cmd in (["init", "-q"], ["add", "-A"],
                    ["commit", "-q", "-m", "the docs' clone"]):
            subprocess.run(git + cmd, check=True)
        os.makedirs(os.path.join(self.clone, "build"))
        os.symlink(self.build, os.path.join(self.clone, "build", "release"))

    def restore_clone(self):
        """The clone as committed again (ignored files stay: build/)."""
        git = ["git", "-C", self.clone]
        subprocess.run(git + ["checkout", "-q", "--", "."], check=True)
        subprocess.run(git + ["clean", "-q", "-f", "-d"], check=True)

    def clone_status(self):
        """What `git status` lists in the clone (ignored files not)."""
        return subprocess.run(
            ["git", "-C", self.clone, "status", "--porcelain",
             "--untracked-files=all"], check=True, capture_output=True,
            text=True).stdout

    def node_version(self):
        with open(os.path.join(self.clone, "clients/node/package.json")) as f:
            return json.load(f)["version"]

    def locked_packages(self):
        with open(os.path.join(self.clone,
                               "clients/node/package-lock.json")) as f:
            lock = json.load(f)["packages"]
        return {k: v for k, v in lock.items() if k.startswith("node_modules/")}

    def make_app(self):
        """~/my-app: a Node project whose lock file pins the packages of
        clients/node/package-lock.json."""
        os.makedirs(self.app)
        with open(os.path.join(self.app, "package.json"), "w") as f:
            json.dump({"name": "my-app", "version": "1.0.0", "private": True},
                      f, indent=2)
        packages = {"": {"name": "my-app", "version": "1.0.0"}}
        packages.update(self.locked_packages())
        with open(os.path.join(self.app, "package-lock.json"), "w") as f:
            json.dump({"name": "my-app", "version": "1.0.0",
                       "lockfileVersion": 3, "requires": True,
                       "packages": packages}, f, indent=2)

    def unlocked_versions(self):
        """What npm installed in ~/my-app at other versions than the lock
        file's (or "" when all are as locked, collision-client among them)."""
        with open(os.path.join(self.app, "package-lock.json")) as f:
            installed = json.load(f)["packages"]
        differ = [f"{k}: {installed[k].get('version')} (lock: "
                  f"{v.get('version')})"
                  for k, v in self.locked_packages().items()
                  if k in installed and installed[k].get("version") !=
                  v.get("version")]
        if "node_modules/collision-client" not in installed:
            differ.append("collision-client is not installed")
        return ("npm did not keep ~/my-app's locked versions:\n  " +
                "\n  ".join(differ)) if differ else ""

    # One block -------------------------------------------------------------

    def run_block(self, block, index):
        lang = LANGS.get(block.lang)
        name = f"{index:03d}"
        if block.kind == "file":
            path = self.expand(block.options["as"], self.clone)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(wrap_cpp(block.body) if lang == "cpp" else block.body)
            return 0, f"[wrote {path}]"
        cwd = self.expand(block.options.get("in", "."), self.clone)
        scratch = os.path.join(self.tmp, "snippets")
        os.makedirs(scratch, exist_ok=True)
        default = {"sh": f"{scratch}/{name}.sh",
                   "python": f"{scratch}/{name}.py",
                   "js": os.path.join(cwd, f"snippet-{name}." + (
                       "mjs" if re.search(r"^\s*import\s", block.body, re.M)
                       else "js")),
                   "cpp": f"{scratch}/{name}.cc"}[lang]
        path = self.expand(block.options["as"], cwd) \
            if "as" in block.options else default
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(wrap_cpp(block.body) if lang == "cpp" else block.body)
        # Paths as the block's processes see them (/tmp is the machine's).
        seen = path.replace(self.tmp, "/tmp", 1) \
            if path.startswith(self.tmp + "/") else path
        argv = {
            "sh": ["bash", "-eo", "pipefail", seen],
            "python": ["python3", seen],
            "js": ["node", seen],
            "cpp": ["bash", "-eo", "pipefail", "-c",
                    'PKG_CONFIG_PATH=/opt/collision/lib/pkgconfig '
                    'pkg-config --cflags --libs collision-client > "$2.flags"'
                    ' && c++ -std=c++17 -o "$2" "$1" $(cat "$2.flags")'
                    ' && "$2"', "cpp", seen, f"/tmp/snippets/{name}"],
        }[lang]
        return self.run(argv, cwd, name,
                        net=block.options.get("net", False))


def wrap_cpp(body):
    """A C++ block without main(): its # lines at file scope (the client's
    header when there is none), the rest as main()'s body."""
    if re.search(r"\bmain\s*\(", body):
        return body
    lines = body.rstrip("\n").split("\n")
    head = [l for l in lines if l.startswith("#")] or [
        '#include "collision/client/client.h"']
    rest = [l for l in lines if not l.startswith("#")]
    return ("\n".join(head) + "\n\nint main() {\n" +
            "\n".join("  " + l if l else l for l in rest) + "\n}\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", default=ROOT, help="the repository")
    p.add_argument("--check", action="store_true",
                   help="only check that every block is marked")
    p.add_argument("--build", help="the build tree the packages come from")
    p.add_argument("--server", help="its collision_server "
                   "(default: BUILD/server/collision_server)")
    p.add_argument("--work", help="the user's machine's folder "
                   "(default: BUILD/tests/docs/machine)")
    p.add_argument("--protoc", default=shutil.which("protoc") or
                   "/usr/bin/protoc")
    p.add_argument("--grpc-python-plugin",
                   default=shutil.which("grpc_python_plugin") or
                   "/usr/bin/grpc_python_plugin")
    p.add_argument("--only", action="append",
                   help="run only this Markdown file's blocks (repeatable)")
    p.add_argument("--timeout", type=float, default=240,
                   help="seconds for one block")
    p.add_argument("--inside", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.inside:
        return inside(args.inside)
    args.source = os.path.abspath(args.source)

    blocks, errors = collect(args.source, args.only)
    if errors:
        print("blocks without a valid marker (tests/docs/snippets_test.py's "
              "header says how to mark them):\n  " + "\n  ".join(errors))
        return 1
    runs = [b for b in blocks if b.kind in ("run", "file")]
    print(f"{len(blocks)} fenced blocks: {len(runs)} run, "
          f"{len(blocks) - len(runs)} skipped with a reason", flush=True)
    if args.check:
        return 0
    if not args.build:
        p.error("--build is needed to run the blocks")
    args.server = args.server or os.path.join(args.build, "server",
                                              "collision_server")
    args.work = args.work or os.path.join(args.build, "tests", "docs",
                                          "machine")
    machine = Machine(args)
    machine.setup()
    failed = []
    for index, block in enumerate(blocks):
        if block.kind == "skip":
            print(f"skip {block}: {block.reason}", flush=True)
            continue
        started = time.monotonic()
        code, out = machine.run_block(block, index)
        status = machine.clone_status()
        if block.options.get("net"):  # it may have run npm install
            status += machine.unlocked_versions()
        took = time.monotonic() - started
        allowed = block.options.get("exit", [0])
        if code in allowed and not status:
            note = f", exit {code}" if code else ""
            done = "file" if block.kind == "file" else "ok  "
            print(f"{done} {block} ({took:.1f} s{note})", flush=True)
            continue
        why = (f"exit {code}" if code not in allowed
               else "left the clone changed, or ~/my-app:\n" + status)
        print(f"FAIL {block} ({took:.1f} s): {why}\n--- the block:\n"
              f"{block.body}--- its output:\n{out}---", flush=True)
        failed.append(str(block))
        machine.restore_clone()
    if failed:
        print("failed:\n  " + "\n  ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
