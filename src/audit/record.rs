//! The record format shared by the writer and the verifier.
//!
//! One record is one line: `{"session":ID,"seq":N,"ts":TS,"prev":HASH,"type":T,...}`
//! followed by `\n`. `prev` is the SHA-256 (hex) of the previous record line
//! of the same session, as bytes on disk without its `\n`; `seq` 0 has
//! [`ZERO_HASH`]. The verifier hashes the bytes it reads, so it never depends
//! on how a record was serialized.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::time::{SystemTime, UNIX_EPOCH};

/// `prev` of the first record of a session.
pub const ZERO_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The envelope fields, in the order they are written; the event's own
/// (`type` first) follow.
#[derive(Serialize)]
struct Envelope<'a> {
    session: &'a str,
    seq: u64,
    ts: &'a str,
    prev: &'a str,
}

/// Serialize one record line (without the trailing newline): the envelope,
/// then `event`'s fields as it serializes itself (`{"type":…,…}`), with no
/// JSON tree in between.
pub fn encode_record(
    session: &str,
    seq: u64,
    ts: &str,
    prev: &str,
    event: &super::Event,
) -> Result<Vec<u8>, serde_json::Error> {
    let mut line = serde_json::to_vec(&Envelope {
        session,
        seq,
        ts,
        prev,
    })?;
    // `{…}` + `{"type":…}` → `{…,"type":…}`.
    line.pop();
    line.push(b',');
    let event_start = line.len();
    serde_json::to_writer(&mut line, event)?;
    if line.get(event_start) != Some(&b'{') {
        return Err(serde::ser::Error::custom(
            "an event did not serialize as an object",
        ));
    }
    line.remove(event_start);
    Ok(line)
}

/// What ends a sealed record: `,"mac":"` + 64 hex digits + `"}`
/// ([`super::trial::TrialKey::seal`] writes it).
pub(super) const MAC_OPEN: &[u8] = b",\"mac\":\"";
const MAC_LEN: usize = MAC_OPEN.len() + 64 + 2;

/// A sealed record line split into the bytes its MAC covers and the MAC
/// (raw), or `None` if the line does not end in a `mac` field.
pub fn unseal(line: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let cut = line.len().checked_sub(MAC_LEN)?;
    let (body, tail) = line.split_at(cut);
    let hex_mac = tail.strip_prefix(MAC_OPEN)?.strip_suffix(b"\"}")?;
    let mac = hex::decode(hex_mac).ok()?;
    let mut covered = body.to_vec();
    covered.push(b'}');
    Some((covered, mac))
}

/// The chain hash of one record line (bytes without the trailing newline).
pub fn line_hash(line: &[u8]) -> [u8; 32] {
    Sha256::digest(line).into()
}

/// The current time as RFC 3339 UTC with milliseconds: `2026-12-03T07:13:00.123Z`.
pub fn now_rfc3339() -> String {
    // A clock before 1970 is a broken system; write the epoch rather than fail.
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format_rfc3339_ms(u64::try_from(ms).unwrap_or(u64::MAX))
}

/// Format milliseconds since the Unix epoch as RFC 3339 UTC with milliseconds.
pub fn format_rfc3339_ms(ms_since_epoch: u64) -> String {
    let secs = ms_since_epoch / 1000;
    let millis = ms_since_epoch % 1000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian
/// calendar (H. Hinnant's `civil_from_days`, for non-negative days).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_formats_as_1970() {
        assert_eq!(format_rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn leap_day_and_millis_format_exactly() {
        // 2024-02-29T23:59:59.999Z
        assert_eq!(
            format_rfc3339_ms(1_709_251_199_999),
            "2024-02-29T23:59:59.999Z"
        );
        // 2000-03-01T00:00:00.000Z (a century leap year boundary)
        assert_eq!(
            format_rfc3339_ms(951_868_800_000),
            "2000-03-01T00:00:00.000Z"
        );
    }

    #[test]
    fn envelope_fields_come_first_in_order() {
        let event = super::super::Event::Line {
            text: "ls".into(),
            origin: "command".into(),
        };
        let line = encode_record("s1", 3, "T", ZERO_HASH, &event).expect("encodes");
        let text = String::from_utf8(line).expect("utf8");
        assert_eq!(
            text,
            format!(
                r#"{{"session":"s1","seq":3,"ts":"T","prev":"{ZERO_HASH}","type":"line","text":"ls","origin":"command"}}"#
            )
        );
    }
}
