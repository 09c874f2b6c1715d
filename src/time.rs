//! Time, in one place: the date parser every command uses, and the in-force rule.
//!
//! Values are parsed for comparison only; output always carries the original text.

use serde_json::Value;
use std::cmp::Ordering;

/// How a timestamp was written, so reports can note the lossy or ambiguous forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// `2026-03-31`: a whole day.
    Date,
    /// `2026-03-31T10:00:00Z` or with an offset.
    DateTime,
    /// `2026-03-31T10:00:00`: no offset, read as UTC (noted).
    Naive,
    /// `1767225600000`: epoch milliseconds (noted).
    EpochMillis,
}

/// A parsed instant: nanoseconds since 1970-01-01T00:00:00Z, plus how it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timestamp {
    pub nanos: i128,
    pub precision: Precision,
}

const NANOS_PER_SEC: i128 = 1_000_000_000;
pub const NANOS_PER_DAY: i128 = 86_400 * NANOS_PER_SEC;

impl Timestamp {
    /// The first instant this value covers (a date: its midnight, UTC).
    pub fn start(&self) -> i128 {
        self.nanos
    }
    /// The last instant this value covers (a date: the last nanosecond of that day).
    pub fn end(&self) -> i128 {
        match self.precision {
            Precision::Date => self.nanos + NANOS_PER_DAY - 1,
            _ => self.nanos,
        }
    }
}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.nanos.cmp(&other.nanos))
    }
}

/// Why a value is not a date.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateError(pub String);

impl std::fmt::Display for DateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A date or date-time given on the command line (or as a tool's argument), through the one
/// date parser; the error names the flag (`--as-of`).
pub fn parse_argument(flag: &str, text: &str) -> crate::error::Result<Timestamp> {
    parse(text).map_err(|e| {
        crate::error::VercyError::argument(
            flag,
            e.to_string(),
            "give a date (2026-01-01) or a date-time (2026-01-01T12:00:00Z)",
        )
    })
}

/// Parse a JSON value as a timestamp: a string in one of the accepted forms, or an integer
/// number of epoch milliseconds.
pub fn parse_value(value: &Value) -> Result<Timestamp, DateError> {
    match value {
        Value::String(s) => parse(s),
        Value::Number(n) => {
            let text = n.to_string();
            parse_epoch_millis(&text)
                .ok_or_else(|| DateError(format!("the number {text} is not epoch milliseconds")))
        }
        other => Err(DateError(format!(
            "expected a date string, found {}",
            crate::record::kind_name(other)
        ))),
    }
}

fn parse_epoch_millis(text: &str) -> Option<Timestamp> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || digits.len() > 16 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let ms: i128 = text.parse().ok()?;
    Some(Timestamp {
        nanos: ms * 1_000_000,
        precision: Precision::EpochMillis,
    })
}

/// Parse a date or date-time string. Accepted: `YYYY-MM-DD`; `YYYY-MM-DDTHH:MM[:SS[.f…]]`
/// with `Z`, `±HH:MM` or `±HHMM` (or none: naive, read as UTC); `T`, `t` or a space between
/// date and time; 1–9 fraction digits; a string of 12–16 digits as epoch milliseconds.
///
/// ```
/// use vercy::time::{parse, Precision};
/// let z = parse("2026-01-02T03:04:05Z").unwrap();
/// assert_eq!(z.nanos, parse("2026-01-02T05:04:05+02:00").unwrap().nanos);
/// assert_eq!(parse("2026-03-31").unwrap().precision, Precision::Date);
/// assert!(parse("2026-02-29").is_err());
/// ```
pub fn parse(text: &str) -> Result<Timestamp, DateError> {
    // a date starts and ends with a printable ASCII character: nothing to trim
    let t = match text.as_bytes() {
        [first, .., last] if first.is_ascii_graphic() && last.is_ascii_graphic() => text,
        _ => text.trim(),
    };
    match parse_common(t.as_bytes()) {
        Some(common) => Ok(common),
        None => parse_general(text, t),
    }
}

