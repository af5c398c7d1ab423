//! The environment every child gets, built from the policy.
//!
//! Order: the shell's inherited variables matching `env.pass`, then
//! variables the agent exported, less every name matching `env.deny`; then
//! the arm's own `env.set` and the command's own `env`, which win over both
//! (the agent cannot point the tool elsewhere or drop its hardening, and
//! the arm may set names it denies the agent, such as `HOME` or `GIT_*`);
//! `PATH` is the command's `path_env` joined with `:` (absent if empty).
//! Guarantee: no inherited or exported name matching `env.deny` reaches a
//! child, and every name the arm sets has the arm's value.

use crate::policy::env_pattern_matches;
use crate::policy::{CommandRule, Policy};
use std::os::unix::ffi::OsStrExt;

/// One shell variable as the environment builder sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellVar<'a> {
    /// The variable's name.
    pub name: &'a str,
    /// Its value.
    pub value: &'a [u8],
    /// Exported (by the agent, or inherited at start-up).
    pub exported: bool,
    /// Still the unchanged value guard-sh inherited at start-up.
    pub inherited: bool,
}

/// A child's environment and the names added beyond the inherited ones
/// (for the audit record).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChildEnv {
    /// `NAME`, value pairs, in the order the child gets them.
    pub vars: Vec<(Vec<u8>, Vec<u8>)>,
    /// Names not inherited from guard-sh's own environment.
    pub added: Vec<String>,
}

/// Variables of guard-sh's own environment a line sees besides the arm's
/// `env.pass`: those a shell reads for itself (its folders, prompts,
/// `PROMPT_COMMAND`, `PATH` as text; names resolve in the bin folder
/// regardless) and guard-sh's own settings (paths; the trial's key is gone
/// before this).
const SHELL_OWN_VARIABLES: [&str; 13] = [
    "PATH",
    "PWD",
    "OLDPWD",
    "SHLVL",
    "SHELL",
    "PS1",
    "PS2",
    "PS4",
    "PROMPT_COMMAND",
    "CDPATH",
    "FUNCNEST",
    "TIMEFORMAT",
    "GUARD_SH_*",
];

/// Whether the line sees the variable `name` of guard-sh's own
/// environment. That environment is the harness's, whose credentials
/// (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, a cloud login) are not the
/// agent's: a line sees what the arm lets its tools inherit (`env.pass`)
/// and the variables of [`SHELL_OWN_VARIABLES`], nothing else, whatever
/// the harness names its secrets.
pub fn visible_to_line(policy: &Policy, name: &str) -> bool {
    matches_any(&policy.env.pass, name)
        || SHELL_OWN_VARIABLES
            .iter()
            .any(|own| env_pattern_matches(own, name))
}

fn matches_any<'a>(patterns: impl IntoIterator<Item = &'a String>, name: &str) -> bool {
    patterns.into_iter().any(|p| env_pattern_matches(p, name))
}

/// Is `name` one no child may receive?
pub fn is_denied(policy: &Policy, name: &str) -> bool {
    name == "PATH" || policy.env.denial(name).is_some()
}

/// The first name the arm holds ([`crate::policy::EnvPolicy::held_by_arm`])
/// whose value bash would now give a command with `rule` other than the
/// one it would have given when the shell started (`at_start`: the held
/// names of the environment it imported) and other than the one the
/// command gets (the rule's own, else the arm's): the line set, exported,
/// unexported or unset it. The command gets the arm's value whatever the
/// shell holds, so it is refused rather than run with a value bash would
/// not give it.
pub fn changed_held_name<'p>(
    policy: &'p Policy,
    rule: &CommandRule,
    vars: &[ShellVar<'_>],
    at_start: &[(String, Vec<u8>)],
) -> Option<&'p str> {
    policy
        .env
        .held_values(rule)
        .find(|(name, given)| {
            let now = vars
                .iter()
                .find(|v| v.name == *name && v.exported)
                .map(|v| v.value);
            let start = at_start
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_slice());
            now != start && now != Some(given.as_bytes())
        })
        .map(|(name, _)| name)
}

