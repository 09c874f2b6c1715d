//! `vercy map`: where each profile field goes in each kind of store (mappings.csv), and the
//! named key maps (maps.yaml).

use super::Outcome;
use crate::cli::{MapArgs, MapFormat};
use crate::error::{Result, VercyError};
use crate::mapping::{named_map, named_maps};
use crate::output;
use crate::profile::{is_addition, placements, Profile, MAPPINGS_CSV};
use serde_json::{json, Map, Value};

pub fn run(args: MapArgs) -> Result<Outcome> {
    let (targets, rows) = placements().map_err(|m| VercyError::EmbeddedData {
        what: "mappings.csv".into(),
        message: m,
    })?;
    let text = match args.target.as_deref() {
        None => match args.format {
            MapFormat::Csv => MAPPINGS_CSV.to_string(),
            MapFormat::Json => {
                let mut all = Map::new();
                for row in &rows {
                    let cells: Map<String, Value> = row
                        .cells
                        .iter()
                        .map(|(t, c)| (t.clone(), json!(c)))
                        .collect();
                    all.insert(row.field.clone(), Value::Object(cells));
                }
                crate::python::json::to_python_json(&Value::Object(all)) + "\n"
            }
            MapFormat::Table => {
                let mut out = String::from("Where each field goes (a cell marked + is one the target has no place for: add it)\n\n");
                for t in &targets {
                    out.push_str(&target_table(t, &rows));
                    out.push('\n');
                }
                out.push_str("named key maps (--map NAME): ");
                out.push_str(
                    &named_maps()
                        .iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                );
                out.push('\n');
                out
            }
        },
        Some(t) if targets.iter().any(|x| x == t) => {
            match args.format {
                MapFormat::Table => target_table(t, &rows),
                MapFormat::Csv => {
                    let mut out = format!("field,{t},missing\n");
                    for row in &rows {
                        let cell = row
                            .cells
                            .iter()
                            .find(|(x, _)| x == t)
                            .map(|(_, c)| c.as_str())
                            .unwrap_or("");
                        out.push_str(&format!(
                            "{},{},{}\n",
                            row.field,
                            csv_cell(cell),
                            is_addition(cell)
                        ));
                    }
                    out
                }
                MapFormat::Json => {
                    let items: Vec<Value> = rows
                    .iter()
                    .map(|row| {
                        let cell = row.cells.iter().find(|(x, _)| x == t).map(|(_, c)| c.as_str()).unwrap_or("");
                        json!({"field": row.field, "placement": cell, "missing": is_addition(cell)})
                    })
                    .collect();
                    crate::python::json::to_python_json(&json!({"target": t, "fields": items}))
                        + "\n"
                }
            }
        }
        Some(name) => match named_map(name) {
            Some(m) => {
                let profile = Profile::embedded();
                let mut roles: Vec<(String, String)> = Vec::new();
                for f in profile
                    .fields
                    .iter()
                    .map(|f| f.id.as_str())
                    .chain(crate::mapping::EXTRA_ROLES)
                {
                    let path = m
                        .roles
                        .0
                        .iter()
                        .find(|(r, _)| r == f)
                        .map(|(_, p)| p.clone());
                    roles.push((
                        f.to_string(),
                        path.unwrap_or_else(|| format!("{f} (same name)")),
                    ));
                }
                // the roles beyond the profile's a map names (recorded_at, expired_at)
                for (r, p) in &m.roles.0 {
                    if !roles.iter().any(|(listed, _)| listed == r) {
                        roles.push((r.clone(), p.clone()));
                    }
                }
                match args.format {
                    MapFormat::Json => {
                        let obj: Map<String, Value> = m
                            .roles
                            .0
                            .iter()
                            .map(|(r, p)| (r.clone(), json!(p)))
                            .collect();
                        crate::python::json::to_python_json(
                            &json!({"map": name, "description": m.description, "roles": obj}),
                        ) + "\n"
                    }
                    MapFormat::Csv => {
                        let mut out = String::from("role,path\n");
                        for (r, p) in &m.roles.0 {
                            out.push_str(&format!("{},{}\n", r, csv_cell(p)));
                        }
                        out
                    }
                    MapFormat::Table => {
                        let mut out = format!("--map {name}: {}\n\n", m.description);
                        for (r, p) in roles {
                            out.push_str(&format!("  {r:<18} {p}\n"));
                        }
                        out
                    }
                }
            }
            None => {
                return Err(VercyError::argument(
                    "--target",
                    format!("{name:?} is neither a target form nor a named map"),
                    format!(
                        "target forms: {}; named maps: {}",
                        targets.join(", "),
                        named_maps()
                            .iter()
                            .map(|(n, _)| n.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        },
    };
    output::print_stdout(&text).map(|_| Outcome::Success)
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn target_table(target: &str, rows: &[crate::profile::Placement]) -> String {
    let profile = Profile::embedded();
    let name = profile
        .mappings
        .iter()
        .find(|m| m.target == target)
        .map(|m| m.name.as_str())
        .unwrap_or(target);
    let mut out = format!("{name} ({target})\n");
    for row in rows {
        let cell = row
            .cells
            .iter()
            .find(|(t, _)| t == target)
            .map(|(_, c)| c.as_str())
            .unwrap_or("");
        let mark = if is_addition(cell) { "+" } else { " " };
        out.push_str(&format!("  {mark} {:<18} {}\n", row.field, cell));
    }
    out
}
