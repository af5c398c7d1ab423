//! `guard-sh-client` starts without a C library on x86-64 Linux (see the
//! file's docs): its own `_start`, no C start files or libraries, a static
//! executable at a fixed address (no start-up code applies relocations).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_ARCH") == "x86_64" && var("CARGO_CFG_TARGET_OS") == "linux" {
        for arg in ["-nostartfiles", "-nostdlib", "-static", "-no-pie"] {
            println!("cargo:rustc-link-arg-bin=guard-sh-client={arg}");
        }
    }
}
