//! bash arrays: element reads and writes, compound assignment `a=(…)`,
//! subscripts, and the shell's own arrays (`PIPESTATUS`, `FUNCNAME`).
//!
//! A subscript written in the script is expanded once by the parser's
//! word and then, for an indexed array, evaluated as arithmetic. A
//! subscript found in text built at run time (`unset "a[$i]"`, `${!ref}`,
//! `test -v`, arithmetic on a value holding `a[…]`) is where bash expands a
//! second time and runs any command substitution it holds; guard-sh
//! expands only `$name` there and refuses every other expansion.

use std::collections::BTreeMap;

use super::vars::{Assoc, Value, is_name};
use super::{Flow, Shell};
use crate::guard;
use crate::syntax::ast::{ArrayItem, Subscript, Word};

/// The rule a refused run-time subscript is recorded under.
const RUNTIME_SUBSCRIPT: crate::guard::Rule = crate::guard::Rule::RuntimeSubscript;

/// Where an element lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Key {
    Index(i64),
    Name(Vec<u8>),
}

/// An element's value after expansion: `[key]=value` or a bare value.
pub(super) type ExpandedItem = (Option<Vec<u8>>, Vec<u8>);

/// A name as text built at run time: `name` or `name[subscript]`.
pub(super) fn split_reference(text: &[u8]) -> Option<(&str, Option<&[u8]>)> {
    let (name, sub) = match text.iter().position(|&b| b == b'[') {
        Some(open) if text.last() == Some(&b']') && open + 1 < text.len() => {
            (&text[..open], Some(&text[open + 1..text.len() - 1]))
        }
        Some(_) => return None,
        None => (text, None),
    };
    if !is_name(name) {
        return None;
    }
    Some((std::str::from_utf8(name).ok()?, sub))
}

