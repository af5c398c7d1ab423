#!/usr/bin/env bash
# The cost of input that grows, beside bash and dash in one run (the tea
# arm, release build, the log and redaction on as in a trial):
#   here-doc, file:  `cat > out <<'EOF'` with an MB-long body, the script
#                    on standard input as a regular file (`SHELL < script`);
#   here-doc, pipe:  the same script through a pipe (what a persistent-
#                    session agent writes to the shell's stdin);
#   long line:       one `echo …` line of MB bytes, on standard input;
#   script file:     both as a script file named on the command line
#                    (`SHELL script`);
#   -c:              both as `SHELL -c TEXT`, at C_KB KiB: Linux refuses a
#                    single argument of 128 KiB or more (MAX_ARG_STRLEN),
#                    for every shell alike;
# each the median of ROUNDS runs, interleaved, with the peak RSS of the
# last (of the pipeline, under /usr/bin/time: the largest process in it).
# Prints milliseconds, KiB and the ratios guard-sh/bash.
#
# Usage (from a checkout): bash bench/input.sh   (MB=2 C_KB=120 ROUNDS=5)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MB=${MB:-2}
ROUNDS=${ROUNDS:-5}
C_KB=${C_KB:-120}
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
build_release guard-sh arm-build

WORK=$(mktemp -d "$HOME/guard-sh-input.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
tea_arm "$WORK/stubs" "$WORK/arm"
ARM=$WORK/arm
export GUARD_SH_POLICY=$ARM/policy.json GUARD_SH_AUDIT=$ARM/audit/audit.jsonl

python3 - "$MB" "$C_KB" "$ARM/work" "$WORK" <<'PY'
import sys
mb, c_kb, work, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
def write(name, size):
    body = ("x" * 63 + "\n") * (size // 64)
    with open(out + "/heredoc" + name, "w") as f:
        f.write("cd " + work + "; cat > out.txt <<'EOF'\n" + body + "EOF\nwc -c < out.txt\n")
    with open(out + "/line" + name, "w") as f:
        f.write("echo " + "y" * size + " | wc -c\n")
write(".sh", mb * 1024 * 1024)
write("-c.sh", c_kb * 1024 - 256)
PY

# One run of `shell` on `case`, its output dropped.
feed() {
    local shell=$1 case=$2
    case $case in
    heredoc-file) "$shell" <"$WORK/heredoc.sh" ;;
    heredoc-pipe) cat "$WORK/heredoc.sh" | "$shell" ;;
    long-line) "$shell" <"$WORK/line.sh" ;;
    heredoc-script) "$shell" "$WORK/heredoc.sh" ;;
    long-line-script) "$shell" "$WORK/line.sh" ;;
    heredoc-c) "$shell" -c "$(cat "$WORK/heredoc-c.sh")" ;;
    long-line-c) "$shell" -c "$(cat "$WORK/line-c.sh")" ;;
    esac >/dev/null 2>&1
}

# Seconds (to the millisecond) and peak KiB of one run.
run() {
    local start end kib
    start=$(date +%s%N)
    feed "$1" "$2"
    end=$(date +%s%N)
    kib=$( { /usr/bin/time -f '%M' bash -c "$(declare -f feed); WORK='$WORK' feed '$1' '$2'"; } 2>&1 | tail -1)
    echo "$(echo "scale=3; ($end - $start) / 1000000000" | bc) $kib"
}

SHELLS=("$REL/guard-sh" "$(command -v bash)" "$(command -v dash)")
CASES=(heredoc-file heredoc-pipe long-line heredoc-script long-line-script heredoc-c long-line-c)
declare -A secs kib
for _ in $(seq "$ROUNDS"); do
    for case in "${CASES[@]}"; do
        for shell in "${SHELLS[@]}"; do
            read -r s k <<<"$(run "$shell" "$case")"
            secs[$case,$shell]+="$s "
            kib[$case,$shell]=$k
        done
    done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
printf '%-24s %10s %10s %10s %9s %12s %12s %9s\n' "${MB} MiB, -c ${C_KB} KiB" "g-sh ms" "bash ms" "dash ms" "x bash" \
    "g-sh KiB" "bash KiB" "x bash"
for case in "${CASES[@]}"; do
    g=$(echo "${secs[$case,${SHELLS[0]}]}" | median)
    b=$(echo "${secs[$case,${SHELLS[1]}]}" | median)
    d=$(echo "${secs[$case,${SHELLS[2]}]}" | median)
    printf '%-24s %10.1f %10.1f %10.1f %9.1f %12s %12s %9.1f\n' "$case" \
        "$(echo "$g * 1000" | bc)" "$(echo "$b * 1000" | bc)" "$(echo "$d * 1000" | bc)" \
        "$(echo "scale=2; $g / $b" | bc)" \
        "${kib[$case,${SHELLS[0]}]}" "${kib[$case,${SHELLS[1]}]}" \
        "$(echo "scale=2; ${kib[$case,${SHELLS[0]}]} / ${kib[$case,${SHELLS[1]}]}" | bc)"
done
