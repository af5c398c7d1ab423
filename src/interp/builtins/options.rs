//! `set` and `shopt`: the shell's options, by letter and by name.

use super::lossy;
use crate::interp::quote::{array_text, set_text};
use crate::interp::{Shell, Status};

/// `shopt` options guard-sh accepts.
const SHOPTS: &[&str] = &[
    "dotglob",
    "globskipdots",
    "lastpipe",
    "expand_aliases",
    "extglob",
    "failglob",
    "globstar",
    "nocaseglob",
    "nullglob",
    "login_shell",
    "checkwinsize",
    "histappend",
    "cmdhist",
    "promptvars",
    "sourcepath",
    "interactive_comments",
    "progcomp",
    "hostcomplete",
    "complete_fullquote",
    "extquote",
    "force_fignore",
    "globasciiranges",
    "checkhash",
    "lithist",
];

/// `set -o` names and their letters, in bash's order (by name: `set -o`
/// and `set +o` list them so).
const SET_OPTIONS: &[(&str, Option<char>)] = &[
    ("allexport", Some('a')),
    ("braceexpand", Some('B')),
    ("emacs", None),
    ("errexit", Some('e')),
    ("errtrace", Some('E')),
    ("functrace", Some('T')),
    ("hashall", Some('h')),
    ("histexpand", Some('H')),
    ("history", None),
    ("ignoreeof", None),
    ("interactive-comments", None),
    ("keyword", Some('k')),
    ("monitor", Some('m')),
    ("noclobber", Some('C')),
    ("noexec", Some('n')),
    ("noglob", Some('f')),
    ("nolog", None),
    ("notify", Some('b')),
    ("nounset", Some('u')),
    ("onecmd", Some('t')),
    ("physical", Some('P')),
    ("pipefail", None),
    ("posix", None),
    ("privileged", Some('p')),
    ("verbose", Some('v')),
    ("vi", None),
    ("xtrace", Some('x')),
];

