#!/usr/bin/env bash
# guard-sh side by side with dash and bash, in one run:
#   1. `SHELL -c 'tea --version'` (start-up: guard-sh loads the policy,
#      opens the audit log and confines the child with Landlock); and the
#      same with `; :` appended, which makes dash and bash fork as guard-sh
#      always must (dash and bash exec the last command of `-c` in place;
#      guard-sh stays to write the command's exit record to the audit log),
#      so the comparison is also shown like for like; and (1s) the same
#      line served, as under guard-sh-launch: the trial's `guard-sh --serve`
#      runs it for guard-sh-client, the program the arm's bash/guard-sh is,
#      back to back and (1a) with 10 ms between runs;
#      (1b) beside them, dash and bash started in a bubblewrap sandbox per
#      command, as Claude Code's and Codex's own sandboxes start each
#      command (read-only root, the work folder writable, new namespaces);
#   2. an agent-style script of 20+ commands (bench/agent.sh);
#   3. `cat BIG | wc -c` over a sparse file of BIG_MB MiB (default 1024);
#   4. peak RSS of each shell (/usr/bin/time -f %M) on 1 and 2.
# Times are hyperfine medians of RUNS runs (default 10). Prints a table,
# the ratios guard-sh/dash and guard-sh/bash, and whether each target holds:
# (1) <= 1.5x dash now and 1.0x at the plan's end, (3) >= 0.98x bash
# throughput, RSS <= bash.
#
# Usage (from a checkout): bash bench/compare.sh
# Needs: cargo, cc, hyperfine, GNU time, jq, dash, bash, bwrap. As root it installs
# the Debian packages that are missing; otherwise it names them.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-3}
BIG_MB=${BIG_MB:-1024}

need_packages() {
    local missing=()
    command -v hyperfine >/dev/null || missing+=(hyperfine)
    [ -x /usr/bin/time ] || missing+=(time)
    command -v jq >/dev/null || missing+=(jq)
    command -v dash >/dev/null || missing+=(dash)
    command -v cc >/dev/null || missing+=(gcc libc6-dev)
    command -v bwrap >/dev/null || missing+=(bubblewrap)
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        echo "installing: ${missing[*]}" >&2
        apt-get update -qq >/dev/null && apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "missing: ${missing[*]}; install them (e.g. sudo apt-get install ${missing[*]}) and run again" >&2
        exit 2
    fi
}
need_packages

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
build_release guard-sh guard-sh-client arm-build
GUARD_SH=$REL/guard-sh
CLIENT=$REL/guard-sh-client

TMP=$(mktemp -d "${TMPDIR:-/tmp}/guard-sh-bench.XXXXXX")
SERVER_PID=
trap '[ -z "$SERVER_PID" ] || kill "$SERVER_PID"; rm -rf "$TMP"' EXIT

# The arm's tool is a small compiled stub.
tea_arm "$TMP/stubs" "$TMP/arm"
BIN=$TMP/arm/bin
AUDIT=$TMP/audit.jsonl
GS="$GUARD_SH --policy $TMP/arm/policy.json --audit $AUDIT"
cp "$ROOT/bench/agent.sh" "$TMP/agent.sh"

DASH=$(command -v dash)
BASH_BIN=$(command -v bash)
HYPERFINE=$(command -v hyperfine)
TIME=/usr/bin/time
# Every shell finds programs only in the arm's bin folder.
in_arm() { PATH=$BIN "$@"; }

# Same output from all three, or the comparison means nothing.
for sh in "$GS" "$DASH" "$BASH_BIN"; do
    in_arm $sh "$TMP/agent.sh" >"$TMP/out.$(basename "${sh%% *}")" 2>&1
done
if ! cmp -s "$TMP/out.guard-sh" "$TMP/out.bash" || ! cmp -s "$TMP/out.dash" "$TMP/out.bash"; then
    echo "the agent script's output differs between the shells:" >&2
    diff "$TMP/out.guard-sh" "$TMP/out.bash" >&2 || true
    exit 1
fi
enforcement=$(jq -r 'select(.event == "session" or .type == "session") | .enforcement // empty' "$AUDIT" 2>/dev/null | head -1)
[ -n "$enforcement" ] || enforcement=$(grep -o '"enforcement":"[^"]*"' "$AUDIT" | head -1 | cut -d'"' -f4)

# hyperfine -N runs each command without a shell in between.
hf() { # NAME CMD_GUARD CMD_DASH CMD_BASH
    local name=$1
    shift
    in_arm "$HYPERFINE" -N --style none --warmup "$WARMUP" --runs "$RUNS" \
        --export-json "$TMP/$name.json" "$@" >/dev/null
}
median() { jq -r ".results[$2].median" "$TMP/$1.json"; }

