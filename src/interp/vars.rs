//! Shell variables: values with export/readonly/integer attributes, and
//! dynamic scoping for `local` (each function call saves the values it
//! shadows and restores them on return). A value is a string, an indexed
//! array or an associative array (bash); `$a` of an array is its element
//! `0` (key `"0"`), as in bash.

use std::collections::{BTreeMap, HashMap};

/// What a variable holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Scalar(Vec<u8>),
    /// `declare -a`: sparse, by index.
    Indexed(BTreeMap<i64, Vec<u8>>),
    /// `declare -A`: by key, in bash's order.
    Assoc(Assoc),
}

impl Default for Value {
    fn default() -> Self {
        Value::Scalar(Vec::new())
    }
}

impl Value {
    /// The value `$name` gives: the string, or element 0 of an array.
    pub fn scalar(&self) -> Option<&[u8]> {
        match self {
            Value::Scalar(v) => Some(v),
            Value::Indexed(map) => map.get(&0).map(Vec::as_slice),
            Value::Assoc(map) => map.get(b"0"),
        }
    }

    pub fn is_array(&self) -> bool {
        !matches!(self, Value::Scalar(_))
    }

    /// Every element's value in order (a string is one element).
    pub fn elements(&self) -> Vec<Vec<u8>> {
        match self {
            Value::Scalar(v) => vec![v.clone()],
            Value::Indexed(map) => map.values().cloned().collect(),
            Value::Assoc(map) => map.iter().map(|(_, v)| v.to_vec()).collect(),
        }
    }

    /// Every element's key in order (`${!a[@]}`).
    pub fn keys(&self) -> Vec<Vec<u8>> {
        match self {
            Value::Scalar(_) => vec![b"0".to_vec()],
            Value::Indexed(map) => map.keys().map(|k| k.to_string().into_bytes()).collect(),
            Value::Assoc(map) => map.iter().map(|(k, _)| k.to_vec()).collect(),
        }
    }
}

/// An associative array that lists its keys in the order bash 5.2 does:
/// bash keeps them in a hash table of 1024 buckets (FNV-1 of the key, a
/// new key at the front of its bucket's chain, four times the buckets
/// once there are two keys per bucket) and lists bucket by bucket. Agents
/// print `"${!m[@]}"` unsorted; the same order keeps their output bash's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assoc {
    /// Each bucket's chain, newest key last.
    buckets: Vec<Vec<(Vec<u8>, Vec<u8>)>>,
    len: usize,
}

const ASSOC_BUCKETS: usize = 1024;

impl Default for Assoc {
    fn default() -> Self {
        Assoc {
            buckets: vec![Vec::new(); ASSOC_BUCKETS],
            len: 0,
        }
    }
}

/// bash's `hash_string`: 32-bit FNV-1 of the bytes.
fn fnv1(key: &[u8]) -> u32 {
    key.iter().fold(2_166_136_261u32, |h, &b| {
        h.wrapping_mul(16_777_619) ^ u32::from(b)
    })
}

impl Assoc {
    fn bucket(&self, key: &[u8]) -> usize {
        fnv1(key) as usize & (self.buckets.len() - 1)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, key: &[u8]) -> Option<&[u8]> {
        self.buckets[self.bucket(key)]
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_slice())
    }

    pub fn insert(&mut self, key: Vec<u8>, value: Vec<u8>) {
        let b = self.bucket(&key);
        if let Some(slot) = self.buckets[b].iter_mut().find(|(k, _)| *k == key) {
            slot.1 = value;
            return;
        }
        if self.len >= self.buckets.len() * 2 {
            self.grow();
        }
        let b = self.bucket(&key);
        self.buckets[b].push((key, value));
        self.len += 1;
    }

    /// bash's rehash: old buckets in order, each chain front to back,
    /// each entry put at the front of its new chain.
    fn grow(&mut self) {
        let grown = vec![Vec::new(); self.buckets.len() * 4];
        let old = std::mem::replace(&mut self.buckets, grown);
        for chain in old {
            for entry in chain.into_iter().rev() {
                let b = self.bucket(&entry.0);
                self.buckets[b].push(entry);
            }
        }
    }

    pub fn remove(&mut self, key: &[u8]) -> bool {
        let b = self.bucket(key);
        let chain = &mut self.buckets[b];
        match chain.iter().position(|(k, _)| k == key) {
            Some(p) => {
                chain.remove(p);
                self.len -= 1;
                true
            }
            None => false,
        }
    }

    /// Key–value pairs in bash's order.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.buckets
            .iter()
            .flat_map(|chain| chain.iter().rev())
            .map(|(k, v)| (k.as_slice(), v.as_slice()))
    }
}

