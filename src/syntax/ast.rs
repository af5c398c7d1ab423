//! The abstract syntax tree of a guard-sh command line.
//!
//! One tree is produced per parse, checked by the guard and then executed by
//! the interpreter unchanged: there is no second parse of any text the guard
//! approved. Names follow the POSIX shell grammar (XCU 2.10). Every node that
//! a diagnostic may point at carries a [`Span`] of byte offsets into the
//! source; line and column are computed only when an error is rendered.
//!
//! Words keep their parts exactly as written (quoted, unquoted, expansions)
//! because quoting decides field splitting, globbing and brace expansion,
//! and the guard must see which parts of a command name are fixed.

use serde::Serialize;

pub use super::span::Span;

/// A whole script or command line: a sequence of and-or lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct List {
    pub items: Vec<ListItem>,
}

/// One and-or list with the separator that ended it (XCU 2.9.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListItem {
    pub and_or: AndOr,
    /// `true` when terminated by `&` (run asynchronously).
    pub background: bool,
}

/// `p1 && p2 || p3` (XCU 2.9.3, AND-OR lists).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(AndOrOp, Pipeline)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum AndOrOp {
    And,
    Or,
}

/// `[!] cmd1 | cmd2 |& cmd3` (XCU 2.9.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pipeline {
    /// Leading `time` (bash): report how long the pipeline took.
    pub timed: Option<TimeFormat>,
    /// Leading `!`: the status is logically negated.
    pub negated: bool,
    pub elements: Vec<PipeElement>,
    pub span: Span,
}

/// How `time` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TimeFormat {
    /// `time`: `$TIMEFORMAT`, or bash's default.
    Default,
    /// `time -p`: POSIX's `real N.NN` lines.
    Posix,
}

/// One command of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PipeElement {
    pub command: Command,
    /// `true` when this command is followed by `|&` (bash): its stderr also
    /// goes into the pipe. Always `false` for the last element.
    pub pipe_stderr: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Command {
    Simple(SimpleCommand),
    /// Boxed: most commands of a line are simple ones.
    Compound(Box<CompoundCommand>),
    FunctionDef(FunctionDef),
}

/// Assignments, words and redirections in source order of their kind
/// (XCU 2.9.1). `words[0]`, if any, is the command name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SimpleCommand {
    pub assignments: Vec<Assignment>,
    pub words: Vec<Word>,
    pub redirects: Vec<Redirect>,
    pub span: Span,
}

/// `NAME=value` or `NAME+=value` (bash) before a command or alone; also
/// `NAME[index]=value` and `NAME=(…)` (bash arrays).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assignment {
    pub name: String,
    /// `NAME[index]=…`: the subscript as written (arithmetic for an
    /// indexed array, a key for an associative one).
    pub index: Option<Word>,
    pub value: AssignValue,
    pub append: bool,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum AssignValue {
    /// The value; an empty word for `NAME=`.
    Scalar(Word),
    /// `NAME=(…)`: the elements of a compound assignment.
    Array(Vec<ArrayItem>),
}

/// One element of `NAME=(…)`: `word` (split and globbed like a command
/// word) or `[key]=word` (neither).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArrayItem {
    pub key: Option<Word>,
    pub value: Word,
}

/// A compound command with the redirections applied to it as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompoundCommand {
    pub kind: CompoundKind,
    pub redirects: Vec<Redirect>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum CompoundKind {
    /// `{ list; }`
    BraceGroup(List),
    /// `( list )`, run in a copy of the shell state.
    Subshell(List),
    /// `if c1; then b1; elif c2; then b2; else b3; fi`: each
    /// `(condition, body)` in order, then the optional else body.
    If {
        branches: Vec<(List, List)>,
        else_body: Option<List>,
    },
    /// `while cond; do body; done` (`until: false`) or `until …` (`until: true`).
    Loop {
        until: bool,
        condition: List,
        body: List,
    },
    /// `for name [in words]; do body; done`; `words: None` means `"$@"`.
    For {
        variable: String,
        words: Option<Vec<Word>>,
        body: List,
    },
    /// `case word in pattern|pattern) body ;; … esac`
    Case { subject: Word, arms: Vec<CaseArm> },
    /// `[[ expression ]]` (boxed, as the expression can be large).
    Conditional(Box<CondExpr>),
    /// `(( expression ))`: the expression's text is expanded as in
    /// `$(( ))`, then evaluated; status 0 when the value is not zero.
    Arithmetic(Word),
    /// `for (( init; condition; step )) do body done` (boxed: three words
    /// would widen every compound command, and the parser's depth is
    /// bounded by the stack its frames use).
    ArithFor(Box<ArithForLoop>),
}