echo "timing (1) start-up, $RUNS runs each..." >&2
hf startup "$GS -c 'tea --version'" "$DASH -c 'tea --version'" "$BASH_BIN -c 'tea --version'"
# (1s) as under guard-sh-launch: the trial's line server and its client,
# which the arm's bash/guard-sh is.
in_arm $GUARD_SH --serve --policy "$TMP/arm/policy.json" --audit "$AUDIT" >"$TMP/server" &
SERVER_PID=$!
for _ in $(seq 100); do [ -s "$TMP/server" ] && break; sleep 0.05; done
GSC="$CLIENT --policy $TMP/arm/policy.json --audit $AUDIT"
GUARD_SH_SERVER=$(cat "$TMP/server") hf startup_served "$GSC -c 'tea --version'" "$DASH -c 'tea --version'" "$BASH_BIN -c 'tea --version'"
# (1a) the same with 10 ms between runs, as an agent's lines come (seconds
# apart): the server's fork of the next worker and the last one's exit are
# then done before the next line, not beside it.
GUARD_SH_SERVER=$(cat "$TMP/server") hf startup_apart --prepare "/bin/sleep 0.01" \
    "$GSC -c 'tea --version'" "$DASH -c 'tea --version'" "$BASH_BIN -c 'tea --version'"
served=$(grep -c '"client":' "$AUDIT" || true)
[ "$served" -ge "$((2 * RUNS))" ] || {
    echo "the client's lines were not served ($served sessions name a client)" >&2
    exit 1
}
# (1b) each command in a bubblewrap sandbox of its own.
BWRAP="$(command -v bwrap) --ro-bind / / --bind $TMP/arm/work $TMP/arm/work --dev /dev --proc /proc --unshare-all --new-session --die-with-parent"
bwrap_ok=0
if in_arm $BWRAP "$DASH" -c 'tea --version' >/dev/null 2>"$TMP/bwrap.err"; then
    bwrap_ok=1
    hf startup_bwrap "$GS -c 'tea --version'" "$BWRAP $DASH -c 'tea --version'" "$BWRAP $BASH_BIN -c 'tea --version'"
else
    echo "bwrap cannot make its sandbox here: $(head -1 "$TMP/bwrap.err"); row (1b) not measured" >&2
fi
hf startup_fork "$GS -c 'tea --version; :'" "$DASH -c 'tea --version; :'" "$BASH_BIN -c 'tea --version; :'"
echo "timing (2) agent script..." >&2
hf script "$GS $TMP/agent.sh" "$DASH $TMP/agent.sh" "$BASH_BIN $TMP/agent.sh"

echo "timing (3) cat | wc -c over $BIG_MB MiB..." >&2
# In the arm's work folder: commands read nothing else beside the arm.
BIG=$TMP/arm/work/big
truncate -s "${BIG_MB}M" "$BIG" # sparse: no disk space, reads at memory speed
got=$(in_arm $GS -c "cat $BIG | wc -c")
[ "$got" -eq $((BIG_MB * 1048576)) ] || {
    echo "guard-sh counted $got bytes" >&2
    exit 1
}
hf pipe "$GS -c 'cat $BIG | wc -c'" "$DASH -c 'cat $BIG | wc -c'" "$BASH_BIN -c 'cat $BIG | wc -c'"
rm -f "$BIG"

echo "measuring (4) peak RSS, $RUNS runs each..." >&2
rss() { # median KiB of `time -f %M` over RUNS runs of the command
    local i
    for ((i = 0; i < RUNS; i++)); do
        in_arm "$TIME" -f %M -o "$TMP/rss" "$@" >/dev/null 2>&1
        cat "$TMP/rss"
    done | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
declare -A RSS1 RSS2
i=0
for sh in guard-sh dash bash; do
    case $sh in
    guard-sh) cmd=($GS) ;;
    dash) cmd=("$DASH") ;;
    bash) cmd=("$BASH_BIN") ;;
    esac
    RSS1[$sh]=$(rss "${cmd[@]}" -c 'tea --version')
    RSS2[$sh]=$(rss "${cmd[@]}" "$TMP/agent.sh")
done

