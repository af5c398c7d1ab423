//! Builtins about variables and options: `export`, `readonly`, `declare`/
//! `typeset`, `local`, `unset`, `set`, `shift`, `read`, `shopt`, `getopts`.
//! Every assignment they make goes through the policy check.

use super::format::quote;
use super::lossy;
use crate::interp::arrays::split_reference;
use crate::interp::vars::is_name;
use crate::interp::{Flow, Shell, Status};
use crate::os::Fd;

/// `declare -a` or `declare -A`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ArrayKind {
    Indexed,
    Assoc,
}

/// An operand of `declare` and its place in the argv (where the
/// expanded `NAME=(…)` items are found).
type Operand = (usize, Vec<u8>);

/// `declare`'s options.
#[derive(Debug, Default)]
struct DeclareFlags {
    /// `-x` (`Some(true)`) or `+x` (`Some(false)`).
    export: Option<bool>,
    readonly: bool,
    integer: bool,
    print: bool,
    functions: bool,
    function_names: bool,
    global: bool,
    kind: Option<ArrayKind>,
}

impl DeclareFlags {
    /// Does `declare` without operands list `var` under these options?
    fn selects(&self, var: &crate::interp::Var) -> bool {
        (!self.readonly || var.readonly)
            && (self.export != Some(true) || var.exported)
            && (!self.integer || var.integer)
            && match self.kind {
                Some(ArrayKind::Indexed) => matches!(var.value, crate::interp::Value::Indexed(_)),
                Some(ArrayKind::Assoc) => matches!(var.value, crate::interp::Value::Assoc(_)),
                None => true,
            }
    }
}

/// A function definition as a list of one command, to print it as source.
fn function_as_list(def: &crate::syntax::ast::FunctionDef) -> crate::syntax::ast::List {
    use crate::syntax::ast::{AndOr, Command, List, ListItem, PipeElement, Pipeline};
    List {
        items: vec![ListItem {
            and_or: AndOr {
                first: Pipeline {
                    timed: None,
                    negated: false,
                    elements: vec![PipeElement {
                        command: Command::FunctionDef(def.clone()),
                        pipe_stderr: false,
                    }],
                    span: def.span,
                },
                rest: vec![],
            },
            background: false,
        }],
    }
}

