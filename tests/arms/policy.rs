//! The shipped arm data compiles, its rules do what the threat list needs,
//! and broken data is refused with an error naming the file and the field.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use guard_sh::armbuild::{BuildInputs, compile, compile_arm};
use guard_sh::policy::{ArgRule, CommandKind, Policy, PolicyError};
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

const TOKEN: &str = "0123456789abcdef0123456789abcdef01234567";
const HARMLESS: [&str; 37] = [
    "cat", "head", "tail", "wc", "cut", "tr", "sort", "uniq", "comm", "grep", "egrep", "fgrep",
    "diff", "echo", "printf", "ls", "pwd", "cd", "mkdir", "rmdir", "tee", "test", "[", "true",
    "false", "basename", "dirname", "seq", "sleep", "date", "nl", "rev", "tac", "fold", "column",
    "expr", "jq",
];

fn arms_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arms")
}

struct Stubs {
    dir: tempfile::TempDir,
}

impl Stubs {
    fn new(names: &[&str]) -> Stubs {
        let dir = tempfile::tempdir().expect("tempdir");
        for n in names {
            let p = dir.path().join(n);
            std::fs::write(&p, "#!/bin/sh\nexit 0\n").expect("write stub");
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        Stubs { dir }
    }
    fn search(&self) -> std::ffi::OsString {
        std::env::join_paths([self.dir.path(), Path::new("/usr/bin"), Path::new("/bin")])
            .expect("join")
    }
}

fn inputs(stubs: &Stubs, out: &Path) -> BuildInputs {
    BuildInputs {
        host: "http://127.0.0.1:3000".into(),
        repo: "o/r".into(),
        token: TOKEN.into(),
        out_dir: out.to_path_buf(),
        search_path: Some(stubs.search()),
    }
}

fn all_stubs() -> Stubs {
    Stubs::new(&["tea", "gitea-axi", "curl", "gitea-mcp", "node", "git"])
}

fn args(v: &[&str]) -> Vec<Vec<u8>> {
    v.iter().map(|s| s.as_bytes().to_vec()).collect()
}

/// The reason of the first rule of `command` that denies `argv[1..]`, if any.
fn denied(policy: &Policy, argv: &[&str]) -> Option<String> {
    let rule = policy.commands.get(argv[0])?;
    let a = args(&argv[1..]);
    let refs: Vec<&[u8]> = a.iter().map(Vec::as_slice).collect();
    rule.deny
        .iter()
        .find(|r| r.matches(&refs))
        .map(|r| r.reason().to_string())
}

#[test]
fn every_shipped_arm_compiles_with_stub_tools() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    for arm in ["gitea-axi", "tea", "raw-api", "gitea-mcp"] {
        let p = compile(&arms_dir(), arm, &inputs(&stubs, out.path()));
        assert!(p.is_ok(), "{arm}: {:?}", p.err());
    }
}

#[test]
fn harmless_set_is_exactly_the_designed_list() {
    let text = std::fs::read_to_string(arms_dir().join("harmless.toml")).expect("read");
    let file: guard_sh::armbuild::source::HarmlessFile = toml::from_str(&text).expect("parse");
    let got: BTreeSet<&str> = file.utilities.keys().map(String::as_str).collect();
    let want: BTreeSet<&str> = HARMLESS.iter().copied().collect();
    assert_eq!(got, want);
}

#[test]
fn tea_policy_denies_tea_api_and_allows_structured_subcommands() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "tea", &inputs(&stubs, out.path())).expect("compile");
    let reason = denied(&p, &["tea", "api", "/repos/o/r/issues"]).unwrap_or_default();
    assert_eq!(
        reason,
        "`tea api` is tea's raw-API escape hatch; this arm allows only tea's structured subcommands"
    );
    assert!(denied(&p, &["tea", "api", "--method", "POST", "/x"]).is_some());
    assert_eq!(
        denied(&p, &["tea", "issues", "list", "--repo", "o/r"]),
        None
    );
    assert_eq!(
        denied(&p, &["tea", "issues", "create", "--title", "api"]),
        None
    );
    assert_eq!(p.tool.as_deref(), Some("tea"));
    assert_eq!(
        p.commands.get("tea").map(|c| c.kind),
        Some(CommandKind::Tool)
    );
}

