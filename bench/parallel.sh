#!/usr/bin/env bash
# Many trials at once: TRIALS (default 8) trials side by side on this
# machine, each LINES (default 1,000) agent lines (bench/agent.sh's lines,
# one `SHELL -c LINE` each, as an agent's shell tool runs them), under
# guard-sh, dash and bash in one run. Each guard-sh trial has its own arm
# and audit log. Reports the wall time of the batch and the CPU per line
# (user + system of every process of the batch), medians of REPS batches
# (default 3), the ratio guard-sh/bash, and checks that every trial's log
# verifies CLEAN with exactly LINES line records (none lost, none
# interleaved into a broken chain).
#
# Usage (from a checkout): bash bench/parallel.sh
# Needs: cargo, cc, GNU time, jq, dash, bash (as root, missing Debian
# packages are installed).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TRIALS=${TRIALS:-8}
LINES=${LINES:-1000}
REPS=${REPS:-3}

missing=()
[ -x /usr/bin/time ] || missing+=(time)
command -v jq >/dev/null || missing+=(jq)
command -v dash >/dev/null || missing+=(dash)
command -v cc >/dev/null || missing+=(gcc libc6-dev)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "missing: ${missing[*]}; install them and run again" >&2
        exit 2
    fi
fi

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
build_release guard-sh guard-sh-audit arm-build
GUARD_SH=$REL/guard-sh
AUDIT_BIN=$REL/guard-sh-audit

TMP=$(mktemp -d "${TMPDIR:-/tmp}/guard-sh-parallel.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
for t in $(seq "$TRIALS"); do
    tea_arm "$TMP/stubs" "$TMP/arm$t"
done
BIN=$TMP/arm1/bin
DASH=$(command -v dash)
BASH_BIN=$(command -v bash)
XARGS=$(command -v xargs)

# The agent script as one-line commands (its `for … done` joined), then
# LINES of them, cycling.
awk '/^#/ {next}
    /^for / {loop = $0; next}
    loop != "" {sub(/^ +/, ""); loop = loop (loop ~ /do$/ ? " " : "; ") $0; if ($0 == "done") {print loop; loop = ""}; next}
    {print}' "$ROOT/bench/agent.sh" >"$TMP/one"
awk -v n="$LINES" '{l[NR] = $0} END {for (i = 0; i < n; i++) print l[i % NR + 1]}' "$TMP/one" >"$TMP/lines"
# Every line prints the same under bash and guard-sh, or the comparison
# means nothing (stderr differs in its prefix only).
while IFS= read -r line; do
    PATH=$BIN "$BASH_BIN" -c "$line" >>"$TMP/ref.bash" 2>/dev/null || true
    PATH=$BIN "$GUARD_SH" --policy "$TMP/arm1/policy.json" --audit "$TMP/check.jsonl" -c "$line" >>"$TMP/ref.guard" 2>/dev/null || true
done <"$TMP/one"
cmp -s "$TMP/ref.bash" "$TMP/ref.guard" || {
    echo "a line's output differs between bash and guard-sh:" >&2
    diff "$TMP/ref.bash" "$TMP/ref.guard" >&2 || true
    exit 1
}

# One batch: every trial's lines at once; prints "WALL USER SYS".
batch() { # SHELL-KIND
    local kind=$1
    rm -f "$TMP"/arm*/audit.jsonl
    cat >"$TMP/batch.sh" <<EOF
for t in \$(seq $TRIALS); do
    case $kind in
    guard-sh) set -- "$GUARD_SH" --policy "$TMP/arm\$t/policy.json" --audit "$TMP/arm\$t/audit.jsonl" -c ;;
    dash) set -- "$DASH" -c ;;
    bash) set -- "$BASH_BIN" -c ;;
    esac
    (cd "$TMP/arm\$t/work" && PATH=$BIN $XARGS -a "$TMP/lines" -d '\n' -n 1 "\$@" >/dev/null 2>&1) &
done
wait
EOF
    /usr/bin/time -f '%e %U %S' -o "$TMP/time" "$BASH_BIN" "$TMP/batch.sh"
    cat "$TMP/time"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

declare -A WALL CPU
for kind in guard-sh dash bash; do
    echo "running $REPS batches of $TRIALS x $LINES lines under $kind..." >&2
    : >"$TMP/walls"
    : >"$TMP/cpus"
    for _ in $(seq "$REPS"); do
        read -r wall user sys < <(batch "$kind")
        echo "$wall" >>"$TMP/walls"
        awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}' >>"$TMP/cpus"
        if [ "$kind" = guard-sh ]; then
            for t in $(seq "$TRIALS"); do
                log=$TMP/arm$t/audit.jsonl
                "$AUDIT_BIN" "$log" >"$TMP/verdict" 2>&1 || {
                    echo "trial $t's log does not verify:" >&2
                    head -5 "$TMP/verdict" >&2
                    exit 1
                }
                head -1 "$TMP/verdict" | grep -q '^CLEAN' || {
                    echo "trial $t's log is not CLEAN: $(head -1 "$TMP/verdict")" >&2
                    exit 1
                }
                n=$(jq -c 'select(.type == "line")' "$log" | wc -l)
                [ "$n" -eq "$LINES" ] || {
                    echo "trial $t's log has $n line records, not $LINES" >&2
                    exit 1
                }
            done
        fi
    done
    WALL[$kind]=$(median <"$TMP/walls")
    CPU[$kind]=$(median <"$TMP/cpus")
done

per_line() { awk -v c="$1" -v n="$((TRIALS * LINES))" 'BEGIN {printf "%.2f", c * 1000 / n}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo
echo "$TRIALS trials at once, $LINES lines each, $(nproc) cores; medians of $REPS batches"
printf '%-30s %10s %10s %10s %10s\n' "" guard-sh dash bash "g-sh/bash"
printf '%-30s %10s %10s %10s %10s\n' "wall time of the batch  s" \
    "${WALL[guard-sh]}" "${WALL[dash]}" "${WALL[bash]}" "$(ratio "${WALL[guard-sh]}" "${WALL[bash]}")"
printf '%-30s %10s %10s %10s %10s\n' "CPU per line  ms" \
    "$(per_line "${CPU[guard-sh]}")" "$(per_line "${CPU[dash]}")" "$(per_line "${CPU[bash]}")" \
    "$(ratio "${CPU[guard-sh]}" "${CPU[bash]}")"
echo "every trial's log: CLEAN, $LINES line records each ($REPS batches x $TRIALS trials checked)"
ok=$(awk -v a="${CPU[guard-sh]}" -v b="${CPU[bash]}" 'BEGIN {print (a <= 2 * b) ? "met" : "MISSED"}')
echo "target: CPU per line <= 2.00x bash: $(ratio "${CPU[guard-sh]}" "${CPU[bash]}")x  $ok"
