//! Shell variables: values with export/readonly/integer attributes, and
//! dynamic scoping for `local` (each function call saves the values it
//! shadows and restores them on return).

use std::collections::HashMap;

/// One variable.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Var {
    pub value: Vec<u8>,
    pub exported: bool,
    pub readonly: bool,
    pub integer: bool,
    /// Unchanged since it was imported from guard-sh's own environment: such
    /// variables reach children only through the policy's `env.pass`.
    pub inherited: bool,
}

/// All variables, plus the save stack of `local`.
#[derive(Debug, Clone, Default)]
pub struct Vars {
    map: HashMap<String, Var>,
    /// One frame per function call: name → the value it shadowed.
    frames: Vec<HashMap<String, Option<Var>>>,
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
                    value,
                    exported: true,
                    inherited: true,
                    ..Var::default()
                },
            );
        }
    }

    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.map.get(name).map(|v| v.value.as_slice())
    }

    pub fn get_var(&self, name: &str) -> Option<&Var> {
        self.map.get(name)
    }

    pub fn get_var_mut(&mut self, name: &str) -> Option<&mut Var> {
        self.map.get_mut(name)
    }

    pub fn is_set(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    pub fn is_readonly(&self, name: &str) -> bool {
        self.map.get(name).is_some_and(|v| v.readonly)
    }

    /// Set a value (attributes kept). The caller has checked readonly and
    /// the policy.
    pub fn set(&mut self, name: &str, value: Vec<u8>) {
        let var = self.map.entry(name.to_string()).or_default();
        var.value = value;
        var.inherited = false;
    }

    /// Set a value the shell itself maintains (`PWD`, `OPTIND`).
    pub fn set_internal(&mut self, name: &str, value: Vec<u8>) {
        let var = self.map.entry(name.to_string()).or_default();
        var.value = value;
        if name != "PWD" && name != "OLDPWD" {
            var.inherited = false;
        }
    }

    /// Set only if not already set (defaults like `IFS`, `PS1`).
    pub fn set_default(&mut self, name: &str, value: Vec<u8>) {
        self.map.entry(name.to_string()).or_insert(Var {
            value,
            ..Var::default()
        });
    }

    pub fn unset_internal(&mut self, name: &str) {
        self.map.remove(name);
    }

    pub fn export(&mut self, name: &str, on: bool) {
        if on {
            let var = self.map.entry(name.to_string()).or_default();
            var.exported = true;
        } else if let Some(var) = self.map.get_mut(name) {
            var.exported = false;
        }
    }

    /// Every variable, sorted by name.
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
                match saved {
                    Some(var) => {
                        self.map.insert(name, var);
                    }
                    None => {
                        self.map.remove(&name);
                    }
                }
            }
        }
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
                // A local starts unset and unexported until assigned.
                self.map.remove(name);
            }
        }
    }
}
