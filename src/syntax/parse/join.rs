//! Line continuations (XCU 2.2.1 and bash's reader): a `\<newline>` is
//! removed while the text is read, before any other rule looks at it, so
//! `$\<newline>x` is `$x`, `2\<newline>>f` is `2>f` and `i\<newline>f` is
//! `if`. Only text read as written keeps it: single quotes, `$'…'`,
//! comments and bodies of here-documents with a quoted delimiter.
//!
//! Which continuation lies in such text is known only from the parse of the
//! joined text, so the text is parsed with every continuation removed, the
//! ones that turn out to lie in text read as written are put back, and the
//! parse is repeated until the two agree (once for almost every input, as
//! few continuations sit in quotes or comments). Text without a
//! continuation is parsed once, as it is.
//!
//! Guarantee: the tree is the tree of the text bash reads; every span
//! points into the text as given.

use super::super::ast::{List, Span};
use super::super::visit::{VisitMut, walk_list};
use super::{Nesting, Parser, SyntaxError};

/// Text a parse read as written (see [`Parser::literal`]), as absolute
/// offsets `start..end`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Literal {
    pub start: usize,
    pub end: usize,
    pub comment: bool,
}

/// Parses after which a disagreement about a continuation is refused: one
/// more than there are continuations (a round settles at least the first
/// that changed; here-documents in a row can cascade, each body's end
/// known only once the one before it is), within these bounds.
const MIN_ROUNDS: usize = 16;
const MAX_ROUNDS: usize = 256;

/// Parse all of `src` as a script, line continuations removed as bash does.
pub(crate) fn parse_program(src: &[u8]) -> Result<List, SyntaxError> {
    joined_program(src, 0, Nesting::outermost())
}

impl Parser<'_> {
    /// Parse `src`, rewritten nested text (a backtick body) whose offsets
    /// start at `base`, as a script of its own.
    pub(super) fn nested_program(&self, src: &[u8], base: usize) -> Result<List, SyntaxError> {
        joined_program(src, base, self.nesting)
    }
}

fn joined_program(src: &[u8], base: usize, nesting: Nesting) -> Result<List, SyntaxError> {
    match settle(src, base, nesting) {
        Settled::Plain(result) => result,
        Settled::Joined { result, joined, .. } => match result {
            Ok(mut list) => {
                walk_list(
                    &mut Restore {
                        joined: &joined,
                        base,
                    },
                    &mut list,
                );
                Ok(list)
            }
            Err(e) => Err(e.map_span(|s| joined.restore(s, base))),
        },
        Settled::Unsettled(e) => Err(e),
    }
}

/// Whether `src` (a script read so far) ends in a line continuation that
/// bash removes, so that the next line belongs to the same text: a
/// `\<newline>` at the very end, outside quotes, comments and quoted
/// here-documents. A line-by-line reader keeps reading while this holds.
pub fn ends_in_continuation(src: &[u8]) -> bool {
    if !src.ends_with(b"\\\n") {
        return false;
    }
    match settle(src, 0, Nesting::outermost()) {
        Settled::Joined { pairs, keep, .. } => {
            pairs.last() == Some(&(src.len() - 2)) && keep.last() == Some(&false)
        }
        Settled::Plain(_) | Settled::Unsettled(_) => false,
    }
}

/// The outcome of [`settle`].
enum Settled {
    /// No continuation: the text parsed as it is.
    Plain(Result<List, SyntaxError>),
    /// The parse of `joined`, whose kept continuations (`keep[n]` for the
    /// one at `pairs[n]`) are exactly those in text read as written.
    Joined {
        result: Result<List, SyntaxError>,
        joined: Joined,
        pairs: Vec<usize>,
        keep: Vec<bool>,
    },
    /// No agreement after the rounds allowed (at most [`MAX_ROUNDS`]).
    Unsettled(SyntaxError),
}

/// Parse `src` with its continuations removed, putting back those that lie
/// in text read as written, until the two agree (see the module docs).
fn settle(src: &[u8], base: usize, nesting: Nesting) -> Settled {
    let pairs = continuations(src);
    if pairs.is_empty() {
        return Settled::Plain(Parser::new(src, base, nesting).program());
    }
    let mut keep = vec![false; pairs.len()];
    let rounds = (pairs.len() + 1).clamp(MIN_ROUNDS, MAX_ROUNDS);
    for _ in 0..rounds {
        let joined = Joined::new(src, &pairs, &keep);
        let mut parser = Parser::new(&joined.text, base, nesting);
        let result = parser.program();
        let mut literals = std::mem::take(&mut parser.literals);
        literals.sort_by_key(|l| l.start);
        let mut settled = true;
        for (n, &at) in joined.at.iter().enumerate() {
            let inside = in_literal(&literals, base + at, keep[n]);
            if inside != keep[n] {
                keep[n] = inside;
                settled = false;
            }
        }
        if settled {
            return Settled::Joined {
                result,
                joined,
                pairs,
                keep,
            };
        }
    }
    Settled::Unsettled(SyntaxError::Unsupported {
        feature: "line continuations inside text whose quoting they change",
        at: Span::new(base + pairs[0], base + pairs[0] + 2),
    })
}

