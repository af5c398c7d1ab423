//! arm-build end to end: the built binary, stub tools first on PATH, real
//! output folders; every emitted file is parsed back and checked.

#![allow(clippy::expect_used)] // test code reports failures by panicking

use serde_json::Value;
use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const TOKEN: &str = "f00dfeed0123456789abcdef0123456789abcdef";
const HOST: &str = "http://127.0.0.1:3000";
const ARMS: [&str; 4] = ["gitea-axi", "tea", "raw-api", "gitea-mcp"];
const HARMLESS: [&str; 37] = [
    "cat", "head", "tail", "wc", "cut", "tr", "sort", "uniq", "comm", "grep", "egrep", "fgrep",
    "diff", "echo", "printf", "ls", "pwd", "cd", "mkdir", "rmdir", "tee", "test", "[", "true",
    "false", "basename", "dirname", "seq", "sleep", "date", "nl", "rev", "tac", "fold", "column",
    "expr", "jq",
];

struct Fixture {
    root: tempfile::TempDir,
    stubs: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        Fixture::with_stubs(&["tea", "gitea-axi", "curl", "gitea-mcp", "node", "git"])
    }

    fn with_stubs(names: &[&str]) -> Fixture {
        let root = tempfile::tempdir().expect("tempdir");
        let stubs = root.path().join("stubs");
        std::fs::create_dir(&stubs).expect("mkdir");
        for n in names {
            stub(&stubs, n);
        }
        Fixture { root, stubs }
    }

    fn path_env(&self) -> String {
        format!("{}:/usr/bin:/bin", self.stubs.display())
    }

    fn out(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_arm-build"))
            .arg("--print-definition")
            .args(args)
            .env("PATH", self.path_env())
            .env("FORGE_TOKEN", TOKEN)
            .output()
            .expect("run arm-build")
    }

    /// Build `arm` into `out` with `--token-env`; returns the printed definition.
    fn build(&self, arm: &str, out: &Path, extra: &[&str]) -> Value {
        let out_s = out.to_string_lossy().into_owned();
        let args = build_args(arm, "FORGE_TOKEN", &out_s, extra);
        let o = self.run(&args);
        assert!(
            o.status.success(),
            "{arm}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!String::from_utf8_lossy(&o.stderr).contains(TOKEN));
        serde_json::from_slice(&o.stdout).expect("definition JSON on stdout")
    }
}

/// `ARM --host HOST --repo o/r --token-env VAR --out OUT`, then `extra`.
fn build_args<'a>(
    arm: &'a str,
    token_env: &'a str,
    out: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let mut args = vec![
        arm,
        "--host",
        HOST,
        "--repo",
        "o/r",
        "--token-env",
        token_env,
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

fn stub(dir: &Path, name: &str) {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\necho {name} \"$@\"\n")).expect("write stub");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).expect("read")).expect("json")
}