#[test]
fn sort_compress_program_is_denied_in_every_spelling() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "tea", &inputs(&stubs, out.path())).expect("compile");
    for argv in [
        &["sort", "--compress-program=sh", "file"][..],
        &["sort", "--compress-program", "sh", "file"],
        &["sort", "--compress-prog=sh", "file"],
        &["sort", "--compress=sh", "file"],
        &["sort", "-S", "1", "--compress-program=./x", "file"],
        &["sort", "-t", "--", "--compress-program=sh"],
    ] {
        assert!(denied(&p, argv).is_some(), "{argv:?} allowed");
    }
    assert_eq!(
        denied(&p, &["sort", "--reverse", "--key=2", "file.txt"]),
        None
    );
    assert_eq!(denied(&p, &["sort", "-k2", "-n", "file.txt"]), None);
}

#[test]
fn diff_paginate_and_date_set_are_denied() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "raw-api", &inputs(&stubs, out.path())).expect("compile");
    assert!(denied(&p, &["diff", "-l", "a", "b"]).is_some());
    assert!(denied(&p, &["diff", "--pag", "a", "b"]).is_some());
    assert_eq!(denied(&p, &["diff", "-u", "a", "b"]), None);
    assert!(denied(&p, &["date", "-s", "2030-01-01"]).is_some());
    assert!(denied(&p, &["date", "--set=2030-01-01"]).is_some());
    assert_eq!(denied(&p, &["date", "+%Y-%m-%d"]), None);
    assert!(
        denied(
            &p,
            &["curl", "--unix-socket", "/var/run/docker.sock", "http://x/"]
        )
        .is_some()
    );
    assert!(denied(&p, &["curl", "-K", "opts"]).is_some());
    assert_eq!(
        denied(
            &p,
            &[
                "curl",
                "-s",
                "http://127.0.0.1:3000/api/v1/repos/o/r/issues"
            ]
        ),
        None
    );
}

#[test]
fn env_rules_deny_loader_and_runtime_hooks_and_pass_the_basics() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "tea", &inputs(&stubs, out.path())).expect("compile");
    let is_denied = |name: &str| {
        p.env
            .deny
            .iter()
            .any(|d| guard_sh::policy::env_pattern_matches(&d.pattern, name))
    };
    for name in [
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "DYLD_INSERT_LIBRARIES",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "BASH_ENV",
        "ENV",
        "GCONV_PATH",
        "GIT_SSH_COMMAND",
        "GIT_EXEC_PATH",
        "PATH",
        "SHELLOPTS",
        "BASHOPTS",
        "HOME",
        "XDG_CONFIG_HOME",
        "PAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "MANPAGER",
        "GIT_PAGER",
        "SSH_ASKPASS",
        "OPENSSL_CONF",
        "GUARD_SH_POLICY",
    ] {
        assert!(is_denied(name), "{name} not denied");
    }
    for name in ["FOO", "TEA_LOGIN", "LANG", "TERM", "X"] {
        assert!(!is_denied(name), "{name} denied");
    }
    assert!(p.env.deny.iter().all(|d| !d.reason.trim().is_empty()));
    for name in [
        "HOME", "USER", "LOGNAME", "LANG", "LC_*", "TERM", "TZ", "TMPDIR", "COLUMNS", "LINES",
        "NO_COLOR",
    ] {
        assert!(p.env.pass.iter().any(|x| x == name), "{name} not passed");
    }
}

#[test]
fn every_path_in_a_policy_is_absolute_and_every_binary_exists() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "gitea-axi", &inputs(&stubs, out.path())).expect("compile");
    for (name, c) in &p.commands {
        assert!(
            c.path.is_absolute() && c.path.is_file(),
            "{name}: {}",
            c.path.display()
        );
        for e in &c.exec_allow {
            assert!(e.is_absolute() && e.exists(), "{name}: {}", e.display());
        }
    }
    let axi = &p.commands["gitea-axi"];
    let helpers = out.path().join("helpers").join("gitea-axi");
    assert_eq!(axi.path_env, vec![helpers]);
    let stub = |n: &str| std::fs::canonicalize(stubs.dir.path().join(n)).expect("canon");
    for want in [stub("node"), stub("git"), stub("tea")] {
        assert!(axi.exec_allow.contains(&want), "{} missing", want.display());
    }
    assert!(axi.exec_allow.iter().any(|e| e.ends_with("env")));
    assert_eq!(
        axi.env.get("GITEA_AXI_TOKEN").map(String::as_str),
        Some(TOKEN)
    );
    assert_eq!(
        axi.env.get("GITEA_AXI_API_URL").map(String::as_str),
        Some("http://127.0.0.1:3000")
    );
    assert_eq!(axi.connect_ports, vec![3000]);
    assert!(
        p.commands
            .values()
            .filter(|c| c.kind == CommandKind::Utility)
            .all(|c| c.connect_ports.is_empty())
    );
}