ms() { awk -v s="$1" 'BEGIN {printf "%.2f", s * 1000}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
mbps() { awk -v s="$1" -v m="$BIG_MB" 'BEGIN {printf "%.0f", m / s}'; }
verdict() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN {ok = (op == "<=") ? v <= t : v >= t; print ok ? "met" : "MISSED"}'; }

s_g=$(median startup 0) s_d=$(median startup 1) s_b=$(median startup 2)
v_g=$(median startup_served 0) v_d=$(median startup_served 1) v_b=$(median startup_served 2)
w_g=$(median startup_apart 0) w_d=$(median startup_apart 1) w_b=$(median startup_apart 2)
f_g=$(median startup_fork 0) f_d=$(median startup_fork 1) f_b=$(median startup_fork 2)
a_g=$(median script 0) a_d=$(median script 1) a_b=$(median script 2)
p_g=$(median pipe 0) p_d=$(median pipe 1) p_b=$(median pipe 2)

echo
echo "guard-sh $("$GUARD_SH" --version | cut -d' ' -f2), $(nproc) cores, Landlock: ${enforcement:-unknown}; medians of $RUNS runs"
printf '%-34s %11s %11s %11s %10s %10s\n' "" guard-sh dash bash "g-sh/dash" "g-sh/bash"
printf '%-34s %11s %11s %11s %10s %10s\n' "(1) -c 'tea --version'  ms" \
    "$(ms "$s_g")" "$(ms "$s_d")" "$(ms "$s_b")" "$(ratio "$s_g" "$s_d")" "$(ratio "$s_g" "$s_b")"
printf '%-34s %11s %11s %11s %10s %10s\n' "(1s) the same, served  ms" \
    "$(ms "$v_g")" "$(ms "$v_d")" "$(ms "$v_b")" "$(ratio "$v_g" "$v_d")" "$(ratio "$v_g" "$v_b")"
printf '%-34s %11s %11s %11s %10s %10s\n' "(1a) served, 10 ms apart  ms" \
    "$(ms "$w_g")" "$(ms "$w_d")" "$(ms "$w_b")" "$(ratio "$w_g" "$w_d")" "$(ratio "$w_g" "$w_b")"
if [ "$bwrap_ok" = 1 ]; then
    x_g=$(median startup_bwrap 0) x_d=$(median startup_bwrap 1) x_b=$(median startup_bwrap 2)
    printf '%-34s %11s %11s %11s %10s %10s\n' "(1b) (1) beside bwrap -- sh -c  ms" \
        "$(ms "$x_g")" "$(ms "$x_d")" "$(ms "$x_b")" "$(ratio "$x_g" "$x_d")" "$(ratio "$x_g" "$x_b")"
fi
printf '%-34s %11s %11s %11s %10s %10s\n' "(1') -c 'tea --version; :'  ms" \
    "$(ms "$f_g")" "$(ms "$f_d")" "$(ms "$f_b")" "$(ratio "$f_g" "$f_d")" "$(ratio "$f_g" "$f_b")"
printf '%-34s %11s %11s %11s %10s %10s\n' "(2) agent script (20+ cmds) ms" \
    "$(ms "$a_g")" "$(ms "$a_d")" "$(ms "$a_b")" "$(ratio "$a_g" "$a_d")" "$(ratio "$a_g" "$a_b")"
printf '%-34s %11s %11s %11s %10s %10s\n' "(3) cat ${BIG_MB}MiB | wc -c  MiB/s" \
    "$(mbps "$p_g")" "$(mbps "$p_d")" "$(mbps "$p_b")" "$(ratio "$p_d" "$p_g")" "$(ratio "$p_b" "$p_g")"
printf '%-34s %11s %11s %11s %10s %10s\n' "(4) peak RSS, (1)  KiB" \
    "${RSS1[guard-sh]}" "${RSS1[dash]}" "${RSS1[bash]}" \
    "$(ratio "${RSS1[guard-sh]}" "${RSS1[dash]}")" "$(ratio "${RSS1[guard-sh]}" "${RSS1[bash]}")"
printf '%-34s %11s %11s %11s %10s %10s\n' "(4) peak RSS, (2)  KiB" \
    "${RSS2[guard-sh]}" "${RSS2[dash]}" "${RSS2[bash]}" \
    "$(ratio "${RSS2[guard-sh]}" "${RSS2[dash]}")" "$(ratio "${RSS2[guard-sh]}" "${RSS2[bash]}")"
echo
echo "targets:"
echo "  (1) start-up <= 1.50x dash, now:   $(ratio "$v_g" "$v_d")x  $(verdict "$(ratio "$v_g" "$v_d")" "<=" 1.5)  (1s: served, as under guard-sh-launch)"
echo "      lines 10 ms apart, (1a):       $(ratio "$w_g" "$w_d")x  $(verdict "$(ratio "$w_g" "$w_d")" "<=" 1.5)"
echo "      without the server, (1):       $(ratio "$s_g" "$s_d")x  $(verdict "$(ratio "$s_g" "$s_d")" "<=" 1.5)"
echo "      <= 1.00x dash, the plan's end: $(ratio "$v_g" "$v_d")x  $(verdict "$(ratio "$v_g" "$v_d")" "<=" 1.0)"
echo "      like for like, (1'), all fork:  $(ratio "$f_g" "$f_d")x  $(verdict "$(ratio "$f_g" "$f_d")" "<=" 1.0)"
echo "  (3) throughput >= 0.98x bash:      $(ratio "$p_b" "$p_g")x  $(verdict "$(ratio "$p_b" "$p_g")" ">=" 0.98)"
echo "  (4) peak RSS <= bash, (1) and (2): $(ratio "${RSS1[guard-sh]}" "${RSS1[bash]}")x, $(ratio "${RSS2[guard-sh]}" "${RSS2[bash]}")x  $(verdict "$(awk -v a="${RSS1[guard-sh]}" -v b="${RSS1[bash]}" -v c="${RSS2[guard-sh]}" -v d="${RSS2[bash]}" 'BEGIN {print (a <= b && c <= d) ? 1 : 0}')" ">=" 1)"
