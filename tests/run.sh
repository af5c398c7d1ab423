#!/usr/bin/env bash
# The test command named in the README: installs what the tests need on a
# fresh Debian machine (when run as root), then runs the checks CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."

# System tools the tests use: bash and dash (peers), strace (execve oracle),
# git (the tea arm's helper, driven with hostile repository config),
# jq and column (harmless utilities arm-build resolves; column is in
# bsdextrautils); curl, node, python3 and gzip are the programs the Landlock
# tests try to reach; npm installs the agent harnesses for tests/e2e/run.sh.
# Each entry is TOOL:DEBIAN_PACKAGE.
missing=()
for entry in bash:bash dash:dash strace:strace jq:jq column:bsdextrautils curl:curl node:nodejs python3:python3 gzip:gzip npm:npm; do
    command -v "${entry%%:*}" >/dev/null 2>&1 || missing+=("${entry#*:}")
done
# Debian's own git and python3 (the supervisor tests drive /usr/bin/git and
# /usr/bin/python3, whatever else is on PATH).
[ -x /usr/bin/git ] || missing+=(git)
[ -x /usr/bin/python3 ] || missing+=(python3)
if [ "${#missing[@]}" -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "tests/run.sh: missing ${missing[*]}; install them (Debian: apt-get install ${missing[*]})" >&2
        exit 2
    fi
fi

. tests/musl_target.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy --workspace --all-targets --locked --target "$TARGET" -- -D warnings
# The unit tests on glibc too: there glibc itself judges the answers guard-sh
# reads from glibc's files (os::locale_files).
cargo test --workspace --locked --lib
# Test the binaries as the README installs them: built on musl.
cargo test --workspace --locked --target "$TARGET"