fn names_in(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

#[test]
fn base_prompt_is_byte_identical_across_the_four_arms() {
    let f = Fixture::new();
    let defs: Vec<Value> = ARMS.iter().map(|a| f.build(a, &f.out(a), &[])).collect();
    let base = s(&defs[0]["basePrompt"]).to_string();
    assert!(
        base.contains("o/r") && base.contains(HOST) && base.contains(TOKEN),
        "{base}"
    );
    for (arm, d) in ARMS.iter().zip(&defs) {
        assert_eq!(s(&d["basePrompt"]), base, "{arm}");
        let prompt = s(&d["systemPrompt"]);
        assert_eq!(prompt, format!("{base}\n\n{}", s(&d["bootstrap"])), "{arm}");
        assert!(prompt.as_bytes().starts_with(base.as_bytes()));
    }
    for tool in ["tea", "curl", "gitea-axi", "gitea-mcp", "mcp", "MCP"] {
        assert!(!base.contains(tool), "base prompt names {tool}");
    }
}

#[test]
fn gitea_axi_prompt_holds_the_skill_body_but_not_its_frontmatter() {
    let f = Fixture::new();
    let d = f.build("gitea-axi", &f.out("a"), &[]);
    let skill_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/gitea-axi/SKILL.md");
    let skill = std::fs::read_to_string(&skill_file).expect("skill");
    let (front, body) = skill
        .trim_start_matches("---\n")
        .split_once("\n---\n")
        .expect("frontmatter");
    let prompt = s(&d["systemPrompt"]);
    assert!(prompt.contains(body.trim()), "skill body missing");
    for line in front.lines() {
        assert!(
            !prompt.contains(line),
            "frontmatter line {line:?} in prompt"
        );
    }
    let bootstrap = s(&d["bootstrap"]);
    let intro: Vec<&str> = bootstrap
        .split("\n\n")
        .next()
        .unwrap_or_default()
        .lines()
        .collect();
    assert!(
        intro.len() <= 2 && intro[0].contains("`gitea-axi`"),
        "{intro:?}"
    );
    // The bundled skill is the one compiled into arm-build.
    assert_eq!(s(&d["skill"]), "builtin:skills/gitea-axi/SKILL.md");
}

#[test]
fn explicit_skill_replaces_the_bundled_one() {
    let f = Fixture::new();
    let mine = f.root.path().join("MY.md");
    std::fs::write(
        &mine,
        "---\nname: x\ndescription: mine\n---\nUse it well.\n",
    )
    .expect("write");
    let d = f.build(
        "gitea-axi",
        &f.out("a"),
        &["--skill", mine.to_str().unwrap_or_default()],
    );
    assert!(s(&d["systemPrompt"]).ends_with("Its Agent Skill follows.\n\nUse it well."));
    assert!(!s(&d["systemPrompt"]).contains("description: mine"));
}

#[test]
fn installed_tool_skill_is_found_next_to_its_package() {
    let f = Fixture::with_stubs(&["node", "git", "tea"]);
    let pkg = f.root.path().join("lib/node_modules/gitea-axi");
    std::fs::create_dir_all(pkg.join("bin")).expect("mkdir");
    std::fs::write(pkg.join("package.json"), "{}").expect("write");
    stub(&pkg.join("bin"), "cli.js");
    std::fs::write(
        pkg.join("SKILL.md"),
        "---\nname: gitea-axi\n---\nInstalled skill body.\n",
    )
    .expect("write");
    std::os::unix::fs::symlink(pkg.join("bin/cli.js"), f.stubs.join("gitea-axi")).expect("link");
    let d = f.build("gitea-axi", &f.out("a"), &[]);
    assert!(s(&d["systemPrompt"]).ends_with("Installed skill body."));
    assert_eq!(
        PathBuf::from(s(&d["skill"])),
        std::fs::canonicalize(pkg.join("SKILL.md")).expect("canon")
    );
}

#[test]
fn tea_and_raw_api_bootstraps_are_single_lines() {
    let f = Fixture::new();
    let tea = f.build("tea", &f.out("t"), &[]);
    let b = s(&tea["bootstrap"]);
    assert!(
        !b.contains('\n') && b.contains("`tea`") && b.contains("tea --help"),
        "{b}"
    );
    let raw = f.build("raw-api", &f.out("r"), &[]);
    let b = s(&raw["bootstrap"]);
    assert!(
        !b.contains('\n') && b.contains("`curl`") && b.contains(&format!("{HOST}/api/swagger")),
        "{b}"
    );
    let mcp = f.build("gitea-mcp", &f.out("m"), &[]);
    assert!(!s(&mcp["bootstrap"]).contains('\n'));
}

#[test]
fn gitea_mcp_has_no_shell_and_its_server_env_holds_host_and_token() {
    let f = Fixture::new();
    let out = f.out("m");
    let d = f.build("gitea-mcp", &out, &[]);
    assert_eq!(d["shell"], Value::Null);
    assert_eq!(s(&d["mcp"]["env"]["GITEA_HOST"]), HOST);
    assert_eq!(s(&d["mcp"]["env"]["GITEA_ACCESS_TOKEN"]), TOKEN);
    let args: Vec<&str> = d["mcp"]["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(s)
        .collect();
    assert_eq!(args, ["-t", "stdio"]);
    assert_eq!(
        PathBuf::from(s(&d["mcp"]["command"])),
        std::fs::canonicalize(f.stubs.join("gitea-mcp")).expect("c")
    );
    assert!(names_in(&out.join("bin")).is_empty());
    let on_disk = read_json(&out.join("arm.json"));
    assert_eq!(on_disk, d);
}

#[test]
fn shell_arm_bin_folders_hold_exactly_the_tool_and_the_harmless_utilities() {
    let f = Fixture::new();
    let has_binary = |n: &str| {
        ["/usr/bin", "/bin"]
            .iter()
            .any(|d| Path::new(d).join(n).is_file())
    };
    for (arm, tool) in [
        ("gitea-axi", "gitea-axi"),
        ("tea", "tea"),
        ("raw-api", "curl"),
    ] {
        let out = f.out(arm);
        let d = f.build(arm, &out, &[]);
        let bin = PathBuf::from(s(&d["shell"]["binDir"]));
        assert_eq!(bin, out.join("bin"));
        let mut want: BTreeSet<String> = HARMLESS
            .iter()
            .filter(|n| has_binary(n))
            .map(|n| n.to_string())
            .collect();
        want.insert(tool.to_string());
        assert_eq!(names_in(&bin), want, "{arm}");
        assert!(want.len() >= 36, "{arm}: only {} entries", want.len());
        let target = std::fs::read_link(bin.join(tool)).expect("link");
        assert_eq!(
            target,
            std::fs::canonicalize(f.stubs.join(tool)).expect("canon")
        );
        let policy = read_json(&out.join("policy.json"));
        let commands: BTreeSet<String> = policy["commands"]
            .as_object()
            .expect("commands")
            .keys()
            .cloned()
            .collect();
        assert_eq!(commands, want, "{arm}: policy commands differ from bin/");
    }
}

#[test]
fn gitea_axi_helpers_folder_links_env_node_git_tea_and_not_the_bin_folder() {
    let f = Fixture::new();
    let out = f.out("a");
    f.build("gitea-axi", &out, &[]);
    let policy = read_json(&out.join("policy.json"));
    let tool = &policy["commands"]["gitea-axi"];
    let path_env: Vec<&str> = tool["path_env"]
        .as_array()
        .expect("path_env")
        .iter()
        .map(s)
        .collect();
    assert_eq!(path_env, [out.join("helpers/gitea-axi").to_string_lossy()]);
    let names = names_in(&out.join("helpers/gitea-axi"));
    assert_eq!(
        names,
        ["env", "git", "node", "tea"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
    assert!(!path_env.contains(&out.join("bin").to_string_lossy().as_ref()));
}

#[test]
fn fifth_arm_added_as_a_toml_file_builds_with_no_code_change() {
    let f = Fixture::new();
    stub(&f.stubs, "gh");
    let arms = f.root.path().join("arms");
    std::fs::create_dir(&arms).expect("mkdir");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("arms");
    for file in ["harmless.toml", "base-prompt.txt"] {
        std::fs::copy(shipped.join(file), arms.join(file)).expect("copy");
    }
    std::fs::write(
        arms.join("gh.toml"),
        r#"
name = "gh"
description = "GitHub's gh CLI without gh api"
[tool]
name = "gh"
helpers = ["git"]
shell_env = ["GH_TOKEN"]
[tool.env]
GH_TOKEN = "{token}"
GH_HOST = "{host_name}"
[[tool.deny]]
match = "subcommand"
name = "api"
reason = "gh api is the raw-API escape hatch"
allow_examples = [["gh", "issue", "list"]]
deny_examples = [["gh", "api", "/user"]]
[bootstrap]
text = "The one tool you can run is `gh`; `gh --help` lists its commands."
"#,
    )
    .expect("write");
    let list = f.run(&["--list", "--arms", arms.to_str().unwrap_or_default()]);
    assert!(list.status.success());
    assert_eq!(
        String::from_utf8_lossy(&list.stdout),
        "gh\tGitHub's gh CLI without gh api\n"
    );
    let out = f.out("gh");
    let d = f.build("gh", &out, &["--arms", arms.to_str().unwrap_or_default()]);
    assert_eq!(s(&d["arm"]), "gh");
    assert_eq!(s(&d["shell"]["env"]["GH_TOKEN"]), TOKEN);
    assert!(names_in(&out.join("bin")).contains("gh"));
    let policy = read_json(&out.join("policy.json"));
    assert_eq!(s(&policy["tool"]), "gh");
    assert_eq!(s(&policy["commands"]["gh"]["deny"][0]["name"]), "api");
    assert_eq!(s(&policy["commands"]["gh"]["env"]["GH_HOST"]), "127.0.0.1");
}

#[test]
fn missing_tool_binary_is_a_clear_error_naming_it_with_exit_2() {
    let f = Fixture::with_stubs(&["git"]);
    let out = f.out("t");
    let o = f.run(&[
        "tea",
        "--host",
        HOST,
        "--repo",
        "o/r",
        "--token",
        TOKEN,
        "--out",
        out.to_str().unwrap_or_default(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("\"tea\"") && err.contains("not found on PATH") && err.contains("tea.toml"),
        "{err}"
    );
    // The built-in arms are named as such, not by the temporary folder
    // they were unpacked into for the build (gone by now).
    assert!(err.contains("(built-in)/arms/tea.toml"), "{err}");
    assert!(!err.contains("guard-sh-arms-"), "{err}");
    // The failed build leaves no folder behind.
    assert!(!out.exists(), "{out:?}");
    assert!(!err.contains(TOKEN));
    assert!(o.stdout.is_empty());
}

#[test]
fn rebuild_into_the_same_folder_replaces_cleanly() {
    let f = Fixture::new();
    let out = f.out("x");
    f.build("tea", &out, &[]);
    std::fs::write(out.join("work/notes.txt"), "kept").expect("write");
    std::os::unix::fs::symlink("/usr/bin/env", out.join("bin/env")).expect("plant");
    f.build("tea", &out, &["--keep-work"]);
    assert!(
        !out.join("bin/env").exists() && std::fs::symlink_metadata(out.join("bin/env")).is_err()
    );
    let first = names_in(&out);
    f.build("tea", &out, &["--keep-work"]);
    assert_eq!(names_in(&out), first);
    f.build("raw-api", &out, &["--keep-work"]);
    let bin = names_in(&out.join("bin"));
    assert!(bin.contains("curl") && !bin.contains("tea"));
    assert!(
        !out.join("tea-config").exists(),
        "stale tea login left behind"
    );
    assert!(!out.join("helpers/tea").exists());
    assert_eq!(
        std::fs::read_to_string(out.join("work/notes.txt")).expect("read"),
        "kept",
        "--keep-work keeps the work folder"
    );
    // Without it, the next build starts the next trial with an empty one.
    f.build("tea", &out, &[]);
    assert!(names_in(&out.join("work")).is_empty());
    f.build("gitea-mcp", &out, &[]);
    assert!(names_in(&out.join("bin")).is_empty());
    assert!(!out.join("bash").exists());
}

#[test]
fn foreign_non_empty_out_folder_is_refused() {
    let f = Fixture::new();
    let out = f.out("mine");
    std::fs::create_dir(&out).expect("mkdir");
    std::fs::write(out.join("precious.txt"), "x").expect("write");
    let o = f.run(&build_args(
        "tea",
        "FORGE_TOKEN",
        out.to_str().unwrap_or_default(),
        &[],
    ));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not made by arm-build"));
    assert_eq!(
        names_in(&out),
        ["precious.txt".to_string()].into_iter().collect()
    );
}

#[test]
fn token_never_appears_on_stderr() {
    let f = Fixture::new();
    let out = f.out("t");
    let out_s = out.to_string_lossy().into_owned();
    let cases: Vec<Vec<&str>> = vec![
        vec![
            "tea", "--host", HOST, "--repo", "o/r", "--token", TOKEN, "--out", &out_s,
        ],
        vec![
            "tea", "--host", "ftp://x", "--repo", "o/r", "--token", TOKEN, "--out", &out_s,
        ],
        vec![
            "tea", "--host", HOST, "--repo", "bad", "--token", TOKEN, "--out", &out_s,
        ],
        vec![
            "nope", "--host", HOST, "--repo", "o/r", "--token", TOKEN, "--out", &out_s,
        ],
        vec![
            "tea", "--host", HOST, "--repo", "o/r", "--token", TOKEN, "--bogus", "--out", &out_s,
        ],
        vec![
            "tea",
            "--host",
            HOST,
            "--repo",
            "o/r",
            "--token",
            TOKEN,
            "--token-env",
            "FORGE_TOKEN",
            "--out",
            &out_s,
        ],
        build_args("tea", "FORGE_TOKEN", &out_s, &[]),
        build_args("gitea-mcp", "FORGE_TOKEN", &out_s, &[]),
    ];
    for args in cases {
        let o = f.run(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains(TOKEN), "{args:?}: token on stderr: {err}");
        assert!(
            !err.contains(&TOKEN[..12]),
            "{args:?}: token prefix on stderr"
        );
    }
}

#[test]
fn token_env_naming_an_unset_variable_is_error_exit_2() {
    let f = Fixture::new();
    let out = f.out("t");
    let o = f.run(&build_args(
        "tea",
        "NO_SUCH_VAR_X",
        out.to_str().unwrap_or_default(),
        &[],
    ));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("NO_SUCH_VAR_X is not set"));
}

#[test]
fn every_runtime_config_parses_and_disables_web_tools() {
    let f = Fixture::new();
    for arm in ARMS {
        let out = f.out(arm);
        let d = f.build(arm, &out, &[]);
        let rt = &d["runtimes"];
        let sdk = read_json(Path::new(s(&rt["claudeAgentSdk"])));
        let settings = read_json(Path::new(s(&rt["claudeCode"]["settings"])));
        let mcp = read_json(Path::new(s(&rt["claudeCode"]["mcpConfig"])));
        let flags = read_json(Path::new(s(&rt["claudeCode"]["flags"])));
        let codex: toml::Table = std::fs::read_to_string(s(&rt["codex"]))
            .expect("read")
            .parse()
            .expect("codex toml");
        let list = |v: &Value| -> Vec<String> {
            v.as_array()
                .expect("array")
                .iter()
                .map(|x| s(x).to_string())
                .collect()
        };
        let disallowed = list(&sdk["disallowedTools"]);
        let denied = list(&settings["permissions"]["deny"]);
        let flag_list = list(&flags);
        let flag_after = |name: &str| {
            flag_list
                .iter()
                .skip_while(|a| *a != name)
                .nth(1)
                .cloned()
                .unwrap_or_default()
        };
        for tool in ["WebFetch", "WebSearch"] {
            assert!(
                disallowed.iter().any(|t| t == tool),
                "{arm}: sdk allows {tool}"
            );
            assert!(
                denied.iter().any(|t| t == tool),
                "{arm}: settings allow {tool}"
            );
            assert!(
                flag_after("--disallowedTools")
                    .split(',')
                    .any(|t| t == tool),
                "{arm}: flags allow {tool}"
            );
        }
        assert_eq!(
            codex.get("web_search").and_then(|v| v.as_str()),
            Some("disabled"),
            "{arm}"
        );
        assert_eq!(s(&sdk["systemPrompt"]), s(&d["systemPrompt"]));
        assert_eq!(
            std::fs::read_to_string(flag_after("--system-prompt-file")).expect("prompt file"),
            s(&d["systemPrompt"])
        );
        assert_eq!(flag_after("--settings"), s(&rt["claudeCode"]["settings"]));
        let shell_off = |v: &[String]| v.iter().any(|t| t == "Bash");
        let codex_shell = codex
            .get("features")
            .and_then(|f| f.get("shell_tool"))
            .and_then(|v| v.as_bool());
        if arm == "gitea-mcp" {
            assert!(
                shell_off(&disallowed) && shell_off(&denied),
                "{arm}: Bash not disabled"
            );
            assert_eq!(codex_shell, Some(false));
            let unified = codex
                .get("features")
                .and_then(|f| f.get("unified_exec"))
                .and_then(|v| v.as_bool());
            assert_eq!(unified, Some(false));
            assert_eq!(list(&sdk["allowedTools"]), ["mcp__gitea"]);
            assert_eq!(
                s(&mcp["mcpServers"]["gitea"]["env"]["GITEA_ACCESS_TOKEN"]),
                TOKEN
            );
            let server = codex
                .get("mcp_servers")
                .and_then(|m| m.get("gitea"))
                .expect("codex mcp server");
            assert_eq!(
                server
                    .get("env")
                    .and_then(|e| e.get("GITEA_HOST"))
                    .and_then(|v| v.as_str()),
                Some(HOST)
            );
            assert_eq!(sdk["mcpServers"], mcp["mcpServers"]);
        } else {
            assert!(
                !shell_off(&disallowed),
                "{arm}: Bash disabled on a shell arm"
            );
            assert_eq!(codex_shell, None);
            assert_eq!(mcp["mcpServers"], serde_json::json!({}));
            let shell = s(&d["shell"]["path"]);
            assert_eq!(s(&sdk["env"]["SHELL"]), shell);
            assert_eq!(s(&sdk["env"]["CLAUDE_CODE_SHELL"]), shell);
            assert_eq!(s(&settings["env"]["SHELL"]), shell);
            assert_eq!(
                PathBuf::from(s(&sdk["env"]["CLAUDE_CODE_TMPDIR"])),
                out.join("tmp")
            );
            let set = codex
                .get("shell_environment_policy")
                .and_then(|p| p.get("set"))
                .expect("codex env");
            assert_eq!(set.get("SHELL").and_then(|v| v.as_str()), Some(shell));
            // `-s workspace-write` lets Codex (its patch tool too) write
            // only the work and temp folders: never the log or a login.
            let roots: Vec<PathBuf> = codex
                .get("sandbox_workspace_write")
                .and_then(|t| t.get("writable_roots"))
                .and_then(|r| r.as_array())
                .expect("codex writable_roots")
                .iter()
                .map(|v| PathBuf::from(v.as_str().expect("a path")))
                .collect();
            assert_eq!(roots, [out.join("work"), out.join("tmp")], "{arm}");
            assert!(
                sdk["env"].get("PATH").is_none(),
                "{arm}: the harness's own PATH must not be replaced"
            );
        }
    }
}

#[test]
fn shell_env_pins_the_policy_and_points_at_a_path_containing_bash() {
    let f = Fixture::new();
    let out = f.out("t");
    let d = f.build("tea", &out, &[]);
    let sh = &d["shell"];
    let path = s(&sh["path"]);
    assert!(path.contains("bash"), "{path}");
    // guard-sh-client is built next to arm-build: the harness runs it
    // (through `bash/guard-sh`, a name with `bash` in it), and it hands
    // each line to the trial's server or becomes guard-sh.
    let guard_bash = PathBuf::from(env!("CARGO_BIN_EXE_guard-bash"));
    assert_eq!(PathBuf::from(&path), out.join("bash/guard-sh"));
    assert_eq!(
        std::fs::read_link(path).expect("bash/guard-sh is a link"),
        PathBuf::from(env!("CARGO_BIN_EXE_guard-sh-client"))
    );
    assert_eq!(PathBuf::from(s(&sh["guardSh"])), guard_bash);
    let env = &sh["env"];
    assert_eq!(s(&env["PATH"]), out.join("bin").to_string_lossy());
    assert_eq!(s(&env["SHELL"]), path);
    assert_eq!(
        PathBuf::from(s(&env["GUARD_SH_POLICY"])),
        out.join("policy.json")
    );
    let policy = guard_sh::policy::Policy::load(&out.join("policy.json")).expect("policy loads");
    let sha = guard_sh::policy::Policy::sha256_of_file(&out.join("policy.json")).expect("sha");
    assert_eq!(s(&env["GUARD_SH_POLICY_SHA256"]), sha);
    assert_eq!(s(&d["policySha256"]), sha);
    let audit = PathBuf::from(s(&env["GUARD_SH_AUDIT"]));
    assert_eq!(audit, out.join("audit/audit.jsonl"));
    assert!(
        policy
            .sandbox
            .writable
            .iter()
            .all(|w| !audit.starts_with(w))
    );
    assert!(policy.sandbox.writable.contains(&out.join("work")));
    for p in [out.join("policy.json"), out.join("bin"), out.join("audit")] {
        assert!(
            policy.sandbox.protected.contains(&p),
            "{} not protected",
            p.display()
        );
    }
    assert_eq!(policy.bin_dir, out.join("bin"));
}

#[test]
fn guard_path_already_containing_bash_is_used_as_is() {
    let f = Fixture::new();
    let names = f.root.path().join("names");
    std::fs::create_dir(&names).expect("mkdir");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_guard-sh"), names.join("guard-bash"))
        .expect("link");
    let gb = names.join("guard-bash");
    let out = f.out("t");
    let d = f.build(
        "tea",
        &out,
        &["--guard-sh", gb.to_str().unwrap_or_default()],
    );
    assert_eq!(PathBuf::from(s(&d["shell"]["path"])), gb);
    assert!(!out.join("bash").exists());
}

#[test]
fn missing_guard_sh_is_error_exit_2() {
    let f = Fixture::new();
    let out = f.out("t");
    let o = f.run(&[
        "tea",
        "--host",
        HOST,
        "--repo",
        "o/r",
        "--token-env",
        "FORGE_TOKEN",
        "--out",
        out.to_str().unwrap_or_default(),
        "--guard-sh",
        "/nonexistent/guard-sh",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/guard-sh"));
}

#[test]
fn tea_login_is_written_into_the_arm_private_config_home() {
    let f = Fixture::new();
    let out = f.out("t");
    f.build("tea", &out, &[]);
    let cfg = out.join("tea-config/tea/config.yml");
    let yaml: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(&cfg).expect("read")).expect("yaml");
    let login = &yaml["logins"][0];
    assert_eq!(login["url"].as_str(), Some(HOST));
    assert_eq!(login["token"].as_str(), Some(TOKEN));
    assert_eq!(login["default"].as_bool(), Some(true));
    let mode = std::fs::metadata(&cfg).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let policy = guard_sh::policy::Policy::load(&out.join("policy.json")).expect("policy");
    let tea = &policy.commands["tea"];
    assert_eq!(
        tea.env.get("XDG_CONFIG_HOME"),
        Some(&out.join("tea-config").to_string_lossy().into_owned())
    );
    assert_eq!(tea.connect_ports, vec![3000]);
}

#[test]
fn list_names_the_four_shipped_arms() {
    let f = Fixture::new();
    let o = f.run(&["--list"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    let names: Vec<&str> = text
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default())
        .collect();
    assert_eq!(names, ["gitea-axi", "gitea-mcp", "raw-api", "tea"]);
}

/// Runs `line` the way a harness would after `arm-build`: the shell path and
/// the environment from the definition, in the arm's working folder.
fn run_in_built_arm(definition: &Value, home: &Path, cwd: &Path, line: &str) -> Output {
    let sh = &definition["shell"];
    let mut cmd = Command::new(s(&sh["path"]));
    cmd.env_clear().env("HOME", home).arg("-c").arg(line);
    for (k, v) in sh["env"].as_object().expect("shell env object") {
        cmd.env(k, s(v));
    }
    cmd.current_dir(cwd).output().expect("run guard-sh")
}

#[test]
fn built_tea_arm_runs_its_stub_tool_and_denies_curl_through_guard_sh() {
    let f = Fixture::new();
    let curl_marker = f.root.path().join("curl-ran");
    std::fs::write(
        f.stubs.join("curl"),
        format!("#!/bin/sh\n: > {}\n", curl_marker.display()),
    )
    .expect("write curl stub");
    let out = f.out("t");
    let d = f.build("tea", &out, &[]);
    let home = f.root.path().join("home");
    std::fs::create_dir(&home).expect("mkdir home");

    let ok = run_in_built_arm(&d, &home, &out.join("work"), "tea issues list");
    assert_eq!(
        String::from_utf8_lossy(&ok.stdout),
        "tea issues list\n",
        "stderr: {}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(ok.status.code(), Some(0));

    let denied = run_in_built_arm(&d, &home, &out.join("work"), "curl http://127.0.0.1:9/");
    assert_eq!(denied.status.code(), Some(126));
    let err = String::from_utf8_lossy(&denied.stderr);
    assert!(err.contains("guard-sh: denied"), "{err}");
    assert!(err.contains("curl"), "{err}");
    assert!(denied.stdout.is_empty());
    assert!(!curl_marker.exists(), "the curl stub ran");

    let log = std::fs::read_to_string(s(&d["shell"]["env"]["GUARD_SH_AUDIT"])).expect("audit log");
    assert!(log.contains("tea issues list"), "{log}");
    assert!(log.contains("curl http://127.0.0.1:9/"), "{log}");
    assert!(!log.contains(TOKEN), "token in the audit log");
}

/// `--help` and `--version` answer on stdout with status 0; the usage
/// names `--token-env`; a missing token names both ways to give it.
#[test]
fn help_and_version_go_to_stdout_and_a_missing_token_names_the_fix() {
    for flag in ["--help", "--version"] {
        let o = Command::new(env!("CARGO_BIN_EXE_arm-build"))
            .arg(flag)
            .output()
            .expect("run");
        assert_eq!(o.status.code(), Some(0), "{flag}");
        assert!(
            o.stderr.is_empty(),
            "{flag}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(!o.stdout.is_empty(), "{flag}");
    }
    let help = Command::new(env!("CARGO_BIN_EXE_arm-build"))
        .arg("--help")
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&help.stdout).contains("--token-env"));
    let f = Fixture::new();
    let out = f.out("no-token");
    let o = Command::new(env!("CARGO_BIN_EXE_arm-build"))
        .args([
            "tea",
            "--host",
            "http://127.0.0.1:3000",
            "--repo",
            "o/r",
            "--out",
        ])
        .arg(&out)
        .env("PATH", f.path_env())
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--token-env VAR") && err.contains("--token TOKEN"),
        "{err}"
    );
}

/// Without `--print-definition` nothing secret reaches stdout: one line
/// names the folder, whose `arm.json` holds the definition.
#[test]
fn the_token_is_printed_only_when_asked() {
    let f = Fixture::new();
    let out = f.out("quiet");
    let o = Command::new(env!("CARGO_BIN_EXE_arm-build"))
        .args(build_args(
            "tea",
            "FORGE_TOKEN",
            &out.to_string_lossy(),
            &[],
        ))
        .env("PATH", f.path_env())
        .env("FORGE_TOKEN", TOKEN)
        .output()
        .expect("run");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains(TOKEN), "{text}");
    assert!(
        text.contains(&*out.join("arm.json").to_string_lossy()),
        "{text}"
    );
    let definition: Value =
        serde_json::from_slice(&std::fs::read(out.join("arm.json")).expect("arm.json"))
            .expect("json");
    assert_eq!(definition["arm"], "tea");
}

/// Run a program this test just wrote: "text file busy" for a moment when
/// a parallel test's fork still holds the write descriptor until it execs;
/// only that error is retried.
fn output_of_fresh(cmd: &mut Command) -> std::process::Output {
    for _ in 0..50 {
        match cmd.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20))
            }
            other => return other.expect("run the copy"),
        }
    }
    cmd.output().expect("run the copy")
}

/// An installed arm-build stands alone: a copy outside the source tree,
/// with no `share/guard-sh/arms` beside it, lists and builds the arms
/// compiled into it; the list is exactly the source tree's `arms/`.
#[test]
fn a_copy_outside_the_checkout_builds_the_arms_compiled_in() {
    let f = Fixture::new();
    let bin = f.root.path().join("installed/bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let copy = bin.join("arm-build");
    std::fs::copy(env!("CARGO_BIN_EXE_arm-build"), &copy).expect("copy");
    let list = output_of_fresh(Command::new(&copy).arg("--list"));
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stderr)
    );
    let listed: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().to_string())
        .collect();
    let mut in_tree: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("arms"))
            .expect("arms")
            .filter_map(|e| {
                let name = e.ok()?.file_name().to_string_lossy().into_owned();
                let arm = name.strip_suffix(".toml")?.to_string();
                (arm != "harmless").then_some(arm)
            })
            .collect();
    in_tree.sort();
    assert_eq!(listed, in_tree);
    let out = f.out("from-copy");
    let o = output_of_fresh(
        Command::new(&copy)
            .args(build_args(
                "gitea-axi",
                "FORGE_TOKEN",
                &out.to_string_lossy(),
                &[],
            ))
            .args(["--guard-sh", env!("CARGO_BIN_EXE_guard-sh")])
            .env("PATH", f.path_env())
            .env("FORGE_TOKEN", TOKEN),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The skill body came from the copy too.
    let prompt = std::fs::read_to_string(out.join("runtimes/system-prompt.txt")).expect("prompt");
    let skill = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/gitea-axi/SKILL.md"),
    )
    .expect("skill");
    let body_line = skill
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .expect("a line");
    assert!(
        prompt.contains(body_line.trim()),
        "the skill body is missing"
    );
}