/// `shopt` options guard-sh accepts.
const SHOPTS: &[&str] = &[
    "dotglob",
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

/// `set -o` names and their letters.
const SET_OPTIONS: &[(&str, Option<char>)] = &[
    ("allexport", Some('a')),
    ("errexit", Some('e')),
    ("noclobber", Some('C')),
    ("noglob", Some('f')),
    ("nounset", Some('u')),
    ("pipefail", None),
    ("verbose", Some('v')),
    ("xtrace", Some('x')),
    ("braceexpand", Some('B')),
    ("hashall", Some('h')),
    ("interactive-comments", None),
    ("monitor", Some('m')),
    ("posix", None),
    ("emacs", None),
    ("vi", None),
    ("history", None),
    ("ignoreeof", None),
    ("noexec", Some('n')),
    ("notify", Some('b')),
    ("physical", Some('P')),
    ("privileged", Some('p')),
    ("functrace", Some('T')),
    ("errtrace", Some('E')),
    ("histexpand", Some('H')),
    ("keyword", Some('k')),
    ("onecmd", Some('t')),
    ("nolog", None),
];

impl Shell<'_> {
    /// Split `NAME=value` / `NAME+=value`.
    fn split_assignment(arg: &[u8]) -> (String, Option<(Vec<u8>, bool)>) {
        match arg.iter().position(|&b| b == b'=') {
            Some(eq) => {
                let (name, append) = match arg[..eq].strip_suffix(b"+") {
                    Some(n) => (n, true),
                    None => (&arg[..eq], false),
                };
                (lossy(name), Some((arg[eq + 1..].to_vec(), append)))
            }
            None => (lossy(arg), None),
        }
    }

    fn invalid_name(&mut self, builtin: &str, name: &str) -> i32 {
        self.error(&format!("{builtin}: `{name}': not a valid identifier"));
        1
    }

    fn print_var(&mut self, flags: &str, name: &str) {
        let whole = self.whole_value(name);
        let invisible = self.vars.get_var(name).is_some_and(|v| v.invisible);
        let line = match whole {
            Some(array) if array.is_array() && !invisible => {
                let flags = if flags == "--" { "-a" } else { flags };
                format!("declare {flags} {name}={}\n", array_text(&array))
            }
            Some(array) if array.is_array() => format!("declare {flags} {name}\n"),
            _ => match self.vars.get(name) {
                Some(v) => format!("declare {flags} {name}=\"{}\"\n", escape_dq(v)),
                None => format!("declare {flags} {name}\n"),
            },
        };
        self.write_out(line.as_bytes(), "declare");
    }

    fn attr_flags(&self, name: &str) -> String {
        let Some(v) = self.vars.get_var(name) else {
            return "--".into();
        };
        let mut f = String::from("-");
        match v.value {
            crate::interp::Value::Indexed(_) => f.push('a'),
            crate::interp::Value::Assoc(_) => f.push('A'),
            crate::interp::Value::Scalar(_) => {}
        }
        if v.integer {
            f.push('i');
        }
        if v.readonly {
            f.push('r');
        }
        if v.exported {
            f.push('x');
        }
        if f == "-" { "--".into() } else { f }
    }

    pub(super) fn export(&mut self, args: &[Vec<u8>]) -> Status {
        if !self.compound_args.is_empty() {
            return self.declare_with("export", b"-x", args);
        }
        let mut unexport = false;
        let mut names = Vec::new();
        for a in args {
            match a.as_slice() {
                b"-n" => unexport = true,
                b"-p" | b"-f" | b"--" => {}
                _ => names.push(a.clone()),
            }
        }
        if names.is_empty() {
            let exported: Vec<String> = self
                .vars
                .sorted()
                .into_iter()
                .filter(|(_, v)| v.exported)
                .map(|(n, _)| n.clone())
                .collect();
            for name in exported {
                let flags = self.attr_flags(&name);
                self.print_var(&flags, &name);
            }
            return Ok(0);
        }
        let mut status = 0;
        for a in names {
            let (name, value) = Self::split_assignment(&a);
            if !is_name(name.as_bytes()) {
                status = self.invalid_name("export", &name);
                continue;
            }
            if let Err(deny) = crate::guard::check_assignment(&self.policy, &name) {
                return Err(self.deny(&deny, std::slice::from_ref(&a)));
            }
            if let Some((v, append)) = value {
                self.assign_maybe_append(&name, v, append)?;
            }
            self.vars.export(&name, !unexport);
            if let Some(var) = self.vars.get_var_mut(&name) {
                // Exporting by name makes an inherited variable the agent's.
                if value_is_none_and_inherited(var) {
                    var.inherited = true;
                }
            }
        }
        Ok(status)
    }

    pub(super) fn readonly(&mut self, args: &[Vec<u8>]) -> Status {
        if !self.compound_args.is_empty()
            || args
                .iter()
                .any(|a| a.starts_with(b"-a") || a.starts_with(b"-A"))
        {
            return self.declare_with("readonly", b"-r", args);
        }
        let names: Vec<&Vec<u8>> = args.iter().filter(|a| !a.starts_with(b"-")).collect();
        if names.is_empty() {
            let ro: Vec<String> = self
                .vars
                .sorted()
                .into_iter()
                .filter(|(_, v)| v.readonly)
                .map(|(n, _)| n.clone())
                .collect();
            for name in ro {
                let flags = self.attr_flags(&name);
                self.print_var(&flags, &name);
            }
            return Ok(0);
        }
        let mut status = 0;
        for a in names {
            let (name, value) = Self::split_assignment(a);
            if !is_name(name.as_bytes()) {
                status = self.invalid_name("readonly", &name);
                continue;
            }
            if let Some((v, append)) = value {
                self.assign_maybe_append(&name, v, append)?;
            } else if let Err(deny) = crate::guard::check_assignment(&self.policy, &name) {
                return Err(self.deny(&deny, std::slice::from_ref(a)));
            }
            self.vars.set_default(&name, Vec::new());
            if let Some(var) = self.vars.get_var_mut(&name) {
                var.readonly = true;
            }
        }
        Ok(status)
    }

    pub(super) fn declare(&mut self, builtin: &str, args: &[Vec<u8>]) -> Status {
        let compound = std::mem::take(&mut self.compound_args);
        let Some((flags, operands)) = self.declare_flags(builtin, args) else {
            return Ok(2);
        };
        if flags.functions || flags.function_names {
            let names: Vec<&Vec<u8>> = operands.iter().map(|(_, a)| a).collect();
            return Ok(self.declare_functions(builtin, &names, flags.function_names));
        }
        if operands.is_empty() {
            self.declare_list(builtin, &flags);
            return Ok(0);
        }
        let mut status = 0;
        for (pos, a) in operands {
            let items = compound
                .iter()
                .find(|(p, _)| *p == pos)
                .map(|(_, i)| i.clone());
            if let Some(failed) = self.declare_one(builtin, &flags, &a, items)? {
                status = failed;
            }
        }
        Ok(status)
    }

    /// `declare`'s options and its operands with their places in the
    /// argv; `None` (status 2, the error printed) for an unknown option.
    fn declare_flags(
        &mut self,
        builtin: &str,
        args: &[Vec<u8>],
    ) -> Option<(DeclareFlags, Vec<Operand>)> {
        let mut flags = DeclareFlags::default();
        let mut operands = Vec::new();
        for (pos, a) in args.iter().enumerate() {
            let option = (a.starts_with(b"-") || a.starts_with(b"+")) && a.len() > 1;
            if !option || !operands.is_empty() {
                operands.push((pos + 1, a.clone()));
                continue;
            }
            let on = a[0] == b'-';
            for &f in &a[1..] {
                match f {
                    b'x' => flags.export = Some(on),
                    b'r' => flags.readonly = on,
                    b'i' => flags.integer = on,
                    b'p' => flags.print = true,
                    b'f' => flags.functions = true,
                    b'F' => flags.function_names = true,
                    b'g' => flags.global = true,
                    b'a' if on => flags.kind = Some(ArrayKind::Indexed),
                    b'A' if on => flags.kind = Some(ArrayKind::Assoc),
                    b'a' | b'A' => {}
                    b'n' => {
                        self.error(&format!(
                            "{builtin}: -{}: not supported by guard-sh",
                            f as char
                        ));
                        return None;
                    }
                    _ => {
                        self.error(&format!("{builtin}: -{}: invalid option", f as char));
                        return None;
                    }
                }
            }
        }
        Some((flags, operands))
    }

    /// `declare -f` / `declare -F`: the functions named (all without
    /// names) as source, or their names; 1 if one is not defined.
    fn declare_functions(&mut self, builtin: &str, names: &[&Vec<u8>], only_names: bool) -> i32 {
        let wanted: Vec<String> = if names.is_empty() {
            self.functions.keys().cloned().collect()
        } else {
            names.iter().map(|n| lossy(n)).collect()
        };
        let mut status = 0;
        for name in wanted {
            let Some(def) = self.functions.get(&name).cloned() else {
                status = 1;
                continue;
            };
            let text = if only_names {
                format!("declare -f {name}\n")
            } else {
                let mut t = lossy(&crate::syntax::to_source(&function_as_list(&def)));
                if !t.ends_with('\n') {
                    t.push('\n');
                }
                t
            };
            self.write_out(text.as_bytes(), builtin);
        }
        status
    }

    /// `declare` without operands: every variable with the attributes
    /// asked for, with its attributes when any were asked for.
    fn declare_list(&mut self, builtin: &str, flags: &DeclareFlags) {
        let all: Vec<String> = self
            .vars
            .sorted()
            .into_iter()
            .map(|(n, _)| n.clone())
            .collect();
        for name in all {
            if !self.vars.get_var(&name).is_some_and(|v| flags.selects(v)) {
                continue;
            }
            if flags.print
                || flags.readonly
                || flags.export.is_some()
                || flags.integer
                || flags.kind.is_some()
            {
                let attrs = self.attr_flags(&name);
                self.print_var(&attrs, &name);
            } else if let Some(array) = self.whole_value(&name).filter(|v| v.is_array()) {
                self.write_out(
                    format!("{name}={}\n", array_text(&array)).as_bytes(),
                    builtin,
                );
            } else {
                let v = self.vars.get(&name).unwrap_or_default().to_vec();
                self.write_out(format!("{name}={}\n", quote(&v)).as_bytes(), builtin);
            }
        }
    }

    /// One operand of `declare`: `NAME`, `NAME=value`, `NAME=(…)` (its
    /// `items`) or `NAME[SUB]=value`. `Some(status)` when it fails without
    /// stopping the others.
    fn declare_one(
        &mut self,
        builtin: &str,
        flags: &DeclareFlags,
        a: &[u8],
        items: Option<Vec<crate::interp::arrays::ExpandedItem>>,
    ) -> Result<Option<i32>, Flow> {
        let (name, value) = Self::split_assignment(a);
        if let Some((base, Some(sub))) = split_reference(name.as_bytes()) {
            // `declare a[1]=x`: one element.
            let (base, sub) = (base.to_string(), sub.to_vec());
            if flags.print {
                return Ok(Some(1));
            }
            if self.vars.in_function() && !flags.global && !self.vars.is_set(&base) {
                self.vars.make_local(&base);
            }
            self.make_array(builtin, &base, flags.kind.unwrap_or(ArrayKind::Indexed))?;
            let key = self.runtime_element(&base, &sub)?;
            let (v, append) = value.unwrap_or_default();
            self.assign_element(&base, key, v, append)?;
            return Ok(None);
        }
        if !is_name(name.as_bytes()) {
            return Ok(Some(self.invalid_name(builtin, &name)));
        }
        if flags.print {
            if self.vars.is_set(&name) || self.whole_value(&name).is_some() {
                let attrs = self.attr_flags(&name);
                self.print_var(&attrs, &name);
                return Ok(None);
            }
            self.error(&format!("{builtin}: {name}: not found"));
            return Ok(Some(1));
        }
        if let Err(deny) = crate::guard::check_assignment(&self.policy, &name) {
            return Err(self.deny(&deny, &[a.to_vec()]));
        }
        if self.vars.in_function() && !flags.global {
            self.vars.make_local(&name);
        }
        if flags.integer {
            self.vars.set_default(&name, Vec::new());
            if let Some(var) = self.vars.get_var_mut(&name) {
                var.integer = true;
            }
        }
        if let Some(kind) = flags.kind {
            if !self.make_array(builtin, &name, kind)? {
                return Ok(Some(1));
            }
        }
        match (items, value) {
            (Some(items), Some((_, append))) => {
                let assoc = flags.kind == Some(ArrayKind::Assoc);
                self.assign_array(&name, items, append, assoc)?;
            }
            (None, Some((v, append))) => {
                let is_array = self
                    .vars
                    .get_var(&name)
                    .is_some_and(|var| var.value.is_array());
                if is_array && v.starts_with(b"(") && v.ends_with(b")") {
                    // bash would parse the text as `(…)` and expand it a
                    // second time.
                    self.error(&format!(
                        "{builtin}: {name}: an array value given as text built at run time is not parsed by guard-sh (write {name}=(…) in the command)"
                    ));
                    return Ok(Some(1));
                }
                self.assign_maybe_append(&name, v, append)?;
            }
            (_, None) => {
                if flags.kind.is_none() {
                    self.vars.set_default(&name, Vec::new());
                    if self.vars.get(&name) == Some(b"")
                        && !flags.integer
                        && flags.export.is_none()
                        && !flags.readonly
                        && self
                            .vars
                            .get_var(&name)
                            .is_some_and(|v| !v.value.is_array())
                    {
                        // `declare x` leaves x declared but unset, as bash does.
                        self.vars.unset_internal(&name);
                    }
                }
            }
        }
        if let Some(on) = flags.export {
            self.vars.export(&name, on);
        }
        if flags.readonly {
            if let Some(var) = self.vars.get_var_mut(&name) {
                var.readonly = true;
            }
        }
        Ok(None)
    }

    /// `readonly`/`export` with an array operand: `declare` with `flag`
    /// first (the operands' places in the argv move by one).
    fn declare_with(&mut self, builtin: &str, flag: &[u8], args: &[Vec<u8>]) -> Status {
        for entry in &mut self.compound_args {
            entry.0 += 1;
        }
        let mut all = vec![flag.to_vec()];
        all.extend(args.iter().cloned());
        self.declare(builtin, &all)
    }

    /// Give `name` the array kind `kind` (`declare -a`/`-A`): a new name
    /// becomes an empty, not yet set array; a string becomes element 0.
    /// `false` (after bash's message) when it is an array of the other kind.
    fn make_array(&mut self, builtin: &str, name: &str, kind: ArrayKind) -> Result<bool, Flow> {
        use crate::interp::Value;
        let current = self.vars.get_var(name).map(|v| v.value.clone());
        let new = match (current, kind) {
            (Some(Value::Indexed(_)), ArrayKind::Indexed)
            | (Some(Value::Assoc(_)), ArrayKind::Assoc) => {
                return Ok(true);
            }
            (Some(Value::Assoc(_)), ArrayKind::Indexed) => {
                self.error(&format!(
                    "{builtin}: {name}: cannot convert associative to indexed array"
                ));
                return Ok(false);
            }
            (Some(Value::Indexed(_)), ArrayKind::Assoc) => {
                self.error(&format!(
                    "{builtin}: {name}: cannot convert indexed to associative array"
                ));
                return Ok(false);
            }
            (Some(Value::Scalar(v)), ArrayKind::Indexed) if self.vars.is_set(name) => {
                Value::Indexed(std::collections::BTreeMap::from([(0, v)]))
            }
            (Some(Value::Scalar(v)), ArrayKind::Assoc) if self.vars.is_set(name) => {
                let mut map = crate::interp::Assoc::default();
                map.insert(b"0".to_vec(), v);
                Value::Assoc(map)
            }
            (_, ArrayKind::Indexed) => Value::Indexed(std::collections::BTreeMap::new()),
            (_, ArrayKind::Assoc) => Value::Assoc(crate::interp::Assoc::default()),
        };
        let fresh = !self.vars.is_set(name);
        self.check_assignable(name, name.as_bytes())?;
        self.vars.set_value(name, new);
        if fresh {
            if let Some(var) = self.vars.get_var_mut(name) {
                var.invisible = true;
            }
        }
        Ok(true)
    }

    pub(super) fn local(&mut self, args: &[Vec<u8>]) -> Status {
        if !self.vars.in_function() {
            self.error("local: can only be used in a function");
            return Ok(1);
        }
        // `local` takes `declare`'s attribute options (`-a`, `-A`, `-i`, …).
        if args.iter().any(|a| a.starts_with(b"-") && a.len() > 1) || !self.compound_args.is_empty()
        {
            return self.declare("local", args);
        }
        let mut status = 0;
        for a in args {
            if a.starts_with(b"-") {
                continue;
            }
            let (name, value) = Self::split_assignment(a);
            if !is_name(name.as_bytes()) {
                status = self.invalid_name("local", &name);
                continue;
            }
            if let Err(deny) = crate::guard::check_assignment(&self.policy, &name) {
                return Err(self.deny(&deny, std::slice::from_ref(a)));
            }
            if self.vars.is_readonly(&name) {
                self.error(&format!("local: {name}: readonly variable"));
                status = 1;
                continue;
            }
            self.vars.make_local(&name);
            if let Some((v, append)) = value {
                self.assign_maybe_append(&name, v, append)?;
            }
        }
        Ok(status)
    }

    pub(super) fn unset(&mut self, args: &[Vec<u8>]) -> Status {
        let mut functions = false;
        let mut explicit_v = false;
        let mut status = 0;
        for a in args {
            match a.as_slice() {
                b"-f" => functions = true,
                b"-v" => {
                    functions = false;
                    explicit_v = true;
                }
                b"-n" => {}
                _ => {
                    let name = lossy(a);
                    if functions {
                        self.functions.remove(&name);
                        continue;
                    }
                    if let Some((base, Some(sub))) = split_reference(a) {
                        let (base, sub) = (base.to_string(), sub.to_vec());
                        if self.vars.is_readonly(&base) {
                            self.error(&format!("unset: {base}: cannot unset: readonly variable"));
                            status = 1;
                            continue;
                        }
                        self.unset_element(&base, &sub)?;
                        continue;
                    }
                    if !is_name(a) {
                        // Without -v the name may be a function's.
                        if explicit_v {
                            self.error(&format!("unset: `{name}': not a valid identifier"));
                            status = 1;
                        }
                        self.functions.remove(&name);
                        continue;
                    }
                    if self.vars.is_readonly(&name) {
                        self.error(&format!("unset: {name}: cannot unset: readonly variable"));
                        status = 1;
                        continue;
                    }
                    if self.vars.is_set(&name) {
                        self.vars.unset_internal(&name);
                    } else {
                        self.functions.remove(&name);
                    }
                }
            }
        }
        Ok(status)
    }

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

    fn option_value(&self, name: &str) -> bool {
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
            "emacs" | "history" | "monitor" => self.interactive,
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
                let text = match &v.value {
                    crate::interp::Value::Scalar(v) => quote(v),
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
                self.opts.xtrace = false;
                self.opts.verbose = false;
                self.positional = args[i + 1..].to_vec();
                return Ok(0);
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

    pub(super) fn shift(&mut self, args: &[Vec<u8>]) -> Status {
        let n = match args.first() {
            None => 1,
            Some(a) => match lossy(a).parse::<usize>() {
                Ok(n) => n,
                Err(_) => {
                    self.error(&format!("shift: {}: numeric argument required", lossy(a)));
                    return Ok(1);
                }
            },
        };
        if n > self.positional.len() {
            return Ok(1);
        }
        self.positional.drain(..n);
        Ok(0)
    }

    /// `read [-rs] [-d DELIM] [-n COUNT] [-p PROMPT] [-t TIMEOUT] [NAME…]`.
    /// An option error reads nothing, so the input stays for the next line.
    pub(super) fn read_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let mut raw = false;
        let mut names = Vec::new();
        let mut delim: Option<u8> = Some(b'\n');
        let mut max: Option<usize> = None;
        let mut exact = false;
        let mut fd: Fd = 0;
        let mut timeout: Option<f64> = None;
        let mut array: Option<String> = None;
        let mut i = 0;
        // Options as bash's getopts reads them: clustered (`-rd ''`), a
        // value attached (`-n1`) or in the next word; `--` ends them.
        while i < args.len() && names.is_empty() {
            let a = &args[i];
            if a.as_slice() == b"--" {
                i += 1;
                break;
            }
            if !a.starts_with(b"-") || a.len() < 2 {
                break;
            }
            let mut k = 1;
            while k < a.len() {
                let letter = a[k];
                k += 1;
                if matches!(letter, b'r' | b's' | b'e') {
                    raw |= letter == b'r';
                    continue;
                }
                if !matches!(
                    letter,
                    b'p' | b'd' | b'n' | b'N' | b't' | b'u' | b'a' | b'i'
                ) {
                    self.error(&format!("read: -{}: invalid option", letter as char));
                    let _ = self.sys.write_all(2, READ_USAGE);
                    return Ok(2);
                }
                let Some(value) = option_value(args, &mut i, a, &mut k) else {
                    self.error(&format!(
                        "read: -{}: option requires an argument",
                        letter as char
                    ));
                    let _ = self.sys.write_all(2, READ_USAGE);
                    return Ok(2);
                };
                let text = lossy(&value);
                match letter {
                    // The prompt goes out only to a terminal.
                    b'p' if self.sys.isatty(0) => {
                        let _ = self.sys.write_all(2, &value);
                    }
                    b'd' => delim = Some(value.first().copied().unwrap_or(0)),
                    b'n' | b'N' => match text.trim().parse::<usize>() {
                        Ok(n) => {
                            max = Some(n);
                            exact = letter == b'N';
                        }
                        Err(_) => {
                            self.error(&format!("read: {text}: invalid number"));
                            return Ok(1);
                        }
                    },
                    b't' => {
                        if !is_timeout(text.trim()) {
                            self.error(&format!("read: {text}: invalid timeout specification"));
                            return Ok(1);
                        }
                        timeout = text.trim().parse::<f64>().ok();
                    }
                    b'u' => match text.trim().parse::<Fd>() {
                        Ok(n) if n >= 0 && !crate::os::private_fd::is_private(n) => fd = n,
                        _ => {
                            self.error(&format!(
                                "read: {text}: invalid file descriptor specification"
                            ));
                            return Ok(1);
                        }
                    },
                    b'a' => array = Some(text.clone()),
                    // -p off a terminal; -i: readline's initial text (no readline here).
                    _ => {}
                }
            }
            i += 1;
        }
        names.extend(args[i..].iter().map(|a| lossy(a)));
        if exact {
            delim = None;
        }
        let reply = names.is_empty() && array.is_none();
        if reply {
            names.push("REPLY".into());
        }
        if let Some(seconds) = timeout {
            // `-t 0`: only whether input is waiting; else wait that long.
            let ready = poll_readable(fd, seconds);
            if seconds == 0.0 {
                return Ok(i32::from(!ready));
            }
            if !ready {
                return Ok(142);
            }
        }
        // Read one byte at a time so the rest of the input stays for the next reader.
        let mut line = Vec::new();
        let mut quoted_mask = Vec::new();
        let mut eof = true;
        let mut byte = [0u8; 1];
        loop {
            if max.is_some_and(|m| line.len() >= m) {
                eof = false;
                break;
            }
            match self.sys.read(fd, &mut byte) {
                Ok(1) => {}
                _ => break,
            }
            let b = byte[0];
            if Some(b) == delim {
                eof = false;
                break;
            }
            if b == b'\\' && !raw {
                match self.sys.read(fd, &mut byte) {
                    Ok(1) if byte[0] == b'\n' => continue,
                    Ok(1) => {
                        line.push(byte[0]);
                        quoted_mask.push(true);
                        continue;
                    }
                    _ => break,
                }
            }
            line.push(b);
            quoted_mask.push(false);
        }
        // Without a name, or with -N, the line is taken whole (bash).
        if reply || exact {
            self.assign(&names[0], line)?;
            for name in &names[1..] {
                self.assign(name, Vec::new())?;
            }
            return Ok(i32::from(eof));
        }
        let ifs = self
            .vars
            .get("IFS")
            .map_or(b" \t\n".to_vec(), <[u8]>::to_vec);
        if let Some(array) = array {
            if !is_name(array.as_bytes()) {
                self.invalid_name("read", &array);
                return Ok(1);
            }
            let fields = split_read(&line, &quoted_mask, &ifs, usize::MAX);
            let items = fields.into_iter().map(|f| (None, f)).collect();
            self.assign_array(&array, items, false, false)?;
            return Ok(i32::from(eof));
        }
        let fields = split_read(&line, &quoted_mask, &ifs, names.len());
        for (k, name) in names.iter().enumerate() {
            let value = fields.get(k).cloned().unwrap_or_default();
            if !is_name(name.as_bytes()) {
                self.invalid_name("read", name);
                return Ok(1);
            }
            self.assign(name, value)?;
        }
        Ok(i32::from(eof))
    }

    /// `mapfile`/`readarray [-d DELIM] [-n COUNT] [-O ORIGIN] [-s SKIP] [-t]
    /// [-u FD] [ARRAY]`: lines of input into an indexed array (`MAPFILE`).
    /// `-C`/`-c` (a callback run as shell text) are refused.
    pub(super) fn mapfile(&mut self, builtin: &str, args: &[Vec<u8>]) -> Status {
        let mut delim = b'\n';
        let (mut count, mut origin, mut skip) = (0usize, None::<i64>, 0usize);
        let mut strip = false;
        let mut fd: Fd = 0;
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if a.as_slice() == b"--" {
                i += 1;
                break;
            }
            if !a.starts_with(b"-") || a.len() < 2 {
                break;
            }
            let mut k = 1;
            while k < a.len() {
                let letter = a[k];
                k += 1;
                if letter == b't' {
                    strip = true;
                    continue;
                }
                if !matches!(letter, b'd' | b'n' | b'O' | b's' | b'u' | b'C' | b'c') {
                    self.error(&format!("{builtin}: -{}: invalid option", letter as char));
                    return Ok(2);
                }
                let Some(value) = option_value(args, &mut i, a, &mut k) else {
                    self.error(&format!(
                        "{builtin}: -{}: option requires an argument",
                        letter as char
                    ));
                    return Ok(2);
                };
                let text = lossy(&value);
                let number = text.trim().parse::<i64>().ok().filter(|n| *n >= 0);
                match (letter, number) {
                    (b'd', _) => delim = value.first().copied().unwrap_or(0),
                    (b'n', Some(n)) => count = n as usize,
                    (b'O', Some(n)) => origin = Some(n),
                    (b's', Some(n)) => skip = n as usize,
                    (b'u', Some(n)) if !crate::os::private_fd::is_private(n as Fd) => fd = n as Fd,
                    (b'u', _) => {
                        self.error(&format!(
                            "{builtin}: {text}: invalid file descriptor specification"
                        ));
                        return Ok(1);
                    }
                    (b'C' | b'c', _) => {
                        self.error(&format!(
                            "{builtin}: -{}: callbacks are not supported by guard-sh",
                            letter as char
                        ));
                        return Ok(2);
                    }
                    (b'O', None) => {
                        self.error(&format!("{builtin}: {text}: invalid array origin"));
                        return Ok(1);
                    }
                    _ => {
                        self.error(&format!("{builtin}: {text}: invalid line count"));
                        return Ok(1);
                    }
                }
            }
            i += 1;
        }
        let name = args.get(i).map_or("MAPFILE".to_string(), |a| lossy(a));
        if !is_name(name.as_bytes()) {
            self.error(&format!("{builtin}: `{name}': not a valid identifier"));
            return Ok(1);
        }
        if self.is_assoc(&name) {
            self.error(&format!("{builtin}: {name}: not an indexed array"));
            return Ok(1);
        }
        // Read a byte at a time, so what follows stays for the next reader.
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        let mut seen = 0usize;
        loop {
            if count > 0 && lines.len() >= count {
                break;
            }
            let got = matches!(self.sys.read(fd, &mut byte), Ok(1));
            if got {
                line.push(byte[0]);
                if byte[0] != delim {
                    continue;
                }
                if strip {
                    line.pop();
                }
            } else if line.is_empty() {
                break;
            }
            seen += 1;
            let done = std::mem::take(&mut line);
            if seen > skip {
                lines.push(done);
            }
            if !got {
                break;
            }
        }
        let start = origin.unwrap_or(0);
        let items: Vec<_> = lines
            .into_iter()
            .enumerate()
            .map(|(n, l)| (Some((start + n as i64).to_string().into_bytes()), l))
            .collect();
        // Without -O the array is emptied first.
        self.assign_array(&name, items, origin.is_some(), false)?;
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

    pub(super) fn getopts(&mut self, args: &[Vec<u8>]) -> Status {
        let (Some(spec), Some(var)) = (args.first(), args.get(1)) else {
            self.error("getopts: usage: getopts optstring name [arg ...]");
            return Ok(2);
        };
        let var = lossy(var);
        let params: Vec<Vec<u8>> = if args.len() > 2 {
            args[2..].to_vec()
        } else {
            self.positional.clone()
        };
        let silent = spec.first() == Some(&b':');
        let spec: Vec<u8> = if silent {
            spec[1..].to_vec()
        } else {
            spec.clone()
        };
        let mut optind: usize = self
            .vars
            .get("OPTIND")
            .and_then(|v| lossy(v).parse().ok())
            .unwrap_or(1)
            .max(1);
        let mut pos: usize = self.getopts_pos;
        let Some(arg) = params.get(optind - 1).cloned() else {
            self.assign(&var, b"?".to_vec())?;
            return Ok(1);
        };
        if pos == 0 {
            if arg == b"--" {
                self.vars
                    .set_internal("OPTIND", (optind + 1).to_string().into_bytes());
                self.assign(&var, b"?".to_vec())?;
                return Ok(1);
            }
            if arg.len() < 2 || arg[0] != b'-' {
                self.assign(&var, b"?".to_vec())?;
                return Ok(1);
            }
            pos = 1;
        }
        let c = arg[pos];
        pos += 1;
        let at_end = pos >= arg.len();
        let spec_at = spec.iter().position(|&s| s == c && s != b':');
        let takes = spec_at.is_some_and(|i| spec.get(i + 1) == Some(&b':'));
        let mut status = 0;
        if spec_at.is_none() {
            if silent {
                self.assign("OPTARG", vec![c])?;
            } else {
                self.error(&format!("illegal option -- {}", c as char));
                self.vars.unset_internal("OPTARG");
            }
            self.assign(&var, b"?".to_vec())?;
        } else if takes {
            if !at_end {
                self.assign("OPTARG", arg[pos..].to_vec())?;
                optind += 1;
                pos = 0;
            } else if let Some(next) = params.get(optind) {
                self.assign("OPTARG", next.clone())?;
                optind += 2;
                pos = 0;
            } else {
                if silent {
                    self.assign(&var, b":".to_vec())?;
                    self.assign("OPTARG", vec![c])?;
                } else {
                    self.error(&format!("option requires an argument -- {}", c as char));
                    self.assign(&var, b"?".to_vec())?;
                }
                optind += 1;
                self.getopts_pos = 0;
                self.vars
                    .set_internal("OPTIND", optind.to_string().into_bytes());
                return Ok(0);
            }
            self.assign(&var, vec![c])?;
        } else {
            self.vars.unset_internal("OPTARG");
            self.assign(&var, vec![c])?;
            status = 0;
        }
        if pos != 0 && at_end {
            optind += 1;
            pos = 0;
        }
        self.getopts_pos = pos;
        self.vars
            .set_internal("OPTIND", optind.to_string().into_bytes());
        Ok(status)
    }
}

fn value_is_none_and_inherited(var: &crate::interp::Var) -> bool {
    var.inherited
}

/// Split a `read` line into at most `n` fields (the last takes the rest).
fn split_read(line: &[u8], quoted: &[bool], ifs: &[u8], n: usize) -> Vec<Vec<u8>> {
    let is_ifs = |i: usize| !quoted[i] && ifs.contains(&line[i]);
    let is_ws = |i: usize| is_ifs(i) && matches!(line[i], b' ' | b'\t' | b'\n');
    let mut fields = Vec::new();
    let mut i = 0;
    let len = line.len();
    while i < len && is_ws(i) {
        i += 1;
    }
    while i < len {
        if fields.len() + 1 == n {
            // The rest of the line, minus trailing IFS whitespace.
            let mut end = len;
            while end > i && is_ws(end - 1) {
                end -= 1;
            }
            fields.push(line[i..end].to_vec());
            return fields;
        }
        let start = i;
        while i < len && !is_ifs(i) {
            i += 1;
        }
        fields.push(line[start..i].to_vec());
        // One delimiter: whitespace, optionally one non-whitespace IFS char.
        while i < len && is_ws(i) {
            i += 1;
        }
        if i < len && is_ifs(i) && !is_ws(i) {
            i += 1;
            while i < len && is_ws(i) {
                i += 1;
            }
        }
    }
    fields
}

/// Escape for `declare -p` double quotes.
/// `"…"` as bash's `declare -p` and `@K` write a value.
pub(in crate::interp) fn dq_quote(v: &[u8]) -> String {
    format!("\"{}\"", escape_dq(v))
}

/// An associative array's key as `declare -p` and `@K` write it: bare when
/// safe, else double-quoted.
pub(in crate::interp) fn quote_key(k: &[u8]) -> String {
    let plain = !k.is_empty()
        && k.iter().all(|&b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'-' | b'.' | b'/' | b':' | b',' | b'+' | b'@' | b'%' | b'='
                )
        });
    if plain { lossy(k) } else { dq_quote(k) }
}

