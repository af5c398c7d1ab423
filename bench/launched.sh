#!/usr/bin/env bash
# The cost of one line as a harness under guard-sh-launch pays it, beside
# dash in the same run: a harness (here /bin/sh, named as the harness
# program) runs LINES times `bash/guard-sh -c 'tea --version'` (the arm's
# shell, guard-sh-client) and the milliseconds per line are printed for
#   launched:        the line server and the harness's exec supervisor
#                    (every client exec is one round trip to it);
#   no supervisor:   the same with GUARD_SH_SUPERVISOR=off;
#   no server:       --no-server (each line is a guard-sh of its own);
#   dash:            the same loop with dash as the arm's shell, unlaunched.
# Each is the median of ROUNDS rounds, interleaved. The arm lies in $HOME
# (not under /tmp), so the trial gets its private /tmp and cgroup as a
# real one does; run as root for both.
#
# Usage (from a checkout): bash bench/launched.sh   (LINES=300 ROUNDS=5)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LINES=${LINES:-300}
ROUNDS=${ROUNDS:-5}
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
build_release guard-sh guard-sh-client arm-build guard-sh-launch

WORK=$(mktemp -d "$HOME/guard-sh-launched.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
tea_arm "$WORK/stubs" "$WORK/arm"
ARM=$WORK/arm
SHELL_PATH=$ARM/bash/guard-sh
export GUARD_SH_POLICY=$ARM/policy.json GUARD_SH_AUDIT=$ARM/audit/audit.jsonl
GUARD_SH_POLICY_SHA256=$(jq -r .policySha256 "$ARM/arm.json")
export GUARD_SH_POLICY_SHA256

# Milliseconds per line of one round of `how`.
round() {
    local how=$1 shell=$SHELL_PATH start end
    [ "$how" = dash ] && shell=$(command -v dash)
    local loop="i=0; while [ \$i -lt $LINES ]; do PATH=$ARM/bin $shell -c 'tea --version' >/dev/null || exit 1; i=\$((i + 1)); done"
    start=$(date +%s%N)
    case $how in
    launched) "$REL/guard-sh-launch" --arm "$ARM" -- /bin/sh -c "$loop" 2>/dev/null ;;
    no-supervisor) GUARD_SH_SUPERVISOR=off "$REL/guard-sh-launch" --arm "$ARM" -- /bin/sh -c "$loop" 2>/dev/null ;;
    no-server) "$REL/guard-sh-launch" --arm "$ARM" --no-server -- /bin/sh -c "$loop" 2>/dev/null ;;
    dash) /bin/sh -c "$loop" ;;
    esac
    end=$(date +%s%N)
    echo "scale=3; ($end - $start) / 1000000 / $LINES" | bc
}

declare -A results
for _ in $(seq "$ROUNDS"); do
    for how in launched no-supervisor no-server dash; do
        results[$how]+="$(round "$how") "
    done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
dash_ms=$(echo "${results[dash]}" | median)
printf '%-16s %10s %8s\n' "" "ms/line" "x dash"
for how in launched no-supervisor no-server dash; do
    ms=$(echo "${results[$how]}" | median)
    printf '%-16s %10s %8s\n' "$how" "$ms" "$(echo "scale=2; $ms / $dash_ms" | bc)"
done