#[test]
fn policy_stores_every_program_with_its_start_up_chain_as_the_execute_set() {
    let f = Fixture::new();
    let out = f.out("tea");
    f.build("tea", &out, &[]);
    let policy = read_json(&out.join("policy.json"));
    let execute: BTreeSet<PathBuf> = policy["sandbox"]["execute"]
        .as_array()
        .expect("sandbox.execute is stored")
        .iter()
        .map(|p| PathBuf::from(s(p)))
        .collect();
    // Each program the agent can name, as the kernel will find it.
    for name in names_in(&out.join("bin")) {
        let real = std::fs::canonicalize(out.join("bin").join(&name)).expect("bin link");
        assert!(execute.contains(&real), "{name} -> {}", real.display());
    }
    // The stubs' `#!/bin/sh` interpreter and the utilities' ELF loader.
    let sh = std::fs::canonicalize("/bin/sh").expect("/bin/sh");
    assert!(execute.contains(&sh), "{execute:?}");
    assert!(
        execute.iter().any(|p| p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("ld-linux"))),
        "{execute:?}"
    );
    for p in &execute {
        assert!(p.is_absolute() && p.exists(), "{}", p.display());
    }
}

/// A token short enough to stand in ordinary text (the docs once used
/// `example`) would be redacted out of paths and words in every record:
/// arm-build warns, and builds; a real token draws no warning.
#[test]
fn a_short_token_draws_a_warning_and_a_real_one_none() {
    for (token, warned) in [
        ("example", true),
        ("3f1c9a7e5b2d4c6e8a0b1d3f5e7c9a2b4d6f8e0a", false),
    ] {
        let root = tempfile::tempdir().expect("tempdir");
        let stubs = root.path().join("stubs");
        std::fs::create_dir(&stubs).expect("mkdir");
        std::fs::copy("/usr/bin/echo", stubs.join("tea")).expect("copy");
        std::fs::copy("/usr/bin/true", stubs.join("git")).expect("copy");
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_arm-build"))
            .args(["tea", "--host", "http://127.0.0.1:3000", "--repo", "o/r"])
            .args(["--token-env", "T", "--out"])
            .arg(root.path().join("arm"))
            .env("PATH", format!("{}:/usr/bin:/bin", stubs.display()))
            .env("T", token)
            .output()
            .expect("run arm-build");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{stderr}");
        assert_eq!(
            stderr.contains("warning: the token has 7 characters"),
            warned,
            "{token}: {stderr}"
        );
        assert!(!stderr.contains(token), "the token was printed: {stderr}");
    }
}
