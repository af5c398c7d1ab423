//! Whether glibc would load a locale's character types, read from glibc's
//! own files: what bash, linked with glibc, finds when a line names a
//! locale. A build on musl asks this instead of its C library, whose
//! `newlocale` takes any name (so `LC_ALL=xx_YY.UTF-8`, not installed,
//! would count characters where bash counts bytes).
//!
//! glibc looks for a name in its locale archive
//! (`/usr/lib/locale/locale-archive`), as given and then with its codeset
//! normalised (`en_US.UTF-8` → `en_US.utf8`), then for a folder of that
//! name holding `LC_CTYPE` in `/usr/lib/locale`. Not followed here: a
//! `LOCPATH` (guard-sh's commands do not get one from the environment the
//! policy passes, and the shell reads only its start's locale files), an
//! absolute name, and glibc's fallbacks that drop a name's territory or
//! modifier (they must still match the codeset asked for, which the
//! locales that ship with a codeset in their folder's name do not miss).

use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Where glibc keeps its compiled locales.
const LOCALE_DIR: &str = "/usr/lib/locale";

/// The locale archive's magic number (glibc's `AR_MAGIC`).
const ARCHIVE_MAGIC: u32 = 0xde02_0109;

/// Whether glibc's `newlocale(LC_CTYPE_MASK, name, …)` would succeed on
/// this machine, judged from its files under [`LOCALE_DIR`].
pub fn glibc_loads_ctype(name: &[u8]) -> bool {
    glibc_loads_ctype_in(Path::new(LOCALE_DIR), name)
}

/// [`glibc_loads_ctype`] with the locale folder at `dir`.
pub fn glibc_loads_ctype_in(dir: &Path, name: &[u8]) -> bool {
    if name == b"C" || name == b"POSIX" {
        return true;
    }
    // glibc refuses a name over 255 bytes, and takes one with a slash as a
    // path (not followed here: see the module's docs).
    if name.is_empty() || name.len() > 255 || name.contains(&b'/') || name.contains(&0) {
        return false;
    }
    let normalized = normalize_codeset(name);
    let names: Vec<&[u8]> = match &normalized {
        Some(n) if n.as_slice() != name => vec![name, n],
        _ => vec![name],
    };
    let archive = archive_names(&dir.join("locale-archive"));
    names.iter().any(|n| archive.iter().any(|a| a == n))
        || names.iter().any(|n| {
            use std::os::unix::ffi::OsStrExt;
            dir.join(std::ffi::OsStr::from_bytes(n))
                .join("LC_CTYPE")
                .is_file()
        })
}

/// `name` with its codeset (between `.` and `@` or the end) as glibc's
/// `_nl_normalize_codeset` writes it: letters and digits only, letters in
/// lower case, and `iso` before a codeset of digits alone. None when the
/// name has no codeset.
pub fn normalize_codeset(name: &[u8]) -> Option<Vec<u8>> {
    let dot = name.iter().position(|&b| b == b'.')?;
    let end = name[dot..]
        .iter()
        .position(|&b| b == b'@')
        .map_or(name.len(), |at| dot + at);
    let codeset: Vec<u8> = name[dot + 1..end]
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(u8::to_ascii_lowercase)
        .collect();
    let mut out = name[..=dot].to_vec();
    if !codeset.is_empty() && codeset.iter().all(u8::is_ascii_digit) {
        out.extend_from_slice(b"iso");
    }
    out.extend_from_slice(&codeset);
    out.extend_from_slice(&name[end..]);
    Some(out)
}

