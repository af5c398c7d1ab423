//! Sentences for refusals. Every foreign name is refused the same way; for
//! well-known families the reason also says why such a program is never
//! harmless, so an agent does not retry it under another name.

use crate::policy::Policy;

const INTERPRETERS: &[&str] = &[
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "perl",
    "ruby",
    "php",
    "lua",
    "tclsh",
    "wish",
    "R",
    "Rscript",
    "julia",
    "osascript",
    "pwsh",
    "java",
    "jshell",
    "irb",
];
const SHELLS: &[&str] = &[
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox",
];
const LAUNCHERS: &[&str] = &[
    "env",
    "xargs",
    "find",
    "timeout",
    "nohup",
    "nice",
    "ionice",
    "time",
    "stdbuf",
    "setsid",
    "sudo",
    "su",
    "doas",
    "chroot",
    "strace",
    "ltrace",
    "gdb",
    "watch",
    "script",
    "unshare",
    "nsenter",
    "flock",
    "parallel",
    "run-parts",
    "start-stop-daemon",
    "systemd-run",
    "at",
    "batch",
    "crontab",
    "taskset",
    "chrt",
    "prlimit",
    "capsh",
    "setpriv",
    "runuser",
    "expect",
    "make",
];
const CODE_TEXT_TOOLS: &[&str] = &[
    "sed", "awk", "gawk", "mawk", "nawk", "ed", "ex", "vi", "vim", "less", "more", "man",
];
const NETWORK_TOOLS: &[&str] = &[
    "curl", "wget", "nc", "ncat", "netcat", "socat", "ssh", "scp", "sftp", "rsync", "telnet",
    "ftp", "http", "https", "openssl", "dig", "nslookup", "host", "ping", "aria2c", "lynx", "w3m",
];

/// The family sentence for a well-known dangerous name, if any.
fn family(name: &str) -> Option<&'static str> {
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if INTERPRETERS.contains(&name) || INTERPRETERS.contains(&base) {
        Some("it is a language interpreter that can run any program")
    } else if SHELLS.contains(&name) {
        Some("it is a shell that would run text unchecked")
    } else if LAUNCHERS.contains(&name) {
        Some("it launches other programs")
    } else if CODE_TEXT_TOOLS.contains(&name) {
        Some("it can run programs from its script or commands")
    } else if NETWORK_TOOLS.contains(&name) {
        Some("it reaches the network")
    } else {
        None
    }
}

/// Whether `name` is in a well-known family of dangerous programs.
pub fn in_a_family(name: &str) -> bool {
    family(name).is_some()
}

/// What a name that is no command anywhere gets, in bash's words.
pub fn not_found(name: &str) -> String {
    format!("{name}: command not found")
}

/// The reason a command name not in the policy is refused.
pub fn foreign_command(policy: &Policy, name: &str) -> String {
    if !policy.shell {
        return shell_disabled(policy);
    }
    let only = match &policy.tool {
        Some(tool) => format!("only \"{tool}\" and read-only utilities are allowed"),
        None => "only read-only utilities are allowed".to_string(),
    };
    match family(name) {
        Some(why) => format!(
            "\"{name}\" is not permitted for the {} arm ({why}); {only}",
            policy.arm
        ),
        None => format!(
            "\"{name}\" is not permitted for the {} arm; {only}",
            policy.arm
        ),
    }
}

pub fn shell_disabled(policy: &Policy) -> String {
    format!(
        "the shell is disabled for the {} arm; use the tools the MCP server provides",
        policy.arm
    )
}

pub fn path_qualified(name: &str) -> String {
    format!("\"{name}\" is path-qualified; commands run only by name from the curated PATH")
}
