//! `vercy status`: the effective settings: the profile this build carries, each recency
//! parameter with its value and where it came from, and the labels exempt from fading.

use super::Outcome;
use crate::cli::{DataFormat, GlobalArgs, StatusArgs};
use crate::error::Result;
use crate::output;
use crate::profile::Profile;
use crate::python::float_repr;
use crate::recency::settings::{ENV_DEGREE, ENV_HALF_LIFE, ENV_INSIGHT_HALF_LIFE};
use crate::recency::{Flags, SettingOrigin, Settings, ANCHOR_LABELS};
use serde_json::{json, Value};

pub fn run(args: StatusArgs, _global: &GlobalArgs) -> Result<Outcome> {
    // status has no recency flags: every value is the environment's or the default
    let settings = Settings::resolve(&Flags::default())?;
    let profile = Profile::embedded();
    let text = match args.format {
        DataFormat::Json => {
            let mut t =
                serde_json::to_string_pretty(&to_json(profile, &settings)).unwrap_or_default();
            t.push('\n');
            t
        }
        DataFormat::Human => human(profile, &settings),
    };
    output::print_stdout(&text)?;
    Ok(Outcome::Success)
}

fn param(value: Value, source: SettingOrigin, variable: &str, unit: Option<&str>) -> Value {
    let mut v = json!({"value": value, "source": source, "variable": variable});
    if let Some(unit) = unit {
        v["unit"] = json!(unit);
    }
    v
}

fn to_json(profile: &Profile, s: &Settings) -> Value {
    json!({
        "vercy": env!("CARGO_PKG_VERSION"),
        "profile": {"id": profile.overlay, "version": profile.version},
        "recency": {
            "half_life": param(json!(s.half_life.value), s.half_life.source, ENV_HALF_LIFE, Some("days")),
            "insight_half_life": param(json!(s.insight_half_life.value), s.insight_half_life.source, ENV_INSIGHT_HALF_LIFE, Some("days")),
            "degree_factor": param(json!(s.degree.value), s.degree.source, ENV_DEGREE, None),
        },
        "exempt_labels": ANCHOR_LABELS,
    })
}

fn human(profile: &Profile, s: &Settings) -> String {
    let line = |name: &str, value: String, source: SettingOrigin, var: &str| {
        format!("{name:<20}{value} ({}; {var})\n", source.name())
    };
    let mut out = format!(
        "{:<20}{}\n{:<20}{} {}\n",
        "vercy",
        env!("CARGO_PKG_VERSION"),
        "profile",
        profile.overlay,
        profile.version
    );
    out += &line(
        "recency half-life",
        format!("{} days", float_repr(s.half_life.value)),
        s.half_life.source,
        ENV_HALF_LIFE,
    );
    out += &line(
        "insight half-life",
        format!("{} days", float_repr(s.insight_half_life.value)),
        s.insight_half_life.source,
        ENV_INSIGHT_HALF_LIFE,
    );
    out += &line(
        "degree factor",
        if s.degree.value { "on" } else { "off" }.into(),
        s.degree.source,
        ENV_DEGREE,
    );
    out += &format!(
        "{:<20}{} (score 1)\n",
        "exempt labels",
        ANCHOR_LABELS.join(", ")
    );
    out
}