/// [`parse`] of any accepted form: `text` as given (for messages), `t` trimmed.
fn parse_general(text: &str, t: &str) -> Result<Timestamp, DateError> {
    let b = t.as_bytes();
    if b.len() >= 12 && b.iter().all(u8::is_ascii_digit) {
        return parse_epoch_millis(t).ok_or_else(|| DateError(format!("{text:?} is not a date")));
    }
    let bad = |why: &str| DateError(format!("{text:?} is not a date: {why}"));
    let midnight = date_part(b).map_err(bad)? as i128 * NANOS_PER_DAY;
    if b.len() == 10 {
        return Ok(Timestamp {
            nanos: midnight,
            precision: Precision::Date,
        });
    }
    if !matches!(b[10], b'T' | b't' | b' ') {
        return Err(bad("expected `T` between the date and the time"));
    }
    let rest = &b[11..];
    if rest.len() < 5 || rest[2] != b':' {
        return Err(bad("expected HH:MM after the date"));
    }
    let hour = digits(&rest[0..2]).ok_or_else(|| bad("the hour is not two digits"))?;
    let minute = digits(&rest[3..5]).ok_or_else(|| bad("the minute is not two digits"))?;
    let mut i = 5;
    let mut second = 0;
    let mut fraction: i128 = 0;
    if rest.len() > i && rest[i] == b':' {
        second = rest
            .get(i + 1..i + 3)
            .and_then(digits)
            .ok_or_else(|| bad("the second is not two digits"))?;
        i += 3;
        if rest.len() > i && (rest[i] == b'.' || rest[i] == b',') {
            let start = i + 1;
            let mut end = start;
            while end < rest.len() && rest[end].is_ascii_digit() {
                end += 1;
            }
            let n = end - start;
            if n == 0 || n > 9 {
                return Err(bad("a fraction of a second has 1 to 9 digits"));
            }
            let mut f: i128 = 0;
            for &d in &rest[start..end] {
                f = f * 10 + (d - b'0') as i128;
            }
            fraction = f * 10i128.pow((9 - n) as u32);
            i = end;
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(bad("the time is out of range"));
    }
    let (offset_secs, precision) = match &rest[i..] {
        [] => (0, Precision::Naive),
        [b'Z' | b'z'] => (0, Precision::DateTime),
        [sign @ (b'+' | b'-'), tail @ ..] => {
            let (h, m) = match tail {
                [h1, h2, b':', m1, m2] | [h1, h2, m1, m2] => {
                    (digits(&[*h1, *h2]), digits(&[*m1, *m2]))
                }
                [h1, h2] => (digits(&[*h1, *h2]), Some(0)),
                _ => (None, None),
            };
            let (h, m) = h.zip(m).ok_or_else(|| bad("the offset is not ±HH:MM"))?;
            if h > 23 || m > 59 {
                return Err(bad("the offset is out of range"));
            }
            let s = (h * 3600 + m * 60) as i128;
            (if *sign == b'-' { -s } else { s }, Precision::DateTime)
        }
        _ => return Err(bad("unexpected text after the time")),
    };
    let secs = (hour * 3600 + minute * 60 + second) as i128 - offset_secs;
    Ok(Timestamp {
        nanos: midnight + secs * NANOS_PER_SEC + fraction,
        precision,
    })
}

/// The forms nearly every store writes, `YYYY-MM-DD` alone or followed by `THH:MM:SS`, an
/// optional `.` fraction and `Z`, read straight, to the instant [`parse`]'s general path
/// gives (a property test holds the two together). A check reads two or three dates a
/// record, and the general path's branches cost several times this.
/// `None` for anything else, valid or not: the general path decides, and words the error.
#[inline]
fn parse_common(b: &[u8]) -> Option<Timestamp> {
    let days = date_part(b).ok()? as i128;
    if b.len() == 10 {
        return Some(Timestamp {
            nanos: days * NANOS_PER_DAY,
            precision: Precision::Date,
        });
    }
    let (time, fraction) = (b.get(10..19)?, b.get(19..b.len() - 1)?);
    if time[0] != b'T' || time[3] != b':' || time[6] != b':' || b[b.len() - 1] != b'Z' {
        return None;
    }
    let (hour, minute, second) = (
        digits(&time[1..3])?,
        digits(&time[4..6])?,
        digits(&time[7..9])?,
    );
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let nanos = match fraction {
        [] => 0,
        [b'.', run @ ..] if (1..=9).contains(&run.len()) => {
            digits(run)? * 10i64.pow(9 - run.len() as u32)
        }
        _ => return None,
    };
    let secs = (hour * 3600 + minute * 60 + second) as i128;
    Some(Timestamp {
        nanos: days * NANOS_PER_DAY + secs * NANOS_PER_SEC + nanos as i128,
        precision: Precision::DateTime,
    })
}

/// The day a text starting `YYYY-MM-DD` names, in days since 1970-01-01; else why not.
#[inline(always)]
fn date_part(b: &[u8]) -> Result<i64, &'static str> {
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return Err("expected YYYY-MM-DD");
    }
    let year = digits(&b[0..4]).ok_or("the year is not four digits")?;
    let month = digits(&b[5..7]).ok_or("the month is not two digits")?;
    let day = digits(&b[8..10]).ok_or("the day is not two digits")?;
    if !(1..=12).contains(&month) {
        return Err("the month is out of range");
    }
    let (first, days) = month_start(year, month);
    if day < 1 || day > days {
        return Err("the day is out of range for its month");
    }
    Ok(first + day - 1)
}