/// One variable.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Var {
    pub value: Value,
    pub exported: bool,
    pub readonly: bool,
    pub integer: bool,
    /// `declare -l` / `-u`: every value assigned is lowered / raised.
    pub case: Option<LetterCase>,
    /// Unchanged since it was imported from guard-sh's own environment: such
    /// variables reach children only through the policy's `env.pass`.
    pub inherited: bool,
    /// Declared but never assigned (`declare x`, `export x`, `local x`,
    /// `declare -a x`): unset to every expansion and test, not passed to
    /// commands, but its attributes hold and `declare -p` names it without
    /// a value, as bash's.
    pub invisible: bool,
}

/// The case `declare -l` (lower) or `-u` (upper) puts values in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LetterCase {
    Lower,
    Upper,
}

impl LetterCase {
    /// `value` in this case (UTF-8 text by its letters, other bytes as
    /// ASCII).
    pub fn apply(self, value: &[u8]) -> Vec<u8> {
        match (std::str::from_utf8(value), self) {
            (Ok(text), LetterCase::Lower) => text.to_lowercase().into_bytes(),
            (Ok(text), LetterCase::Upper) => text.to_uppercase().into_bytes(),
            (Err(_), LetterCase::Lower) => value.to_ascii_lowercase(),
            (Err(_), LetterCase::Upper) => value.to_ascii_uppercase(),
        }
    }
}

/// All variables, plus the save stacks of `local` and of prefix
/// assignments.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    map: HashMap<String, Var>,
    /// One frame per function call: name → the value it shadowed.
    frames: Vec<HashMap<String, Option<Var>>>,
    /// The bindings prefix assignments made for the builtins and functions
    /// running (`x=1 f`), innermost last.
    bindings: Vec<Binding>,
}

/// What one command's prefix assignments shadow, and how many function
/// frames there were when they were made (a `local` in a frame made since
/// is a nearer binding of the name).
#[derive(Debug, Clone)]
struct Binding {
    frames: usize,
    shadowed: Vec<(String, Option<Var>)>,
}

/// Is `name` a valid variable name?
pub fn is_name(name: &[u8]) -> bool {
    match name.split_first() {
        Some((first, rest)) => {
            (first.is_ascii_alphabetic() || *first == b'_')
                && rest.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_')
        }
        None => false,
    }
}

impl Vars {
    /// Import the process environment as exported, inherited variables.
    pub fn import(&mut self, environ: Vec<(Vec<u8>, Vec<u8>)>) {
        for (name, value) in environ {
            if !is_name(&name) {
                continue;
            }
            let Ok(name) = String::from_utf8(name) else {
                continue;
            };
            self.map.insert(
                name,
                Var {
                    value: Value::Scalar(value),
                    exported: true,
                    inherited: true,
                    ..Var::default()
                },
            );
        }
    }