#[test]
fn gitea_mcp_policy_has_no_shell_and_no_commands() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "gitea-mcp", &inputs(&stubs, out.path())).expect("compile");
    assert!(!p.shell);
    assert!(p.commands.is_empty());
    assert_eq!(p.tool, None);
}

#[test]
fn audit_redacts_the_token_by_hash_and_logs_outside_writable_roots() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "raw-api", &inputs(&stubs, out.path())).expect("compile");
    assert_eq!(
        p.audit.redact_sha256,
        vec![format!(
            "{}:{}:{:08x}",
            TOKEN.len(),
            guard_sh::policy::load::sha256_hex(TOKEN.as_bytes()),
            guard_sh::audit::redact::fingerprint(TOKEN.as_bytes())
        )]
    );
    assert!(p.audit.redact.is_empty());
    // What the compiler emits is what the writer's redactor reads.
    let redactor = guard_sh::audit::Redactor::from_policy(&p.audit).expect("redactor");
    assert_eq!(
        redactor.redact(&format!("x{TOKEN}y")).as_deref(),
        Some("x[REDACTED]y")
    );
    let log = p.audit.path.clone().expect("audit path");
    assert!(p.sandbox.writable.iter().all(|w| !log.starts_with(w)));
    assert!(p.sandbox.protected.iter().any(|x| log.starts_with(x)));
    assert!(
        p.sandbox
            .protected
            .contains(&out.path().join("policy.json"))
    );
    assert!(p.sandbox.protected.contains(&p.bin_dir));
}

fn copy_arms(to: &Path) {
    for f in ["harmless.toml", "base-prompt.txt", "tea.toml"] {
        std::fs::copy(arms_dir().join(f), to.join(f)).expect("copy");
    }
}

/// Compiles the shipped tea arm after `edit` changed its TOML text; the
/// edit must change something, or the test would prove nothing.
fn compile_edited_tea(edit: impl Fn(&str) -> String) -> Result<Policy, PolicyError> {
    let arms = tempfile::tempdir().expect("tempdir");
    copy_arms(arms.path());
    let tea = std::fs::read_to_string(arms.path().join("tea.toml")).expect("read");
    let edited = edit(&tea);
    assert_ne!(tea, edited, "the edit did not apply");
    std::fs::write(arms.path().join("tea.toml"), edited).expect("write");
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    compile(arms.path(), "tea", &inputs(&stubs, out.path()))
}

fn error_text(r: Result<Policy, PolicyError>) -> String {
    r.err().map(|e| e.to_string()).unwrap_or_default()
}

#[test]
fn rule_whose_deny_example_does_not_hold_fails_the_build() {
    let err = compile_edited_tea(|t| {
        t.replace(
            r#"["tea", "--debug", "api", "/user"],"#,
            r#"["tea", "issues", "api"],"#,
        )
    })
    .err();
    assert!(matches!(err, Some(PolicyError::Example { .. })), "{err:?}");
    let text = err.map(|e| e.to_string()).unwrap_or_default();
    assert!(
        text.contains("tea.toml") && text.contains("tool.deny[0].deny_examples"),
        "{text}"
    );
}

#[test]
fn unknown_field_in_arm_is_error_naming_file_and_field() {
    let text = error_text(compile_edited_tea(|t| {
        t.replace("helpers = [\"git\"]", "helper = [\"git\"]")
    }));
    assert!(
        text.contains("tea.toml") && text.contains("helper"),
        "{text}"
    );
}

#[test]
fn rule_missing_its_data_is_error_naming_the_field() {
    let text = error_text(compile_edited_tea(|t| {
        t.replacen("name = \"api\"", "letter = \"a\"", 1)
    }));
    assert!(text.contains("tool.deny[0].letter"), "{text}");
}

#[test]
fn missing_tool_is_error_naming_the_program() {
    let stubs = Stubs::new(&["git"]);
    let out = tempfile::tempdir().expect("tempdir");
    let err = compile(&arms_dir(), "tea", &inputs(&stubs, out.path())).err();
    assert!(
        matches!(&err, Some(PolicyError::MissingBinary { binary, field, .. }) if binary == "tea" && field == "tool.binary"),
        "{err:?}"
    );
}