/// Build the environment for a command with `rule` from the shell's variables.
pub fn build_child_env<'a>(
    policy: &Policy,
    rule: &CommandRule,
    shell_vars: impl IntoIterator<Item = ShellVar<'a>>,
) -> ChildEnv {
    let mut env: Vec<(String, Vec<u8>)> = Vec::new();
    let mut added: Vec<String> = Vec::new();
    let put = |env: &mut Vec<(String, Vec<u8>)>, name: &str, value: &[u8]| match env
        .iter_mut()
        .find(|(n, _)| n == name)
    {
        Some(slot) => slot.1 = value.to_vec(),
        None => env.push((name.to_string(), value.to_vec())),
    };
    let vars: Vec<ShellVar<'a>> = shell_vars.into_iter().collect();
    for var in vars.iter().filter(|v| v.exported && v.inherited) {
        if matches_any(&policy.env.pass, var.name) {
            put(&mut env, var.name, var.value);
        }
    }
    for var in vars.iter().filter(|v| v.exported && !v.inherited) {
        put(&mut env, var.name, var.value);
        added.push(var.name.to_string());
    }
    env.retain(|(name, _)| !is_denied(policy, name));
    added.retain(|name| !is_denied(policy, name));
    for (name, value) in policy.env.set.iter().chain(&rule.env) {
        if name != "PATH" {
            put(&mut env, name, value.as_bytes());
            added.push(name.clone());
        }
    }
    env.retain(|(name, _)| name != "PATH");
    if !rule.path_env.is_empty() {
        let joined: Vec<Vec<u8>> = rule
            .path_env
            .iter()
            .map(|p| p.as_os_str().as_bytes().to_vec())
            .collect();
        env.push(("PATH".into(), joined.join(&b':')));
        added.push("PATH".into());
    }
    added.sort();
    added.dedup();
    ChildEnv {
        vars: env.into_iter().map(|(n, v)| (n.into_bytes(), v)).collect(),
        added,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{CommandKind, EnvDeny, EnvPolicy};

    fn policy() -> Policy {
        Policy {
            env: EnvPolicy {
                pass: vec!["HOME".into(), "LC_*".into(), "LD_PRELOAD".into()],
                set: [("LANG".to_string(), "C.UTF-8".to_string())].into(),
                deny: vec![EnvDeny {
                    pattern: "LD_*".into(),
                    reason: "loader".into(),
                }],
            },
            ..Policy::bare()
        }
    }

    fn rule() -> CommandRule {
        CommandRule {
            kind: CommandKind::Tool,
            path: "/usr/bin/tea".into(),
            deny: vec![],
            exec_allow: vec![],
            path_env: vec!["/h1".into(), "/h2".into()],
            env: [("TOKEN".to_string(), "s3".to_string())].into(),
            connect_ports: vec![],
            connect_hosts: vec![],
            writable: vec![],
        }
    }

    fn var<'a>(name: &'a str, value: &'a [u8], exported: bool, inherited: bool) -> ShellVar<'a> {
        ShellVar {
            name,
            value,
            exported,
            inherited,
        }
    }

    fn get<'e>(env: &'e ChildEnv, name: &str) -> Option<&'e [u8]> {
        env.vars
            .iter()
            .find(|(n, _)| n == name.as_bytes())
            .map(|(_, v)| v.as_slice())
    }

    #[test]
    fn only_passed_inherited_variables_reach_the_child() {
        let env = build_child_env(
            &policy(),
            &rule(),
            [
                var("HOME", b"/home/a", true, true),
                var("LC_ALL", b"C", true, true),
                var("SECRET", b"x", true, true),
            ],
        );
        assert_eq!(get(&env, "HOME"), Some(&b"/home/a"[..]));
        assert_eq!(get(&env, "LC_ALL"), Some(&b"C"[..]));
        assert_eq!(get(&env, "SECRET"), None);
    }

    #[test]
    fn denied_names_never_reach_the_child_even_when_passed() {
        let env = build_child_env(
            &policy(),
            &rule(),
            [
                var("LD_PRELOAD", b"/evil.so", true, true),
                var("LD_AUDIT", b"/evil.so", true, false),
            ],
        );
        assert_eq!(get(&env, "LD_PRELOAD"), None);
        assert_eq!(get(&env, "LD_AUDIT"), None);
    }

    #[test]
    fn path_is_the_rules_path_env_and_never_the_shells() {
        let env = build_child_env(&policy(), &rule(), [var("PATH", b"/usr/bin", true, false)]);
        assert_eq!(get(&env, "PATH"), Some(&b"/h1:/h2"[..]));
        let mut bare = rule();
        bare.path_env.clear();
        let env = build_child_env(&policy(), &bare, [var("PATH", b"/usr/bin", true, true)]);
        assert_eq!(get(&env, "PATH"), None);
    }

    #[test]
    fn policy_rule_and_exported_variables_are_added_in_order() {
        let env = build_child_env(
            &policy(),
            &rule(),
            [
                var("FOO", b"1", true, false),
                var("BAR", b"2", false, false),
                var("LANG", b"fr", true, false),
            ],
        );
        assert_eq!(get(&env, "TOKEN"), Some(&b"s3"[..]));
        assert_eq!(get(&env, "FOO"), Some(&b"1"[..]));
        assert_eq!(get(&env, "BAR"), None);
        // env.set is the arm's: the agent's export does not replace it.
        assert_eq!(get(&env, "LANG"), Some(&b"C.UTF-8"[..]));
        assert_eq!(env.added, vec!["FOO", "LANG", "PATH", "TOKEN"]);
    }

    #[test]
    fn the_arms_own_variables_win_over_deny_patterns_and_the_agents_exports() {
        let mut rule = rule();
        rule.env.insert("LD_LIBRARY_PATH".into(), "/arm/lib".into());
        let env = build_child_env(
            &policy(),
            &rule,
            [
                var("TOKEN", b"agent's", true, false),
                var("LD_LIBRARY_PATH", b"/evil", true, false),
            ],
        );
        assert_eq!(get(&env, "TOKEN"), Some(&b"s3"[..]));
        assert_eq!(get(&env, "LD_LIBRARY_PATH"), Some(&b"/arm/lib"[..]));
    }

    /// `HOME` held by the arm: set for every child and denied the agent.
    fn holding_home() -> Policy {
        let mut p = policy();
        p.env.set.insert("HOME".into(), "/arm/home".into());
        p.env.deny.push(EnvDeny {
            pattern: "HOME".into(),
            reason: "config".into(),
        });
        p
    }

    #[test]
    fn a_held_name_is_changed_when_bash_would_pass_on_another_value() {
        let p = holding_home();
        let start = [("HOME".to_string(), b"/root".to_vec())];
        let changed = |vars: &[ShellVar<'_>], start: &[(String, Vec<u8>)]| {
            changed_held_name(&p, &rule(), vars, start)
        };
        // Untouched, or set back to the start's or to the arm's value.
        assert_eq!(changed(&[var("HOME", b"/root", true, true)], &start), None);
        assert_eq!(changed(&[var("HOME", b"/root", true, false)], &start), None);
        assert_eq!(
            changed(&[var("HOME", b"/arm/home", true, false)], &start),
            None
        );
        // Set, unset, unexported: bash would pass on something else.
        assert_eq!(
            changed(&[var("HOME", b"/x", true, false)], &start),
            Some("HOME")
        );
        assert_eq!(changed(&[], &start), Some("HOME"));
        assert_eq!(
            changed(&[var("HOME", b"/root", false, true)], &start),
            Some("HOME")
        );
        // Not in the environment at start: an unexported value reaches no
        // command in bash either; an exported one would.
        assert_eq!(changed(&[var("HOME", b"/x", false, false)], &[]), None);
        assert_eq!(
            changed(&[var("HOME", b"/x", true, false)], &[]),
            Some("HOME")
        );
        // A name set but not denied (LANG) is never held.
        assert_eq!(changed(&[var("LANG", b"fr", true, false)], &[]), None);
        // The rule's own value is the one a command gets.
        let mut own = rule();
        own.env.insert("HOME".into(), "/tool/home".into());
        let vars = [var("HOME", b"/tool/home", true, false)];
        assert_eq!(changed_held_name(&p, &own, &vars, &start), None);
        assert_eq!(changed_held_name(&p, &rule(), &vars, &start), Some("HOME"));
    }
}
