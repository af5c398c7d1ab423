//! Parser corpus: the tables in `tests/corpus/syntax/*.yaml`. Each case
//! lists many spellings (`inputs`) with one expectation: the tree as a
//! compact S-expression (`sexp`, see `guard_sh::syntax::sexp`) or the
//! rendered error (`error: "LINE:COL: message"`, with `incomplete` saying
//! whether a line reader should read on).
//!
//! Every accepted input is also checked to print back (`to_source`) to
//! text that parses to the same tree, and — when `/usr/bin/bash` exists —
//! to be accepted by `bash -n`, so guard-sh never accepts what bash would
//! reject. All failures are collected and reported together.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use std::path::Path;
use std::process::{Command, Stdio};

use guard_sh::syntax::sexp::to_sexp;
use guard_sh::syntax::{parse, to_source, without_spans};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    inputs: Vec<String>,
    #[serde(default)]
    sexp: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    incomplete: Option<bool>,
    /// Why bash's verdict differs (bash accepts what guard-sh refuses is
    /// always fine; this is for accepted inputs bash rejects).
    #[serde(default)]
    differs_from_bash: Option<String>,
}

const BASH: &str = "/usr/bin/bash";

fn load_cases() -> Vec<(String, Case)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/syntax");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let cases: Vec<Case> =
            serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        out.extend(cases.into_iter().map(|c| (file.clone(), c)));
    }
    out
}

/// `bash -n` on `src`: `Ok(())` when bash accepts it, else bash's stderr.
fn bash_accepts(src: &[u8]) -> Result<(), String> {
    use std::io::Write;
    let mut child = Command::new(BASH)
        .args(["--norc", "--noprofile", "-n"])
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

fn check(case: &Case, input: &str, have_bash: bool) -> Result<(), String> {
    let src = input.as_bytes();
    match (parse(src), &case.sexp, &case.error) {
        (Ok(list), Some(want), None) => {
            let got = to_sexp(&list);
            if &got != want {
                return Err(format!("tree\n    want {want}\n    got  {got}"));
            }
            let printed = to_source(&list);
            match parse(&printed) {
                Ok(again) if without_spans(&again) == without_spans(&list) => {}
                Ok(again) => {
                    return Err(format!(
                        "printed as {:?}, which parses to {}",
                        String::from_utf8_lossy(&printed),
                        to_sexp(&again)
                    ));
                }
                Err(e) => {
                    return Err(format!(
                        "printed as {:?}, which fails: {}",
                        String::from_utf8_lossy(&printed),
                        e.render(&printed)
                    ));
                }
            }
            if have_bash && case.differs_from_bash.is_none() {
                bash_accepts(src).map_err(|e| format!("accepted, but bash -n says: {e}"))?;
                bash_accepts(&printed).map_err(|e| {
                    format!(
                        "printed as {:?}, which bash -n rejects: {e}",
                        String::from_utf8_lossy(&printed)
                    )
                })?;
            }
            Ok(())
        }
        (Err(e), None, Some(want)) => {
            let got = e.render(src);
            if &got != want {
                return Err(format!("error\n    want {want}\n    got  {got}"));
            }
            if let Some(inc) = case.incomplete {
                if e.is_incomplete() != inc {
                    return Err(format!("is_incomplete() is {}, want {inc}", !inc));
                }
            }
            Ok(())
        }
        (Ok(list), _, Some(want)) => {
            Err(format!("parsed as {}, want error {want}", to_sexp(&list)))
        }
        (Err(e), Some(want), _) => Err(format!("error {}, want tree {want}", e.render(src))),
        _ => Err("case needs exactly one of `sexp` and `error`".to_string()),
    }
}

#[test]
fn corpus_cases_parse_as_expected() {
    let have_bash = Path::new(BASH).exists();
    if !have_bash && std::env::var_os("GUARD_SH_REQUIRE_BASH").is_some() {
        panic!("{BASH} is missing and GUARD_SH_REQUIRE_BASH is set");
    }
    let cases = load_cases();
    assert!(
        cases.len() >= 50,
        "corpus looks truncated: {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    let mut inputs = 0;
    for (file, case) in &cases {
        assert!(!case.inputs.is_empty(), "{file}: {}: no inputs", case.name);
        for input in &case.inputs {
            inputs += 1;
            if let Err(why) = check(case, input, have_bash) {
                failures.push(format!("{file}: {}: {input:?}: {why}", case.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {inputs} inputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