/// Offsets of the `\` of every `\<newline>` whose backslash is not itself
/// escaped. Pairing backslashes from the left is right outside quotes,
/// inside double quotes, `$'…'` and backticks; in single quotes, comments
/// and quoted here-documents it may pair differently, but nothing is
/// removed there and every such text ends at the same offset either way.
fn continuations(src: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut k = 0;
    while k + 1 < src.len() {
        if src[k] == b'\\' {
            if src[k + 1] == b'\n' {
                out.push(k);
            }
            k += 2;
        } else {
            k += 1;
        }
    }
    out
}

/// Whether a continuation at joined offset `at` lies in text read as
/// written. A kept one is inside when its `\` is; a removed one when the
/// text around the gap it left is (so at either end of a quoted text, but
/// not before the `#` of a comment). `literals` are sorted and disjoint.
fn in_literal(literals: &[Literal], at: usize, kept: bool) -> bool {
    let n = literals.partition_point(|l| l.start <= at);
    let Some(l) = n.checked_sub(1).and_then(|k| literals.get(k)) else {
        return false;
    };
    if kept {
        at < l.end
    } else {
        at <= l.end && !(l.comment && at == l.start)
    }
}

/// The text with the continuations not kept removed.
struct Joined {
    text: Vec<u8>,
    /// Joined offset of each continuation: of its `\` when kept, of the
    /// gap it left when removed.
    at: Vec<usize>,
    /// Joined offsets of the removed ones, ascending.
    removed: Vec<usize>,
}

impl Joined {
    fn new(src: &[u8], pairs: &[usize], keep: &[bool]) -> Self {
        let mut text = Vec::with_capacity(src.len());
        let mut at = Vec::with_capacity(pairs.len());
        let mut removed = Vec::new();
        let mut from = 0;
        for (&k, &kept) in pairs.iter().zip(keep) {
            text.extend_from_slice(&src[from..k]);
            at.push(text.len());
            if kept {
                text.extend_from_slice(b"\\\n");
            } else {
                removed.push(text.len());
            }
            from = k + 2;
        }
        text.extend_from_slice(&src[from..]);
        Joined { text, at, removed }
    }

    /// `span` (offsets from `base` into the joined text) as offsets into
    /// the text as given: a start moves past the continuations before it,
    /// an end past those strictly inside.
    fn restore(&self, span: Span, base: usize) -> Span {
        let shift = |o: usize, inclusive: bool| {
            let local = o.saturating_sub(base);
            let n = self
                .removed
                .partition_point(|&q| if inclusive { q <= local } else { q < local });
            o + 2 * n
        };
        let start = shift(span.start(), true);
        Span::new(start, shift(span.end(), false).max(start))
    }
}

struct Restore<'j> {
    joined: &'j Joined,
    base: usize,
}

impl VisitMut for Restore<'_> {
    fn span(&mut self, span: &mut Span) {
        *span = self.joined.restore(*span, self.base);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_trailing_continuation_bash_removes_asks_for_more() {
        for text in [&b"echo a \\\n"[..], b"a=1\\\n", b"echo \"x\\\n"] {
            assert!(
                ends_in_continuation(text),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
        for text in [
            &b"echo a\n"[..],
            b"echo a \\\\\n",
            b"echo a # c \\\n",
            b"echo 'a\\\n",
            b"echo a \\\nb\n",
        ] {
            assert!(
                !ends_in_continuation(text),
                "{:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn escaped_backslash_before_newline_is_no_continuation() {
        assert_eq!(continuations(b"a\\\nb\\\\\nc\\\\\\\n"), vec![1, 10]);
    }

    #[test]
    fn restored_spans_skip_removed_continuations() {
        let j = Joined::new(b"ab\\\ncd", &[2], &[false]);
        assert_eq!(j.text, b"abcd");
        assert_eq!(j.restore(Span::new(0, 2), 0), Span::new(0, 2));
        assert_eq!(j.restore(Span::new(2, 4), 0), Span::new(4, 6));
        assert_eq!(j.restore(Span::new(0, 4), 0), Span::new(0, 6));
    }
}