/// The expression of `[[ … ]]`. Its words are expanded without splitting
/// or globbing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum CondExpr {
    /// A word alone: true when its value is not empty.
    Word(Word),
    /// `-f WORD`, `-z WORD`, …: the operator as written.
    Unary {
        op: String,
        operand: Word,
    },
    /// `LEFT OP RIGHT`. The right side of `==`, `=` and `!=` is a pattern,
    /// that of `=~` an extended regular expression (quoted parts match
    /// literally in both); `-eq` and the like compare arithmetic values.
    Binary {
        op: String,
        left: Word,
        right: Word,
    },
    Not(Box<CondExpr>),
    And(Box<CondExpr>, Box<CondExpr>),
    Or(Box<CondExpr>, Box<CondExpr>),
}

/// The parts of `for (( init; condition; step )) do body done`; an empty
/// condition counts as true.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArithForLoop {
    pub init: Word,
    pub condition: Word,
    pub step: Word,
    pub body: List,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseArm {
    pub patterns: Vec<Word>,
    pub body: List,
    pub terminator: CaseTerminator,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CaseTerminator {
    /// `;;` (also the implicit terminator of the last arm)
    Break,
    /// `;&`: fall through into the next arm's body.
    FallThrough,
    /// `;;&`: go on testing the following patterns.
    Continue,
}

/// `name() compound-command` or `function name { … }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FunctionDef {
    pub name: String,
    pub body: Box<CompoundCommand>,
    pub span: Span,
}

