//! Time on the trail: UTC timestamps and durations (`jiff`).
//!
//! Timestamps are ISO 8601 / RFC 3339 in UTC (`Z` or `+00:00`); the trail writes them
//! with milliseconds, `2026-01-11T20:30:00.000Z`. Durations (`--timeout`,
//! `return_protocol.timeout`) are ISO 8601 (`PT30M`) or friendly (`30m`, `1h 30m`,
//! `90s`), or a bare number of seconds.

use jiff::{SignedDuration, Timestamp};

/// The current time.
pub fn now() -> Timestamp {
    Timestamp::now()
}

/// The trail's spelling of a timestamp: UTC with milliseconds.
pub fn format(timestamp: Timestamp) -> String {
    timestamp.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// The UTC day of a timestamp, `YYYY-MM-DD`: the name of its segment.
pub fn day(timestamp: Timestamp) -> String {
    timestamp.strftime("%Y-%m-%d").to_string()
}

/// Reads a timestamp that must be in UTC.
pub fn parse_utc(text: &str) -> Result<Timestamp, String> {
    let timestamp: Timestamp = text.parse().map_err(|error| {
        format!("`{text}` is not an ISO 8601 timestamp ({error}); write e.g. 2026-01-11T20:30:00Z")
    })?;
    let trimmed = text.trim_end();
    let utc = trimmed.ends_with('Z')
        || trimmed.ends_with('z')
        || trimmed.ends_with("+00:00")
        || trimmed.ends_with("+0000");
    if !utc {
        return Err(format!(
            "`{text}` is not in UTC; write it with `Z`, e.g. {}",
            format(timestamp)
        ));
    }
    Ok(timestamp)
}

/// Milliseconds since the Unix epoch.
pub fn millis(timestamp: Timestamp) -> i64 {
    timestamp.as_millisecond()
}

/// Reads a duration: ISO 8601, friendly (`30m`, `1h 30m`) or seconds; returns
/// milliseconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let duration = match trimmed.parse::<u64>() {
        Ok(seconds) => SignedDuration::from_secs(i64::try_from(seconds).unwrap_or(i64::MAX)),
        Err(_) => trimmed.parse::<SignedDuration>().map_err(|_| {
            format!("`{text}` is not a duration; write e.g. 30m, 2h, 1h 30m, PT30M or 90 (seconds)")
        })?,
    };
    let millis = duration.as_millis();
    if millis <= 0 {
        return Err(format!("`{text}` is not a positive duration"));
    }
    Ok(u64::try_from(millis).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_must_be_utc() {
        assert!(parse_utc("2026-01-11T20:30:00Z").is_ok());
        assert!(parse_utc("2026-01-11T20:30:00+00:00").is_ok());
        assert!(parse_utc("2026-01-11T20:30:00+02:00").is_err());
        assert!(parse_utc("yesterday").is_err());
        let parsed = parse_utc("2026-01-11T20:30:00Z").map(format);
        assert_eq!(parsed.as_deref(), Ok("2026-01-11T20:30:00.000Z"));
    }

    #[test]
    fn durations_in_every_spelling() {
        assert_eq!(parse_duration("30m"), Ok(1_800_000));
        assert_eq!(parse_duration("PT30M"), Ok(1_800_000));
        assert_eq!(parse_duration("1h 30m"), Ok(5_400_000));
        assert_eq!(parse_duration("90"), Ok(90_000));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("0s").is_err());
    }
}
