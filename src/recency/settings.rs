//! The recency settings and where each came from: a flag, else the environment
//! (`ENGRAMA_RECENCY_*`, read the way engrama 0.18.1 reads them), else the default.

use crate::error::{Result, VercyError};
use serde::Serialize;
use std::ffi::OsString;

pub const DEFAULT_HALF_LIFE: f64 = 180.0;
pub const DEFAULT_INSIGHT_HALF_LIFE: f64 = 30.0;
pub const DEFAULT_DEGREE: bool = true;

pub const ENV_HALF_LIFE: &str = "ENGRAMA_RECENCY_HALF_LIFE";
pub const ENV_INSIGHT_HALF_LIFE: &str = "ENGRAMA_RECENCY_INSIGHT_HALF_LIFE";
pub const ENV_DEGREE: &str = "ENGRAMA_RECENCY_DEGREE";

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SettingOrigin {
    Default,
    Environment,
    Flag,
}

impl SettingOrigin {
    pub fn name(self) -> &'static str {
        match self {
            SettingOrigin::Default => "default",
            SettingOrigin::Environment => "environment",
            SettingOrigin::Flag => "flag",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Setting<T> {
    pub value: T,
    pub source: SettingOrigin,
}

/// The effective recency parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Days; for every node that is not an anchor or a system Insight.
    pub half_life: Setting<f64>,
    /// Days; for system Insights (label Insight with a source_query).
    pub insight_half_life: Setting<f64>,
    /// Stretch the half-life of hubs by 1 + log2(1 + degree).
    pub degree: Setting<bool>,
}

/// What the command line says (recency has these flags; status has none).
#[derive(Debug, Clone, Copy, Default)]
pub struct Flags {
    pub half_life: Option<f64>,
    pub insight_half_life: Option<f64>,
    pub no_degree: bool,
}

impl Settings {
    /// Resolve from flags and the process environment.
    pub fn resolve(flags: &Flags) -> Result<Settings> {
        Settings::resolve_with(flags, &|name| std::env::var_os(name))
    }

