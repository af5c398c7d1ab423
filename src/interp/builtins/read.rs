//! `read` and `mapfile`/`readarray`: input split into variables and arrays.
//! Every assignment they make goes through the policy check.

use super::lossy;
use crate::interp::vars::is_name;
use crate::interp::{Shell, Status};
use crate::os::Fd;

/// Split a `read` line into at most `n` fields (the last takes the rest).
fn split_read(line: &[u8], quoted: &[bool], ifs: &[u8], n: usize) -> Vec<Vec<u8>> {
    let is_ifs = |i: usize| !quoted[i] && ifs.contains(&line[i]);
    let is_ws = |i: usize| is_ifs(i) && matches!(line[i], b' ' | b'\t' | b'\n');
    let len = line.len();
    // Past one delimiter at `i`: whitespace, optionally one non-whitespace
    // IFS byte and the whitespace after it.
    let past_delimiter = |mut i: usize| {
        while i < len && is_ws(i) {
            i += 1;
        }
        if i < len && is_ifs(i) && !is_ws(i) {
            i += 1;
            while i < len && is_ws(i) {
                i += 1;
            }
        }
        i
    };
    let mut fields = Vec::new();
    let mut i = 0;
    while i < len && is_ws(i) {
        i += 1;
    }
    while i < len {
        if fields.len() + 1 == n {
            // When the rest is one field and its delimiter, the field
            // alone (`IFS=: read a b <<< 1:2:` gives b=2, as bash);
            // else the rest of the line, minus trailing IFS whitespace.
            let mut word_end = i;
            while word_end < len && !is_ifs(word_end) {
                word_end += 1;
            }
            if past_delimiter(word_end) == len {
                fields.push(line[i..word_end].to_vec());
                return fields;
            }
            let mut end = len;
            while end > i && is_ws(end - 1) {
                end -= 1;
            }
            fields.push(line[i..end].to_vec());
            return fields;
        }
        let start = i;
        while i < len && !is_ifs(i) {
            i += 1;
        }
        fields.push(line[start..i].to_vec());
        i = past_delimiter(i);
    }
    fields
}

/// One option of a builtin's command line.
#[derive(Debug, PartialEq, Eq)]
enum Opt {
    /// A letter that takes no value.
    Flag(u8),
    /// A letter and its value.
    Value(u8, Vec<u8>),
}

/// Why a builtin's options stop being read.
#[derive(Debug, PartialEq, Eq)]
enum OptError {
    /// A letter the builtin does not know.
    Invalid(u8),
    /// A letter that takes a value, at the end of the line.
    MissingValue(u8),
}

impl std::fmt::Display for OptError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptError::Invalid(l) => write!(f, "-{}: invalid option", *l as char),
            OptError::MissingValue(l) => {
                write!(f, "-{}: option requires an argument", *l as char)
            }
        }
    }
}

/// A builtin's options, one at a time, as bash's getopts reads them:
/// clustered (`-rd ''`), a value attached (`-n1`) or in the next word
/// (`-n 1`); `--` or the first word not starting with `-` ends them.
/// Reading stops at the first error.
struct Options<'a> {
    args: &'a [Vec<u8>],
    /// Letters without a value.
    flags: &'static [u8],
    /// Letters with one.
    valued: &'static [u8],
    /// The word being read, and the place in it (0: not yet started).
    i: usize,
    k: usize,
    done: bool,
}

impl<'a> Options<'a> {
    fn new(args: &'a [Vec<u8>], flags: &'static [u8], valued: &'static [u8]) -> Self {
        Options {
            args,
            flags,
            valued,
            i: 0,
            k: 0,
            done: false,
        }
    }

    /// The index of the first operand, once the options are read.
    fn operands(&self) -> usize {
        self.i
    }
}

