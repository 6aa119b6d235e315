//! Wall-clock time stamps as people read them (UTC), for logs and listings.

use std::time::{SystemTime, UNIX_EPOCH};

/// `[YYYY-MM-DD hh:mm:ss.mmm] ` in UTC.
pub fn timestamp(t: SystemTime) -> String {
    let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "[{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03}] ",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_utc_civil_time() {
        let t = UNIX_EPOCH + Duration::from_millis(1_795_310_445_123);
        assert_eq!(timestamp(t), "[2026-11-22 01:20:45.123] ");
        assert_eq!(timestamp(UNIX_EPOCH + Duration::from_secs(951_782_400)), "[2000-02-29 00:00:00.000] ");
    }
}