    /// Resolve from flags and an environment given as a lookup (for tests).
    /// A bad environment value is an error even when a flag overrides it, as engrama fails
    /// fast on it at start-up.
    pub fn resolve_with(flags: &Flags, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Settings> {
        let env_half = env_days(ENV_HALF_LIFE, env)?;
        let env_insight = env_days(ENV_INSIGHT_HALF_LIFE, env)?;
        let env_degree = env_bool(ENV_DEGREE, env)?;
        let days = |flag: Option<f64>, name: &str, env: Option<f64>, default: f64| {
            Ok::<_, VercyError>(match (flag, env) {
                (Some(v), _) => Setting {
                    value: flag_days(name, v)?,
                    source: SettingOrigin::Flag,
                },
                (None, Some(v)) => Setting {
                    value: v,
                    source: SettingOrigin::Environment,
                },
                (None, None) => Setting {
                    value: default,
                    source: SettingOrigin::Default,
                },
            })
        };
        Ok(Settings {
            half_life: days(flags.half_life, "--half-life", env_half, DEFAULT_HALF_LIFE)?,
            insight_half_life: days(
                flags.insight_half_life,
                "--insight-half-life",
                env_insight,
                DEFAULT_INSIGHT_HALF_LIFE,
            )?,
            degree: match (flags.no_degree, env_degree) {
                (true, _) => Setting {
                    value: false,
                    source: SettingOrigin::Flag,
                },
                (false, Some(v)) => Setting {
                    value: v,
                    source: SettingOrigin::Environment,
                },
                (false, None) => Setting {
                    value: DEFAULT_DEGREE,
                    source: SettingOrigin::Default,
                },
            },
        })
    }
}

fn is_days(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

fn flag_days(flag: &str, v: f64) -> Result<f64> {
    if is_days(v) {
        Ok(v)
    } else {
        Err(VercyError::argument(
            flag,
            format!("{v} is not a half-life: it must be a finite number of days greater than 0"),
            format!("for example {flag} 90"),
        ))
    }
}

fn env_text(name: &str, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Option<String>> {
    match env(name) {
        None => Ok(None),
        Some(raw) => raw
            .into_string()
            .map(Some)
            .map_err(|raw| VercyError::Environment {
                name: name.into(),
                value: raw.to_string_lossy().into_owned(),
                message: "the value is not valid UTF-8".into(),
                help: format!("set {name} to a plain number, or unset it"),
            }),
    }
}

/// A number of days > 0 (engrama: `float(raw)`, must be > 0). Infinity and NaN are refused.
fn env_days(name: &str, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Option<f64>> {
    let Some(raw) = env_text(name, env)? else {
        return Ok(None);
    };
    let bad = |message: String| VercyError::Environment {
        name: name.into(),
        value: raw.clone(),
        message,
        help: format!(
            "set {name} to a number of days greater than 0 (for example {name}=90), or unset it"
        ),
    };
    let v: f64 = raw
        .trim()
        .parse()
        .map_err(|_| bad("expected a number of days".into()))?;
    if !is_days(v) {
        return Err(bad(
            "the half-life must be a finite number greater than 0".into()
        ));
    }
    Ok(Some(v))
}

/// 1/0, true/false, yes/no, on/off, in any case, surrounding blanks ignored (engrama's reading).
fn env_bool(name: &str, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Option<bool>> {
    let Some(raw) = env_text(name, env)? else {
        return Ok(None);
    };
    match raw.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(Some(true)),
        "0" | "false" | "no" | "off" => Ok(Some(false)),
        _ => Err(VercyError::Environment {
            name: name.into(),
            value: raw.clone(),
            message: "expected a boolean".into(),
            help: format!("set {name} to 1/0, true/false, yes/no or on/off, or unset it"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(pairs: &[(&str, &str)], flags: Flags) -> Result<Settings> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::resolve_with(&flags, &move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn flags_beat_the_environment_which_beats_the_defaults() {
        let s = with(&[], Flags::default()).unwrap();
        assert_eq!(
            (s.half_life.value, s.half_life.source),
            (180.0, SettingOrigin::Default)
        );
        assert_eq!(s.insight_half_life.value, 30.0);
        assert_eq!(
            (s.degree.value, s.degree.source),
            (true, SettingOrigin::Default)
        );

        let env = [
            (ENV_HALF_LIFE, " 90 "),
            (ENV_INSIGHT_HALF_LIFE, "7.5"),
            (ENV_DEGREE, "Off"),
        ];
        let s = with(&env, Flags::default()).unwrap();
        assert_eq!(
            (s.half_life.value, s.half_life.source),
            (90.0, SettingOrigin::Environment)
        );
        assert_eq!(s.insight_half_life.value, 7.5);
        assert_eq!(
            (s.degree.value, s.degree.source),
            (false, SettingOrigin::Environment)
        );

        let flags = Flags {
            half_life: Some(12.0),
            insight_half_life: None,
            no_degree: true,
        };
        let s = with(&env, flags).unwrap();
        assert_eq!(
            (s.half_life.value, s.half_life.source),
            (12.0, SettingOrigin::Flag)
        );
        assert_eq!(s.insight_half_life.source, SettingOrigin::Environment);
        assert_eq!(
            (s.degree.value, s.degree.source),
            (false, SettingOrigin::Flag)
        );
    }

    #[test]
    fn every_boolean_spelling_engrama_accepts() {
        for (text, want) in [
            ("1", true),
            ("TRUE", true),
            ("yes", true),
            ("On", true),
            ("0", false),
            ("false", false),
            ("NO", false),
            (" off ", false),
        ] {
            let s = with(&[(ENV_DEGREE, text)], Flags::default()).unwrap();
            assert_eq!(s.degree.value, want, "{text}");
        }
    }

    #[test]
    fn bad_values_name_their_variable() {
        for (name, value) in [
            (ENV_HALF_LIFE, "0"),
            (ENV_HALF_LIFE, "-3"),
            (ENV_HALF_LIFE, "nan"),
            (ENV_HALF_LIFE, "inf"),
            (ENV_HALF_LIFE, "ninety"),
            (ENV_HALF_LIFE, ""),
            (ENV_INSIGHT_HALF_LIFE, "0.0"),
            (ENV_DEGREE, "maybe"),
            (ENV_DEGREE, "2"),
        ] {
            match with(&[(name, value)], Flags::default()) {
                Err(VercyError::Environment { name: n, .. }) => assert_eq!(n, name),
                other => panic!("{name}={value:?}: {other:?}"),
            }
        }
        for v in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let flags = Flags {
                half_life: Some(v),
                ..Flags::default()
            };
            assert!(
                matches!(with(&[], flags), Err(VercyError::Argument { .. })),
                "{v}"
            );
        }
    }
}
