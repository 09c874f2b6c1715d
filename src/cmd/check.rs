//! `vercy check STORE…`

use super::Outcome;
use crate::check::{self, format, Options};
use crate::cli::{CheckArgs, GlobalArgs};
use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::output;
use crate::store::Input;

pub fn run(args: CheckArgs, global: &GlobalArgs) -> Result<Outcome> {
    let memory = args.memory.bytes()?;
    let opts = Options {
        map: FieldMap::parse(&args.map.map)?,
        map_given: !args.map.map.is_empty(),
        policy_outside_records: args.policy,
        min_level: args.min_level,
        strict: args.strict,
        expected: match &args.expected {
            Some(path) => read_register(path)?,
            None => Vec::new(),
        },
        memory,
    };
    let format = if args.json {
        format::Format::Json
    } else {
        args.format.unwrap_or(format::Format::Human)
    };
    if format != format::Format::Human {
        output::machine_format();
    }
    // GitHub and SARIF report an unreadable store in their own form too (an annotation, a
    // failed invocation); every form leaves its diagnostic on stderr
    let in_report = matches!(format, format::Format::Github | format::Format::Sarif);
    let mut reports = Vec::with_capacity(args.stores.len());
    let mut failures = Vec::new();
    let mut unreadable = false;
    for store in &args.stores {
        match check::check_store(&Input::new(store).selecting(args.live.select()), &opts) {
            Ok(report) => reports.push(report),
            Err(e) if matches!(e, VercyError::Interrupted) => return Err(e),
            Err(e) if in_report => {
                failures.push(format::Failure::of(store, &e));
                output::report_error(e);
                unreadable = true;
            }
            // one bad store of several: say so, check the others, exit 2 at the end
            Err(e) if args.stores.len() > 1 => {
                output::report_error(e);
                unreadable = true;
            }
            Err(e) => return Err(e),
        }
    }
    if !reports.is_empty() || !failures.is_empty() {
        output::write_stdout(|out| format::write(format, &reports, &failures, global.quiet, out))?;
    }
    for report in &reports {
        report.names_read_back()?;
    }
    Ok(if unreadable {
        Outcome::Unreadable
    } else if reports.iter().all(|r| r.pass) {
        Outcome::Success
    } else {
        Outcome::BelowLevel
    })
}

/// `--expected FILE`: a JSON list, a YAML list, or one concept per line (`#` comments).
fn read_register(path: &str) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(|e| VercyError::Read {
        path: path.to_string(),
        reason: crate::error::io_reason(&e),
    })?;
    if let Ok(serde_yaml::Value::Sequence(items)) = serde_yaml::from_str::<serde_yaml::Value>(&text)
    {
        return Ok(items
            .into_iter()
            .filter_map(|v| match v {
                serde_yaml::Value::String(s) => Some(s),
                serde_yaml::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .collect());
    }
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}
