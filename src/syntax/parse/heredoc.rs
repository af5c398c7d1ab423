//! Here-documents (XCU 2.7.4): bodies are read after the newline that ends
//! the line holding `<<`, in the order the operators appeared, and are put
//! into their redirections once the whole list is parsed.

use std::collections::HashMap;

use super::super::ast::{List, RedirTarget, Redirect, Span, Word, WordPart};
use super::super::visit::{VisitMut, walk_list, walk_word};
use super::{Parser, SyntaxError};

/// A `<<` whose body has not been read yet.
pub(super) struct PendingHereDoc {
    /// Offset of the redirection: the key of its body.
    pub key: usize,
    pub delimiter: Vec<u8>,
    pub quoted: bool,
    pub strip_tabs: bool,
    pub open: Span,
}

impl PendingHereDoc {
    pub fn unterminated(&self) -> SyntaxError {
        SyntaxError::UnterminatedHereDoc {
            delimiter: String::from_utf8_lossy(&self.delimiter).into_owned(),
            strip_tabs: self.strip_tabs,
            open: self.open,
        }
    }
}

impl<'a> Parser<'a> {
    /// Read the bodies of all pending here-documents from `i` (the start
    /// of a line); returns the input after the last delimiter line.
    pub(super) fn read_pending_bodies(&mut self, i: &'a [u8]) -> Result<&'a [u8], SyntaxError> {
        let pending = std::mem::take(&mut self.pending);
        let mut rest = i;
        for doc in pending {
            let body_start = rest;
            let mut text = Vec::new();
            let body_end;
            loop {
                if rest.is_empty() {
                    // A continuation in what was read stays: joining it
                    // would not supply the missing delimiter line.
                    if doc.quoted {
                        self.literal(body_start, rest, false);
                    }
                    return Err(doc.unterminated());
                }
                let (line, line_end, next, newline) = match rest.iter().position(|&b| b == b'\n') {
                    Some(k) => (&rest[..k], &rest[k..], &rest[k + 1..], true),
                    None => (rest, &rest[rest.len()..], &rest[rest.len()..], false),
                };
                let line = if doc.strip_tabs {
                    let tabs = line.iter().take_while(|&&b| b == b'\t').count();
                    &line[tabs..]
                } else {
                    line
                };
                if line == doc.delimiter.as_slice() {
                    // With a quoted delimiter the lines are compared as
                    // written: a continuation does not join them.
                    if doc.quoted {
                        self.literal(body_start, line_end, false);
                    }
                    body_end = rest;
                    rest = next;
                    break;
                }
                text.extend_from_slice(line);
                if newline {
                    text.push(b'\n');
                }
                rest = next;
            }
            let span = self.span(body_start, body_end);
            let body = if doc.quoted {
                Word {
                    parts: vec![WordPart::SingleQuoted(text)],
                    span,
                }
            } else {
                let mut sub = self.nested(&text, span.start());
                let mut word = Word {
                    parts: sub.here_doc_text()?,
                    span,
                };
                sub.finish_word(&mut word)?;
                word
            };
            self.bodies.insert(doc.key, body);
        }
        Ok(rest)
    }
}

impl Parser<'_> {
    /// After a nested parser has read all of its text as one word (an
    /// unquoted here-document body, arithmetic text): here-documents opened
    /// inside it must be complete, and their bodies go into `word`.
    pub(super) fn finish_word(&mut self, word: &mut Word) -> Result<(), SyntaxError> {
        if let Some(p) = self.pending.first() {
            return Err(p.unterminated());
        }
        struct Fill<'m>(&'m mut HashMap<usize, Word>);
        impl VisitMut for Fill<'_> {
            fn redirect(&mut self, r: &mut Redirect) {
                fill_one(self.0, r);
            }
        }
        if !self.bodies.is_empty() {
            walk_word(&mut Fill(&mut self.bodies), word);
        }
        Ok(())
    }
}

fn fill_one(bodies: &mut HashMap<usize, Word>, r: &mut Redirect) {
    if let RedirTarget::HereDoc(h) = &mut r.target {
        if let Some(body) = bodies.remove(&r.span.start()) {
            h.body = body;
        }
    }
}

/// Move each body read into the redirection it belongs to.
pub(super) fn fill_bodies(list: &mut List, bodies: &mut HashMap<usize, Word>) {
    struct Fill<'m>(&'m mut HashMap<usize, Word>);
    impl VisitMut for Fill<'_> {
        fn redirect(&mut self, r: &mut Redirect) {
            fill_one(self.0, r);
        }
    }
    if !bodies.is_empty() {
        walk_list(&mut Fill(bodies), list);
    }
}
