//! `guard-sh`: the restricted shell (see `src/cli.rs`).

#[path = "../cli.rs"]
mod cli;

fn main() {
    let status = cli::main_with(std::env::args_os().collect());
    std::process::exit(status);
}
