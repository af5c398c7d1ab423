#!/usr/bin/env bash
# Runs the command blocks of README.md and docs/*.md as a reader would: in
# one bash process, README first, each file's blocks in order, stopping at
# the first command that fails. The fence's info string says how a block
# is covered:
#   ```sh           run here
#   ```sh harness   run here, with the pinned Claude Code (from the
#                   tests/e2e/run.sh cache) on PATH and the fake model
#                   server of tests/e2e as the Anthropic API
#   ```sh ci        a command .ci/run itself runs: checked to appear in it
#   ```sh e2e       run by the end-to-end suite (the test named in the
#                   block's comment, checked to exist), not here; a path it
#                   names for a global npm install is checked against one
#   ```json output  (or `text output`) what the `sh` block just before it
#                   prints on stdout, checked to be exactly that; a line
#                   that starts with a space continues the one before it
#                   (a long line wrapped for the page)
# Any other fence (text, json, toml) is data, or output not checked
# (measurements).
#
# The README's install runs from a copy of the clone, which is deleted
# before the next block: the installed binaries must stand alone.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
cd "$repo"

work=$(mktemp -d "$HOME/guard-sh-docs.XXXXXX")
mock_pid=
cleanup() {
    if [ -n "$mock_pid" ]; then kill "$mock_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

# Each block as a file; a list of "FILE LINE KIND PATH".
blocks="$work/blocks.txt"
: >"$blocks"
for doc in README.md docs/*.md; do
    awk -v doc="$doc" -v dir="$work" '
        /^ *```/ {
            if (!inside) {
                info = $0; sub(/^ *```/, "", info)
                inside = 1; out = ""
                if (info ~ /^sh( |$)/ || info ~ /^[a-z]+ output$/) {
                    kind = info; sub(/^sh */, "", kind); if (kind == "") kind = "run"
                    if (info ~ / output$/) kind = "output"
                    name = doc; gsub("/", "-", name)
                    out = dir "/" name "-" FNR ".sh"
                    printf "%s %d %s %s\n", doc, FNR, kind, out >> (dir "/blocks.txt")
                    printf "" > out
                }
                next
            }
            inside = 0; out = ""; next
        }
        inside && out != "" { line = $0; sub(/^  /, "", line); print line >> out }
    ' "$doc"
done

run_count=0
script="$work/all.sh"
{
    echo 'set -euo pipefail'
    echo "cd $(printf %q "$work/clone")"
} >"$script"
git clone -q "$repo" "$work/clone"
git -C "$work/clone" checkout -q "$(git rev-parse HEAD)"
harness=0
installed=0
previous=
while read -r doc line kind path; do
    case "$kind" in
    run | harness)
        [ "$kind" = harness ] && harness=1
        run_count=$((run_count + 1))
        {
            printf 'echo "tests/docs/run.sh: %s:%s" >&2\n' "$doc" "$line"
            # Its stdout kept for an output block after it.
            printf '{\n'
            cat "$path"
            printf '\n} > %q\ncat %q\n' "$work/last.out" "$work/last.out"
            # After the install (the first block), the clone it was
            # built from goes away.
            if [ "$installed" = 0 ]; then
                installed=1
                printf 'cd "$HOME"; rm -rf %q\n' "$work/clone"
            fi
        } >>"$script"
        ;;
    output)
        if [ "$previous" != run ] && [ "$previous" != harness ]; then
            echo "tests/docs/run.sh: $doc:$line: an output block follows no block run here" >&2
            exit 1
        fi
        # Unwrapped: a line starting with a space joins the one before.
        awk '{ if (NR > 1 && substr($0, 1, 1) == " ") printf "%s", substr($0, 2); else { if (NR > 1) printf "\n"; printf "%s", $0 } } END { printf "\n" }' \
            "$path" >"$path.expected"
        printf 'diff -u %q %q >&2 || { echo "tests/docs/run.sh: %s:%s: the block before prints something else (above: the docs, then what it printed)" >&2; exit 1; }\n' \
            "$path.expected" "$work/last.out" "$doc" "$line" >>"$script"
        ;;
    ci)
        while IFS= read -r cmd; do
            [ -z "$cmd" ] && continue
            grep -qxF -- "$cmd" .ci/run || {
                echo "tests/docs/run.sh: $doc:$line: \`$cmd\` is not a command of .ci/run" >&2
                exit 1
            }
        done <"$path"
        ;;
    e2e)
        test_name=$(grep -o 'tests/e2e/[a-z_]*\.rs::[a-z_]*' "$path" | head -1)
        file=${test_name%%::*}
        fn=${test_name##*::}
        if [ -z "$test_name" ] || ! grep -q "fn $fn\b" "$file"; then
            echo "tests/docs/run.sh: $doc:$line: names no end-to-end test (tests/e2e/FILE.rs::FUNCTION)" >&2
            exit 1
        fi
        # The test installs the harness in its own cache; the block names
        # the path of a global install: install it so (into a private
        # prefix) and check every --allow-exec path the block names.
        package=$( (grep -o 'npm install -g [^`]*' "$path" || true) | head -1 | sed 's/npm install -g //')
        if [ -n "$package" ]; then
            prefix="$work/npm-global"
            npm_config_prefix="$prefix" npm install -g --silent "$package" >/dev/null
            while IFS= read -r expr; do
                dir=$(HOME="$HOME" npm_config_prefix="$prefix" bash -c "printf '%s' $expr")
                if [ ! -d "$dir" ]; then
                    echo "tests/docs/run.sh: $doc:$line: --allow-exec $expr is $dir, which a global install of $package does not have" >&2
                    exit 1
                fi
            done < <(grep -o -- '--allow-exec "[^"]*"' "$path" | sed 's/^--allow-exec //')
        fi
        ;;
    *)
        echo "tests/docs/run.sh: $doc:$line: unknown block kind \`sh $kind\`" >&2
        exit 1
        ;;
    esac
    previous=$kind
done <"$blocks"

first=$(head -1 "$blocks")
case "$first" in
"README.md "*" run "*) ;;
*)
    echo "tests/docs/run.sh: the README's first block should be the install ($first)" >&2
    exit 1
    ;;
esac

if [ "$harness" = 1 ]; then
    claude_exe="${GUARD_SH_E2E_CACHE:-$HOME/.cache/guard-sh-e2e}/claude-code-2.1.332/node_modules/@anthropic-ai/claude-code/bin/claude.exe"
    if [ ! -x "$claude_exe" ]; then
        echo "tests/docs/run.sh: $claude_exe is missing; run tests/e2e/run.sh first (it installs the pinned harnesses)" >&2
        exit 1
    fi
    mkdir -p "$work/harness-bin"
    ln -s "$claude_exe" "$work/harness-bin/claude"
    # The fake model asks for one shell command, then ends the turn.
    MOCK_CMD='echo "$((6 * 7))" | wc -c' python3 tests/e2e/mock_anthropic.py 0 "$work/mock.log" >"$work/mock.port" &
    mock_pid=$!
    for _ in $(seq 50); do
        grep -q PORT "$work/mock.port" 2>/dev/null && break
        sleep 0.1
    done
    port=$(awk '/PORT/ {print $2}' "$work/mock.port")
    export PATH="$work/harness-bin:$PATH"
    export ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=docs-dummy-key
    export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1
fi

start=$SECONDS
bash "$script"
if [ "$harness" = 1 ] && ! grep -q tool_result "$work/mock.log"; then
    echo "tests/docs/run.sh: the harness block never returned a command's result to the model" >&2
    exit 1
fi
echo "tests/docs/run.sh: $run_count blocks ran in $((SECONDS - start)) s"