impl Iterator for Options<'_> {
    type Item = Result<Opt, OptError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            let Some(word) = self.args.get(self.i) else {
                break;
            };
            if self.k == 0 {
                if word.as_slice() == b"--" {
                    self.i += 1;
                    break;
                }
                if !word.starts_with(b"-") || word.len() < 2 {
                    break;
                }
                self.k = 1;
            }
            let Some(&letter) = word.get(self.k) else {
                self.i += 1;
                self.k = 0;
                continue;
            };
            self.k += 1;
            if self.flags.contains(&letter) {
                return Some(Ok(Opt::Flag(letter)));
            }
            if !self.valued.contains(&letter) {
                self.done = true;
                return Some(Err(OptError::Invalid(letter)));
            }
            if self.k < word.len() {
                let value = word[self.k..].to_vec();
                self.i += 1;
                self.k = 0;
                return Some(Ok(Opt::Value(letter, value)));
            }
            let Some(value) = self.args.get(self.i + 1) else {
                self.done = true;
                return Some(Err(OptError::MissingValue(letter)));
            };
            self.i += 2;
            self.k = 0;
            return Some(Ok(Opt::Value(letter, value.clone())));
        }
        self.done = true;
        None
    }
}

/// What bash prints after a `read` usage error.
const READ_USAGE: &[u8] = b"read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]\n";

/// A `read -t` operand bash accepts: digits with at most one `.`.
fn is_timeout(text: &str) -> bool {
    let mut parts = text.splitn(2, '.');
    let whole = parts.next().unwrap_or_default();
    let fraction = parts.next().unwrap_or_default();
    !(whole.is_empty() && fraction.is_empty())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// `read`'s options.
struct ReadOptions {
    /// `-r`: a backslash is an ordinary byte.
    raw: bool,
    /// `-d`: the byte that ends the record (`None` with `-N`).
    delim: Option<u8>,
    /// `-n`/`-N`: at most this many characters (bytes outside a UTF-8
    /// locale).
    max: Option<usize>,
    /// `-N`: exactly `max` bytes, taken whole.
    exact: bool,
    /// `-u`: the descriptor read.
    fd: Fd,
    /// `-u` was given: its descriptor must be open before anything is read.
    fd_given: bool,
    /// `-t`: seconds to wait for input.
    timeout: Option<f64>,
    /// `-a`: the array the fields go to.
    array: Option<String>,
}

/// Whether the last UTF-8 character of `line` has all its bytes (an
/// empty line has no character left open).
fn last_char_complete(line: &[u8]) -> bool {
    let Some(start) = line.iter().rposition(|b| b & 0xc0 != 0x80) else {
        return true;
    };
    let needed = match line[start] {
        0xf0.. => 4,
        0xe0.. => 3,
        0xc0.. => 2,
        _ => 1,
    };
    line.len() - start >= needed
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            raw: false,
            delim: Some(b'\n'),
            max: None,
            exact: false,
            fd: 0,
            fd_given: false,
            timeout: None,
            array: None,
        }
    }
}

