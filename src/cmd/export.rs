//! `vercy export STORE --to engrama|jsonl|json|compact [-o OUT] [--label L] [--map …]`:
//! read any store through the one reader and stream it to the chosen format's writer.

use crate::cli::{ExportArgs, ExportFormat, GlobalArgs};
use crate::cmd::compact as cmd_compact;
use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::output;
use crate::store::engrama::{EngramaWriter, DEFAULT_LABEL};
use crate::store::json_array::JsonArrayWriter;
use crate::store::jsonl::JsonlWriter;
use crate::store::writer::{write_line, StoreWriter};
use crate::store::{self, Aside, Entry, Input};
use crate::write::Sink;
use crate::Outcome;

pub fn run(args: ExportArgs, _global: &GlobalArgs) -> Result<Outcome> {
    let map = FieldMap::parse(&args.map.map)?;
    let input = Input::new(&args.store);
    let label = match args.label.as_deref() {
        Some(l) if l.trim().is_empty() || l.contains(|c: char| c.is_whitespace()) => {
            return Err(VercyError::argument(
                "--label",
                format!("{l:?} is not an engrama label"),
                "name one node label without spaces, such as Concept, Decision or Project",
            ))
        }
        Some(l) => l,
        None => DEFAULT_LABEL,
    };
    if args.label.is_some() && args.to != ExportFormat::Engrama {
        output::notice("vercy export: --label only applies to --to engrama; ignored");
    }
    let mut writer: Box<dyn StoreWriter> = match args.to {
        ExportFormat::Engrama => Box::new(EngramaWriter::new(label, map, &input.display)),
        ExportFormat::Jsonl => Box::new(JsonlWriter::default()),
        ExportFormat::Json => Box::new(JsonArrayWriter::default()),
        ExportFormat::Compact => {
            return compact(
                &input,
                map,
                !args.map.map.is_empty(),
                args.output.as_deref(),
            )
        }
    };
    let mut sink = Sink::open(args.output.as_deref())?;
    let mut open = true;
    let mut dump = false;
    store::read(&input, &mut |entry| {
        dump |= matches!(entry, Entry::Aside(Aside::EngramaHeader, _));
        if open {
            open = writer.entry(entry, &mut sink)?;
        }
        Ok(())
    })?;
    if open {
        writer.finish(&mut sink)?;
    }
    sink.finish()?;
    if dump && args.label.is_some() && args.to == ExportFormat::Engrama {
        output::notice(
            "vercy export: --label applies to flat records; an engrama dump keeps its own labels",
        );
    }
    let dropped = writer.dropped();
    if dropped.relations + dropped.vectors > 0 {
        output::notice(&format!(
            "vercy export: {} relation and {} vector lines not written (only --to engrama carries them)",
            dropped.relations, dropped.vectors
        ));
    }
    Ok(Outcome::Success)
}

/// `--to compact`: exactly what `vercy compact STORE` writes, through the same entry point.
fn compact(input: &Input, map: FieldMap, map_given: bool, output: Option<&str>) -> Result<Outcome> {
    let request = cmd_compact::Request {
        map,
        map_given,
        criteria: cmd_compact::criteria(None, None, None)?,
        policy_line: false,
    };
    let mut sink = Sink::open(output)?;
    let mut open = true;
    cmd_compact::write(input, &request, &mut |_, line| {
        if open {
            open = write_line(&mut sink, line)?;
        }
        Ok(())
    })?;
    sink.finish()?;
    Ok(Outcome::Success)
}
