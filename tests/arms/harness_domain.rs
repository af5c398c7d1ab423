//! The harness under guard-sh-launch as the agent's own process would act
//! on it: a harness stand-in (`/bin/sh`, named as the harness program so
//! its own redirections are the harness's in-process writes) tries to
//! write and read around the arm, to reach the launcher's and the line
//! server's descriptors, and to plant configuration in its homes. The
//! oracles are outside guard-sh: hashes of every protected file and of a
//! file outside the arm, the files that exist afterwards, and the log the
//! verifier reads.

use crate::launch::{Fixture, files_beneath, finding_kinds, text};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

impl Fixture {
    /// `guard-sh-launch [extra] -- /bin/sh -c SCRIPT`, with the arm's
    /// variables and `ARM` naming the arm folder.
    fn harness_script(&self, extra: &[&str], script: &str) -> Output {
        let mut c = self.launch(extra, &["/bin/sh", "-c", script]);
        self.with_arm_env(&mut c)
            .env("ARM", &self.arm)
            .env("OUTSIDE", self.outside());
        c.output().expect("run guard-sh-launch")
    }

    /// An operator's file beside the arm.
    fn outside(&self) -> PathBuf {
        self.root.path().join("operator-notes.txt")
    }

    fn records(&self) -> Vec<Value> {
        std::fs::read_to_string(self.audit_log())
            .expect("read the audit log")
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON record"))
            .collect()
    }
}