    /// `$name`: None when unset or only declared.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.value(name).and_then(Value::scalar)
    }

    /// The whole value: None when unset or only declared as a string (an
    /// array only declared is an empty array).
    pub fn value(&self, name: &str) -> Option<&Value> {
        self.map
            .get(name)
            .filter(|v| !v.invisible || v.value.is_array())
            .map(|v| &v.value)
    }

    /// The variable with its attributes, set or only declared.
    pub fn get_var(&self, name: &str) -> Option<&Var> {
        self.map.get(name)
    }

    pub fn get_var_mut(&mut self, name: &str) -> Option<&mut Var> {
        self.map.get_mut(name)
    }

    /// Has `name` a value (not only declared)?
    pub fn is_set(&self, name: &str) -> bool {
        self.map.get(name).is_some_and(|v| !v.invisible)
    }

    /// Is `name` declared, with a value or without?
    pub fn is_declared(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    /// `name` as it is, or declared now without a value (its attributes
    /// are set next).
    pub fn declare(&mut self, name: &str) -> &mut Var {
        self.map.entry(name.to_string()).or_insert(Var {
            invisible: true,
            ..Var::default()
        })
    }

    pub fn is_readonly(&self, name: &str) -> bool {
        self.map.get(name).is_some_and(|v| v.readonly)
    }

    /// Set a value (attributes kept; an array's element 0, as bash's
    /// `a=x`). The caller has checked readonly and the policy.
    pub fn set(&mut self, name: &str, value: Vec<u8>) {
        let var = self.map.entry(name.to_string()).or_default();
        set_scalar(&mut var.value, value);
        var.inherited = false;
        var.invisible = false;
    }

    /// Replace the whole value (an array assignment). The caller has
    /// checked readonly and the policy.
    pub fn set_value(&mut self, name: &str, value: Value) {
        let var = self.map.entry(name.to_string()).or_default();
        var.value = value;
        var.inherited = false;
        var.invisible = false;
    }

    /// Set a value the shell itself maintains (`PWD`, `OPTIND`).
    pub fn set_internal(&mut self, name: &str, value: Vec<u8>) {
        let var = self.map.entry(name.to_string()).or_default();
        set_scalar(&mut var.value, value);
        var.invisible = false;
        if name != "PWD" && name != "OLDPWD" {
            var.inherited = false;
        }
    }

    /// Set only if not already set (defaults like `IFS`, `PS1`).
    pub fn set_default(&mut self, name: &str, value: Vec<u8>) {
        self.map.entry(name.to_string()).or_insert(Var {
            value: Value::Scalar(value),
            ..Var::default()
        });
    }

    /// Put back what `name` held (attributes and all), or leave it unset
    /// when it held nothing.
    pub fn restore(&mut self, name: String, old: Option<Var>) {
        match old {
            Some(var) => {
                self.map.insert(name, var);
            }
            None => {
                self.map.remove(&name);
            }
        }
    }

    pub fn unset_internal(&mut self, name: &str) {
        self.map.remove(name);
    }

    pub fn export(&mut self, name: &str, on: bool) {
        if on {
            self.declare(name).exported = true;
        } else if let Some(var) = self.map.get_mut(name) {
            var.exported = false;
        }
    }

    /// Every variable, sorted by name, the declared ones without a value
    /// too (`declare -p` lists them; the environment and `set` do not).
    pub fn sorted(&self) -> Vec<(&String, &Var)> {
        let mut all: Vec<_> = self.map.iter().collect();
        all.sort_by(|a, b| a.0.cmp(b.0));
        all
    }

    /// Start a function call's scope.
    pub fn push_frame(&mut self) {
        self.frames.push(HashMap::new());
    }

    /// End a function call's scope, restoring shadowed values.
    pub fn pop_frame(&mut self) {
        if let Some(frame) = self.frames.pop() {
            for (name, saved) in frame {
                self.restore(name, saved);
            }
        }
    }

    /// What a new shell started from this one has: the exported variables
    /// that hold a string, as plain exported strings; no local, no
    /// binding.
    pub fn keep_exported_only(&mut self) {
        self.map
            .retain(|_, var| var.exported && !var.invisible && !var.value.is_array());
        for var in self.map.values_mut() {
            *var = Var {
                value: std::mem::replace(&mut var.value, Value::Scalar(Vec::new())),
                exported: true,
                inherited: var.inherited,
                ..Var::default()
            };
        }
        self.frames.clear();
        self.bindings.clear();
    }

    /// Start the bindings of one command's prefix assignments.
    pub fn push_binding(&mut self) {
        self.bindings.push(Binding {
            frames: self.frames.len(),
            shadowed: Vec::new(),
        });
    }

    /// Bind `name` to `value` for the command (exported) in the bindings
    /// [`Vars::push_binding`] started.
    pub fn bind(&mut self, name: &str, value: Vec<u8>) {
        let current = self.map.get(name).cloned();
        if let Some(binding) = self.bindings.last_mut() {
            if !binding.shadowed.iter().any(|(n, _)| n == name) {
                binding.shadowed.push((name.to_string(), current));
            }
        }
        self.set(name, value);
        self.export(name, true);
    }

    /// End the innermost command's bindings: each name gets back what it
    /// held, whatever the command did to the binding.
    pub fn pop_binding(&mut self) {
        if let Some(binding) = self.bindings.pop() {
            for (name, old) in binding.shadowed.into_iter().rev() {
                self.restore(name, old);
            }
        }
    }

    /// `unset NAME`: the nearest binding of the name goes. When that is a
    /// prefix assignment's (no function made the name local since), what
    /// it shadowed shows again, as in bash (`x=1 f`, `f` unsets `x`: the
    /// caller's `x`).
    pub fn unset(&mut self, name: &str) {
        let nearest = self.bindings.iter_mut().rev().find_map(|binding| {
            let at = binding.shadowed.iter().position(|(n, _)| n == name)?;
            Some((binding.frames, binding, at))
        });
        if let Some((frames, binding, at)) = nearest {
            let since = self.frames.get(frames..).unwrap_or_default();
            if !since.iter().any(|f| f.contains_key(name)) {
                let (name, old) = binding.shadowed.remove(at);
                self.restore(name, old);
                return;
            }
        }
        self.map.remove(name);
    }

    /// Are we inside a function (so `local` is allowed)?
    pub fn in_function(&self) -> bool {
        !self.frames.is_empty()
    }

    /// Make `name` local to the current function: save what it shadows.
    pub fn make_local(&mut self, name: &str) {
        let current = self.map.get(name).cloned();
        if let Some(frame) = self.frames.last_mut() {
            if !frame.contains_key(name) {
                frame.insert(name.to_string(), current);
                // A local starts declared, without a value or attributes.
                self.map.remove(name);
                self.declare(name);
            }
        }
    }
}

