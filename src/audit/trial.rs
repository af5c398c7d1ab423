//! The trial seal: records that a process outside the trial cannot forge.
//!
//! `guard-sh-launch` draws a random 32-byte key for each trial, writes its
//! SHA-256 into the `harness` record, and hands the key to the harness in
//! [`SEAL_ENV`] (with the harness session's id in [`TRIAL_ENV`]). Every
//! guard-sh the harness starts takes the key out of its environment (and
//! out of its `/proc/self/environ` bytes) before anything runs, names the
//! trial in its session record, and ends every record with
//! `"mac":HMAC-SHA256(key, the record without the mac)`. When the harness
//! has ended, the launcher writes a `harness-end` record that reveals the
//! key; the verifier checks it against the commitment and every record of
//! the trial against it.
//!
//! What it proves: a record with a valid MAC was written, before the trial
//! ended, by a process that held the key: the launcher or a guard-sh of the
//! trial. A record injected by any other means (a line that wrote the log
//! through some hole, another program) cannot carry one, and a session that
//! names a trial it cannot prove is reported.
//!
//! `harness-end` also commits to every session that names the trial, as
//! the log held them when the harness ended ([`commit_to_sessions`]): each
//! one's id, record count and the hash of its last record. Once the key is
//! revealed anyone can seal a record, so the commitment is what makes a
//! session removed, cut, changed or added after the trial detectable.
//!
//! What it does not prove: that the key stayed secret. Commands run in
//! Landlock domains nested below the harness's, which may not read the
//! harness's or guard-sh's memory or environment (Landlock's ptrace
//! scoping); without Landlock, a process of the same user could read
//! `/proc/<harness>/environ` and forge. It says nothing about records that
//! were never written (the hash chain and the `incomplete` findings do).

use hmac::digest::KeyInit;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// The id of the trial (the harness session) a guard-sh belongs to.
pub const TRIAL_ENV: &str = "GUARD_SH_TRIAL";
/// The trial's key, hex (named on the line server's wire, whose client
/// hides it).
pub use guard_sh_wire::SEAL_ENV;

/// A trial's secret key.
#[derive(Clone, PartialEq, Eq)]
pub struct TrialKey([u8; 32]);

impl std::fmt::Debug for TrialKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TrialKey(…)")
    }
}

impl TrialKey {
    /// 32 random bytes from the kernel.
    pub fn generate() -> std::io::Result<TrialKey> {
        let mut key = [0u8; 32];
        crate::os::random::fill(&mut key)?;
        Ok(TrialKey(key))
    }

    /// The key written as 64 hex digits.
    pub fn from_hex(text: &str) -> Option<TrialKey> {
        let bytes = hex::decode(text.trim()).ok()?;
        bytes.try_into().ok().map(TrialKey)
    }

    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Append this key's MAC to a record line (without its newline): the
    /// MAC covers the record as it was, `{…}`, and goes in as its last
    /// field.
    pub fn seal(&self, line: &mut Vec<u8>) {
        let mac = hex::encode(self.mac(line));
        if line.last() == Some(&b'}') {
            line.pop();
            line.extend_from_slice(super::record::MAC_OPEN);
            line.extend_from_slice(mac.as_bytes());
            line.extend_from_slice(b"\"}");
        }
    }

    /// The commitment the `harness` record carries.
    pub fn sha256_hex(&self) -> String {
        hex::encode(Sha256::digest(self.0))
    }

    /// An HMAC-SHA256 instance keyed with this key. A key shorter than the
    /// hash's 64-byte block is zero-padded to it (RFC 2104), so the padded
    /// block is the same key, given in the form that cannot fail.
    fn hmac(&self) -> Hmac<Sha256> {
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(&self.0);
        <Hmac<Sha256> as KeyInit>::new(&block.into())
    }

    /// HMAC-SHA256 of `bytes`.
    pub fn mac(&self, bytes: &[u8]) -> [u8; 32] {
        let mut mac = self.hmac();
        mac.update(bytes);
        mac.finalize().into_bytes().into()
    }

    /// Whether `mac` is the MAC of `bytes` (compared in constant time).
    pub fn verifies(&self, bytes: &[u8], mac: &[u8]) -> bool {
        let mut m = self.hmac();
        m.update(bytes);
        m.verify_slice(mac).is_ok()
    }
}

