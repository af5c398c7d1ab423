#!/usr/bin/env bash
# Memory and time against input size, beside bash, in one run: scripts of
# 1k … 80k agent-style lines (100 bytes each: pipes and $((…))), and for
# each the peak RSS (GNU time %M) and wall time of
#   - `bash -n SCRIPT` and `guard-sh --explain < SCRIPT` (parse + guard);
#   - running a script of builtins only (no process per line, so the shell
#     itself is measured): `bash SCRIPT` and `guard-sh SCRIPT`.
# Prints a table and, per row, guard-sh's ratios to bash; then the same
# lines as one `{ … }` group, checked as one command. guard-sh reads a
# script one complete command at a time, as bash does; --explain does too,
# but keeps its output (one JSON entry per command reached) until the end.
#
# Usage (from a checkout): bash bench/memory.sh   [SIZES="1000 5000"]
# Needs: cargo, GNU time, python3, bash.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SIZES=${SIZES:-"1000 5000 10000 20000 40000 80000"}
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 2; }

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
build_release guard-sh
GUARD_SH=$REL/guard-sh

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/bin"
# A policy of the utilities the lines name (the shell never runs them here).
python3 - "$WORK" <<'PY'
import json, os, shutil, sys
work = sys.argv[1]
commands = {}
for name in ["cat", "grep", "head", "sort", "echo"]:
    path = shutil.which(name)
    os.symlink(path, f"{work}/bin/{name}")
    commands[name] = {"kind": "utility", "path": path}
policy = {"format": 1, "arm": "bench", "shell": True, "tool": None,
          "bin_dir": f"{work}/bin", "commands": commands,
          "env": {"pass": ["HOME", "LANG", "LC_*"], "set": {}, "deny": []},
          "sandbox": {"mode": "off", "writable": [], "protected": [f"{work}/bin"]},
          "audit": {}}
json.dump(policy, open(f"{work}/policy.json", "w"))
PY
export GUARD_SH_POLICY=$WORK/policy.json GUARD_SH_AUDIT=$WORK/audit.jsonl

measure() { # prints "SECONDS KB"
    /usr/bin/time -f "%e %M" -o "$WORK/t" "$@" >/dev/null 2>&1 || true
    cat "$WORK/t"
}

printf '%-7s | %-16s %-16s %-6s %-6s | %-16s %-16s %-6s %-6s\n' lines \
    "bash -n s / KB" "explain s / KB" "x time" "x mem" \
    "bash run s / KB" "guard run s / KB" "x time" "x mem"
for n in $SIZES; do
    python3 - "$n" "$WORK" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
with open(f"{work}/agent.sh", "w") as f:
    for i in range(n):
        line = f'cat notes_{i % 97}.txt | grep -v "^#" | head -n $(({i % 50}+10)) | sort -u > out_{i % 13}.txt && echo "ok {i}"'
        f.write(line.ljust(100) + "\n")
with open(f"{work}/builtins.sh", "w") as f:
    for i in range(n):
        line = f'x=$(( {i} % 7 + 1 )); [[ $x == 3 ]] && y="three {i}" || y=${{y:-none}}; : "${{y%% *}}"'
        f.write(line.ljust(100) + "\n")
PY
    read -r bt bm < <(measure bash -n "$WORK/agent.sh")
    read -r gt gm < <(measure "$GUARD_SH" --explain < "$WORK/agent.sh")
    read -r rbt rbm < <(measure bash "$WORK/builtins.sh")
    read -r rgt rgm < <(measure "$GUARD_SH" "$WORK/builtins.sh")
    ratio() { python3 -c "print(f'{max($1,0.001)/max($2,0.001):.1f}')"; }
    printf '%-7s | %-16s %-16s %-6s %-6s | %-16s %-16s %-6s %-6s\n' "$n" \
        "$bt / $bm" "$gt / $gm" "$(ratio "$gt" "$bt")" "$(ratio "$gm" "$bm")" \
        "$rbt / $rbm" "$rgt / $rgm" "$(ratio "$rgt" "$rbt")" "$(ratio "$rgm" "$rbm")"
done

# The same lines as one command (a `{ … }` group): the whole group is one
# tree, checked and logged at once, so memory grows with it, in bash too.
echo
printf '%-7s | %-16s %-16s %-6s %-6s\n' "group" "bash -n s / KB" "explain s / KB" "x time" "x mem"
for n in $SIZES; do
    python3 - "$n" "$WORK" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
with open(f"{work}/group.sh", "w") as f:
    f.write("{\n")
    for i in range(n):
        line = f'  cat notes_{i % 97}.txt | grep -v "^#" | head -n $(({i % 50}+10)) | sort -u > out_{i % 13}.txt && echo "ok {i}"'
        f.write(line.ljust(100) + "\n")
    f.write("}\n")
PY
    read -r bt bm < <(measure bash -n "$WORK/group.sh")
    read -r gt gm < <(measure "$GUARD_SH" --explain < "$WORK/group.sh")
    printf '%-7s | %-16s %-16s %-6s %-6s\n' "$n" "$bt / $bm" "$gt / $gm" \
        "$(python3 -c "print(f'{max($gt,0.001)/max($bt,0.001):.1f}')")" \
        "$(python3 -c "print(f'{max($gm,1)/max($bm,1):.1f}')")"
done