/// The first year of [`MONTH_STARTS`], and how many years it covers.
const TABLE_FROM: i64 = 1900;
const TABLE_YEARS: usize = 300;

/// The day (since 1970-01-01) on which each month of 1900–2199 starts, and the month after:
/// a date in those years is read with a look-up rather than the calendar's arithmetic (a check
/// reads two or three dates a record).
static MONTH_STARTS: [i32; TABLE_YEARS * 12 + 1] = month_starts();

const fn month_starts() -> [i32; TABLE_YEARS * 12 + 1] {
    let mut starts = [0; TABLE_YEARS * 12 + 1];
    let mut i = 0;
    while i < starts.len() {
        let year = TABLE_FROM + (i / 12) as i64;
        let month = (i % 12) as i64 + 1;
        starts[i] = days_from_civil(year, month, 1) as i32;
        i += 1;
    }
    starts
}

/// The day (since 1970-01-01) month `month` (1–12) of `year` starts on, and its length.
fn month_start(year: i64, month: i64) -> (i64, i64) {
    let at = (year - TABLE_FROM) * 12 + month - 1;
    match usize::try_from(at) {
        Ok(at) if at + 1 < MONTH_STARTS.len() => {
            let (first, next) = (MONTH_STARTS[at] as i64, MONTH_STARTS[at + 1] as i64);
            (first, next - first)
        }
        _ => (days_from_civil(year, month, 1), days_in_month(year, month)),
    }
}

