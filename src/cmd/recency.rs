//! `vercy recency STORE`: every node's read-time recency, ranked.
//!
//! engrama dumps: node lines, degree from the relation lines. Flat stores: each record through
//! the field map (record_id, label, last_activity_at, updated_at, source_query roles), no degree.
//! The scoring and the two renderings are [`crate::recency::rank`]'s.

use super::Outcome;
use crate::cli::{DataFormat, GlobalArgs, RecencyArgs};
use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::output;
use crate::recency::rank::{rank, render_human, render_json, score_store};
use crate::recency::{Flags, Settings};
use crate::store::Input;
use crate::time;

pub fn run(args: RecencyArgs, _global: &GlobalArgs) -> Result<Outcome> {
    let settings = Settings::resolve(&Flags {
        half_life: args.half_life,
        insight_half_life: args.insight_half_life,
        no_degree: args.no_degree,
    })?;
    let as_of = match &args.as_of {
        Some(text) => time::parse(text).map_err(|e| {
            VercyError::argument(
                "--as-of",
                e.to_string(),
                "give a date or an RFC 3339 time, for example 2026-12-01T00:00:00Z",
            )
        })?,
        None => time::now(),
    };
    let map = FieldMap::parse(&args.map.map)?;
    let input = Input::new(&args.store).selecting(args.live.select());
    let (mut rows, unreadable) = score_store(&input, &map, &settings, &as_of)?;
    const SHOWN: usize = 10;
    for (line, why) in unreadable.iter().take(SHOWN) {
        output::notice(&format!("{}:{line}: recency unknown: {why}", input.display));
    }
    if unreadable.len() > SHOWN {
        output::notice(&format!(
            "{}: {} more records with an unreadable timestamp (recency unknown)",
            input.display,
            unreadable.len() - SHOWN
        ));
    }
    rank(&mut rows);
    let total = rows.len();
    if let Some(n) = args.top {
        rows.truncate(n);
    }
    let text = match args.format {
        DataFormat::Json => render_json(&rows),
        DataFormat::Human => render_human(&rows, total, &settings, args.as_of.as_deref()),
    };
    output::print_stdout(&text)?;
    Ok(Outcome::Success)
}