#[test]
fn unknown_arm_lists_the_known_ones() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let text = compile(&arms_dir(), "nope", &inputs(&stubs, out.path()))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        text.contains("\"nope\"") && text.contains("gitea-axi, gitea-mcp, raw-api, tea"),
        "{text}"
    );
    let text = compile(&arms_dir(), "harmless", &inputs(&stubs, out.path()))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(text.contains("no arm named"), "{text}");
}

#[test]
fn compile_arm_lists_links_for_exactly_the_commands_and_helpers() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let c = compile_arm(&arms_dir(), "tea", &inputs(&stubs, out.path())).expect("compile");
    let bin: BTreeSet<String> = c
        .links
        .iter()
        .filter(|l| l.at.parent() == Some(c.policy.bin_dir.as_path()))
        .map(|l| {
            l.at.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect();
    let commands: BTreeSet<String> = c.policy.commands.keys().cloned().collect();
    assert_eq!(bin, commands);
    assert!(
        c.links
            .iter()
            .any(|l| l.at == out.path().join("helpers/tea/git"))
    );
    assert_eq!(c.files.len(), 1);
    assert!(c.files[0].1.contains(TOKEN) && c.files[0].0.ends_with("tea-config/tea/config.yml"));
}

#[test]
fn rules_round_trip_through_the_compiled_json() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "tea", &inputs(&stubs, out.path())).expect("compile");
    let back =
        Policy::from_json(Path::new("x"), p.to_json().expect("json").as_bytes()).expect("load");
    assert_eq!(back, p);
    assert!(
        matches!(back.commands["sort"].deny[0], ArgRule::LongOption { ref name, .. } if name == "compress-program")
    );
}

#[test]
fn every_shipped_deny_rule_carries_a_deny_example() {
    let dir = arms_dir();
    let harmless: guard_sh::armbuild::source::HarmlessFile =
        toml::from_str(&std::fs::read_to_string(dir.join("harmless.toml")).expect("read"))
            .expect("parse");
    let mut rules: Vec<(String, usize)> = harmless
        .utilities
        .iter()
        .flat_map(|(n, u)| {
            u.deny
                .iter()
                .map(move |r| (n.clone(), r.deny_examples.len()))
        })
        .collect();
    for arm in ["gitea-axi", "tea", "raw-api", "gitea-mcp"] {
        let (_, file) = guard_sh::armbuild::source::read_arm(&dir, arm).expect("arm");
        for tool in file.tool.iter() {
            rules.extend(
                tool.deny
                    .iter()
                    .map(|r| (arm.to_string(), r.deny_examples.len())),
            );
        }
    }
    assert!(rules.len() >= 10, "only {} rules", rules.len());
    for (owner, examples) in rules {
        assert!(examples > 0, "a deny rule of {owner} has no deny example");
    }
}

#[test]
fn everyday_agent_commands_pass_every_argument_rule() {
    let stubs = all_stubs();
    let out = tempfile::tempdir().expect("tempdir");
    let p = compile(&arms_dir(), "tea", &inputs(&stubs, out.path())).expect("compile");
    let lines: &[&[&str]] = &[
        &["sort", "-k2", "-n", "file.txt"],
        &["sort", "-rn"],
        &["sort", "--reverse", "--key=2", "file.txt"],
        &["uniq", "-c"],
        &["grep", "-rn", "TODO", "."],
        &["grep", "-c", "open"],
        &["ls", "-la"],
        &["date", "+%Y-%m-%d"],
        &["date", "+%A"],
        &["tail", "-n", "+2"],
        &["fold", "-w", "80"],
        &["column", "-t"],
        &["diff", "a.txt", "b.txt"],
        &["diff", "-u", "/dev/fd/63", "/dev/fd/62"],
        &["comm", "-12", "a.txt", "b.txt"],
        &["cut", "-d,", "-f1"],
        &["tr", "-d", "\""],
        &["wc", "-l"],
        &["head", "-n", "3"],
        &["jq", "-r", ".[].index"],
        &["tee", "out.txt"],
        &["mkdir", "-p", "out"],
        &["tea", "issues", "list", "--output", "json"],
        &[
            "tea",
            "pulls",
            "create",
            "--head",
            "feature",
            "--base",
            "main",
            "--title",
            "Add feature",
        ],
        &["tea", "comment", "3", "Looks good"],
        &["tea", "issues", "edit", "3", "--add-labels", "bug"],
    ];
    for argv in lines {
        assert_eq!(denied(&p, argv), None, "{argv:?} denied");
        assert!(
            p.commands.contains_key(argv[0]),
            "{} not in the arm",
            argv[0]
        );
    }
}
