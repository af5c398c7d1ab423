//! Policy integrity: the policy file guard-sh loaded is the one the operator
//! pinned with `GUARD_SH_POLICY_SHA256`.
//!
//! Guarantee: with a pin set, guard-sh runs only a policy whose bytes hash to
//! it; a malformed pin is an error, never ignored.

use super::load::sha256_hex;

/// Environment variable holding the expected SHA-256 (hex) of the policy file.
pub const POLICY_PIN_ENV: &str = "GUARD_SH_POLICY_SHA256";

/// Why a policy does not pass its pin.
#[derive(Debug, thiserror::Error)]
pub enum PinError {
    #[error(
        "the policy does not match GUARD_SH_POLICY_SHA256: expected {expected}, found {actual}"
    )]
    Mismatch { expected: String, actual: String },
    #[error("GUARD_SH_POLICY_SHA256 is not a SHA-256 in hex: {0:?}")]
    Malformed(String),
}

/// Check `policy_bytes` against `pin` (the value of `GUARD_SH_POLICY_SHA256`,
/// hex in either case, surrounding blanks ignored) and return their SHA-256
/// (hex): what the audit records name the policy by, hashed once. No pin:
/// Ok. An empty or malformed pin is refused, so a typo cannot switch the
/// check off.
pub fn verify_policy_pin(policy_bytes: &[u8], pin: Option<&str>) -> Result<String, PinError> {
    let actual = sha256_hex(policy_bytes);
    let Some(pin) = pin else {
        return Ok(actual);
    };
    let expected = pin.trim().to_ascii_lowercase();
    if expected.len() != 64 || !expected.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(PinError::Malformed(pin.to_string()));
    }
    if actual == expected {
        Ok(actual)
    } else {
        Err(PinError::Mismatch { expected, actual })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // SHA-256("abc"), FIPS 180-2 appendix B.1.
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

    #[test]
    fn matching_pin_in_upper_case_is_accepted() {
        assert_eq!(
            verify_policy_pin(b"abc", Some(&ABC.to_uppercase())).ok(),
            Some(ABC.to_string())
        );
    }

    #[test]
    fn no_pin_accepts_any_policy() {
        assert_eq!(verify_policy_pin(b"abc", None).ok(), Some(ABC.to_string()));
    }

    #[test]
    fn pin_of_other_bytes_is_refused_with_both_hashes() {
        let err = verify_policy_pin(b"abd", Some(ABC)).expect_err("mismatch must be refused");
        assert!(
            matches!(&err, PinError::Mismatch { expected, .. } if expected == ABC),
            "{err}"
        );
    }

    #[test]
    fn empty_or_short_pin_is_refused() {
        assert!(matches!(
            verify_policy_pin(b"abc", Some("")),
            Err(PinError::Malformed(_))
        ));
        assert!(matches!(
            verify_policy_pin(b"abc", Some(&ABC[..63])),
            Err(PinError::Malformed(_))
        ));
    }
}