fn set_scalar(slot: &mut Value, value: Vec<u8>) {
    match slot {
        Value::Scalar(v) => *v = value,
        Value::Indexed(map) => {
            map.insert(0, value);
        }
        Value::Assoc(map) => map.insert(b"0".to_vec(), value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assoc_lists_keys_in_bash_order() {
        // bash 5.2: declare -A m; for k in a b c d e f g h ab ba zz 1 2 10;
        // do m[$k]=x; done; echo "${!m[@]}"
        let mut m = Assoc::default();
        for k in "a b c d e f g h ab ba zz 1 2 10".split(' ') {
            m.insert(k.as_bytes().to_vec(), b"x".to_vec());
        }
        let keys: Vec<&[u8]> = m.iter().map(|(k, _)| k).collect();
        assert_eq!(keys.join(&b' '), b"2 1 ab h g f e d c b a zz 10 ba");
        m.insert(b"a".to_vec(), b"y".to_vec());
        assert_eq!(m.len(), 14);
        assert_eq!(m.get(b"a"), Some(&b"y"[..]));
        assert!(m.remove(b"ab"));
        assert!(!m.remove(b"ab"));
        assert_eq!(m.len(), 13);
    }

    #[test]
    fn assoc_keeps_every_key_across_growth() {
        let mut m = Assoc::default();
        for n in 0..5000 {
            m.insert(n.to_string().into_bytes(), n.to_string().into_bytes());
        }
        assert_eq!(m.len(), 5000);
        assert_eq!(m.iter().count(), 5000);
        assert_eq!(m.get(b"4321"), Some(&b"4321"[..]));
    }
}
