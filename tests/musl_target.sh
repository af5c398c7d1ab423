# Sourced by the test and bench scripts: sets TARGET to the target guard-sh
# is built for, as the README installs it (musl: see src/os/musl.rs), and
# adds that target's standard library with rustup when it is missing.
TARGET="$(uname -m)-unknown-linux-musl"
if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    rustup target add "$TARGET" >&2
fi
