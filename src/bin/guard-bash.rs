//! `guard-bash`: the same shell under a name containing `bash`, because
//! Claude Code silently ignores a `SHELL` whose path contains neither
//! `bash` nor `zsh` (and would then run the real bash).

#![no_main]

guard_sh::shell_main!();