/// A shell word: a sequence of parts concatenated without separators.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Word {
    pub parts: Vec<WordPart>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum WordPart {
    /// Unquoted text. Subject to brace expansion, and its `*`, `?`, `[`
    /// are pattern characters. Never contains a quote or a `$`/backtick
    /// expansion; a backslash-escaped character is [`WordPart::Escaped`].
    Literal(Vec<u8>),
    /// `'…'`: the bytes between the quotes.
    SingleQuoted(Vec<u8>),
    /// `$'…'` (bash): the bytes after escape decoding.
    AnsiC(Vec<u8>),
    /// `\c` outside quotes: the escaped byte(s) (one character).
    Escaped(Vec<u8>),
    /// `"…"`: its parts may only be `Literal` (taken as quoted text; a `\`
    /// escape inside is already resolved), `Parameter`, `CommandSubst` and
    /// `Arithmetic`.
    DoubleQuoted(Vec<WordPart>),
    /// `~` or `~user` at the start of a word or after `:`/`=` in an
    /// assignment value. `None` is the current user's home.
    Tilde(Option<Vec<u8>>),
    /// `${…}` that bash reads but cannot expand (`${#x-w}`, `${a[0][0]}`,
    /// `${#v:1:3}`): its text. Expanding it is bash's run-time error (bad
    /// substitution, status 1, the rest of the line skipped); nothing in
    /// it is expanded or run, so the guard has nothing of it to check.
    BadSubstitution(Box<[u8]>),
    /// Boxed: an expansion with its operator is the largest part, and a
    /// word holds many small ones.
    Parameter(Box<ParamExpansion>),
    /// `$(list)` or `` `list` ``, parsed like any other line.
    CommandSubst { list: List, backtick: bool },
    /// `$(( expr ))`: the expression text, with its own expansions as parts.
    /// It is expanded, then evaluated by the interpreter's arithmetic.
    Arithmetic(Word),
    /// `<(list)` / `>(list)` (bash).
    ProcessSubst {
        direction: ProcessDirection,
        list: List,
    },
    /// The `(…)` of a declaration builtin's `NAME=(…)` operand (`declare`,
    /// `local`, `typeset`, `readonly`, `export`): always the last part of
    /// a word whose first part is the literal `NAME=` or `NAME+=`.
    Array(Vec<ArrayItem>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ProcessDirection {
    /// `<(…)`: the command writes, the word names a file to read.
    Read,
    /// `>(…)`: the command reads, the word names a file to write.
    Write,
}

/// `$name`, `${name}`, `${name op word}` and friends (XCU 2.6.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ParamExpansion {
    pub param: Parameter,
    pub op: ParamOp,
    /// `true` for the braced form `${…}`.
    pub braced: bool,
    /// `${!param…}` (bash): the value of `param` names the variable (or
    /// `name[index]`) that is expanded.
    pub indirect: bool,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Parameter {
    /// A variable name.
    Named(String),
    /// `$1`…`$9`, `${10}`…; `$0` is [`Parameter::Positional`]`(0)`.
    Positional(u32),
    /// `$?` `$#` `$@` `$*` `$$` `$!` `$-`
    Special(SpecialParam),
    /// `${name[index]}`, `${name[@]}`, `${name[*]}` (bash arrays).
    Element(Box<Element>),
}

/// An array reference inside `${…}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Element {
    pub name: String,
    pub index: Subscript,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Subscript {
    /// `[@]`: every element, one field each inside double quotes.
    At,
    /// `[*]`: every element, joined inside double quotes.
    Star,
    /// `[word]`: arithmetic for an indexed array, a key for an
    /// associative one.
    Index(Word),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SpecialParam {
    /// `$?`
    Status,
    /// `$#`
    Count,
    /// `$@`
    AtSign,
    /// `$*`
    Star,
    /// `$$`
    Pid,
    /// `$!`
    LastBackground,
    /// `$-`
    Flags,
}

impl Parameter {
    /// The name as written after `$` (`HOME`, `1`, `?`).
    pub fn name(&self) -> String {
        match self {
            Parameter::Named(n) => n.clone(),
            Parameter::Positional(n) => n.to_string(),
            Parameter::Special(sp) => sp.symbol().to_string(),
            Parameter::Element(e) => e.name.clone(),
        }
    }
}

impl SpecialParam {
    /// The one character that names it after `$`.
    pub fn symbol(self) -> &'static str {
        match self {
            SpecialParam::Status => "?",
            SpecialParam::Count => "#",
            SpecialParam::AtSign => "@",
            SpecialParam::Star => "*",
            SpecialParam::Pid => "$",
            SpecialParam::LastBackground => "!",
            SpecialParam::Flags => "-",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum ParamOp {
    /// `$x`, `${x}`
    Plain,
    /// `${#x}`
    Length,
    /// `${x-w}` / `${x:-w}` (`colon` also treats empty as unset)
    Default { colon: bool, word: Word },
    /// `${x=w}` / `${x:=w}`
    Assign { colon: bool, word: Word },
    /// `${x?w}` / `${x:?w}`
    Error { colon: bool, word: Word },
    /// `${x+w}` / `${x:+w}`
    Alternative { colon: bool, word: Word },
    /// `${x#p}` / `${x##p}`
    RemovePrefix { longest: bool, pattern: Word },
    /// `${x%p}` / `${x%%p}`
    RemoveSuffix { longest: bool, pattern: Word },
    /// `${x/p/r}` `${x//p/r}` `${x/#p/r}` `${x/%p/r}` (bash)
    Replace {
        mode: ReplaceMode,
        pattern: Word,
        replacement: Word,
    },
    /// `${x:offset}` / `${x:offset:length}` (bash); arithmetic text.
    Substring { offset: Word, length: Option<Word> },
    /// `${x^}` `${x^^}` `${x,}` `${x,,}` (bash)
    Case { upper: bool, all: bool },
    /// `${!a[@]}` / `${!a[*]}` (bash): the array's keys.
    Keys,
    /// `${!prefix@}` / `${!prefix*}` (bash): names of set variables that
    /// start with the prefix.
    Names { star: bool },
    /// `${x@Q}` and the other `@` operators (bash): the letter.
    Transform(u8),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ReplaceMode {
    First,
    All,
    Prefix,
    Suffix,
}

/// A redirection (XCU 2.7). `fd` is the explicit descriptor number, if any;
/// the default depends on `op`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redirect {
    pub fd: Option<u32>,
    pub op: RedirOp,
    pub target: RedirTarget,
    pub span: Span,
}

impl Redirect {
    /// `>&WORD` on standard output (`>&FILE`, `1>&FILE`): when its word
    /// names no descriptor (nor `-`), a file that takes standard output
    /// and error, as `&>FILE` (bash).
    pub fn may_duplicate_to_a_file(&self) -> bool {
        self.op == RedirOp::DupOutput && matches!(self.fd, None | Some(1))
    }
}

/// What the word of `<&WORD`/`>&WORD` names once expanded: a descriptor
/// (its digits, and whether a `-` after them closes it after the copy), or
/// `None` for anything else (`-` alone, or a file name for `>&FILE`).
pub fn duplicated_descriptor(target: &[u8]) -> Option<(&[u8], bool)> {
    let (digits, close_after) = match target.strip_suffix(b"-") {
        Some(d) => (d, true),
        None => (target, false),
    };
    (!digits.is_empty() && digits.iter().all(u8::is_ascii_digit)).then_some((digits, close_after))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RedirOp {
    /// `<`
    Input,
    /// `>`
    Output,
    /// `>|`
    Clobber,
    /// `>>`
    Append,
    /// `<>`
    ReadWrite,
    /// `<&` (target is a descriptor number or `-`)
    DupInput,
    /// `>&` (target is a descriptor number or `-`; a file name with no fd
    /// given means `&>` in bash)
    DupOutput,
    /// `&>` (stdout and stderr to a file)
    OutputBoth,
    /// `&>>`
    AppendBoth,
    /// `<<` / `<<-` (target is [`RedirTarget::HereDoc`])
    HereDoc,
    /// `<<<` (bash)
    HereString,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum RedirTarget {
    Word(Word),
    HereDoc(HereDoc),
}

/// A here-document body, read from the lines after the one holding `<<`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HereDoc {
    /// The delimiter after quote removal.
    pub delimiter: Vec<u8>,
    /// Any part of the delimiter was quoted: the body is literal data.
    pub quoted: bool,
    /// `<<-`: leading tabs were stripped from body lines and delimiter.
    pub strip_tabs: bool,
    /// The body. When `quoted`, a single `SingleQuoted` part (never expanded);
    /// otherwise parts as inside double quotes (`$x`, `$(…)`, `$((…))`).
    pub body: Word,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// A line's tree is mostly words, their parts and simple commands:
    /// their sizes are pinned so a new variant that widens them (instead of
    /// being boxed) is noticed.
    #[test]
    fn the_nodes_a_line_has_many_of_stay_small() {
        let sizes = [
            ("Span", size_of::<Span>()),
            ("Word", size_of::<Word>()),
            ("WordPart", size_of::<WordPart>()),
            ("Parameter", size_of::<Parameter>()),
            ("Command", size_of::<Command>()),
            ("SimpleCommand", size_of::<SimpleCommand>()),
            ("PipeElement", size_of::<PipeElement>()),
            ("Redirect", size_of::<Redirect>()),
            ("Assignment", size_of::<Assignment>()),
        ];
        eprintln!("{sizes:?}");
        let limits = [8, 32, 40, 24, 80, 80, 88, 88, 104];
        for ((name, size), limit) in sizes.iter().zip(limits) {
            assert!(*size <= limit, "{name} is {size} bytes (limit {limit})");
        }
    }
}
