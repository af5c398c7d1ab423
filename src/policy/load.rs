//! Reading a compiled policy back: `Policy::load`, and the file hash guard-sh pins.
//!
//! The format version is checked before anything else, so a policy from
//! another arm-build is refused with that reason rather than a confusing
//! field error.

use super::error::PolicyError;
use super::model::{POLICY_FORMAT, Policy};
use sha2::{Digest, Sha256};
use std::path::Path;

/// The one field read when the policy does not parse: every other field
/// is skipped.
#[derive(serde::Deserialize)]
struct FormatProbe {
    format: Option<serde_json::Value>,
}

impl Policy {
    /// Load a compiled policy (`policy.json` from arm-build).
    pub fn load(path: &Path) -> Result<Policy, PolicyError> {
        let bytes = std::fs::read(path).map_err(|e| PolicyError::io(path, e))?;
        Policy::from_json(path, &bytes)
    }

    /// Parse compiled policy JSON; `path` only names the source in errors.
    pub fn from_json(path: &Path, bytes: &[u8]) -> Result<Policy, PolicyError> {
        let json_err = |e: serde_json::Error| PolicyError::Json {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        // One parse on the usual path. When it fails, or the version is
        // another, the version is read alone, so a policy of another format
        // is refused for that reason rather than for a field it has.
        let parsed = serde_json::from_slice::<Policy>(bytes);
        if let Ok(policy) = &parsed
            && policy.format == POLICY_FORMAT
        {
            return parsed.map_err(json_err);
        }
        let probe: FormatProbe = serde_json::from_slice(bytes).map_err(json_err)?;
        let format = probe.format.ok_or_else(|| PolicyError::Json {
            path: path.to_path_buf(),
            message: "missing field `format`".into(),
        })?;
        let found = format.as_u64().ok_or_else(|| PolicyError::Json {
            path: path.to_path_buf(),
            message: "field `format` is not a number".into(),
        })?;
        if found != u64::from(POLICY_FORMAT) {
            return Err(PolicyError::Format {
                path: path.to_path_buf(),
                found: u32::try_from(found).unwrap_or(u32::MAX),
                expected: POLICY_FORMAT,
            });
        }
        parsed.map_err(json_err)
    }

    /// The JSON arm-build writes (pretty, with a final newline).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string_pretty(self).map(|s| s + "\n")
    }

    /// SHA-256 (lowercase hex) of a file's bytes, as `GUARD_SH_POLICY_SHA256` holds it.
    pub fn sha256_of_file(path: &Path) -> Result<String, PolicyError> {
        let bytes = std::fs::read(path).map_err(|e| PolicyError::io(path, e))?;
        Ok(sha256_hex(&bytes))
    }
}

/// SHA-256 of `bytes` as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Policy {
        let mut policy = Policy::bare();
        policy.env.pass = vec!["HOME".into()];
        policy
    }

    #[test]
    fn policy_round_trips_through_json() -> Result<(), Box<dyn std::error::Error>> {
        let p = sample();
        let back = Policy::from_json(Path::new("p.json"), p.to_json()?.as_bytes())?;
        assert_eq!(back, p);
        Ok(())
    }

    #[test]
    fn other_format_version_is_refused_with_clear_error() -> Result<(), Box<dyn std::error::Error>>
    {
        let mut v = serde_json::to_value(sample())?;
        v["format"] = 2.into();
        v["new_field"] = true.into();
        let err = Policy::from_json(Path::new("p.json"), v.to_string().as_bytes()).err();
        assert!(
            matches!(
                err,
                Some(PolicyError::Format {
                    found: 2,
                    expected: 1,
                    ..
                })
            ),
            "{err:?}"
        );
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            text.contains("p.json") && text.contains("format 2"),
            "{text}"
        );
        Ok(())
    }

    #[test]
    fn missing_format_is_refused() {
        let err = Policy::from_json(Path::new("p.json"), b"{\"arm\":\"x\"}").err();
        assert!(matches!(err, Some(PolicyError::Json { .. })), "{err:?}");
    }

    #[test]
    fn unknown_field_is_refused() -> Result<(), Box<dyn std::error::Error>> {
        let mut v = serde_json::to_value(sample())?;
        v["surprise"] = 1.into();
        assert!(Policy::from_json(Path::new("p.json"), v.to_string().as_bytes()).is_err());
        Ok(())
    }

    #[test]
    fn format_as_text_is_refused_as_not_a_number() -> Result<(), Box<dyn std::error::Error>> {
        let mut v = serde_json::to_value(sample())?;
        v["format"] = "1".into();
        let err = Policy::from_json(Path::new("p.json"), v.to_string().as_bytes()).err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("`format` is not a number"), "{text}");
        Ok(())
    }

    #[test]
    fn other_format_version_with_valid_fields_is_refused() -> Result<(), Box<dyn std::error::Error>>
    {
        let mut p = sample();
        p.format = POLICY_FORMAT + 1;
        let err = Policy::from_json(Path::new("p.json"), p.to_json()?.as_bytes()).err();
        assert!(
            matches!(err, Some(PolicyError::Format { found, .. }) if found == POLICY_FORMAT + 1),
            "{err:?}"
        );
        Ok(())
    }

    #[test]
    fn wrong_field_type_in_current_format_names_the_field() -> Result<(), Box<dyn std::error::Error>>
    {
        let mut v = serde_json::to_value(sample())?;
        v["arm"] = 3.into();
        let err = Policy::from_json(Path::new("p.json"), v.to_string().as_bytes()).err();
        assert!(matches!(err, Some(PolicyError::Json { .. })), "{err:?}");
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(text.contains("invalid type"), "{text}");
        Ok(())
    }

    #[test]
    fn sha256_of_file_is_hex_of_contents() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let f = dir.path().join("x");
        std::fs::write(&f, b"abc")?;
        assert_eq!(
            Policy::sha256_of_file(&f)?,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        Ok(())
    }
}
