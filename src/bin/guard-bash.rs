//! `guard-bash`: the same shell under a name containing `bash`, because
//! Claude Code silently ignores a `SHELL` whose path contains neither
//! `bash` nor `zsh` (and would then run the real bash).

#[path = "../cli.rs"]
mod cli;

fn main() {
    let status = cli::main_with(std::env::args_os().collect());
    std::process::exit(status);
}
