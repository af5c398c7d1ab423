//! Shared by the parser's generated-input tests: the fragments agents'
//! lines are made of, and `bash -n` as the oracle for what bash accepts.

#![allow(dead_code, clippy::panic, clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use proptest::prelude::*;

/// The bash every syntax oracle runs; `tests/run.sh` installs it.
pub const BASH: &str = "/usr/bin/bash";

/// Fragments of agents' lines, so generated strings reach deep into the
/// grammar instead of failing at the first byte. A blank is listed twice
/// to weigh word breaks up.
const SHELLISH_ATOMS: &[&str] = &[
    "tea",
    "cat",
    "curl",
    " ",
    "x",
    "$x",
    "${x:-y}",
    "${#x}",
    "$(",
    ")",
    "`",
    "'",
    "\"",
    "\\",
    "|",
    "||",
    "&&",
    ";",
    "&",
    "\n",
    "<",
    ">",
    ">>",
    "2>&1",
    "<<EOF\n",
    "EOF\n",
    "<<'E'\n",
    "E\n",
    "$((1+2))",
    "((",
    "{",
    "}",
    "(",
    "if ",
    "then ",
    "fi",
    "for i in a; do ",
    "done",
    "case $x in a) ",
    ";;",
    "esac",
    "#",
    "*",
    "?",
    "[a]",
    "~",
    "=",
    "eval ",
    "<(",
    ">(",
    "$'\\x41'",
    "!",
    "f() ",
    "while ",
    "until ",
    "echo",
    "else ",
    ";&",
    " ",
];

/// Concatenations of up to `max_atoms` fragments.
pub fn shellish(max_atoms: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(SHELLISH_ATOMS), 0..max_atoms)
        .prop_map(|v| v.concat())
}

/// `bash -n` on `src`: `Ok(())` when bash accepts it, else bash's stderr.
/// A missing bash fails the test: an oracle that is not there must not
/// read as agreement.
pub fn bash_accepts(src: &[u8]) -> Result<(), String> {
    if !Path::new(BASH).exists() {
        panic!("{BASH} is missing; install bash (tests/run.sh does)");
    }
    let mut child = Command::new(BASH)
        // With extglob, as guard-sh reads groups whatever the option says.
        .args(["--norc", "--noprofile", "-O", "extglob", "-n"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(src).unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}
