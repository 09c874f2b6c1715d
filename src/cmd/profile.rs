//! `vercy profile`: the embedded profile as a table, YAML or JSON.

use super::Outcome;
use crate::cli::{ProfileArgs, ProfileFormat};
use crate::error::{Result, VercyError};
use crate::output;
use crate::profile::{Profile, PROFILE_YAML};

pub fn run(args: ProfileArgs) -> Result<Outcome> {
    let profile = Profile::embedded();
    if let Some(id) = &args.field {
        let field = profile.field(id).ok_or_else(|| {
            VercyError::argument(
                "--field",
                format!("{id:?} is not a field of the profile"),
                format!(
                    "the fields are: {}",
                    profile
                        .fields
                        .iter()
                        .map(|f| f.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        let text = match args.format {
            ProfileFormat::Json => {
                crate::python::json::to_python_json(
                    &serde_json::to_value(field).unwrap_or_default(),
                ) + "\n"
            }
            ProfileFormat::Yaml => serde_yaml::to_string(field).unwrap_or_default(),
            ProfileFormat::Table => field_card(field),
        };
        return output::print_stdout(&text).map(|_| Outcome::Success);
    }
    let text = match args.format {
        ProfileFormat::Yaml => PROFILE_YAML.to_string(),
        ProfileFormat::Json => {
            crate::python::json::to_python_json(&serde_json::to_value(profile).unwrap_or_default())
                + "\n"
        }
        ProfileFormat::Table => table(profile),
    };
    output::print_stdout(&text).map(|_| Outcome::Success)
}

fn effect(f: &crate::profile::Field) -> String {
    let e = &f.evidence;
    let mut s = format!(
        "{:.1}% → {:.1}% ({})",
        e.without_field_percent, e.with_field_percent, e.study
    );
    if let (Some(a), Some(b)) = (e.critical_errors_without, e.critical_errors_with) {
        s.push_str(&format!("; critical leaks {a} → {b}"));
    }
    s
}

fn table(p: &Profile) -> String {
    let mut out = format!("{} {} ({})\n\n", p.overlay, p.version, p.status);
    out.push_str(&format!(
        "{:<18} {:<5} {:<38} {}\n",
        "field", "level", "requirement", "measured without → with"
    ));
    for f in &p.fields {
        let level = if f.level == 0 {
            "-".to_string()
        } else {
            f.level.to_string()
        };
        out.push_str(&format!(
            "{:<18} {:<5} {:<38} {}\n",
            f.id,
            level,
            f.requirement,
            effect(f)
        ));
    }
    out.push_str("\nlevels (cumulative):\n");
    for l in p.levels.iter().filter(|l| l.level > 0) {
        out.push_str(&format!("  {}: {}\n", l.name, l.unlocks));
    }
    let s = &p.serialisation;
    out.push_str(&format!(
        "\ncompact form: {} → {} characters on {} ({}% saved)\n  {}\n",
        s.json_lines_chars,
        s.compact_chars,
        s.measured_on,
        s.saving_percent,
        s.field_order.join("|")
    ));
    out.push_str(
        "\n`vercy profile --field NAME` for a definition, `--format yaml` for the whole profile.\n",
    );
    out
}

fn field_card(f: &crate::profile::Field) -> String {
    format!(
        "{}\n  level:       {}\n  requirement: {}\n  definition:  {}\n  measured:    {} — {}\n  checked as:  {}\n",
        f.id,
        if f.level == 0 { "-".to_string() } else { f.level.to_string() },
        f.requirement,
        f.definition,
        f.evidence.measure,
        effect(f),
        f.check.label
    )
}