impl Shell<'_> {
    /// `read [-rs] [-d DELIM] [-n COUNT] [-p PROMPT] [-t TIMEOUT] [NAME…]`.
    /// An option error reads nothing, so the input stays for the next line.
    pub(super) fn read_builtin(&mut self, args: &[Vec<u8>]) -> Status {
        let (opts, first_name) = match self.read_options(args) {
            Ok(parsed) => parsed,
            Err(status) => return Ok(status),
        };
        if opts.fd_given && !self.descriptor_is_open(opts.fd) {
            self.error(&format!(
                "read: {}: invalid file descriptor: Bad file descriptor",
                opts.fd
            ));
            return Ok(1);
        }
        let mut names: Vec<String> = args[first_name..].iter().map(|a| lossy(a)).collect();
        let reply = names.is_empty() && opts.array.is_none();
        if reply {
            names.push("REPLY".into());
        }
        if let Some(seconds) = opts.timeout {
            // `-t 0`: only whether input is waiting; else wait that long.
            let ready = self.sys.wait_readable(opts.fd, seconds);
            if seconds == 0.0 {
                return Ok(i32::from(!ready));
            }
            if !ready {
                return Ok(142);
            }
        }
        let (line, quoted_mask, eof) = self.read_record(&opts);
        // Without a name, or with -N, the line is taken whole (bash).
        if reply || opts.exact {
            self.assign(&names[0], line)?;
            for name in &names[1..] {
                self.assign(name, Vec::new())?;
            }
            return Ok(i32::from(eof));
        }
        let ifs = self
            .vars
            .get("IFS")
            .map_or(b" \t\n".to_vec(), <[u8]>::to_vec);
        if let Some(array) = opts.array {
            if !is_name(array.as_bytes()) {
                self.invalid_name("read", &array);
                return Ok(1);
            }
            let fields = split_read(&line, &quoted_mask, &ifs, usize::MAX);
            let items = fields.into_iter().map(|f| (None, f)).collect();
            self.assign_array(&array, items, false, false)?;
            return Ok(i32::from(eof));
        }
        let fields = split_read(&line, &quoted_mask, &ifs, names.len());
        for (k, name) in names.iter().enumerate() {
            let value = fields.get(k).cloned().unwrap_or_default();
            if !is_name(name.as_bytes()) {
                self.invalid_name("read", name);
                return Ok(1);
            }
            self.assign(name, value)?;
        }
        Ok(i32::from(eof))
    }

    /// `read`'s options, read as bash's getopts reads them: clustered
    /// (`-rd ''`), a value attached (`-n1`) or in the next word; `--` ends
    /// them. Returns them with the index of the first name, or the status
    /// of an error (printed). `-p` prints its prompt here, to a terminal.
    fn read_options(&mut self, args: &[Vec<u8>]) -> Result<(ReadOptions, usize), i32> {
        let mut opts = ReadOptions::default();
        let mut options = Options::new(args, b"rse", b"pdnNtuai");
        for opt in options.by_ref() {
            match opt {
                Ok(Opt::Flag(letter)) => opts.raw |= letter == b'r',
                Ok(Opt::Value(letter, value)) => {
                    if let Err(message) = self.read_option(letter, &value, &mut opts) {
                        self.error(&message);
                        return Err(1);
                    }
                }
                Err(e) => {
                    self.error(&format!("read: {e}"));
                    let _ = self.sys.write_all(2, READ_USAGE);
                    return Err(2);
                }
            }
        }
        if opts.exact {
            opts.delim = None;
        }
        Ok((opts, options.operands()))
    }

    /// Apply one `read` option with its value; the error for an invalid
    /// value.
    fn read_option(
        &mut self,
        letter: u8,
        value: &[u8],
        opts: &mut ReadOptions,
    ) -> Result<(), String> {
        let text = lossy(value);
        match letter {
            // The prompt goes out only to a terminal.
            b'p' if self.sys.isatty(0) => {
                let _ = self.sys.write_all(2, value);
            }
            b'd' => opts.delim = Some(value.first().copied().unwrap_or(0)),
            b'n' | b'N' => match text.trim().parse::<usize>() {
                Ok(n) => {
                    opts.max = Some(n);
                    opts.exact = letter == b'N';
                }
                Err(_) => return Err(format!("read: {text}: invalid number")),
            },
            b't' => {
                if !is_timeout(text.trim()) {
                    return Err(format!("read: {text}: invalid timeout specification"));
                }
                opts.timeout = text.trim().parse::<f64>().ok();
            }
            b'u' => match text.trim().parse::<Fd>() {
                Ok(n) if n >= 0 && !crate::os::private_fd::is_private(n) => {
                    opts.fd = n;
                    opts.fd_given = true;
                }
                _ => {
                    return Err(format!(
                        "read: {text}: invalid file descriptor specification"
                    ));
                }
            },
            b'a' => opts.array = Some(text.clone()),
            // -p off a terminal; -i: readline's initial text (no readline here).
            _ => {}
        }
        Ok(())
    }

    /// Read one record one byte at a time, so the rest of the input stays
    /// for the next reader: the bytes, which of them a backslash quoted,
    /// and whether input ended before the delimiter or count.
    fn read_record(&mut self, opts: &ReadOptions) -> (Vec<u8>, Vec<bool>, bool) {
        let mut line = Vec::new();
        let mut quoted_mask = Vec::new();
        let mut byte = [0u8; 1];
        let utf8 = opts.max.is_some() && self.utf8_locale();
        // Characters taken: a byte that does not continue a UTF-8
        // character starts one.
        let mut taken = 0;
        loop {
            if opts.max.is_some_and(|m| taken >= m) && (!utf8 || last_char_complete(&line)) {
                return (line, quoted_mask, false);
            }
            match self.sys.read(opts.fd, &mut byte) {
                Ok(1) => {}
                Err(e) if e.kind() != std::io::ErrorKind::Interrupted => {
                    // bash's words: `read: read error: 0: Bad file descriptor`.
                    let why = crate::interp::redirect::describe_io(&e);
                    self.error(&format!("read: read error: {}: {why}", opts.fd));
                    return (line, quoted_mask, true);
                }
                _ => return (line, quoted_mask, true),
            }
            let b = byte[0];
            if Some(b) == opts.delim {
                return (line, quoted_mask, false);
            }
            if b == 0 {
                // bash drops a NUL it reads (its strings cannot hold one).
                continue;
            }
            if b == b'\\' && !opts.raw {
                match self.sys.read(opts.fd, &mut byte) {
                    Ok(1) if byte[0] == b'\n' => continue,
                    Ok(1) => {
                        if !utf8 || byte[0] & 0xc0 != 0x80 {
                            taken += 1;
                        }
                        line.push(byte[0]);
                        quoted_mask.push(true);
                        continue;
                    }
                    _ => return (line, quoted_mask, true),
                }
            }
            if !utf8 || b & 0xc0 != 0x80 {
                taken += 1;
            }
            line.push(b);
            quoted_mask.push(false);
        }
    }

    /// `mapfile`/`readarray [-d DELIM] [-n COUNT] [-O ORIGIN] [-s SKIP] [-t]
    /// [-u FD] [ARRAY]`: lines of input into an indexed array (`MAPFILE`).
    /// `-C`/`-c` (a callback run as shell text) are refused.
    pub(super) fn mapfile(&mut self, builtin: &str, args: &[Vec<u8>]) -> Status {
        let mut delim = b'\n';
        let (mut count, mut origin, mut skip) = (0usize, None::<i64>, 0usize);
        let mut strip = false;
        let mut fd: Fd = 0;
        let mut options = Options::new(args, b"t", b"dnOsuCc");
        for opt in options.by_ref() {
            let (letter, value) = match opt {
                Ok(Opt::Flag(_)) => {
                    strip = true;
                    continue;
                }
                Ok(Opt::Value(letter, value)) => (letter, value),
                Err(e) => {
                    self.error(&format!("{builtin}: {e}"));
                    return Ok(2);
                }
            };
            let text = lossy(&value);
            let number = text.trim().parse::<i64>().ok().filter(|n| *n >= 0);
            match (letter, number) {
                (b'd', _) => delim = value.first().copied().unwrap_or(0),
                (b'n', Some(n)) => count = n as usize,
                (b'O', Some(n)) => origin = Some(n),
                (b's', Some(n)) => skip = n as usize,
                (b'u', Some(n)) if !crate::os::private_fd::is_private(n as Fd) => {
                    fd = n as Fd;
                    if !self.descriptor_is_open(fd) {
                        self.error(&format!(
                            "{builtin}: {fd}: invalid file descriptor: Bad file descriptor"
                        ));
                        return Ok(1);
                    }
                }
                (b'u', _) => {
                    self.error(&format!(
                        "{builtin}: {text}: invalid file descriptor specification"
                    ));
                    return Ok(1);
                }
                (b'C' | b'c', _) => {
                    self.error(&format!(
                        "{builtin}: -{}: callbacks are not supported by guard-sh",
                        letter as char
                    ));
                    return Ok(2);
                }
                (b'O', None) => {
                    self.error(&format!("{builtin}: {text}: invalid array origin"));
                    return Ok(1);
                }
                _ => {
                    self.error(&format!("{builtin}: {text}: invalid line count"));
                    return Ok(1);
                }
            }
        }
        let i = options.operands();
        let name = args.get(i).map_or("MAPFILE".to_string(), |a| lossy(a));
        if !is_name(name.as_bytes()) {
            self.error(&format!("{builtin}: `{name}': not a valid identifier"));
            return Ok(1);
        }
        if self.is_assoc(&name) {
            self.error(&format!("{builtin}: {name}: not an indexed array"));
            return Ok(1);
        }
        // Read a byte at a time, so what follows stays for the next reader.
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        let mut seen = 0usize;
        loop {
            if count > 0 && lines.len() >= count {
                break;
            }
            let got = matches!(self.sys.read(fd, &mut byte), Ok(1));
            if got {
                line.push(byte[0]);
                if byte[0] != delim {
                    continue;
                }
                if strip {
                    line.pop();
                }
            } else if line.is_empty() {
                break;
            }
            seen += 1;
            // bash keeps a line up to its first NUL (a C string).
            let done = crate::interp::quote::up_to_nul(std::mem::take(&mut line));
            if seen > skip {
                lines.push(done);
            }
            if !got {
                break;
            }
        }
        let start = origin.unwrap_or(0);
        let items: Vec<_> = lines
            .into_iter()
            .enumerate()
            .map(|(n, l)| (Some((start + n as i64).to_string().into_bytes()), l))
            .collect();
        // Without -O the array is emptied first.
        self.assign_array(&name, items, origin.is_some(), false)?;
        Ok(0)
    }

    /// Whether `fd` is open (bash checks `-u`'s descriptor before reading).
    fn descriptor_is_open(&mut self, fd: Fd) -> bool {
        match self.sys.dup_saved(fd) {
            Ok(Some(copy)) => {
                let _ = self.sys.close(copy);
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Opt, OptError, Options, split_read};

    /// The options `read` would see in `words`, and where its operands start.
    fn options(words: &[&str]) -> (Vec<Result<Opt, OptError>>, usize) {
        let args: Vec<Vec<u8>> = words.iter().map(|w| w.as_bytes().to_vec()).collect();
        let mut options = Options::new(&args, b"rse", b"pdnNtuai");
        let read: Vec<_> = options.by_ref().collect();
        (read, options.operands())
    }

    #[test]
    fn options_are_read_as_getopts_reads_them() {
        use Opt::*;
        let v = |l: u8, s: &str| Ok(Value(l, s.as_bytes().to_vec()));
        assert_eq!(
            options(&["-rd", "", "x"]),
            (vec![Ok(Flag(b'r')), v(b'd', "")], 2)
        );
        assert_eq!(options(&["-n1", "--", "-x"]), (vec![v(b'n', "1")], 2));
        assert_eq!(
            options(&["-r", "-n", "3", "name"]),
            (vec![Ok(Flag(b'r')), v(b'n', "3")], 3)
        );
        assert_eq!(options(&["-", "x"]), (vec![], 0));
        assert_eq!(options(&["x", "-r"]), (vec![], 0));
        assert_eq!(
            options(&["-rq", "x"]).0,
            vec![Ok(Flag(b'r')), Err(OptError::Invalid(b'q'))]
        );
        assert_eq!(options(&["-n"]).0, vec![Err(OptError::MissingValue(b'n'))]);
    }

    fn sr(line: &str, ifs: &str, n: usize) -> Vec<String> {
        let q = vec![false; line.len()];
        split_read(line.as_bytes(), &q, ifs.as_bytes(), n)
            .into_iter()
            .map(|f| String::from_utf8_lossy(&f).into_owned())
            .collect()
    }

    #[test]
    fn read_splits_on_ifs_and_gives_the_rest_to_the_last_name() {
        assert_eq!(sr("  a  b   c d  ", " \t\n", 2), ["a", "b   c d"]);
        assert_eq!(sr("a:b::c", ":", 4), ["a", "b", "", "c"]);
        assert_eq!(sr("x y", " ", 1), ["x y"]);
    }
}
