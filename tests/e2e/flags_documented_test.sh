#!/usr/bin/env bash
# Every flag collision_server defines (its own section of --helpfull) has a
# row in docs/operations.md, so that the flag table cannot drift from the
# binary. Usage: flags_documented_test.sh SERVER_BINARY DOC
set -euo pipefail
server=$1
doc=$2
help=$("$server" --helpfull || true)  # absl's --helpfull exits 1
flags=$(echo "$help" | sed -n '/server\/main.cc/,/Flags from/p' |
  grep -oE '^ +--[a-z_0-9]+' | sed 's/^ *--//')
[ -n "$flags" ] || { echo "no flags found in --helpfull" >&2; exit 1; }
missing=0
for f in $flags; do
  if ! grep -qF -- "\`--$f\`" "$doc"; then
    echo "--$f is not documented in $doc" >&2
    missing=1
  fi
done
[ "$missing" -eq 0 ] && echo "$(echo "$flags" | wc -l) flags, all documented"
exit "$missing"
