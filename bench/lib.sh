# Shared by the bench scripts (sourced after ROOT is set): the binaries as
# the README installs them, and a tea arm whose tool is the compiled stub.

# build_release BIN...: build the binaries as the README installs them (on
# musl, static); sets REL to the folder that holds them.
build_release() {
    local bin args=()
    for bin in "$@"; do args+=(--bin "$bin"); done
    . "$ROOT/tests/musl_target.sh"
    echo "building release binaries..." >&2
    (cd "$ROOT" && cargo build --release --quiet --target "$TARGET" "${args[@]}")
    REL=$ROOT/target/$TARGET/release
}

# tea_arm STUBS OUT: compile the stub tool into STUBS as tea and git (the
# tea arm lists git as tea's helper; static when the C library allows) and
# build the tea arm into OUT with REL's arm-build and guard-sh.
tea_arm() {
    mkdir -p "$1"
    cc -O2 -static -o "$1/tea" "$ROOT/bench/stub_tool.c" 2>/dev/null ||
        cc -O2 -o "$1/tea" "$ROOT/bench/stub_tool.c"
    cp "$1/tea" "$1/git"
    BENCH_TOKEN=bench-token-0123456789 PATH="$1:$PATH" "$REL/arm-build" tea \
        --host http://127.0.0.1:3000 --repo o/r --token-env BENCH_TOKEN \
        --out "$2" --guard-sh "$REL/guard-sh" >/dev/null
}
