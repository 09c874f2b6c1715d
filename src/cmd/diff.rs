//! `vercy diff BASE HEAD`

use super::Outcome;
use crate::cli::{DiffArgs, GlobalArgs};
use crate::diff::{self, format, report::Code, Options};
use crate::error::{Result, VercyError};
use crate::formats::Failure;
use crate::html::gather;
use crate::mapping::FieldMap;
use crate::output;
use crate::store::Input;

/// The codes `--allow` names.
fn allowed(names: &[String]) -> Result<Vec<Code>> {
    names
        .iter()
        .flat_map(|n| n.split(','))
        .map(|name| {
            Code::parse(name.trim()).ok_or_else(|| {
                let codes: Vec<&str> = Code::ALL.iter().map(|c| c.name()).collect();
                VercyError::argument(
                    "--allow",
                    format!("{name:?} is not a diff code"),
                    format!("name one of {}", codes.join(", ")),
                )
            })
        })
        .collect()
}

pub fn run(args: DiffArgs, global: &GlobalArgs) -> Result<Outcome> {
    let opts = Options {
        map: FieldMap::parse(&args.map.map)?,
        map_given: !args.map.map.is_empty(),
        allowed: allowed(&args.allow)?,
        memory: args.memory.bytes()?,
    };
    if args.format != format::Format::Human {
        output::machine_format();
    }
    let input = |store: &str| Input::new(store).selecting(args.live.select());
    let (base, head) = (input(&args.base), input(&args.head));
    // a page's sightings are noted as HEAD is read; a pipe is read once, and its page has a
    // note instead of timelines
    let mut seen = gather::Sightings::new(gather::concept_key);
    let mut note = |sighting| seen.note(sighting);
    let mut notes = diff::HeadNotes {
        key: gather::concept_key,
        note: &mut note,
        read_as: None,
    };
    let noting = args.format == format::Format::Html && !head.is_pipe();
    match diff::diff_stores_noting(
        (&base, &args.base),
        (&head, &args.head),
        &opts,
        noting.then_some(&mut notes),
    ) {
        Ok(report) => {
            if let Some((shape, map)) = notes.read_as.take() {
                seen.read_as(shape, map);
            }
            let out = args.output.as_deref();
            // the findings are read back as the form is written: if they cannot be, that is
            // what the diagnostic says, not the write it ended
            let lost = |e| report.lost(e);
            let written = match args.format {
                format::Format::Html => {
                    let marks = format::html::marks(&report).map_err(lost)?;
                    let drawn = gather::draw(&head, &seen, marks)?;
                    let page = format::html::page(&report, drawn).map_err(lost)?;
                    super::write_to(out, &mut |w| {
                        crate::html::write(std::slice::from_ref(&page), w)
                    })
                }
                _ => super::write_to(out, &mut |w| {
                    format::write(args.format, Ok(&report), global.quiet, w)
                }),
            };
            if let Some(e) = report.unreadable() {
                return Err(e);
            }
            written?;
            Ok(match report.pass() {
                true => Outcome::Success,
                false => Outcome::BelowLevel,
            })
        }
        Err(e) if matches!(e, VercyError::Interrupted) => Err(e),
        Err(e) => {
            // GitHub and SARIF say so in their own form too; the diagnostic goes to stderr
            let store = match &e {
                VercyError::DiffSide { store, .. } | VercyError::DiffInput { store, .. } => {
                    store.clone()
                }
                _ => args.head.clone(),
            };
            // only they: another form writes nothing, and `-o` must not leave an empty file
            // where a report was
            if matches!(args.format, format::Format::Github | format::Format::Sarif) {
                let failure = Failure::of(&store, &e);
                super::write_to(args.output.as_deref(), &mut |out| {
                    format::write(args.format, Err(&failure), true, out)
                })?;
            }
            Err(e)
        }
    }
}
