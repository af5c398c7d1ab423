//! Stage 1: shell text → [`ast::List`]. No I/O; works on bytes.
//!
//! Anything the grammar does not cover is a [`SyntaxError::Unsupported`],
//! so the shell fails closed instead of guessing. The same tree is what the
//! guard checks and the interpreter runs.

pub mod ast;
pub mod display;
pub mod error;
mod lex;
mod parse;
pub mod sexp;
pub mod span;
mod visit;

pub use display::{
    and_or_to_source, array_to_source, command_to_source, double_quoted_to_source,
    pipeline_to_source, to_source, without_spans, word_to_source,
};
pub use error::SyntaxError;
pub use parse::{MAX_DEPTH, ends_in_continuation, is_declaration_name, is_tilde_name_byte};

/// Parse a whole command line or script.
///
/// Errors carry the span they are about; render them with
/// [`SyntaxError::render`]. A NUL byte anywhere is an error.
pub fn parse(source: &[u8]) -> Result<ast::List, SyntaxError> {
    if let Some(k) = source.iter().position(|&b| b == 0) {
        return Err(SyntaxError::NulByte {
            at: span::Span::new(k, k + 1),
        });
    }
    parse::parse_program(source)
}

/// Parse a prompt (`PS1`, `PS2`) whose backslash escapes are decoded, as
/// bash expands it: like text in double quotes, where `"` is an ordinary
/// character. The word holds its parameter, command and arithmetic
/// expansions; nothing is split or globbed.
pub fn parse_prompt(text: &[u8]) -> Result<ast::Word, SyntaxError> {
    if let Some(k) = text.iter().position(|&b| b == 0) {
        return Err(SyntaxError::NulByte {
            at: span::Span::new(k, k + 1),
        });
    }
    parse::Parser::prompt(text)
}

/// A here-document that the end of the input closed (bash accepts it with
/// a warning): its delimiter and the line of its `<<`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HereDocAtEnd {
    pub delimiter: String,
    pub line: usize,
}

impl HereDocAtEnd {
    /// bash's warning.
    pub fn warning(&self) -> String {
        format!(
            "warning: here-document at line {} delimited by end-of-file (wanted `{}')",
            self.line, self.delimiter
        )
    }
}

/// Parse `source` as complete input (a `-c` string, a script, the last of
/// standard input): a here-document still open at the end is closed there,
/// as bash does, and named in the notes. The tree is that of `source` with
/// each missing delimiter line added, so the guard and the interpreter,
/// which both parse through here, see the same commands.
pub fn parse_complete(source: &[u8]) -> Result<(ast::List, Vec<HereDocAtEnd>), SyntaxError> {
    let mut text = source.to_vec();
    let mut closed = Vec::new();
    loop {
        match parse(&text) {
            Ok(list) => return Ok((list, closed)),
            Err(SyntaxError::UnterminatedHereDoc {
                delimiter, open, ..
            }) if closed.len() < 64 => {
                let line = 1 + source[..open.start().min(source.len())]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                if !text.ends_with(b"\n") {
                    text.push(b'\n');
                }
                text.extend_from_slice(delimiter.as_bytes());
                text.push(b'\n');
                closed.push(HereDocAtEnd { delimiter, line });
            }
            Err(e) => return Err(e),
        }
    }
}

/// Splits input into complete commands the way bash reads a script: line
/// by line, a command that does not parse yet because it goes on
/// (an open quote, `if` without `fi`, a here-document, a trailing `\`)
/// takes the next line too. A chunk that fails otherwise is yielded as it
/// is, for its reader to report.
#[derive(Debug, Default)]
pub struct Chunker {
    pending: Vec<u8>,
    /// Lines before `pending` in the input.
    lines_before: usize,
    /// Lines in `pending`.
    lines_pending: usize,
    /// Text a line must hold before `pending` can be complete: the closer
    /// of a construct the last parse found open (`}` for `{`, `fi` for
    /// `if`). A long compound command is then parsed again only at lines
    /// that may end it, not at every line (which made reading it
    /// quadratic). `None`: parse at the next line.
    closer: Option<&'static [u8]>,
    /// Whether to look for [`Chunker::closer`] ([`Chunker::batch`]).
    skip_to_closer: bool,
    /// The line that can end the here-document the last parse found open
    /// (its delimiter, and whether leading tabs are stripped, `<<-`): no
    /// other line can complete the text, so only that one is parsed, in
    /// any mode (a here-document sent on standard input was quadratic).
    heredoc_end: Option<(Vec<u8>, bool)>,
    /// How many times the pending text was parsed (the cost a reader of
    /// many lines pays, counted for the tests).
    parses: usize,
}

