//! Builtins about variables: `export`, `readonly`, `declare`/`typeset`,
//! `local`, `unset`, and how variables are printed back as source. Every
//! assignment they make goes through the policy check.

use super::lossy;
use crate::interp::arrays::split_reference;
use crate::interp::quote::{array_text, quote, value_text};
use crate::interp::vars::is_name;
use crate::interp::{Flow, Shell, Status};

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
    /// `-l`/`-u` (`Some(Some(case))`), or `+l`/`+u` (`Some(None)`).
    case: Option<Option<crate::interp::vars::LetterCase>>,
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

fn value_is_none_and_inherited(var: &crate::interp::Var) -> bool {
    var.inherited
}

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

    pub(super) fn invalid_name(&mut self, builtin: &str, name: &str) -> i32 {
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
                Some(v) => format!("declare {flags} {name}={}\n", value_text(v)),
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
        match v.case {
            Some(crate::interp::vars::LetterCase::Lower) => f.push('l'),
            Some(crate::interp::vars::LetterCase::Upper) => f.push('u'),
            None => {}
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
        // `-a`/`-A` make an array only of a name given a value: bash's
        // `readonly -a x` leaves an unset `x` a plain readonly name.
        let array_flag = args
            .iter()
            .any(|a| a.starts_with(b"-a") || a.starts_with(b"-A"));
        let valued = args
            .iter()
            .any(|a| !a.starts_with(b"-") && a.contains(&b'='));
        if !self.compound_args.is_empty() || (array_flag && valued) {
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
            self.vars.declare(&name).readonly = true;
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
        let mut options_ended = false;
        for (pos, a) in args.iter().enumerate() {
            let option = (a.starts_with(b"-") || a.starts_with(b"+")) && a.len() > 1;
            if !option || options_ended || !operands.is_empty() {
                operands.push((pos + 1, a.clone()));
                continue;
            }
            if a == b"--" {
                options_ended = true;
                continue;
            }
            let on = a[0] == b'-';
            for &f in &a[1..] {
                match f {
                    b'x' => flags.export = Some(on),
                    b'r' => flags.readonly = on,
                    b'i' => flags.integer = on,
                    b'l' | b'u' if on => {
                        let case = if f == b'l' {
                            crate::interp::vars::LetterCase::Lower
                        } else {
                            crate::interp::vars::LetterCase::Upper
                        };
                        // Both at once cancel, as in bash.
                        flags.case = match flags.case {
                            Some(Some(other)) if other != case => Some(None),
                            _ => Some(Some(case)),
                        };
                    }
                    b'l' | b'u' => flags.case = Some(None),
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
        // `declare -F` lists `declare -f NAME` lines; `declare -F NAME`
        // says the name alone, as bash does.
        let listing = names.is_empty();
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
            let text = if only_names && listing {
                format!("declare -f {name}\n")
            } else if only_names {
                format!("{name}\n")
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
            if self.vars.in_function() && !flags.global && !self.vars.is_declared(&base) {
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
            if self.vars.is_declared(&name) || self.whole_value(&name).is_some() {
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
            self.vars.declare(&name).integer = true;
        }
        if let Some(case) = flags.case {
            self.vars.declare(&name).case = case;
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
                // `declare x`: declared, its value (if any) kept.
                self.vars.declare(&name);
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
                        if !self.unset_element(&base, &sub)? {
                            status = 1;
                        }
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
                    if self.vars.is_declared(&name) {
                        self.vars.unset(&name);
                    } else {
                        self.functions.remove(&name);
                    }
                }
            }
        }
        Ok(status)
    }
}
