//! The profile, from the embedded `profile.yaml` (and the placement table, `mappings.csv`).
//!
//! `check` reads its levels, requirements and labels from here; nothing else lists them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

pub const PROFILE_YAML: &str = include_str!("../profile.yaml");
pub const MAPPINGS_CSV: &str = include_str!("../mappings.csv");

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Profile {
    pub overlay: String,
    pub version: String,
    pub license: String,
    pub status: String,
    pub levels: Vec<Level>,
    pub fields: Vec<Field>,
    pub checker: Checker,
    pub operation: serde_yaml::Value,
    pub serialisation: Serialisation,
    pub selection: serde_yaml::Value,
    pub mappings: Vec<Target>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Level {
    pub level: u8,
    pub name: String,
    pub unlocks: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Field {
    pub id: String,
    pub level: u8,
    pub requirement: String,
    pub definition: String,
    pub check: FieldCheck,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Applies {
    EveryRecord,
    OncePerStore,
    RuleRecords,
    RestrictedRecords,
    Register,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CountsWhen {
    NonEmpty,
    Present,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct FieldCheck {
    pub applies: Applies,
    pub counts_when: CountsWhen,
    pub label: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Evidence {
    pub study: String,
    pub measure: String,
    pub without_field_percent: f64,
    pub with_field_percent: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_errors_without: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical_errors_with: Option<u32>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Checker {
    pub rule_markers: Vec<String>,
    pub restriction_markers: Vec<String>,
    pub scope: String,
    pub scope_note: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Serialisation {
    pub id: String,
    pub field_order: Vec<String>,
    pub rule: String,
    pub measured_on: String,
    pub json_lines_chars: u64,
    pub compact_chars: u64,
    pub saving_percent: f64,
    pub example: String,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Target {
    pub target: String,
    pub name: String,
    pub note: String,
    pub fields: BTreeMap<String, String>,
}

impl Field {
    pub fn is_should(&self) -> bool {
        self.requirement == "SHOULD"
    }
    pub fn is_experimental(&self) -> bool {
        self.check.applies == Applies::Register
    }
}

impl Profile {
    /// The profile embedded in this build. Its validity is a test (`cargo test` fails on a
    /// broken profile.yaml), so a release binary can rely on it.
    pub fn embedded() -> &'static Profile {
        static PROFILE: OnceLock<Profile> = OnceLock::new();
        PROFILE.get_or_init(|| Profile::parse(PROFILE_YAML).expect("profile.yaml parses (tested)"))
    }

    pub fn parse(text: &str) -> Result<Profile, String> {
        serde_yaml::from_str(text).map_err(|e| e.to_string())
    }

    pub fn field(&self, id: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.id == id)
    }

    /// The highest level the profile defines (3).
    pub fn top_level(&self) -> u8 {
        self.fields.iter().map(|f| f.level).max().unwrap_or(0)
    }

    /// The MUST fields that make up level `n`, in profile order (the rule-scoped ones are
    /// checked separately, after the levels).
    pub fn level_fields(&self, n: u8) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(move |f| {
            f.level == n
                && !f.is_should()
                && !f.is_experimental()
                && f.check.applies != Applies::RuleRecords
        })
    }

    pub fn rule_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields
            .iter()
            .filter(|f| f.check.applies == Applies::RuleRecords)
    }

    pub fn should_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.is_should())
    }

    pub fn level(&self, n: u8) -> Option<&Level> {
        self.levels.iter().find(|l| l.level == n)
    }
}

/// One row of mappings.csv: a field and its placement in each target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub field: String,
    pub cells: Vec<(String, String)>,
}

/// The placement table of mappings.csv (targets in column order).
pub fn placements() -> Result<(Vec<String>, Vec<Placement>), String> {
    let mut reader = csv::Reader::from_reader(MAPPINGS_CSV.as_bytes());
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    if headers.get(0) != Some("field") {
        return Err("the first column of mappings.csv must be `field`".into());
    }
    let targets: Vec<String> = headers.iter().skip(1).map(str::to_string).collect();
    let mut rows = Vec::new();
    for row in reader.records() {
        let row = row.map_err(|e| e.to_string())?;
        let field = row.get(0).unwrap_or_default().to_string();
        let cells = targets
            .iter()
            .zip(row.iter().skip(1))
            .map(|(t, c)| (t.clone(), c.to_string()))
            .collect();
        rows.push(Placement { field, cells });
    }
    Ok((targets, rows))
}

/// A placement the target has no place for (the seed's amber cells).
pub fn is_addition(cell: &str) -> bool {
    cell.starts_with("add:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_profile_parses_and_has_the_eleven_fields_plus_one() {
        let p = Profile::parse(PROFILE_YAML).unwrap();
        assert_eq!(p.overlay, "vercy-governance-overlay");
        assert_eq!(p.fields.len(), 12);
        assert_eq!(p.fields.iter().filter(|f| f.is_experimental()).count(), 1);
        assert_eq!(p.top_level(), 3);
        let l1: Vec<_> = p.level_fields(1).map(|f| f.id.as_str()).collect();
        assert_eq!(l1, ["record_id", "valid_from", "valid_to"]);
        let l2: Vec<_> = p.level_fields(2).map(|f| f.id.as_str()).collect();
        assert_eq!(l2, ["source", "concept_owner", "conflict_policy"]);
        let l3: Vec<_> = p.level_fields(3).map(|f| f.id.as_str()).collect();
        assert_eq!(l3, ["release_to"]);
        let should: Vec<_> = p.should_fields().map(|f| f.id.as_str()).collect();
        assert_eq!(should, ["owner_role", "supersedes"]);
        let release = p.field("release_to").unwrap();
        assert_eq!(release.evidence.critical_errors_without, Some(2));
        assert_eq!(release.evidence.critical_errors_with, Some(0));
        assert_eq!(p.serialisation.json_lines_chars, 6064);
        assert_eq!(p.serialisation.compact_chars, 1860);
        assert_eq!(p.serialisation.saving_percent, 69.3);
    }

    #[test]
    fn profile_yaml_and_mappings_csv_say_the_same_thing() {
        let p = Profile::embedded();
        let (targets, rows) = placements().unwrap();
        let yaml_targets: Vec<_> = p.mappings.iter().map(|t| t.target.clone()).collect();
        assert_eq!(targets, yaml_targets);
        let fields: Vec<_> = p.fields.iter().map(|f| f.id.clone()).collect();
        assert_eq!(
            rows.iter().map(|r| r.field.clone()).collect::<Vec<_>>(),
            fields
        );
        for row in &rows {
            for (target, cell) in &row.cells {
                let t = p.mappings.iter().find(|t| &t.target == target).unwrap();
                assert_eq!(
                    t.fields.get(&row.field),
                    Some(cell),
                    "{} / {}",
                    row.field,
                    target
                );
            }
        }
    }

    #[test]
    fn the_saving_figure_follows_from_the_counts() {
        let s = &Profile::embedded().serialisation;
        let saving = 100.0 * (1.0 - s.compact_chars as f64 / s.json_lines_chars as f64);
        assert_eq!((saving * 10.0).round() / 10.0, s.saving_percent);
    }
}