/// One complete command (or a chunk that fails to parse), with the number
/// of input lines before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub text: Vec<u8>,
    pub lines_before: usize,
    /// Its tree, when the text parsed as it was read (a chunk the end of
    /// the input closed, or one that fails, is parsed by its reader).
    pub list: Option<ast::List>,
}

impl Chunker {
    /// A chunker for input nobody answers line by line (a script, a pipe,
    /// `--explain`): inside an open construct, only a line that may close
    /// it is parsed. A syntax error inside the construct is then reported
    /// at that line rather than at its own; such input ends there either
    /// way (a syntax error ends a shell that is not interactive), and the
    /// error names its own line. An interactive shell uses
    /// [`Chunker::default`], which parses every line.
    pub fn batch() -> Chunker {
        Chunker {
            skip_to_closer: true,
            ..Chunker::default()
        }
    }

    /// Add one line (with its newline, if it has one); a chunk when the
    /// text so far is complete. Lines of blanks alone give no chunk.
    pub fn push_line(&mut self, line: &[u8]) -> Option<Chunk> {
        // A line continuation may join a closer from two lines, and a
        // backslash may hide one: those lines are always parsed.
        let joined = ends_in_continuation(&self.pending) || line.contains(&b'\\');
        self.pending.extend_from_slice(line);
        self.lines_pending += line.iter().filter(|&&b| b == b'\n').count();
        if let Some(closer) = self.closer {
            if !joined && !line.windows(closer.len()).any(|w| w == closer) {
                return None;
            }
        }
        if let Some((delimiter, strip_tabs)) = &self.heredoc_end {
            let body_line = line.strip_suffix(b"\n").unwrap_or(line);
            let tabs = if *strip_tabs {
                body_line.iter().take_while(|&&b| b == b'\t').count()
            } else {
                0
            };
            let body_line = &body_line[tabs..];
            if body_line != delimiter.as_slice() {
                return None;
            }
        }
        self.parses += 1;
        let list = match parse(&self.pending) {
            Ok(list) => Some(list),
            Err(e) if e.needs_more_input(&self.pending) => {
                self.heredoc_end = match &e {
                    SyntaxError::UnterminatedHereDoc {
                        delimiter,
                        strip_tabs,
                        ..
                    // A delimiter that is not UTF-8 was named lossily:
                    // every line is parsed then.
                    } if !delimiter.contains('\u{FFFD}') => {
                        Some((delimiter.as_bytes().to_vec(), *strip_tabs))
                    }
                    _ => None,
                };
                self.closer = match e {
                    SyntaxError::Unterminated { open, .. } if self.skip_to_closer => {
                        closer_of(&self.pending[open.start()..])
                    }
                    _ => None,
                };
                return None;
            }
            Err(_) => None,
        };
        if ends_in_continuation(&self.pending) {
            return None;
        }
        self.take(list)
    }

    /// At the end of the input: what is left, if anything.
    pub fn finish(&mut self) -> Option<Chunk> {
        self.take(None)
    }

    /// How many times the text was parsed so far.
    pub fn parses(&self) -> usize {
        self.parses
    }

    /// Is a command open (a continuation prompt's cue)?
    pub fn is_pending(&self) -> bool {
        !self.pending.is_empty()
    }

    fn take(&mut self, list: Option<ast::List>) -> Option<Chunk> {
        self.closer = None;
        self.heredoc_end = None;
        let text = std::mem::take(&mut self.pending);
        let lines_before = self.lines_before;
        self.lines_before += std::mem::take(&mut self.lines_pending);
        if text.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        Some(Chunk {
            text,
            lines_before,
            list,
        })
    }
}

