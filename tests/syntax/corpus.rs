//! Parser corpus: the tables in `tests/corpus/syntax/*.yaml`. Each case
//! lists many spellings (`inputs`) with one expectation: the tree as a
//! compact S-expression (`sexp`, see `guard_sh::syntax::sexp`) or the
//! rendered error (`error: "LINE:COL: message"`, with `incomplete` saying
//! whether a line reader should read on).
//!
//! Every accepted input is also checked to print back (`to_source`) to
//! text that parses to the same tree, and to be accepted by `bash -n`
//! with `extglob` on (guard-sh reads extended glob groups whatever the
//! option says; a missing bash fails the test), so guard-sh never accepts
//! what bash would reject. All failures are collected and reported together.

#![allow(clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use std::path::Path;

use guard_sh::syntax::sexp::to_sexp;
use guard_sh::syntax::{parse, to_source, without_spans};
use serde::Deserialize;

use crate::syntax_support;
use syntax_support::bash_accepts;

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

fn check(case: &Case, input: &str) -> Result<(), String> {
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
            if case.differs_from_bash.is_none() {
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
            if let Err(why) = check(case, input) {
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
