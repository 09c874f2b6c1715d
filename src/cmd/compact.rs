//! `vercy compact STORE`: the store in the compact pipe line form, optionally only the records
//! a question needs (`--as-of`, `--concept`, `--reader`), with `--stats` on stderr. The work is
//! the `compact` library's; this is the arguments, the output and the notices.

use super::Outcome;
use crate::cli::{CompactArgs, GlobalArgs};
use crate::compact::{self, criteria, CountingSink, PolicyLine, Request};
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::output;
use crate::progress;
use crate::select::{Criteria, Tally};
use crate::store::Input;
use crate::time;
use crate::write::Sink;

pub fn run(args: CompactArgs, _global: &GlobalArgs) -> Result<Outcome> {
    let mut criteria = criteria(
        args.as_of.as_deref(),
        args.concept.clone(),
        args.reader.clone(),
    )?;
    criteria.known_at = match args.known_at.as_deref() {
        None => None,
        Some(text) => Some(time::parse_argument("--known-at", text)?),
    };
    let request = Request {
        map: FieldMap::parse(&args.map.map)?,
        map_given: !args.map.map.is_empty(),
        criteria,
        policy_line: args.policy_line,
        memory: args.memory.bytes()?,
    };
    let input = Input::new(&args.store).selecting(args.live.select());
    if input.path().is_some() {
        // a missing or unreadable store is an error before any output is written
        drop(input.open()?);
    }
    let mut out = CountingSink::new(
        Sink::open(args.output.as_deref(), &(&args.write).into())?,
        args.stats,
    );
    // a selection reads the store twice: the bar starts again with the second pass
    let bar = progress::bar(&input, "reading", false);
    let (mut shown, mut last) = (0, 0);
    let mut moved = |offset: u64| {
        if let Some(bar) = &bar {
            if offset >= shown || offset < last {
                progress::show(bar, offset);
                shown = offset + progress::STEP;
            }
            last = offset;
        }
    };
    let done = compact::write_lines(
        &input,
        &request,
        args.stats,
        &mut moved,
        &mut |size, text| match size {
            Some(size) => out.record(size, text),
            None => out.line(text),
        },
    )?;
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    match (&request.criteria.reader, done.policy) {
        (_, PolicyLine::Written | PolicyLine::NotAsked) => {}
        (Some(party), PolicyLine::Withheld) => output::notice(&format!(
            "vercy compact: the store's conflict policy is on a record whose release_to does not name {party:?}; --policy-line wrote none"
        )),
        _ => output::notice(
            "vercy compact: the store states no conflict policy; --policy-line wrote none",
        ),
    }

    let closed = out.closed();
    let stats = out.finish()?;
    if closed {
        return Ok(Outcome::Success);
    }
    report_selection(&request.criteria, &done.tally);
    if args.stats {
        output::print_stderr(&stats.table(&done.shape));
    }
    Ok(Outcome::Success)
}

/// What selection left out, on stderr (suppressed by --quiet).
fn report_selection(criteria: &Criteria, tally: &Tally) {
    let records = |n: usize| format!("{n} record{}", if n == 1 { "" } else { "s" });
    if criteria.as_of.is_some() && tally.undated > 0 {
        output::notice(&format!(
            "vercy compact: left out {} whose valid_from is missing or not a date (or whose valid_to is not a date): never in force",
            records(tally.undated)
        ));
    }
    if criteria.known_at.is_some() && tally.not_known > 0 {
        output::notice(&format!(
            "vercy compact: left out {} not recorded by --known-at (or expired by then, or without a readable recorded_at)",
            records(tally.not_known)
        ));
    }
    if let Some(party) = &criteria.reader {
        output::notice(&format!(
            "vercy compact: withheld {} without release_to naming {party:?}",
            records(tally.withheld)
        ));
    }
    if criteria.as_of.is_some()
        || criteria.concept.is_some()
        || criteria.reader.is_some()
        || criteria.known_at.is_some()
    {
        output::notice(&format!(
            "vercy compact: wrote {} of {}",
            tally.kept,
            records(tally.read)
        ));
    }
}
