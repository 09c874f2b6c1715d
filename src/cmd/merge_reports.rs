//! `vercy merge-reports SPLIT [FACTS…]`: the whole store's report from its shards' facts.

use super::check::{format_asked, outcome, write_reports, Destination};
use super::Outcome;
use crate::check::shard::merge::Merge;
use crate::cli::{GlobalArgs, MergeReportsArgs};
use crate::error::Result;

pub fn run(args: MergeReportsArgs, global: &GlobalArgs) -> Result<Outcome> {
    let format = format_asked(args.json, args.format);
    let report = Merge::open(&args.split, &args.facts)?.report()?;
    let reports = [report];
    write_reports(format, &reports, &[], &Destination::default(), global.quiet)?;
    Ok(outcome(&reports))
}