/// The names of the locales in the archive at `path` (none when it is
/// missing or not an archive): the name table's entries that hold a
/// locale, each name read at its offset in the file.
pub fn archive_names(path: &Path) -> Vec<Vec<u8>> {
    let Ok(file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    let mut head = [0u8; 56];
    if (&file).take(56).read_exact(&mut head).is_err() {
        return Vec::new();
    }
    let word = |i: usize| u32::from_ne_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    if word(0) != ARCHIVE_MAGIC {
        return Vec::new();
    }
    let (table_at, table_len) = (u64::from(word(8)), word(16) as usize);
    // Twelve bytes an entry: hash, name offset, record offset.
    let Some(table_bytes) = table_len.checked_mul(12).filter(|&n| n <= 1 << 24) else {
        return Vec::new();
    };
    let mut table = vec![0u8; table_bytes];
    if file.read_exact_at(&mut table, table_at).is_err() {
        return Vec::new();
    }
    let mut names = Vec::new();
    for entry in table.chunks_exact(12) {
        let field =
            |i: usize| u32::from_ne_bytes([entry[i], entry[i + 1], entry[i + 2], entry[i + 3]]);
        let (name_at, record_at) = (field(4), field(8));
        if name_at == 0 || record_at == 0 {
            continue;
        }
        let mut name = [0u8; 256];
        let Ok(n) = file.read_at(&mut name, u64::from(name_at)) else {
            continue;
        };
        if let Some(end) = name[..n].iter().position(|&b| b == 0) {
            names.push(name[..end].to_vec());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codesets_are_normalized_as_glibc_does() {
        let cases: [(&str, Option<&str>); 6] = [
            ("en_US.UTF-8", Some("en_US.utf8")),
            ("de_DE.ISO-8859-1@euro", Some("de_DE.iso88591@euro")),
            ("xx.8859", Some("xx.iso8859")),
            ("C.utf8", Some("C.utf8")),
            ("en_US", None),
            ("fr_FR.", Some("fr_FR.")),
        ];
        for (name, expected) in cases {
            let got = normalize_codeset(name.as_bytes());
            assert_eq!(
                got.as_deref(),
                expected.map(str::as_bytes),
                "normalising {name}"
            );
        }
    }

    /// An archive laid out as glibc's `locarchive.h` says: a header, the
    /// name table (one empty slot, one slot with a name but no record,
    /// two locales) and the strings.
    fn archive(names: &[&str]) -> Vec<u8> {
        let table_at = 56u32;
        let slots = names.len() + 2;
        let strings_at = table_at + 12 * slots as u32;
        let mut strings = Vec::new();
        let mut table = vec![0u8; 12];
        let at = |s: &str, strings: &mut Vec<u8>| {
            let offset = strings_at + strings.len() as u32;
            strings.extend_from_slice(s.as_bytes());
            strings.push(0);
            offset
        };
        let orphan = at("orphan.UTF-8", &mut strings);
        table.extend([7u32, orphan, 0].iter().flat_map(|w| w.to_ne_bytes()));
        for name in names {
            let offset = at(name, &mut strings);
            table.extend([7u32, offset, 4096].iter().flat_map(|w| w.to_ne_bytes()));
        }
        let mut head = [0u32; 14];
        head[0] = ARCHIVE_MAGIC;
        head[2] = table_at;
        head[3] = names.len() as u32;
        head[4] = slots as u32;
        head[5] = strings_at;
        let mut file: Vec<u8> = head.iter().flat_map(|w| w.to_ne_bytes()).collect();
        file.extend(table);
        file.extend(strings);
        file
    }

    #[test]
    fn an_archive_or_a_folder_holds_a_locale_and_nothing_else_does() {
        let dir = tempfile::tempdir().expect("test set-up");
        std::fs::write(
            dir.path().join("locale-archive"),
            archive(&["en_US.utf8", "de_DE.iso88591@euro"]),
        )
        .expect("test set-up");
        std::fs::create_dir_all(dir.path().join("C.utf8")).expect("test set-up");
        std::fs::write(dir.path().join("C.utf8/LC_CTYPE"), b"").expect("test set-up");
        std::fs::create_dir_all(dir.path().join("fr_FR.utf8")).expect("test set-up");
        let loads = |name: &str| glibc_loads_ctype_in(dir.path(), name.as_bytes());
        for name in [
            "en_US.UTF-8",
            "en_US.utf8",
            "en_US.Utf-8",
            "de_DE.ISO-8859-1@euro",
        ] {
            assert!(loads(name), "{name} is in the archive");
        }
        for name in ["C.UTF-8", "C.utf8", "C", "POSIX"] {
            assert!(loads(name), "{name} is a folder or built in");
        }
        for name in [
            "xx_YY.UTF-8",
            "orphan.UTF-8",
            "en_US",
            "en_GB.UTF-8",
            "fr_FR.UTF-8",
            "../C.utf8",
            "",
        ] {
            assert!(!loads(name), "{name} is not installed");
        }
        std::fs::write(dir.path().join("locale-archive"), b"not an archive").expect("test set-up");
        assert!(
            !loads("en_US.UTF-8"),
            "a file that is not an archive holds nothing"
        );
        assert!(loads("C.UTF-8"));
    }

    /// On glibc, the C library itself is the oracle: the answer from the
    /// files must be `newlocale`'s for the names a line may set.
    #[cfg(target_env = "gnu")]
    #[test]
    fn the_files_agree_with_glibc_itself() {
        let mut names: Vec<String> = [
            "C",
            "POSIX",
            "C.UTF-8",
            "C.utf8",
            "C.Utf-8",
            "xx_YY.UTF-8",
            "en_US.UTF-8",
            "en_US.utf8",
            "en_GB.UTF-8",
            "de_DE.UTF-8",
            "POSIX.UTF-8",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for name in archive_names(Path::new("/usr/lib/locale/locale-archive")) {
            names.push(String::from_utf8_lossy(&name).into_owned());
        }
        for name in names {
            let c = std::ffi::CString::new(name.clone()).expect("test set-up");
            // SAFETY: newlocale with a valid C string; the result is freed.
            let glibc = unsafe {
                let l = libc::newlocale(libc::LC_CTYPE_MASK, c.as_ptr(), std::ptr::null_mut());
                if !l.is_null() {
                    libc::freelocale(l);
                }
                !l.is_null()
            };
            assert_eq!(glibc_loads_ctype(name.as_bytes()), glibc, "{name}");
        }
    }
}
