//! Byte ranges into the source text, and their rendering as `LINE:COL`.

use serde::Serialize;

/// A half-open byte range `start..end` into the parsed source. Offsets
/// are 32-bit (a tree holds many spans; input is read one complete command
/// at a time); one past 4 GiB is kept as `u32::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span {
            start: clamp(start),
            end: clamp(end),
        }
    }

    pub const fn start(self) -> usize {
        self.start as usize
    }

    pub const fn end(self) -> usize {
        self.end as usize
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

const fn clamp(offset: usize) -> u32 {
    if offset > u32::MAX as usize {
        u32::MAX
    } else {
        offset as u32
    }
}

/// A 1-based line and column (column counted in bytes, as bash reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct LineCol {
    pub line: usize,
    pub col: usize,
}

impl std::fmt::Display for LineCol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// Line and column of byte `offset` in `source` (offsets past the end map
/// to the position just after the last byte).
pub fn line_col(source: &[u8], offset: usize) -> LineCol {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    LineCol {
        line,
        col: offset - line_start + 1,
    }
}

/// Line starts of a source, for many `LINE:COL` look-ups in `O(log n)` each
/// (rendering a verdict over a long script must stay linear).
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(source: &[u8]) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(
                source
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| **b == b'\n')
                    .map(|(i, _)| i + 1),
            )
            .collect();
        LineIndex {
            starts,
            len: source.len(),
        }
    }

    /// The same answer as [`line_col`].
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = offset.min(self.len);
        let line = self.starts.partition_point(|&start| start <= offset);
        LineCol {
            line,
            col: offset - self.starts[line - 1] + 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let src = b"ab\ncd";
        assert_eq!(line_col(src, 0), LineCol { line: 1, col: 1 });
        assert_eq!(line_col(src, 4), LineCol { line: 2, col: 2 });
        assert_eq!(line_col(src, 99), LineCol { line: 2, col: 3 });
    }

    #[test]
    fn line_index_agrees_with_line_col_everywhere() {
        let src = b"a\n\nbc\nd\n";
        let index = LineIndex::new(src);
        for offset in 0..=src.len() + 1 {
            assert_eq!(
                index.line_col(offset),
                line_col(src, offset),
                "offset {offset}"
            );
        }
    }
}
