//! The builtins guard-sh's interpreter implements itself. They run inside
//! guard-sh and never exec anything, so the guard does not deny them by
//! name; the ones that run other commands (`command`, `exec`, `eval`,
//! `source`, `.`, `builtin`) have their operands checked instead.

/// Every builtin name the interpreter knows.
pub const BUILTINS: &[&str] = &[
    ":",
    ".",
    "[",
    "alias",
    "builtin",
    "cd",
    "command",
    "echo",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "local",
    "printf",
    "pwd",
    "read",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "test",
    "trap",
    "true",
    "type",
    "umask",
    "unalias",
    "unset",
    "wait",
    "break",
    "continue",
    "declare",
    "typeset",
    "hash",
    "getopts",
    "kill",
    "let",
    "pushd",
    "popd",
    "dirs",
    "mapfile",
    "readarray",
    "ulimit",
];

/// Is `name` a builtin of guard-sh's interpreter?
pub fn is_builtin(name: &[u8]) -> bool {
    BUILTINS.iter().any(|b| b.as_bytes() == name)
}
