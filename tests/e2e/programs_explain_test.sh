#!/usr/bin/env bash
# The programs explain themselves: --version names the program, the
# project's version, the build type and the SIMD target, and exits 0;
# --help lists the program's own flags (its main file's), with defaults,
# and not absl's or gRPC's; --helpfull names files from the repository's
# top, not the build machine's paths.
# Usage: programs_explain_test.sh SERVER_BINARY LOAD_BINARY VERSION
set -euo pipefail
server=$1
load=$2
version=$3
fail=0
check() {  # description, then the command that must succeed
  local what=$1
  shift
  if ! "$@"; then
    echo "FAILED: $what" >&2
    fail=1
  fi
}
for pair in "collision_server:$server:server/main.cc:--address" \
            "collision_load:$load:tools/main.cc:--target"; do
  IFS=: read -r name binary main flag <<< "$pair"
  out=$("$binary" --version)
  check "$name --version names it, $version and the SIMD target: $out" \
    grep -qE "^$name $version \(.* build, assertions (on|off), SIMD target [A-Z0-9_]+\)$" <<< "$out"
  help=$("$binary" --help 2>&1 || true)
  check "$name --help lists $main" grep -q "Flags from $main:" <<< "$help"
  check "$name --help lists $flag with its default" \
    grep -qE -- "^ +$flag \(" <<< "$help"
  check "$name --help shows no other file's flags" \
    test "$(grep -c "Flags from" <<< "$help")" -eq 1
  full=$("$binary" --helpfull 2>&1 || true)
  check "$name --helpfull has no absolute paths" \
    test "$(grep -c "Flags from /" <<< "$full")" -eq 0
done
[ "$fail" -eq 0 ] && echo "both programs explain themselves"
exit "$fail"