fn escape_dq(v: &[u8]) -> String {
    let mut out = String::new();
    for c in lossy(v).chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An array as `declare -p` and `set` print it: `([0]="x" [1]="y")`, an
/// associative one `([k]="v" )` (bash's trailing blank).
pub(in crate::interp) fn array_text(value: &crate::interp::Value) -> String {
    use crate::interp::Value;
    let element = |v: &[u8]| {
        if v.iter().any(|b| b.is_ascii_control()) {
            super::format::quote_q(v)
        } else {
            dq_quote(v)
        }
    };
    let mut out = String::from("(");
    match value {
        Value::Scalar(v) => out.push_str(&format!("[0]={}", element(v))),
        Value::Indexed(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("[{k}]={}", element(v)))
                .collect();
            out.push_str(&items.join(" "));
        }
        Value::Assoc(map) => {
            for (k, v) in map.iter() {
                let key = quote_key(k);
                out.push_str(&format!("[{key}]={} ", element(v)));
            }
        }
    }
    out.push(')');
    out
}

/// The value of the option letter just read at `a[k - 1]` (`args[*i]`), as
/// bash's getopts takes it: the rest of the word (`-n1`), else the next
/// word (`-n 1`, moving `i` on); `None` when there is neither.
fn option_value(args: &[Vec<u8>], i: &mut usize, a: &[u8], k: &mut usize) -> Option<Vec<u8>> {
    if *k < a.len() {
        let value = a[*k..].to_vec();
        *k = a.len();
        return Some(value);
    }
    let next = args.get(*i + 1)?.clone();
    *i += 1;
    Some(next)
}