impl Shell<'_> {
    fn set_option(&mut self, name: &str, on: bool) -> bool {
        match name {
            "allexport" => self.opts.allexport = on,
            "errexit" => self.opts.errexit = on,
            "noclobber" => self.opts.noclobber = on,
            "noglob" => self.opts.noglob = on,
            "nounset" => self.opts.nounset = on,
            "pipefail" => self.opts.pipefail = on,
            "verbose" => self.opts.verbose = on,
            "xtrace" => self.opts.xtrace = on,
            _ => return SET_OPTIONS.iter().any(|(n, _)| *n == name),
        }
        true
    }

    /// Whether `set -o NAME` is on (an unknown name is off, as `[[ -o ]]`
    /// finds it in bash).
    pub(in crate::interp) fn option_value(&self, name: &str) -> bool {
        match name {
            "allexport" => self.opts.allexport,
            "errexit" => self.opts.errexit,
            "noclobber" => self.opts.noclobber,
            "noglob" => self.opts.noglob,
            "nounset" => self.opts.nounset,
            "pipefail" => self.opts.pipefail,
            "verbose" => self.opts.verbose,
            "xtrace" => self.opts.xtrace,
            "braceexpand" | "hashall" | "interactive-comments" => true,
            "emacs" | "histexpand" | "history" | "monitor" => self.interactive,
            _ => false,
        }
    }

    /// Apply one `-x`/`+x` letter.
    pub fn set_letter(&mut self, letter: char, on: bool) -> bool {
        match SET_OPTIONS.iter().find(|(_, l)| *l == Some(letter)) {
            Some((name, _)) => self.set_option(name, on),
            None => false,
        }
    }

    pub(in crate::interp) fn set_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        if args.is_empty() {
            let mut out = Vec::new();
            for (n, v) in self.vars.sorted() {
                if v.invisible {
                    continue;
                }
                let text = match &v.value {
                    crate::interp::Value::Scalar(v) => set_text(v),
                    array => array_text(array),
                };
                out.extend_from_slice(format!("{n}={text}\n").as_bytes());
            }
            return Ok(self.write_out(&out, "set"));
        }
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if a == b"--" {
                self.positional = args[i + 1..].to_vec();
                return Ok(0);
            }
            if a == b"-" {
                // `set -` turns off -x and -v; the parameters change only
                // when words follow it.
                self.opts.xtrace = false;
                self.opts.verbose = false;
                if i + 1 < args.len() {
                    self.positional = args[i + 1..].to_vec();
                }
                return Ok(0);
            }
            if a == b"+" {
                // A lone `+` is an ignored flag, as in bash.
                i += 1;
                continue;
            }
            let on = a.first() == Some(&b'-');
            if !(on || a.first() == Some(&b'+')) || a.len() < 2 {
                self.positional = args[i..].to_vec();
                return Ok(0);
            }
            if &a[1..] == b"o" {
                match args.get(i + 1) {
                    Some(name) => {
                        let name = lossy(name);
                        if !self.set_option(&name, on) {
                            self.error(&format!("set: {name}: invalid option name"));
                            return Ok(2);
                        }
                        i += 2;
                        continue;
                    }
                    None => {
                        let mut out = String::new();
                        for (name, _) in SET_OPTIONS {
                            let v = self.option_value(name);
                            if on {
                                out.push_str(&format!(
                                    "{name:<15}\t{}\n",
                                    if v { "on" } else { "off" }
                                ));
                            } else {
                                out.push_str(&format!(
                                    "set {}o {name}\n",
                                    if v { '-' } else { '+' }
                                ));
                            }
                        }
                        return Ok(self.write_out(out.as_bytes(), "set"));
                    }
                }
            }
            for &c in &a[1..] {
                if !self.set_letter(c as char, on) {
                    self.error(&format!(
                        "set: {}{}: invalid option",
                        if on { '-' } else { '+' },
                        c as char
                    ));
                    return Ok(2);
                }
            }
            i += 1;
        }
        Ok(0)
    }

    pub(super) fn shopt(&mut self, args: &[Vec<u8>]) -> Status {
        let mut mode: Option<bool> = None;
        let mut print = false;
        let mut quiet = false;
        let mut names = Vec::new();
        for a in args {
            match a.as_slice() {
                b"-s" => mode = Some(true),
                b"-u" => mode = Some(false),
                b"-p" => print = true,
                b"-q" => quiet = true,
                b"-o" => {}
                _ => names.push(lossy(a)),
            }
        }
        let listed: Vec<String> = if names.is_empty() {
            SHOPTS.iter().map(|s| s.to_string()).collect()
        } else {
            names.clone()
        };
        let mut status = 0;
        for name in &listed {
            if !SHOPTS.contains(&name.as_str()) {
                self.error(&format!("shopt: {name}: invalid shell option name"));
                status = 1;
                continue;
            }
            if let (Some(on), false) = (mode, names.is_empty()) {
                self.set_shopt(name, on);
                continue;
            }
            let value = self.shopt_value(name);
            if let Some(on) = mode {
                if value != on {
                    continue;
                }
            }
            if quiet {
                if !value {
                    status = 1;
                }
                continue;
            }
            let line = if print || mode.is_some() {
                format!("shopt {} {name}\n", if value { "-s" } else { "-u" })
            } else {
                format!("{name:<15}\t{}\n", if value { "on" } else { "off" })
            };
            if !names.is_empty() && !value {
                status = 1;
            }
            self.write_out(line.as_bytes(), "shopt");
        }
        Ok(status)
    }

    fn set_shopt(&mut self, name: &str, on: bool) {
        match name {
            "dotglob" => self.opts.dotglob = on,
            "globskipdots" => self.opts.glob_dots = !on,
            "nullglob" => self.opts.nullglob = on,
            "failglob" => self.opts.failglob = on,
            "extglob" => self.opts.extglob = on,
            "expand_aliases" => self.opts.expand_aliases = on,
            "globstar" => self.opts.globstar = on,
            "nocaseglob" => self.opts.nocaseglob = on,
            "lastpipe" => self.opts.lastpipe = on,
            _ => {}
        }
    }

    fn shopt_value(&self, name: &str) -> bool {
        match name {
            "dotglob" => self.opts.dotglob,
            "globskipdots" => !self.opts.glob_dots,
            "nullglob" => self.opts.nullglob,
            "failglob" => self.opts.failglob,
            "extglob" => self.opts.extglob,
            "expand_aliases" => self.opts.expand_aliases,
            "globstar" => self.opts.globstar,
            "nocaseglob" => self.opts.nocaseglob,
            "lastpipe" => self.opts.lastpipe,
            "login_shell" => self.opts.login_shell,
            "cmdhist"
            | "promptvars"
            | "sourcepath"
            | "interactive_comments"
            | "progcomp"
            | "hostcomplete"
            | "complete_fullquote"
            | "extquote"
            | "globasciiranges" => true,
            _ => false,
        }
    }
}
