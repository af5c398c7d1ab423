//! `guard-sh-client` starts without glibc on x86-64 Linux (see the file's
//! docs). Built for glibc it has its own `_start`, no C start files or
//! libraries, and is a static executable at a fixed address (no start-up
//! code applies relocations); built on musl, musl's start calls its `main`.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_ARCH") != "x86_64" || var("CARGO_CFG_TARGET_OS") != "linux" {
        return;
    }
    if var("CARGO_CFG_TARGET_ENV") == "gnu" {
        for arg in ["-nostartfiles", "-nostdlib", "-static", "-no-pie"] {
            println!("cargo:rustc-link-arg-bin=guard-sh-client={arg}");
        }
    } else {
        // musl's start runs (it asks the CPU nothing) and calls the
        // client's `main`; it needs the C library, which nothing else of
        // a program without the standard library links.
        println!("cargo:rustc-link-arg-bin=guard-sh-client=-lc");
    }
}
