#!/usr/bin/env python3
"""Every flag collision_server defines has a row in docs/operations.md's flag
table, and every default the docs give is the binary's: the tables cannot
drift from the binary in names or in values.

Usage: flags_documented_test.py SERVER_BINARY DOC [DOC...]

The first DOC must list every flag; the others (any table of theirs with a
'flag' and a 'default' column) must agree with the binary where they repeat a
default.

The binary's defaults come from its --helpfull ("--name (help); default: V;").
A row names one or more flags in backticks and gives their defaults in the same
order, comma-separated, as a reader writes them: "64 MiB", "2 s", "5 min",
"100ms", "off", "0 = follows ...", "-1 = the open-file limit ...". What follows
" = ", " (" or ": " is explanation; the value is what precedes it.
"""
import re
import subprocess
import sys

UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
# absl's duration strings, and the way the docs write the same durations.
DURATION = re.compile(r"^(\d+(?:\.\d+)?) ?(ms|s|min|m|h)$")
SECONDS = {"ms": 0.001, "s": 1, "m": 60, "min": 60, "h": 3600}


def binary_defaults(server):
    # absl's --helpfull exits 1 after printing.
    out = subprocess.run([server, "--helpfull"], capture_output=True,
                         text=True).stdout
    own = re.search(r"Flags from server/main\.cc:(.*?)(?:\n  Flags from|\Z)",
                    out, re.S)
    if own is None:
        sys.exit("no 'Flags from server/main.cc' section in --helpfull")
    text = " ".join(own.group(1).split())
    found = {}
    for m in re.finditer(r"--([a-z_0-9]+) \((?:[^;]|;(?! default:))*"
                         r"; default: (\"[^\"]*\"|[^;]*);", text):
        found[m.group(1)] = m.group(2)
    return found


def normalize(value):
    """One spelling for a default, from the binary or from the docs."""
    v = value.strip().strip("`")
    if v.startswith('"') and v.endswith('"'):
        v = v[1:-1]
    if v in ("", "off", "false"):
        return "off"
    if v in ("on", "true"):
        return "on"
    m = DURATION.match(v)
    if m:
        return "%gs" % (float(m.group(1)) * SECONDS[m.group(2)])
    m = re.match(r"^(\d+) (KiB|MiB|GiB)$", v)
    if m:
        return str(int(m.group(1)) * UNITS[m.group(2)])
    if re.match(r"^-?[\d,]+$", v):
        return v.replace(",", "")
    return v


def doc_value(cell):
    """The value a cell gives, without what explains it."""
    v = cell.strip()
    for cut in (" = ", " (", ": "):
        if cut in v:
            v = v.split(cut)[0]
    return v.strip()


def doc_rows(path):
    """(flags, default cell) of each row of every table whose header has a
    'flag' and a 'default' column."""
    rows = []
    columns = None
    for line in open(path, encoding="utf-8"):
        if not line.startswith("|"):
            columns = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if columns is None:
            if "flag" in cells and "default" in cells:
                columns = (cells.index("flag"), cells.index("default"))
            else:
                columns = ()  # a table of something else
            continue
        if not columns or line.startswith("| ---"):
            continue
        flags = re.findall(r"`--([a-z_0-9]+)`", cells[columns[0]])
        if flags:
            rows.append((flags, cells[columns[1]]))
    return rows


def main():
    server, docs = sys.argv[1], sys.argv[2:]
    defaults = binary_defaults(server)
    if not defaults:
        sys.exit("no flags found in --helpfull")
    problems = []
    for i, doc in enumerate(docs):
        documented = {}
        for flags, cell in doc_rows(doc):
            values = [doc_value(v) for v in cell.split(", ")] if cell else [""]
            if len(values) == 1:
                values = values * len(flags)  # one default said once for all
            if len(values) != len(flags):
                problems.append("%s: row %s gives %d defaults for %d flags: %r"
                                % (doc, flags, len(values), len(flags), cell))
                continue
            documented.update(zip(flags, values))
        for name, value in sorted(defaults.items()):
            if name not in documented:
                if i == 0:  # the first doc is the complete table
                    problems.append("--%s is not documented in %s" %
                                    (name, doc))
            elif normalize(documented[name]) != normalize(value):
                problems.append("--%s: the binary's default is %s, %s says %r"
                                % (name, value, doc, documented[name]))
        for name in sorted(set(documented) - set(defaults)):
            problems.append("%s documents --%s, which the binary does not have"
                            % (doc, name))
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print("%d flags, all documented with the binary's defaults in %s" %
          (len(defaults), ", ".join(docs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