/// The number a run of digits writes; `None` when it is empty or any byte is not a digit.
/// Without a branch a digit: dates are read two or three times a record.
fn digits(run: &[u8]) -> Option<i64> {
    let (mut n, mut bad) = (0i64, run.is_empty());
    for &c in run {
        let d = c.wrapping_sub(b'0');
        bad |= d > 9;
        n = n.wrapping_mul(10).wrapping_add(i64::from(d));
    }
    (!bad).then_some(n)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if is_leap(y) => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub const fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// An instant (nanoseconds since the epoch) as Python's `datetime.isoformat()` writes it in
/// UTC: microseconds, no fraction on a whole second, `+00:00`.
pub fn python_isoformat_utc(nanos: i128) -> String {
    let secs = nanos.div_euclid(1_000_000_000) as i64;
    let micros = (nanos.rem_euclid(1_000_000_000) / 1_000) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let mut s = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    if micros != 0 {
        s.push_str(&format!(".{micros:06}"));
    }
    s.push_str("+00:00");
    s
}

/// The inverse of [`days_from_civil`] (Howard Hinnant's algorithm).
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The current time as a timestamp (for defaults such as `recency --as-of`).
pub fn now() -> Timestamp {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Timestamp {
        nanos: d.as_nanos() as i128,
        precision: Precision::DateTime,
    }
}

/// The validity of one record, as read from its valid_from / valid_to.
#[derive(Debug, Clone, Copy)]
pub struct Validity {
    pub from: Option<Timestamp>,
    /// `None`: open (valid_to null or absent).
    pub to: Option<Timestamp>,
}

impl Validity {
    /// In force on `at`, before supersession is considered: valid_from ≤ at and
    /// (valid_to open or at ≤ valid_to, inclusive: valid_to is the last day it held).
    /// A record without a readable valid_from is never in force (nothing says when it began).
    ///
    /// Each side is compared at its own precision, as a date compares with a date-time: on a
    /// date D, a record that begins at any moment of D has begun (`2026-06-01T09:00Z` ≤
    /// `2026-06-01`), and one that ends at any moment of D still holds on D.
    pub fn covers(&self, at: &Timestamp) -> bool {
        self.from.is_some_and(|from| begun(&from, at)) && self.to.is_none_or(|to| !ended(&to, at))
    }
}

/// A record valid from `from` has begun on `at` (at any moment of it, at their precisions).
pub fn begun(from: &Timestamp, at: &Timestamp) -> bool {
    from.start() <= at.end()
}

/// A record valid to `to` (inclusive) has ended before `at`.
pub fn ended(to: &Timestamp, at: &Timestamp) -> bool {
    at.start() > to.end()
}

/// In force on a date, derived at read time: the record covers the date and no record that
/// supersedes it has begun on or before that date (on a date D: at any moment of D, so on the
/// day of a hand-over the successor is in force and the superseded record is not).
pub fn in_force(
    validity: &Validity,
    superseders_from: &[Option<Timestamp>],
    at: &Timestamp,
) -> bool {
    validity.covers(at)
        && !superseders_from
            .iter()
            .any(|from| from.is_some_and(|f| f.start() <= at.end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        parse(s).unwrap()
    }

    #[test]
    fn isoformat_like_python() {
        assert_eq!(python_isoformat_utc(0), "1970-01-01T00:00:00+00:00");
        // 2026-11-29T21:21:46.440880Z
        let t = (days_from_civil(2026, 11, 29) as i128 * 86_400 + 21 * 3600 + 21 * 60 + 46)
            * 1_000_000_000
            + 440_880_123;
        assert_eq!(python_isoformat_utc(t), "2026-11-29T21:21:46.440880+00:00");
        for days in [-800_000, -1, 0, 59, 60, 11_016, 20_000, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn forms_that_name_the_same_instant_compare_equal() {
        let z = ts("2026-01-02T03:04:05Z");
        assert_eq!(z.nanos, ts("2026-01-02T03:04:05+00:00").nanos);
        assert_eq!(z.nanos, ts("2026-01-02T05:04:05+02:00").nanos);
        assert_eq!(z.nanos, ts("2026-01-01T22:04:05-0500").nanos);
        assert_eq!(z.nanos + 120_000, ts("2026-01-02T03:04:05.000120Z").nanos);
        assert_eq!(z.nanos + 1, ts("2026-01-02T03:04:05.000000001Z").nanos);
        assert_eq!(ts("1970-01-01").nanos, 0);
        assert_eq!(ts("2026-01-02T03:04:05").precision, Precision::Naive);
        assert_eq!(ts("1767225600000").precision, Precision::EpochMillis);
    }

    proptest::proptest! {
        /// The common forms' reader gives what the general path gives, for every text it
        /// takes: well-formed or nearly (a digit out of place, out of range, another letter).
        #[test]
        fn common_forms_read_as_the_general_path_reads_them(
            text in "[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]{0,10})?)?([Zz]|[+-][0-9]{2}:?[0-9]{2})?)?",
            flip in 0usize..32,
            with in "[0-9a-zT:.Z+ -]",
        ) {
            let mut variants = vec![text.clone()];
            if flip < text.len() {
                let mut changed = text.clone();
                changed.replace_range(flip..flip + 1, &with);
                variants.push(changed);
            }
            for v in variants {
                if let Some(common) = parse_common(v.as_bytes()) {
                    proptest::prop_assert_eq!(Ok(common), parse_general(&v, &v), "{}", v);
                }
            }
        }
    }

    /// Read through the table of month starts, every day of its years is the day the
    /// calendar's arithmetic gives, and a day past a month's end is refused (leap years too).
    #[test]
    fn the_month_table_agrees_with_the_calendar() {
        for year in TABLE_FROM - 2..TABLE_FROM + TABLE_YEARS as i64 + 2 {
            for month in 1..=12 {
                let (first, days) = month_start(year, month);
                assert_eq!(first, days_from_civil(year, month, 1), "{year}-{month}");
                assert_eq!(days, days_in_month(year, month), "{year}-{month}");
            }
        }
        assert_eq!(date_part(b"2000-02-29"), Ok(days_from_civil(2000, 2, 29)));
        assert!(date_part(b"2100-02-29").is_err());
        assert_eq!(date_part(b"2199-12-31"), Ok(days_from_civil(2199, 12, 31)));
        assert_eq!(date_part(b"2200-01-01"), Ok(days_from_civil(2200, 1, 1)));
        assert_eq!(date_part(b"0001-01-01"), Ok(days_from_civil(1, 1, 1)));
    }

    #[test]
    fn common_forms_are_read_by_the_short_path() {
        for text in [
            "2020-11-15",
            "2020-12-07T21:17:35Z",
            "2021-02-24T21:17:35.635Z",
            "2024-02-29T00:00:00.123456789Z",
        ] {
            assert_eq!(
                parse_common(text.as_bytes()).map(Ok),
                Some(parse_general(text, text)),
                "{text}"
            );
        }
        for text in [
            "2020-11-15T21:17:35",
            "2020-11-15t21:17:35Z",
            "2020-11-15T21:17:35+02:00",
            "2023-02-29",
            "2020-11-15T24:00:00Z",
        ] {
            assert_eq!(parse_common(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn impossible_dates_are_refused() {
        for bad in [
            "2026-02-29",
            "2026-13-01",
            "2026-00-10",
            "2026-1-1",
            "26-01-01",
            "2026-01-01T24:00",
            "2026-01-01T10:00:00.",
            "2026-01-01T10:00:00.1234567890Z",
            "2026-01-01T10:00+25:00",
            "yesterday",
            "",
            "2026-01-01X",
        ] {
            assert!(parse(bad).is_err(), "{bad} should not parse");
        }
        assert!(parse("2024-02-29").is_ok());
    }

    #[test]
    fn valid_to_is_inclusive_and_supersession_ends_a_record() {
        let v = Validity {
            from: Some(ts("2025-01-01")),
            to: Some(ts("2026-03-31")),
        };
        assert!(!v.covers(&ts("2024-12-31")));
        assert!(v.covers(&ts("2025-01-01")));
        assert!(v.covers(&ts("2026-03-31")));
        assert!(v.covers(&ts("2026-03-31T23:59:59Z")));
        assert!(!v.covers(&ts("2026-04-01")));
        let open = Validity {
            from: Some(ts("2026-06-01")),
            to: None,
        };
        let by = [Some(ts("2026-10-01"))];
        assert!(in_force(&open, &by, &ts("2026-09-30")));
        assert!(!in_force(&open, &by, &ts("2026-10-01")));
    }

    #[test]
    fn in_force_fails_closed_and_mixes_precisions() {
        // no readable start: never in force, whatever else holds
        let undated = Validity {
            from: None,
            to: None,
        };
        assert!(!undated.covers(&ts("2026-01-01")));
        assert!(!in_force(&undated, &[], &ts("2026-01-01")));
        // a superseder whose start is unknown has not begun: it ends nothing
        let open = Validity {
            from: Some(ts("2025-01-01")),
            to: None,
        };
        assert!(in_force(&open, &[None], &ts("2026-01-01")));
        // any one superseder that has begun ends it
        assert!(!in_force(
            &open,
            &[None, Some(ts("2025-06-01"))],
            &ts("2025-06-01")
        ));
        // a date-time end covers the moments up to it on its day
        let until_noon = Validity {
            from: Some(ts("2025-01-01")),
            to: Some(ts("2026-03-31T12:00:00Z")),
        };
        assert!(until_noon.covers(&ts("2026-03-31")));
        assert!(until_noon.covers(&ts("2026-03-31T12:00:00Z")));
        assert!(!until_noon.covers(&ts("2026-03-31T12:00:01Z")));
        // a hand-over during a day: on that date the successor holds, the old record does not;
        // at an instant before the hand-over it is the other way round
        let old = Validity {
            from: Some(ts("2025-01-01")),
            to: None,
        };
        let successor = Validity {
            from: Some(ts("2026-06-01T09:00:00Z")),
            to: None,
        };
        let by = [successor.from];
        assert!(!in_force(&old, &by, &ts("2026-06-01")));
        assert!(in_force(&successor, &[], &ts("2026-06-01")));
        assert!(in_force(&old, &by, &ts("2026-05-31")));
        assert!(!in_force(&successor, &[], &ts("2026-05-31")));
        assert!(in_force(&old, &by, &ts("2026-06-01T08:59:59Z")));
        assert!(!in_force(&successor, &[], &ts("2026-06-01T08:59:59Z")));
        assert!(!in_force(&old, &by, &ts("2026-06-01T09:00:00Z")));
        assert!(in_force(&successor, &[], &ts("2026-06-01T09:00:00Z")));
    }
}