/// What bash prints after a `read` usage error.
const READ_USAGE: &[u8] = b"read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]\n";

/// A `read -t` operand bash accepts: digits with at most one `.`.
/// Whether `fd` has input (or its end) waiting within `seconds`.
fn poll_readable(fd: Fd, seconds: f64) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let millis = (seconds * 1000.0).min(f64::from(i32::MAX)) as libc::c_int;
    // SAFETY: one valid pollfd for the duration of the call.
    unsafe { libc::poll(&mut pfd, 1, millis) > 0 }
}

fn is_timeout(text: &str) -> bool {
    let mut parts = text.splitn(2, '.');
    let whole = parts.next().unwrap_or_default();
    let fraction = parts.next().unwrap_or_default();
    !(whole.is_empty() && fraction.is_empty())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::split_read;

    fn sr(line: &str, ifs: &str, n: usize) -> Vec<String> {
        let q = vec![false; line.len()];
        split_read(line.as_bytes(), &q, ifs.as_bytes(), n)
            .into_iter()
            .map(|f| String::from_utf8_lossy(&f).into_owned())
            .collect()
    }

    #[test]
    fn read_splits_on_ifs_and_gives_the_rest_to_the_last_name() {
        assert_eq!(sr("  a  b   c d  ", " \t\n", 2), ["a", "b   c d"]);
        assert_eq!(sr("a:b::c", ":", 4), ["a", "b", "", "c"]);
        assert_eq!(sr("x y", " ", 1), ["x y"]);
    }
}
