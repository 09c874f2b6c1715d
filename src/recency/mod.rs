//! Read-time recency (DDR-007), with engrama 0.18.1's rules: 2^(−age/half_life), age in days
//! from last_activity_at, else updated_at; anchors score 1; system Insights have their own
//! half-life; hubs fade slower (half_life × (1 + log2(1 + degree))). Nothing is stored: the
//! score is computed when a store is read, so changing a setting changes every score, backwards too.

pub mod degree;
pub mod rank;
pub mod settings;

pub use settings::{Flags, Setting, SettingOrigin, Settings};

use crate::time::{self, DateError, Timestamp};
use serde_json::Value;

/// Labels other nodes link to by name; exempt from fading (score 1).
pub const ANCHOR_LABELS: [&str; 4] = ["Project", "Client", "Course", "Domain"];

/// What a score was measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    Anchor,
    LastActivity,
    UpdatedAt,
    /// No timestamp: the recency is unknown.
    Unknown,
}

impl Basis {
    pub fn name(self) -> &'static str {
        match self {
            Basis::Anchor => "anchor",
            Basis::LastActivity => "last_activity_at",
            Basis::UpdatedAt => "updated_at",
            Basis::Unknown => "unknown",
        }
    }
}

/// The fields of one node (or flat record) that recency reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct Subject<'a> {
    pub label: Option<&'a str>,
    pub last_activity_at: Option<&'a Value>,
    pub updated_at: Option<&'a Value>,
    pub source_query: Option<&'a Value>,
    pub degree: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// In (0, 1]; `None` when no timestamp says how old the node is.
    pub recency: Option<f64>,
    /// Days since the basis timestamp (0 for a future one); `None` for anchors and unknowns.
    pub age_days: Option<f64>,
    /// The half-life applied, after the degree factor; `None` for anchors and unknowns.
    pub half_life: Option<f64>,
    pub basis: Basis,
}

/// Python's truthiness of a JSON value (engrama reads `props.get(k) or …`).
fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

/// Label Insight with a source_query: written by reflect, not by a person.
pub fn is_system_insight(label: Option<&str>, source_query: Option<&Value>) -> bool {
    label == Some("Insight") && truthy(source_query)
}

/// Fractional days from `stamp` to `as_of`, as Python's `timedelta.total_seconds() / 86400`
/// computes it (whole microseconds), never below 0.
pub fn age_days(stamp: &Timestamp, as_of: &Timestamp) -> f64 {
    let micros = as_of.nanos.div_euclid(1000) - stamp.nanos.div_euclid(1000);
    (micros as f64 / 1e6 / 86400.0).max(0.0)
}