impl Shell<'_> {
    /// Is `name` an associative array?
    pub(super) fn is_assoc(&self, name: &str) -> bool {
        self.vars
            .get_var(name)
            .is_some_and(|v| matches!(v.value, Value::Assoc(_)))
    }

    /// The key a subscript's text names in `name`: the text itself for an
    /// associative array, its arithmetic value for any other.
    pub(super) fn key_of(&mut self, name: &str, text: Vec<u8>) -> Result<Key, Flow> {
        if self.is_assoc(name) {
            if text.is_empty() {
                self.error(&format!("{name}[]: bad array subscript"));
                return Err(Flow::Abort(1));
            }
            return Ok(Key::Name(text));
        }
        Ok(Key::Index(self.arith(&text)?))
    }

    /// The text of a subscript found in text built at run time: `$name`
    /// and `${name}` are replaced by their values, any other expansion is
    /// refused (bash would run the command substitutions it holds).
    pub(super) fn runtime_subscript(&mut self, text: &[u8]) -> Result<Vec<u8>, Flow> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < text.len() {
            match text[i] {
                b'$' => {
                    let rest = &text[i + 1..];
                    let (name, used) = match rest.first() {
                        Some(b'{') => {
                            let end = rest.iter().position(|&b| b == b'}');
                            match end {
                                Some(end) if is_name(&rest[1..end]) => (&rest[1..end], end + 1),
                                _ => return Err(self.refuse_subscript(text)),
                            }
                        }
                        _ => {
                            let len = rest
                                .iter()
                                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                                .unwrap_or(rest.len());
                            if !is_name(&rest[..len]) {
                                return Err(self.refuse_subscript(text));
                            }
                            (&rest[..len], len)
                        }
                    };
                    let name = String::from_utf8_lossy(name).into_owned();
                    if let Some(v) = self.vars.get(&name) {
                        out.extend_from_slice(v);
                    }
                    i += 1 + used;
                }
                b'`' => return Err(self.refuse_subscript(text)),
                b => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        Ok(out)
    }

    fn refuse_subscript(&mut self, text: &[u8]) -> Flow {
        let deny = crate::guard::Deny::new(
            RUNTIME_SUBSCRIPT,
            format!(
                "[{}]: a subscript built at run time may hold only `$name` expansions (bash would run the substitutions in it); refused by guard-sh",
                String::from_utf8_lossy(text)
            ),
        );
        self.deny(&deny, &[text.to_vec()])
    }

    /// `name[sub]` (text built at run time) as a variable name and a key.
    pub(super) fn runtime_element(&mut self, name: &str, sub: &[u8]) -> Result<Key, Flow> {
        let text = self.runtime_subscript(sub)?;
        self.key_of(name, text)
    }

    /// The value of one element; `None` if unset. A negative index counts
    /// from the end; one before the first element is an error bash reports
    /// without stopping.
    pub(super) fn element(&mut self, name: &str, key: &Key) -> Option<Vec<u8>> {
        if let Some(value) = self.shell_array(name) {
            return lookup(&value, key).map(<[u8]>::to_vec);
        }
        match (self.vars.value(name)?, key) {
            (Value::Indexed(map), Key::Index(i)) if *i < 0 => {
                let last = map.keys().next_back().copied().unwrap_or(-1);
                let at = last + 1 + i;
                if at < 0 {
                    self.error(&format!("{name}: bad array subscript"));
                    return None;
                }
                map.get(&at).cloned()
            }
            (value, key) => lookup(value, key).map(<[u8]>::to_vec),
        }
    }

    /// The shell's own arrays, computed when read.
    fn shell_array(&self, name: &str) -> Option<Value> {
        let indexed = |items: Vec<Vec<u8>>| {
            Value::Indexed(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| (i as i64, v))
                    .collect(),
            )
        };
        match name {
            "PIPESTATUS" => Some(indexed(
                self.pipestatus
                    .iter()
                    .map(|s| s.to_string().into_bytes())
                    .collect(),
            )),
            // bash ends the stack with `main` when it runs a script file.
            "FUNCNAME" if !self.func_names.is_empty() => Some(indexed(
                self.func_names
                    .iter()
                    .rev()
                    .map(|n| n.as_bytes().to_vec())
                    .chain(self.running_script.then(|| b"main".to_vec()))
                    .collect(),
            )),
            _ => None,
        }
    }

    /// Every element's value (`${a[@]}`), `None` when the name is unset.
    pub(super) fn array_values(&mut self, name: &str) -> Option<Vec<Vec<u8>>> {
        if let Some(value) = self.shell_array(name) {
            return Some(value.elements());
        }
        match self.vars.value(name)? {
            Value::Scalar(_) => self.param_value_named(name).map(|v| vec![v]),
            value => Some(value.elements()),
        }
    }

    /// Has `name` no element (unset, or an empty array)?
    pub(super) fn array_is_empty(&self, name: &str) -> bool {
        if let Some(value) = self.shell_array(name) {
            return value.keys().is_empty();
        }
        match self.vars.value(name) {
            None => true,
            Some(Value::Indexed(map)) => map.is_empty(),
            Some(Value::Assoc(map)) => map.is_empty(),
            Some(Value::Scalar(_)) => false,
        }
    }

    /// Every element's key (`${!a[@]}`).
    pub(super) fn array_keys(&mut self, name: &str) -> Vec<Vec<u8>> {
        if let Some(value) = self.shell_array(name) {
            return value.keys();
        }
        match self.vars.value(name) {
            Some(value) => value.keys(),
            None => Vec::new(),
        }
    }

    /// The whole value, for `declare -p` (the shell's own arrays too).
    pub(super) fn whole_value(&self, name: &str) -> Option<Value> {
        self.shell_array(name)
            .or_else(|| self.vars.value(name).cloned())
    }

    fn param_value_named(&mut self, name: &str) -> Option<Vec<u8>> {
        self.param_value(&crate::syntax::ast::Parameter::Named(name.to_string()))
    }

    /// The checks of every assignment: the policy, then `readonly`.
    pub(super) fn check_assignable(&mut self, name: &str, shown: &[u8]) -> Result<(), Flow> {
        if let Err(deny) = guard::check_assignment(&self.policy, name) {
            return Err(self.deny(&deny, &[shown.to_vec()]));
        }
        if self.vars.is_readonly(name) {
            self.error(&format!("{name}: readonly variable"));
            return Err(Flow::Abort(1));
        }
        Ok(())
    }

    /// `name[key]=value` (`append`: `+=`). A string variable becomes an
    /// indexed array holding it at 0.
    pub(super) fn assign_element(
        &mut self,
        name: &str,
        key: Key,
        value: Vec<u8>,
        append: bool,
    ) -> Result<(), Flow> {
        self.check_assignable(name, format!("{name}[]=").as_bytes())?;
        let integer = self.vars.get_var(name).is_some_and(|v| v.integer);
        let key = match key {
            Key::Index(i) if i < 0 => {
                let last = match self.vars.value(name) {
                    Some(Value::Indexed(map)) => map.keys().next_back().copied().unwrap_or(-1),
                    Some(Value::Scalar(_)) => 0,
                    _ => -1,
                };
                if last + 1 + i < 0 {
                    self.error(&format!("{name}[{i}]: bad array subscript"));
                    return Err(Flow::Abort(1));
                }
                Key::Index(last + 1 + i)
            }
            key => key,
        };
        let old = match append {
            true => self.element(name, &key),
            false => None,
        };
        let value = if integer {
            let mut text = old.clone().unwrap_or_default();
            if append && !text.is_empty() {
                text = format!(
                    "{}+({})",
                    String::from_utf8_lossy(&text),
                    String::from_utf8_lossy(&value)
                )
                .into_bytes();
            } else {
                text = value;
            }
            self.arith(&text)?.to_string().into_bytes()
        } else {
            let mut v = old.unwrap_or_default();
            v.extend_from_slice(&value);
            v
        };
        let mut whole = self
            .vars
            .get_var(name)
            .map(|v| v.value.clone())
            .unwrap_or(Value::Indexed(BTreeMap::new()));
        if let Value::Scalar(s) = whole {
            let mut map = BTreeMap::new();
            if self.vars.is_set(name) {
                map.insert(0, s);
            }
            whole = Value::Indexed(map);
        }
        match (&mut whole, key) {
            (Value::Indexed(map), Key::Index(i)) => {
                map.insert(i, value);
            }
            (Value::Assoc(map), Key::Name(k)) => map.insert(k, value),
            (Value::Assoc(map), Key::Index(i)) => map.insert(i.to_string().into_bytes(), value),
            (Value::Indexed(map), Key::Name(_)) => {
                map.insert(0, value);
            }
            (Value::Scalar(_), _) => {}
        }
        self.vars.set_value(name, whole);
        if self.opts.allexport {
            self.vars.export(name, true);
        }
        Ok(())
    }

    /// Expand the elements of `NAME=(…)`: bare words are split and globbed
    /// like command words, `[key]=value` pairs are not.
    pub(super) fn expand_items(&mut self, items: &[ArrayItem]) -> Result<Vec<ExpandedItem>, Flow> {
        let mut out = Vec::new();
        for item in items {
            match &item.key {
                Some(key) => {
                    let key = self.expand_string(key)?;
                    let value = self.expand_string(&item.value)?;
                    out.push((Some(key), value));
                }
                None => {
                    for value in self.expand_words(std::slice::from_ref(&item.value))? {
                        out.push((None, value));
                    }
                }
            }
        }
        Ok(out)
    }

    /// `name=(…)` / `name+=(…)` with expanded elements. `assoc` makes a new
    /// variable associative (`declare -A name=(…)`).
    pub(super) fn assign_array(
        &mut self,
        name: &str,
        items: Vec<ExpandedItem>,
        append: bool,
        assoc: bool,
    ) -> Result<(), Flow> {
        self.check_assignable(name, format!("{name}=(").as_bytes())?;
        let integer = self.vars.get_var(name).is_some_and(|v| v.integer);
        let old = self.vars.get_var(name).map(|v| v.value.clone());
        let mut whole = match old {
            Some(Value::Assoc(map)) if append => Value::Assoc(map),
            Some(Value::Assoc(_)) => Value::Assoc(Assoc::default()),
            _ if assoc => Value::Assoc(Assoc::default()),
            Some(Value::Indexed(map)) if append => Value::Indexed(map),
            Some(Value::Scalar(s)) if append && self.vars.is_set(name) => {
                Value::Indexed(BTreeMap::from([(0, s)]))
            }
            _ => Value::Indexed(BTreeMap::new()),
        };
        let number = |sh: &mut Self, v: Vec<u8>| -> Result<Vec<u8>, Flow> {
            if integer {
                Ok(sh.arith(&v)?.to_string().into_bytes())
            } else {
                Ok(v)
            }
        };
        match &mut whole {
            Value::Indexed(map) => {
                let mut next = map.keys().next_back().map_or(0, |k| k + 1);
                for (key, value) in items {
                    if let Some(key) = key {
                        let i = self.arith(&key)?;
                        next = if i < 0 {
                            let last = map.keys().next_back().copied().unwrap_or(-1);
                            if last + 1 + i < 0 {
                                self.error(&format!(
                                    "{name}[{}]: bad array subscript",
                                    String::from_utf8_lossy(&key)
                                ));
                                continue;
                            }
                            last + 1 + i
                        } else {
                            i
                        };
                    }
                    let value = number(self, value)?;
                    map.insert(next, value);
                    next += 1;
                }
            }
            Value::Assoc(map) => {
                // bash 5.2: bare words in an associative assignment are
                // key, value, key, value…
                let mut pending: Option<Vec<u8>> = None;
                for (key, value) in items {
                    match (key, pending.take()) {
                        (Some(key), _) if key.is_empty() => {
                            self.error(&format!("{name}[]: bad array subscript"));
                        }
                        (Some(key), _) => {
                            let value = number(self, value)?;
                            map.insert(key, value);
                        }
                        (None, Some(key)) => {
                            let value = number(self, value)?;
                            map.insert(key, value);
                        }
                        (None, None) => pending = Some(value),
                    }
                }
                if let Some(key) = pending {
                    map.insert(key, Vec::new());
                }
            }
            Value::Scalar(_) => {}
        }
        self.vars.set_value(name, whole);
        if self.opts.allexport {
            self.vars.export(name, true);
        }
        Ok(())
    }

    /// `unset name[sub]` (text built at run time); `false` when the
    /// subscript is before the first element (said).
    pub(super) fn unset_element(&mut self, name: &str, sub: &[u8]) -> Result<bool, Flow> {
        if sub == b"@" || sub == b"*" {
            self.vars.unset_internal(name);
            return Ok(true);
        }
        if !self.vars.is_set(name) {
            return Ok(true);
        }
        let key = self.runtime_element(name, sub)?;
        let Some(var) = self.vars.get_var_mut(name) else {
            return Ok(true);
        };
        match (&mut var.value, key) {
            (Value::Indexed(map), Key::Index(i)) => {
                let at = if i < 0 {
                    map.keys().next_back().copied().unwrap_or(-1) + 1 + i
                } else {
                    i
                };
                if at < 0 {
                    // Before the first element: bash's error, status 1.
                    self.error(&format!("unset: [{i}]: bad array subscript"));
                    return Ok(false);
                }
                map.remove(&at);
            }
            (Value::Assoc(map), Key::Name(k)) => {
                map.remove(&k);
            }
            (Value::Scalar(_), Key::Index(0)) => self.vars.unset_internal(name),
            _ => {}
        }
        Ok(true)
    }

    /// The subscript of `${name[word]}` as a key of `name`.
    pub(super) fn subscript_key(
        &mut self,
        name: &str,
        index: &Subscript,
    ) -> Result<Option<Key>, Flow> {
        match index {
            Subscript::Index(word) => {
                let text = self.expand_string(word)?;
                self.key_of(name, text).map(Some)
            }
            Subscript::At | Subscript::Star => Ok(None),
        }
    }

    /// An array subscript written in arithmetic (`a[i+1]`), whose text
    /// went through word expansion already: any `$` or backquote left came
    /// from a value and is refused.
    pub(super) fn arith_element_key(
        &mut self,
        name: &str,
        sub: &[u8],
    ) -> Result<Key, super::arith::ArithError> {
        use super::arith::ArithError;
        if sub.iter().any(|&b| b == b'$' || b == b'`') {
            return Err(ArithError::Denied(crate::guard::Deny::new(
                RUNTIME_SUBSCRIPT,
                format!(
                    "{name}[{}]: a subscript built at run time may not hold expansions (bash would run the substitutions in it); refused by guard-sh",
                    String::from_utf8_lossy(sub)
                ),
            )));
        }
        if self.is_assoc(name) {
            return Ok(Key::Name(sub.to_vec()));
        }
        // A value naming an element of itself (`x='a[x]'`) would recurse
        // for ever.
        if self.depth.subscripts >= 64 {
            return Err(ArithError::Invalid(
                "expression recursion level exceeded".into(),
            ));
        }
        self.depth.subscripts += 1;
        let r = super::arith::eval(self, sub);
        self.depth.subscripts -= 1;
        r.map(Key::Index)
    }

    /// Is `text` (a name built at run time, `name` or `name[sub]`) set?
    /// (`test -v`, `[[ -v ]]`)
    pub(super) fn reference_is_set(&mut self, text: &[u8]) -> Result<bool, Flow> {
        let Some((name, sub)) = split_reference(text) else {
            return Ok(false);
        };
        let name = name.to_string();
        match sub {
            None => Ok(self.vars.get(&name).is_some()
                || self
                    .shell_array(&name)
                    .is_some_and(|v| v.scalar().is_some())),
            Some(b"@" | b"*") => Ok(self
                .array_values(&name)
                .is_some_and(|values| !values.is_empty())),
            Some(sub) => {
                if !self.vars.is_set(&name) && self.shell_array(&name).is_none() {
                    return Ok(false);
                }
                let key = self.runtime_element(&name, sub)?;
                Ok(self.element(&name, &key).is_some())
            }
        }
    }

    /// Assign to a name built at run time (`read`, `printf -v`, `mapfile`
    /// names, `${!x=…}`): `name` or `name[sub]`.
    pub(super) fn assign_reference(&mut self, text: &[u8], value: Vec<u8>) -> Result<(), Flow> {
        match split_reference(text) {
            Some((name, None)) => {
                let name = name.to_string();
                self.assign(&name, value)
            }
            Some((name, Some(sub))) if sub != b"@" && sub != b"*" => {
                let name = name.to_string();
                let key = self.runtime_element(&name, sub)?;
                self.assign_element(&name, key, value, false)
            }
            _ => {
                self.error(&format!(
                    "`{}': not a valid identifier",
                    String::from_utf8_lossy(text)
                ));
                Err(Flow::Abort(1))
            }
        }
    }

    /// An array subscript is present in an expansion's word: used for
    /// error messages like bash's `a[3]: unbound variable`.
    pub(super) fn element_text(name: &str, index: &Subscript) -> String {
        match index {
            Subscript::At => format!("{name}[@]"),
            Subscript::Star => format!("{name}[*]"),
            Subscript::Index(w) => format!("{name}[{}]", word_text(w)),
        }
    }
}

/// A subscript word as written (for messages).
fn word_text(w: &Word) -> String {
    crate::guard::words::describe(w)
}

fn lookup<'v>(value: &'v Value, key: &Key) -> Option<&'v [u8]> {
    match (value, key) {
        (Value::Scalar(v), Key::Index(0)) => Some(v),
        (Value::Scalar(_), _) => None,
        (Value::Indexed(map), Key::Index(i)) => map.get(i).map(Vec::as_slice),
        (Value::Indexed(_), Key::Name(_)) => None,
        (Value::Assoc(map), Key::Name(k)) => map.get(k),
        (Value::Assoc(map), Key::Index(i)) => map.get(i.to_string().as_bytes()),
    }
}