/// What must appear in later text to close the construct opened at the
/// start of `open`; `None` when that is not known (then every line is
/// parsed).
fn closer_of(open: &[u8]) -> Option<&'static [u8]> {
    const CLOSERS: [(&[u8], &[u8]); 15] = [
        (b"$'", b"'"),
        (b"${", b"}"),
        (b"$[", b"]"),
        (b"$(", b")"),
        (b"[[", b"]]"),
        (b"{", b"}"),
        (b"(", b")"),
        (b"\"", b"\""),
        (b"'", b"'"),
        (b"`", b"`"),
        (b"if", b"fi"),
        (b"case", b"esac"),
        (b"for", b"done"),
        (b"while", b"done"),
        (b"until", b"done"),
    ];
    CLOSERS
        .iter()
        .find(|(opener, _)| open.starts_with(opener))
        .map(|&(_, closer)| closer)
}

/// The complete commands of `text` in order (see [`Chunker`]).
pub fn chunks(text: &[u8]) -> Vec<Chunk> {
    chunks_by(Chunker::batch(), text)
}

/// Every chunk `chunker` makes of `text`, read a line at a time.
fn chunks_by(mut chunker: Chunker, text: &[u8]) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = text
        .split_inclusive(|&b| b == b'\n')
        .filter_map(|line| chunker.push_line(line))
        .collect();
    out.extend(chunker.finish());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(chunks: &[Chunk]) -> Vec<(String, usize)> {
        chunks
            .iter()
            .map(|c| {
                (
                    String::from_utf8_lossy(&c.text).into_owned(),
                    c.lines_before,
                )
            })
            .collect()
    }

    /// A batch chunker waits for a closer inside an open construct; where
    /// each command ends, and on which line, is the same as when every
    /// line is parsed.
    #[test]
    fn batch_chunks_end_where_parsing_every_line_ends_them() {
        let inputs: [&[u8]; 6] = [
            b"{\n echo a\n echo ${x}\n}\necho b\n",
            b"if true\nthen\n echo 'a\nb'\nfi\nls\n",
            b"if true; then echo x; f\\\ni\necho next\n",
            b"for i in 1 2\ndo echo $i\ndone; (\necho)\n: \"\n\"\n",
            b"case x in\n x) echo \"}\";;\nesac\necho $(\necho hi\n)\n",
            b"{\n )\n}\necho after\n",
        ];
        for input in inputs {
            let expected = chunks_by(Chunker::default(), input);
            let got = chunks(input);
            if input.starts_with(b"{\n )") {
                // A syntax error inside the group: reported when the group
                // may close, with the rest of it; the error's line is the same.
                assert_eq!(texts(&got)[0], ("{\n )\n}\n".to_string(), 0));
                continue;
            }
            assert_eq!(
                texts(&got),
                texts(&expected),
                "{}",
                String::from_utf8_lossy(input)
            );
        }
    }

    /// A here-document read a line at a time is parsed at its first line
    /// and at its delimiter, however long it is, in both modes (it was
    /// parsed again at every line: quadratic), `<<-` with tabs too; a line
    /// that only looks like the delimiter inside the body does not end it.
    #[test]
    fn a_long_here_document_is_parsed_twice_not_once_a_line() {
        for interactive in [false, true] {
            for (open, close) in [("cat <<'EOF'\n", "EOF\n"), ("cat <<-END\n", "\t\tEND\n")] {
                let mut chunker = if interactive {
                    Chunker::default()
                } else {
                    Chunker::batch()
                };
                assert_eq!(chunker.push_line(open.as_bytes()), None);
                for n in 0..10_000 {
                    let line = format!("line {n} EOF END not the end\n");
                    assert_eq!(chunker.push_line(line.as_bytes()), None);
                }
                let chunk = chunker.push_line(close.as_bytes()).expect("complete");
                assert!(chunk.list.is_some());
                assert_eq!(chunker.parses(), 2, "{open:?}, interactive {interactive}");
                assert_eq!(
                    chunker.push_line(b"echo next\n").map(|c| c.text),
                    Some(b"echo next\n".to_vec())
                );
            }
        }
    }
}