/// The recency of one node at `as_of`. An unreadable timestamp is an error for the caller
/// to report (engrama would fail on it); it does not fall back to updated_at.
pub fn score(
    subject: &Subject,
    settings: &Settings,
    as_of: &Timestamp,
) -> Result<Score, DateError> {
    if subject.label.is_some_and(|l| ANCHOR_LABELS.contains(&l)) {
        return Ok(Score {
            recency: Some(1.0),
            age_days: None,
            half_life: None,
            basis: Basis::Anchor,
        });
    }
    let (stamp, basis) = if truthy(subject.last_activity_at) {
        (subject.last_activity_at, Basis::LastActivity)
    } else if truthy(subject.updated_at) {
        (subject.updated_at, Basis::UpdatedAt)
    } else {
        return Ok(Score {
            recency: None,
            age_days: None,
            half_life: None,
            basis: Basis::Unknown,
        });
    };
    let stamp = time::parse_value(stamp.unwrap_or(&Value::Null))?;
    let days = age_days(&stamp, as_of);
    let mut half_life = if is_system_insight(subject.label, subject.source_query) {
        settings.insight_half_life.value
    } else {
        settings.half_life.value
    };
    if settings.degree.value && subject.degree > 0 {
        half_life *= 1.0 + (1.0 + subject.degree as f64).log2();
    }
    let recency = if days <= 0.0 {
        1.0
    } else {
        2f64.powf(-days / half_life)
    };
    Ok(Score {
        recency: Some(recency),
        age_days: Some(days),
        half_life: Some(half_life),
        basis,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn defaults() -> Settings {
        Settings::resolve_with(&Flags::default(), &|_| None).unwrap()
    }

    fn at(s: &str) -> Timestamp {
        time::parse(s).unwrap()
    }

    proptest::proptest! {
        /// A score is in (0, 1], never rises with age, never falls with degree.
        #[test]
        fn scores_are_bounded_and_monotone(
            days in 0u32..20_000, more in 1u32..5_000, degree in 0u64..10_000, insight: bool,
        ) {
            let stamp = json!("2000-01-01T00:00:00Z");
            let query = json!("q");
            let s = Subject {
                label: Some(if insight { "Insight" } else { "Concept" }),
                updated_at: Some(&stamp),
                source_query: Some(&query),
                degree,
                ..Subject::default()
            };
            let base = at("2000-01-01T00:00:00Z").nanos;
            let day = time::NANOS_PER_DAY;
            let at_day = |d: u32| Timestamp { nanos: base + d as i128 * day, ..at("2000-01-01") };
            let d = defaults();
            let now = score(&s, &d, &at_day(days)).unwrap().recency.unwrap();
            let later = score(&s, &d, &at_day(days + more)).unwrap().recency.unwrap();
            let hub = score(&Subject { degree: degree + 1, ..s }, &d, &at_day(days)).unwrap().recency.unwrap();
            proptest::prop_assert!(now > 0.0 && now <= 1.0);
            proptest::prop_assert!(later <= now);
            proptest::prop_assert!(hub >= now);
        }
    }

    #[test]
    fn one_half_life_halves_and_hubs_fade_slower() {
        let stamp = json!("2026-01-01T00:00:00Z");
        let s = Subject {
            label: Some("Concept"),
            last_activity_at: Some(&stamp),
            ..Subject::default()
        };
        let as_of = at("2026-06-30T00:00:00Z"); // 180 days later
        let plain = score(&s, &defaults(), &as_of).unwrap();
        assert_eq!(plain.recency, Some(0.5));
        assert_eq!(plain.basis, Basis::LastActivity);
        let hub = score(&Subject { degree: 3, ..s }, &defaults(), &as_of).unwrap();
        assert_eq!(hub.half_life, Some(180.0 * 3.0));
        assert!((hub.recency.unwrap() - 0.5f64.powf(1.0 / 3.0)).abs() < 1e-15);
    }

    #[test]
    fn anchors_future_stamps_unknowns_and_insights() {
        let stamp = json!("2026-01-01");
        let as_of = at("2026-01-31T00:00:00Z");
        let d = defaults();
        let anchor = Subject {
            label: Some("Domain"),
            ..Subject::default()
        };
        assert_eq!(score(&anchor, &d, &as_of).unwrap().recency, Some(1.0));
        let none = Subject {
            label: Some("Concept"),
            last_activity_at: Some(&json!("")),
            ..Subject::default()
        };
        assert_eq!(score(&none, &d, &as_of).unwrap().recency, None);
        let future = Subject {
            label: Some("Concept"),
            updated_at: Some(&stamp),
            ..Subject::default()
        };
        assert_eq!(
            score(&future, &d, &at("2025-12-01")).unwrap().recency,
            Some(1.0)
        );
        let q = json!("concept_clustering");
        let insight = Subject {
            label: Some("Insight"),
            updated_at: Some(&stamp),
            source_query: Some(&q),
            ..Subject::default()
        };
        assert_eq!(score(&insight, &d, &as_of).unwrap().recency, Some(0.5));
        let written = Subject {
            source_query: Some(&json!("")),
            ..insight
        };
        assert_eq!(score(&written, &d, &as_of).unwrap().half_life, Some(180.0));
        let bad = Subject {
            label: Some("Concept"),
            last_activity_at: Some(&json!("yesterday")),
            updated_at: Some(&stamp),
            ..Subject::default()
        };
        assert!(score(&bad, &d, &as_of).is_err());
    }
}
