//! The guard's verdict corpus: `tests/corpus/guard/*.yaml`, each case many
//! spellings with one expected verdict, checked against the real arm data in
//! `arms/`. Every failing input is reported, not just the first.

#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)] // test code reports failures by panicking

use guard_sh::guard::{self, ReachedKind};
use guard_sh::policy::Policy;

use crate::common;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct CorpusFile {
    /// Default arm for the file's cases.
    arm: Option<String>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    arm: Option<String>,
    verdict: Expected,
    /// The rule of the first denial (deny cases).
    rule: Option<String>,
    /// The name of the first denied item (deny cases).
    name: Option<String>,
    /// Some name is only known at run time (allow cases).
    #[serde(default)]
    run_time: bool,
    inputs: Vec<String>,
}

#[derive(Deserialize, PartialEq, Eq, Clone, Copy, Debug)]
#[serde(rename_all = "lowercase")]
enum Expected {
    Allow,
    Deny,
}

/// Protected paths the corpus names as `{policy}`, `{audit}`, `{bin}`.
struct Protected {
    dir: tempfile::TempDir,
    policy: PathBuf,
    audit: PathBuf,
    bin: PathBuf,
}

impl Protected {
    fn new() -> Protected {
        let dir = tempfile::tempdir().expect("temp dir");
        let policy = dir.path().join("policy.json");
        let audit = dir.path().join("audit.jsonl");
        let bin = dir.path().join("bin");
        std::fs::write(&policy, "{}").expect("write policy");
        std::fs::write(&audit, "").expect("write audit");
        std::fs::create_dir(&bin).expect("bin dir");
        Protected {
            dir,
            policy,
            audit,
            bin,
        }
    }

    fn substitute(&self, input: &str) -> String {
        input
            .replace("{policy}", &self.policy.display().to_string())
            .replace("{audit}", &self.audit.display().to_string())
            .replace("{bin}", &self.bin.display().to_string())
    }
}

fn load_policy(arm: &str, protected: &Protected) -> Policy {
    let mut policy = common::compile_with_stubs(arm, protected.dir.path());
    policy.sandbox.protected = vec![
        protected.policy.clone(),
        protected.audit.clone(),
        protected.bin.clone(),
    ];
    policy
}

/// Checks one input; `Err` describes how it differs from the case.
fn check_input(policy: &Policy, case: &Case, input: &str) -> Result<(), String> {
    let verdict = guard::check_source(policy, input.as_bytes())
        .map_err(|e| format!("syntax error {}", e.render(input.as_bytes())))?;
    let actual = if verdict.allowed {
        Expected::Allow
    } else {
        Expected::Deny
    };
    if actual != case.verdict {
        return Err(format!(
            "expected {:?}, got {:?}: {}",
            case.verdict,
            actual,
            verdict.to_json(input.as_bytes())
        ));
    }
    match case.verdict {
        Expected::Deny => {
            let first = verdict.first_denial().ok_or("denied without a denial")?;
            if let Some(rule) = &case.rule {
                if first.rule.as_str() != rule {
                    return Err(format!(
                        "expected rule {rule}, got {} ({})",
                        first.rule, first.reason
                    ));
                }
            }
            if let Some(name) = &case.name {
                if &first.name != name {
                    return Err(format!("expected denied name {name}, got {}", first.name));
                }
            }
            if first.reason.trim().is_empty() {
                return Err("denial without a reason".into());
            }
        }
        Expected::Allow => {
            let has_run_time = verdict
                .commands
                .iter()
                .any(|c| c.kind == ReachedKind::RunTime)
                || verdict
                    .commands
                    .iter()
                    .any(|c| c.rule == guard_sh::guard::Rule::RunTimeText);
            if has_run_time != case.run_time {
                return Err(format!(
                    "run_time: expected {}, got {has_run_time}",
                    case.run_time
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn every_corpus_input_gets_its_expected_verdict() {
    let protected = Protected::new();
    let mut policies: BTreeMap<String, Policy> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/guard");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read corpus");
        let corpus: CorpusFile =
            serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for case in &corpus.cases {
            let arm = case
                .arm
                .clone()
                .or_else(|| corpus.arm.clone())
                .expect("case without an arm");
            let policy = policies
                .entry(arm.clone())
                .or_insert_with(|| load_policy(&arm, &protected));
            for input in &case.inputs {
                checked += 1;
                let input = protected.substitute(input);
                if let Err(why) = check_input(policy, case, &input) {
                    failures.push(format!(
                        "{} [{arm}] {input:?}: {why}",
                        file.file_name()
                            .map(|f| f.to_string_lossy())
                            .unwrap_or_default()
                    ));
                }
            }
        }
    }
    assert!(checked >= 150, "the corpus shrank to {checked} inputs");
    assert!(
        failures.is_empty(),
        "{} of {checked} inputs failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