/// One session of a trial as `harness-end` commits to it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionCommitment {
    /// The session's id.
    pub session: String,
    /// How many records it had.
    pub records: u64,
    /// SHA-256 (hex) of its record with the highest seq, as written.
    pub last: String,
}

/// The sessions of `log` (an audit log's bytes) whose first record names
/// `trial`, each with its record count and the hash of its highest-seq
/// record. Lines that are not records are left to the verifier.
pub fn commit_to_sessions(log: &[u8], trial: &str) -> Vec<SessionCommitment> {
    use std::collections::BTreeMap;
    struct Seen {
        names_trial: bool,
        records: u64,
        last: (u64, [u8; 32]),
    }
    let mut order: Vec<String> = Vec::new();
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    for line in log.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        let (Some(session), Some(seq)) = (value["session"].as_str(), value["seq"].as_u64()) else {
            continue;
        };
        let hash = super::record::line_hash(line);
        let entry = seen.entry(session.to_string()).or_insert_with(|| {
            order.push(session.to_string());
            Seen {
                names_trial: false,
                records: 0,
                last: (seq, hash),
            }
        });
        entry.records += 1;
        if seq >= entry.last.0 {
            entry.last = (seq, hash);
        }
        if seq == 0 && value["trial"].as_str() == Some(trial) {
            entry.names_trial = true;
        }
    }
    order
        .into_iter()
        .filter_map(|id| {
            let s = seen.remove(&id)?;
            s.names_trial.then(|| SessionCommitment {
                session: id,
                records: s.records,
                last: hex::encode(s.last.1),
            })
        })
        .collect()
}

/// The trial a guard-sh was started in: its id and key, taken out of the
/// process environment. The key's bytes in the original environment block
/// (what `/proc/self/environ` shows) are overwritten first.
pub fn take_from_env() -> Option<(String, TrialKey)> {
    let id = std::env::var(TRIAL_ENV).ok();
    let key = std::env::var(SEAL_ENV).ok();
    scrub_environ_value(SEAL_ENV);
    // SAFETY: called at start-up, before guard-sh starts any thread.
    unsafe {
        std::env::remove_var(SEAL_ENV);
        std::env::remove_var(TRIAL_ENV);
    }
    Some((id?, TrialKey::from_hex(&key?)?))
}

/// Take `name` out of the process environment, its value's bytes in the
/// original block overwritten first (a secret of the harness's that no
/// line needs: the server's token). Call at start-up, single-threaded.
pub fn forget_variable(name: &str) {
    scrub_environ_value(name);
    // SAFETY: called at start-up, before guard-sh starts any thread.
    unsafe { std::env::remove_var(name) };
}

unsafe extern "C" {
    static mut environ: *const *mut libc::c_char;
}

/// Overwrite the value of `name` in the process's environment block with
/// `0`s, in place.
fn scrub_environ_value(name: &str) {
    let prefix = format!("{name}=");
    // SAFETY: single-threaded start-up; `environ` is a NULL-terminated array
    // of NUL-terminated strings that the process owns and may write.
    unsafe {
        let mut entry = environ;
        if entry.is_null() {
            return;
        }
        while !(*entry).is_null() {
            let text = *entry;
            let bytes = std::ffi::CStr::from_ptr(text).to_bytes();
            if bytes.starts_with(prefix.as_bytes()) {
                let len = bytes.len();
                for i in prefix.len()..len {
                    *text.add(i) = b'0' as libc::c_char;
                }
            }
            entry = entry.add(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mac_verifies_only_its_own_bytes_and_key() -> std::io::Result<()> {
        let key = TrialKey::generate()?;
        let other = TrialKey::generate()?;
        let mac = key.mac(b"record");
        assert!(key.verifies(b"record", &mac));
        assert!(!key.verifies(b"recorD", &mac));
        assert!(!other.verifies(b"record", &mac));
        assert_eq!(TrialKey::from_hex(&key.to_hex()), Some(key.clone()));
        assert_eq!(key.sha256_hex().len(), 64);
        // RFC 4231 test case 2 shape: the padded-block key is plain HMAC.
        let jefe = TrialKey(*b"Jefe\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
        assert_eq!(
            hex::encode(jefe.mac(b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        Ok(())
    }
}
