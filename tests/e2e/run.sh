#!/usr/bin/env bash
# End to end with the real agent harnesses (Claude Code, Codex CLI, and the
# Claude Agent SDK through examples/agent-sdk): installs the pinned releases
# from npm into ~/.cache/guard-sh-e2e (or $GUARD_SH_E2E_CACHE) once, then
# drives each against fake model servers on 127.0.0.1. Without npm or the npm registry this FAILS; it never skips.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in npm python3 timeout; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "tests/e2e/run.sh: $tool is missing (Debian: apt-get install npm python3 coreutils)" >&2
        exit 2
    fi
done
# The arms make /tmp writable to the harness and its commands, and a
# program inside a writable folder cannot be protected (Landlock grants a
# folder whole): guard-sh built under /tmp cannot be an arm's shell.
for where in "$(pwd -P)" "${CARGO_TARGET_DIR:-}"; do
    case "$where" in
    /tmp/* | /var/tmp/* | /dev/shm/*)
        echo "tests/e2e/run.sh: $where is under a folder the arms make writable, so the guard-sh built there cannot be protected; clone (or set CARGO_TARGET_DIR) elsewhere, e.g. under \$HOME" >&2
        exit 2
        ;;
    esac
done
start=$SECONDS
# The same build as tests/run.sh (and the README's install).
. tests/musl_target.sh
cargo test --locked --target "$TARGET" --test e2e -- --ignored
echo "tests/e2e/run.sh: end-to-end tests passed in $((SECONDS - start)) s"
