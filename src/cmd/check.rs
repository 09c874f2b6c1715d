//! `vercy check STORE…`

use super::Outcome;
use crate::check::report::Report;
use crate::check::{self, format, shard, Options};
use crate::cli::{CheckArgs, GlobalArgs};
use crate::error::{Result, VercyError};
use crate::html::{gather, Drawn};
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
    let format = format_asked(args.json, args.format);
    if let Some(facts) = &args.facts {
        return check_shard(&args, &opts, facts, format, global);
    }
    // GitHub and SARIF report an unreadable store in their own form too (an annotation, a
    // failed invocation); every form leaves its diagnostic on stderr
    let in_report = matches!(format, format::Format::Github | format::Format::Sarif);
    let mut reports = Vec::with_capacity(args.stores.len());
    let mut drawn = Vec::new();
    let mut failures = Vec::new();
    let mut unreadable = false;
    let html = format == format::Format::Html;
    for store in &args.stores {
        match check_one(
            &Input::new(store).selecting(args.live.select()),
            &opts,
            html,
        ) {
            Ok((report, page)) => {
                reports.push(report);
                drawn.extend(page);
            }
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
    let to = Destination {
        drawn: &drawn,
        output: args.output.as_deref(),
    };
    write_reports(format, &reports, &failures, &to, global.quiet)?;
    Ok(if unreadable {
        Outcome::Unreadable
    } else {
        outcome(&reports)
    })
}

/// `--json` or `--format`, the human report else; a machine format keeps stdout for itself.
pub(super) fn format_asked(json: bool, asked: Option<format::Format>) -> format::Format {
    let format = if json {
        format::Format::Json
    } else {
        asked.unwrap_or(format::Format::Human)
    };
    if format != format::Format::Human {
        output::machine_format();
    }
    format
}

/// Where the reports go, and what the HTML page draws beyond them.
#[derive(Default)]
pub(super) struct Destination<'a> {
    /// Each report's timelines (`--format html`; none: the page without them).
    pub drawn: &'a [Drawn],
    /// `-o FILE`, written atomically; none or `-`: stdout.
    pub output: Option<&'a str>,
}

/// Print the reports (and the stores that could not be read) in `format`.
pub(super) fn write_reports(
    format: format::Format,
    reports: &[check::report::Report],
    failures: &[format::Failure],
    to: &Destination<'_>,
    quiet: bool,
) -> Result<()> {
    if !reports.is_empty() || !failures.is_empty() {
        super::write_to(to.output, &mut |out| match format {
            format::Format::Html => format::html::write(reports, to.drawn, out),
            _ => format::write(format, reports, failures, quiet, out),
        })?;
    }
    for report in reports {
        report.names_read_back()?;
    }
    Ok(())
}

/// Every store reached the level asked for, or not.
pub(super) fn outcome(reports: &[check::report::Report]) -> Outcome {
    if reports.iter().all(|r| r.pass) {
        Outcome::Success
    } else {
        Outcome::BelowLevel
    }
}

/// `check SHARD --facts FILE`: the shard's report, and every record's facts written beside it
/// (`check/shard/facts.rs`) for `vercy merge-reports`.
fn check_shard(
    args: &CheckArgs,
    opts: &Options,
    facts: &str,
    format: format::Format,
    global: &GlobalArgs,
) -> Result<Outcome> {
    let [store] = args.stores.as_slice() else {
        return Err(VercyError::Argument {
            what: "--facts".to_string(),
            message: format!("the facts of one store, given {}", args.stores.len()),
            help: "check each shard on its own: vercy check SHARD --facts SHARD.facts".to_string(),
        });
    };
    let settings = shard::facts::Settings::of(opts, &args.map.map);
    let mut writer = shard::facts::FactsWriter::create(facts, store, settings)?;
    let input = Input::new(store).selecting(args.live.select());
    let report = check::check_store_with(&input, opts, &mut |record| writer.record(record))?;
    writer.finish(&report)?;
    let reports = [report];
    write_reports(format, &reports, &[], &Destination::default(), global.quiet)?;
    Ok(outcome(&reports))
}

/// Check one store; with `html`, also what its page draws: the timelines of its concepts with
/// the most findings, from where the check's own pass saw each record.
fn check_one(input: &Input, opts: &Options, html: bool) -> Result<(Report, Option<Drawn>)> {
    if !html {
        return Ok((check::check_store(input, opts)?, None));
    }
    // the same page in every run; a process that already hashed (a store before this one)
    // keeps its seed, and its page may pick other concepts among equals
    check::fix_concept_keys();
    let mut seen = gather::Sightings::new(check::concept_key);
    // a pipe is read once: its page has a note instead of timelines
    let noting = !input.is_pipe();
    let report = check::check_store_with(input, opts, &mut |facts| {
        if let Some(sighting) = facts.sighting().filter(|_| noting) {
            seen.note(sighting);
        }
        Ok(())
    })?;
    seen.read_as(report.shape.clone(), report.mapping.clone());
    let drawn = gather::draw(input, &seen, format::html::marks(&report))?;
    Ok((report, Some(drawn)))
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