/// SHA-256 of every file beneath each of `paths` (a file itself).
fn hashes(paths: &[PathBuf]) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for path in paths {
        let files = if path.is_dir() {
            files_beneath(path)
        } else {
            vec![path.clone()]
        };
        for file in files {
            let bytes = std::fs::read(&file).unwrap_or_default();
            out.insert(file, hex(&Sha256::digest(&bytes)));
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `TARGET ok` or `TARGET denied` for each append the harness tries.
const WRITES: &str = r#"
try() { if ( eval "$2" ) 2>/dev/null; then echo "$1 ok"; else echo "$1 denied"; fi; }
try work 'echo w > "$ARM/work/w"'
try tmp 'echo t > "$ARM/tmp/t"'
try home 'echo h > "$HOME/h"'
try codex-home 'echo c >> "$CODEX_HOME/config.toml"'
try audit-log 'echo "{\"forged\":1}" >> "$ARM/audit/audit.jsonl"'
try audit-truncate ': > "$ARM/audit/audit.jsonl"'
try audit-new 'echo x > "$ARM/audit/more.jsonl"'
try policy 'echo x >> "$ARM/policy.json"'
try definition 'echo x >> "$ARM/arm.json"'
try runtimes 'echo x >> "$ARM/runtimes/system-prompt.txt"'
try tool-login 'echo x > "$ARM/tea-config/planted"'
try bin 'echo x > "$ARM/bin/python3"'
try outside 'echo x >> "$OUTSIDE"'
try tmp-root 'echo x > /tmp/guard-sh-harness-$$'
try read-policy 'cat "$ARM/policy.json" > /dev/null'
try read-audit 'cat "$ARM/audit/audit.jsonl" > /dev/null'
try read-login 'cat "$ARM"/tea-config/*/* > /dev/null'
"#;

#[test]
fn the_harness_itself_writes_only_work_tmp_and_its_homes_and_reads_no_log_or_login() {
    let f = Fixture::new();
    std::fs::write(f.outside(), "the operator's\n").expect("write outside");
    let protected: Vec<PathBuf> = ["policy.json", "arm.json", "runtimes", "tea-config", "bin"]
        .iter()
        .map(|p| f.arm.join(p))
        .chain([f.outside()])
        .collect();
    let before = hashes(&protected);
    let o = f.harness_script(&[], WRITES);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let said: BTreeMap<String, String> = text(&o.stdout)
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    for allowed in ["work", "tmp", "home", "codex-home", "read-policy"] {
        assert_eq!(
            said.get(allowed).map(String::as_str),
            Some("ok"),
            "{said:?}"
        );
    }
    for refused in [
        "audit-log",
        "audit-truncate",
        "audit-new",
        "policy",
        "definition",
        "runtimes",
        "tool-login",
        "bin",
        "outside",
        "tmp-root",
        "read-audit",
        "read-login",
    ] {
        assert_eq!(
            said.get(refused).map(String::as_str),
            Some("denied"),
            "{refused}: {said:?}"
        );
    }
    assert_eq!(hashes(&protected), before);
    assert!(!f.arm.join("audit/more.jsonl").exists());
    assert_only_records(&f);
    // The log is whole: the harness's and the server's sessions and the
    // sealed end, every record checked.
    let (status, report) = f.verify_requiring_harness();
    assert_eq!(finding_kinds(&report), ["no-lines"], "{report}");
    assert_eq!(status, 1, "{report}");
}

#[test]
fn the_harness_reaches_neither_the_launchers_nor_the_servers_descriptors() {
    let f = Fixture::new();
    // Every descriptor of the launcher (the harness's parent) and of the
    // server (named in GUARD_SH_SERVER), opened again for appending.
    let script = r#"
        server=$(echo "$GUARD_SH_SERVER" | cut -d' ' -f2)
        for pid in $PPID $server; do
            for fd in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 256 257 258 259 260; do
                if ( echo '{"forged":1}' >> /proc/$pid/fd/$fd ) 2>/dev/null; then
                    echo "reached $pid/$fd"
                fi
            done
            cat /proc/$pid/environ 2>/dev/null | tr '\0' '\n'
        done
        echo done
    "#;
    let o = f.harness_script(&[], script);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.ends_with("done\n"), "{stdout}");
    assert!(!stdout.contains("reached"), "{stdout}");
    assert_only_records(&f);
    // Their environment blocks are readable (Landlock's ptrace rule does
    // not cover them), so neither holds the key: the launcher never had
    // it there, the server overwrote it.
    let key = f
        .records()
        .into_iter()
        .find(|r| r["type"] == "harness-end")
        .and_then(|r| r["key"].as_str().map(str::to_string))
        .expect("the revealed key");
    assert!(stdout.contains("GUARD_SH_TRIAL_SEAL=0000"), "{stdout}");
    assert!(!stdout.contains(&key), "{stdout}");
}

/// Every line of the log is a record guard-sh wrote (a session's), not
/// one the harness appended.
fn assert_only_records(f: &Fixture) {
    let log = std::fs::read_to_string(f.audit_log()).expect("read the log");
    for line in log.lines() {
        let record: Value = serde_json::from_str(line).expect("a JSON record");
        assert!(record["session"].is_string(), "{line}");
        assert!(record["mac"].is_string(), "{line}");
    }
}

/// The harness gets no key whatever the kernel offers: with a server it
/// stays with the server, with Landlock on and off.
#[test]
fn the_trial_key_never_reaches_the_harness_when_a_server_holds_the_log() {
    for landlock in ["on", "off"] {
        let f = Fixture::new();
        let mut c = f.launch(&[], &["/bin/sh", "-c", "cat /proc/self/environ"]);
        f.with_arm_env(&mut c);
        if landlock == "off" {
            c.env("GUARD_SH_LANDLOCK", "off");
        }
        let o = c.output().expect("run guard-sh-launch");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let environ = text(&o.stdout);
        assert!(environ.contains("GUARD_SH_TRIAL="), "{landlock}: {environ}");
        assert!(
            !environ.contains("GUARD_SH_TRIAL_SEAL"),
            "{landlock}: {environ}"
        );
        let key = f
            .records()
            .into_iter()
            .find(|r| r["type"] == "harness-end")
            .and_then(|r| r["key"].as_str().map(str::to_string))
            .expect("the revealed key");
        assert!(!environ.contains(&key), "{landlock}");
    }
}

/// The line server appends what the harness cannot: a line the harness
/// runs through the arm's shell is recorded in the trial, sealed, and the
/// trial verifies; with `--no-server` the harness's own guard-sh does
/// the same (it then holds the key and the audit folder).
#[test]
fn a_line_the_confined_harness_runs_is_recorded_in_its_trial_with_or_without_the_server() {
    for extra in [&[][..], &["--no-server"][..]] {
        let f = Fixture::new();
        let shell = f.definition["shell"]["path"].as_str().expect("shell");
        let script = format!("{shell} -c 'tea issues list'");
        let o = f.harness_script(extra, &script);
        assert_eq!(o.status.code(), Some(0), "{extra:?}: {}", text(&o.stderr));
        assert_eq!(text(&o.stdout), "issues list\n", "{extra:?}");
        let records = f.records();
        let harness = records
            .iter()
            .find(|r| r["type"] == "harness")
            .expect("a harness record");
        let line = records
            .iter()
            .find(|r| r["type"] == "session" && r["mode"] == "command")
            .expect("the line's session");
        assert_eq!(line["trial"], harness["session"], "{extra:?}");
        assert_eq!(line["client"].is_u64(), extra.is_empty(), "{line}");
        let (status, report) = f.verify_requiring_harness();
        assert_eq!(status, 0, "{extra:?}: {report}");
    }
}

/// What a trial writes into its homes that would steer the next one (a
/// Codex MCP server in `CODEX_HOME/config.toml`, a hook file) is reported
/// as planted by the next trial; the operator's own configuration copied
/// in with `--seed-home` is not, and replaces a planted file of its name.
#[test]
fn configuration_planted_in_the_harness_homes_is_reported_unless_it_is_the_seeds() {
    let f = Fixture::new();
    let plant = r#"
        printf '[mcp_servers.x]\ncommand = "node"\nargs = ["-e", "1"]\n' >> "$CODEX_HOME/config.toml"
        echo '{}' > "$CODEX_HOME/hooks.json"
        mkdir -p "$CLAUDE_CONFIG_DIR" && echo '{"hooks":{}}' > "$CLAUDE_CONFIG_DIR/settings.json"
    "#;
    let o = f.harness_script(&[], plant);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let seed = f.root.path().join("seed");
    std::fs::create_dir_all(seed.join(".codex")).expect("mkdir seed");
    std::fs::write(seed.join(".codex/config.toml"), "model = \"m\"\n").expect("seed");
    let seed_arg = seed.to_str().expect("utf-8");
    for extra in [&[][..], &["--seed-home", seed_arg][..]] {
        let o = f.harness_script(extra, "true");
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    }
    let planted: Vec<Value> = f
        .records()
        .into_iter()
        .filter(|r| r["type"] == "harness")
        .map(|r| match &r["planted"] {
            Value::Null => serde_json::json!([]),
            planted => planted.clone(),
        })
        .collect();
    assert_eq!(planted[0], serde_json::json!([]), "{planted:?}");
    assert_eq!(
        planted[1],
        serde_json::json!([
            "harness-home/.claude/settings.json",
            "harness-home/.codex/config.toml",
            "harness-home/.codex/hooks.json"
        ]),
        "{planted:?}"
    );
    assert_eq!(
        planted[2],
        serde_json::json!([
            "harness-home/.claude/settings.json",
            "harness-home/.codex/hooks.json"
        ]),
        "{planted:?}"
    );
    let codex_config = f.arm.join("harness-home/.codex/config.toml");
    assert_eq!(
        std::fs::read_to_string(codex_config).expect("config"),
        "model = \"m\"\n"
    );
    let (status, report) = f.verify_requiring_harness();
    assert_eq!(status, 1, "{report}");
    assert!(
        report
            .to_string()
            .contains("harness-home/.codex/hooks.json"),
        "{report}"
    );
    // A fresh trial empties the homes: nothing is planted.
    let o = f.harness_script(&["--fresh", "--seed-home", seed_arg], "true");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let last = f
        .records()
        .into_iter()
        .find(|r| r["type"] == "harness")
        .expect("the fresh trial");
    assert!(last["planted"].is_null(), "{last}");
    assert!(Path::new(&f.arm.join("harness-home/.codex/config.toml")).is_file());
}

/// A trial's harness may leave a link in its home where a folder goes
/// (`.codex` → a folder outside the arm). The next launch writes the
/// homes and the seed before the harness's domain exists, so it must not
/// follow it: the link is replaced by a folder and reported as planted,
/// and nothing is written where it led. Judged by the outside folder.
#[test]
fn a_link_left_in_the_harness_home_is_replaced_not_followed() {
    let f = Fixture::new();
    let outside = f.root.path().join("operator-dir");
    std::fs::create_dir(&outside).expect("mkdir outside");
    let home = f.arm.join("harness-home");
    std::fs::create_dir_all(&home).expect("mkdir home");
    std::os::unix::fs::symlink(&outside, home.join(".codex")).expect("plant a link");
    std::os::unix::fs::symlink(f.root.path().join("made-by-launcher"), home.join(".cache"))
        .expect("plant a dangling link");
    let seed = f.root.path().join("seed");
    std::fs::create_dir_all(seed.join(".codex")).expect("mkdir seed");
    std::fs::write(seed.join(".codex/config.toml"), "model = \"m\"\n").expect("seed");
    let o = f.harness_script(&["--seed-home", seed.to_str().expect("utf-8")], "true");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(std::fs::read_dir(&outside).expect("outside").count(), 0);
    assert!(!f.root.path().join("made-by-launcher").exists());
    let codex = home.join(".codex");
    assert!(std::fs::symlink_metadata(&codex).expect("codex").is_dir());
    assert!(codex.join("config.toml").is_file());
    let harness = f
        .records()
        .into_iter()
        .find(|r| r["type"] == "harness")
        .expect("harness record");
    let planted = harness["planted"].to_string();
    assert!(
        planted.contains("harness-home/.codex") && planted.contains("harness-home/.cache"),
        "{harness}"
    );
}
