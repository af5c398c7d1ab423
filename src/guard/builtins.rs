//! The builtins guard-sh's interpreter implements itself. They run inside
//! guard-sh and never exec anything, so the guard does not deny them by
//! name; the ones that run other commands (`command`, `exec`, `eval`,
//! `source`, `.`, `builtin`) have their operands checked instead.

/// Declares [`Builtin`] from one list of variants and names, so the guard
/// (which asks whether a name is a builtin) and the interpreter (which
/// dispatches on the variant, exhaustively) read the same table: a builtin
/// added here does not compile until the interpreter runs it.
macro_rules! builtins {
    ($($variant:ident = $name:literal,)*) => {
        /// A builtin of guard-sh's interpreter.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Builtin {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant,
            )*
        }

        impl Builtin {
            /// Every builtin, in the table's order.
            pub const ALL: &[Builtin] = &[$(Builtin::$variant,)*];

            /// The name a command line calls it by.
            pub fn name(self) -> &'static str {
                match self {
                    $(Builtin::$variant => $name,)*
                }
            }

            /// The builtin called `name`, if there is one.
            pub fn from_name(name: &[u8]) -> Option<Builtin> {
                match name {
                    $(n if n == $name.as_bytes() => Some(Builtin::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

builtins! {
    Colon = ":",
    Dot = ".",
    Bracket = "[",
    Alias = "alias",
    Builtin = "builtin",
    Cd = "cd",
    Command = "command",
    Echo = "echo",
    Eval = "eval",
    Exec = "exec",
    Exit = "exit",
    Export = "export",
    False = "false",
    Local = "local",
    Printf = "printf",
    Pwd = "pwd",
    Read = "read",
    Readonly = "readonly",
    Return = "return",
    Set = "set",
    Shift = "shift",
    Shopt = "shopt",
    Source = "source",
    Test = "test",
    Trap = "trap",
    True = "true",
    Type = "type",
    Umask = "umask",
    Unalias = "unalias",
    Unset = "unset",
    Wait = "wait",
    Break = "break",
    Continue = "continue",
    Declare = "declare",
    Typeset = "typeset",
    Hash = "hash",
    Getopts = "getopts",
    Kill = "kill",
    Let = "let",
    Pushd = "pushd",
    Popd = "popd",
    Dirs = "dirs",
    Mapfile = "mapfile",
    Readarray = "readarray",
    Ulimit = "ulimit",
    Bash = "bash",
    Sh = "sh",
    Jobs = "jobs",
    Fg = "fg",
    Bg = "bg",
    History = "history",
}

/// Is `name` a builtin of guard-sh's interpreter?
pub fn is_builtin(name: &[u8]) -> bool {
    Builtin::from_name(name).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_leads_to_its_builtin_and_names_are_unique() {
        for builtin in Builtin::ALL {
            assert_eq!(
                Builtin::from_name(builtin.name().as_bytes()),
                Some(*builtin)
            );
        }
        let mut names: Vec<&str> = Builtin::ALL.iter().map(|b| b.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Builtin::ALL.len());
        assert!(!is_builtin(b"curl") && !is_builtin(b"") && is_builtin(b"["));
    }
}
