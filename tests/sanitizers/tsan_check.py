#!/usr/bin/python3
"""Runs a test under ThreadSanitizer and judges its reports.

Usage (the tsan preset makes it every test's launcher):
    tsan_check.py COMMAND [ARGS...]

Why a judge and not only suppression rules: Debian's gRPC is not built with
TSan. Its synchronisation (atomics, futexes inside libgrpc) is invisible, but
part of gRPC is C++ header code (call op sets, callback tags, reactors) that
is compiled into our binaries and therefore instrumented. Every call then
shows "races" between two gRPC threads touching gRPC's own objects, ordered
only by gRPC's invisible synchronisation. TSan's own rules cannot single
those out: `race_top:` sees only the innermost frame, which is usually a
std::function or std::string member inlined into gRPC's code, and `race:`
matches any frame of any stack, including the gRPC callback frames that sit
under every one of our reactor callbacks, so it would hide our races too.

The rule applied here, to each report:
  - A data race is gRPC-internal, and tolerated, when one of its two
    accesses is made by gRPC's header code: the innermost frame of that
    access outside the C++ standard library, protobuf (its runtime and
    generated message code, which act for their caller) and the sanitizer
    runtime is in /usr/include/grpcpp or /usr/include/grpc, or is a grpc::
    function without line info, or lies in gRPC's own libraries.
  - A thread leak is tolerated when gRPC's own library created the thread
    (the first frame under pthread_create is in libgpr/libgrpc): gRPC's
    internal threads (executors, credential watchers) end inside gRPC,
    unjoined from our side; seen ~1 run in 12 of the TLS test.
  - Everything else fails the test: races whose both accesses are in our
    code (the reactor hand-offs gRPC performs are declared with
    server/tsan_handoff.h), threads we leak, and every other kind of report
    (mutex misuse, signal-unsafe calls, ...).
A planted race in our code (tsan.CatchesAPlantedRaceInOurCode) proves the
rule still reports what it must.
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

STD_FILE = re.compile(r"^(/usr/include/c\+\+/|.*/libsanitizer/)")
STD_FUNCTION = re.compile(
    r"^((void|bool|int|char) )?(std::|__gnu_cxx::|operator (new|delete)|"
    r"(__interceptor_)?(memset|memcpy|memmove|free|malloc)\b)")
# Protobuf code (the runtime, its headers, our generated messages) only runs
# on behalf of its caller: gRPC parsing a request is gRPC's access, our code
# filling a response is ours. Such frames pass the question on to the caller.
PROTOBUF_FILE = re.compile(r"^(/usr/include/google/protobuf/|.*\.pb\.(cc|h)$)")
PROTOBUF_FUNCTION = re.compile(r"^((void|bool|int|char) )?google::protobuf::")
LIBRARY_FRAME = re.compile(r"\(lib(protobuf|stdc\+\+)\.so")
GRPC_FILE = re.compile(r"^/usr/include/grpc(pp)?/")
GRPC_FUNCTION = re.compile(r"^((void|bool|int) )?grpc(_impl)?::")
# gRPC's own compiled code (it may call std:: instances that live in our
# binary, so an access can be ours by address but gRPC's by caller).
GRPC_MODULE = re.compile(r"\(lib(grpc\+\+|grpc|gpr)[a-z_+]*\.so")
ACCESS = re.compile(r"^  (Read|Write|Previous read|Previous write|Atomic "
                    r"read|Atomic write|Previous atomic read|Previous "
                    r"atomic write)\b")


def frames(block):
    """(function, file-or-None, raw text) of each frame of a stack block."""
    out = []
    for line in block.splitlines()[1:]:
        m = re.match(r"^\s+#\d+ (.*)$", line)
        if not m:
            break
        text = m.group(1)
        # "<function> <file>:<line>[:<col>] (<module>+0x..)" or
        # "<function> <null> (<module>+0x..)" or "<function> (<module>+0x..)"
        fm = re.match(r"^(?P<function>.*?) (?P<file>/\S+?|\.\./\S+?)"
                      r"(:\d+)+( \(.*\))?$", text)
        if fm:
            out.append((fm.group("function"), fm.group("file"), text))
        else:
            out.append((re.sub(r" (<null> )?\(.*\)$", "", text), None, text))
    return out


def made_by_grpc_headers(block):
    for function, file, text in frames(block):
        if file is not None and (STD_FILE.match(file) or
                                 PROTOBUF_FILE.match(file)):
            continue
        if file is None and GRPC_MODULE.search(text):
            return True
        if file is None and (STD_FUNCTION.match(function) or
                             PROTOBUF_FUNCTION.match(function) or
                             LIBRARY_FRAME.search(text)):
            continue
        if file is not None:
            return bool(GRPC_FILE.match(file))
        return bool(GRPC_FUNCTION.match(function))
    return False


def created_by_grpc(report):
    """A thread leak whose thread gRPC's own library created."""
    lines = report.splitlines()
    for i, line in enumerate(lines):
        if "pthread_create" in line and i + 1 < len(lines):
            return bool(GRPC_MODULE.search(lines[i + 1]))
    return False


def judge(report):
    """True when the report is gRPC-internal (see the module doc)."""
    first = report.splitlines()[0]
    if first.startswith("thread leak"):
        return created_by_grpc(report)
    if not first.startswith("data race"):
        return False
    body = report.split("\n", 1)[1] if "\n" in report else ""
    accesses = [b for b in body.split("\n\n") if ACCESS.match(b)]
    return any(made_by_grpc_headers(b) for b in accesses)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: tsan_check.py COMMAND [ARGS...]")
    logs = tempfile.mkdtemp(prefix="tsan-")
    env = dict(os.environ)
    env["TSAN_OPTIONS"] = " ".join(filter(None, [
        env.get("TSAN_OPTIONS", ""),
        "halt_on_error=0 exitcode=0 log_path=" + os.path.join(logs, "report"),
    ]))
    try:
        code = subprocess.call(sys.argv[1:], env=env)
        reports = []
        for path in sorted(glob.glob(os.path.join(logs, "report*"))):
            with open(path, errors="replace") as f:
                text = f.read()
            for part in text.split("WARNING: ThreadSanitizer: ")[1:]:
                reports.append(part.split("\n==================")[0])
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    ours = [r for r in reports if not judge(r)]
    tolerated = len(reports) - len(ours)
    for r in ours:
        sys.stdout.write("==================\nWARNING: ThreadSanitizer: "
                         + r + "\n==================\n")
    if reports:
        print(f"tsan_check: {tolerated} gRPC-internal report(s) tolerated, "
              f"{len(ours)} report(s) failing the test")
    sys.stdout.flush()
    if code != 0:
        sys.exit(code)
    sys.exit(1 if ours else 0)


if __name__ == "__main__":
    main()
