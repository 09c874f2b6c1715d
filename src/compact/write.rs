//! The entry point: a store's compact form, line by line.

use super::encode::{Encoded, Encoder, SpanPlan};
use super::first_pass::FirstPass;
use super::Request;
use crate::error::Result;
use crate::mapping::FieldMap;
use crate::profile::Profile;
use crate::record::Record;
use crate::select::Tally;
use crate::store::compact;
use crate::store::{self, Entry, Input, KeySelection, Shape};
use std::sync::OnceLock;

/// What [`write()`] did.
pub struct Written {
    pub shape: Shape,
    pub tally: Tally,
    /// What became of the `# conflict_policy:` line.
    pub policy: PolicyLine,
}

/// The `# conflict_policy:` line: not asked for, written, or not written because the store
/// states no policy, or (with a reader) states it only on records not released to that reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyLine {
    NotAsked,
    Written,
    None,
    Withheld,
}

/// The compact form of a store, line by line (without `\n`) through `emit`: the header, the
/// policy line when asked for, then each selected record's line. The library entry point:
/// `vercy compact`, `vercy export --to compact` and the MCP server's `compact_records` all
/// write through it. The first
/// argument of `emit` is always `None` here (see [`write_lines`]).
pub fn write(
    input: &Input,
    request: &Request,
    emit: &mut (dyn FnMut(Option<&Record>, &str) -> Result<()> + Send),
) -> Result<Written> {
    write_lines(input, request, false, emit)
}

/// [`write`]; with `with_records`, each record's line comes with its record (read whole), for
/// `--stats`. Without, each line is encoded on the decoding threads from only the fields the
/// form holds (borrowed from the line when the map reads plain keys) and only the finished
/// line reaches `emit`.
pub fn write_lines(
    input: &Input,
    request: &Request,
    with_records: bool,
    emit: &mut (dyn FnMut(Option<&Record>, &str) -> Result<()> + Send),
) -> Result<Written> {
    let (given, map_given, criteria) = (&request.map, request.map_given, &request.criteria);
    let order = &Profile::embedded().serialisation.field_order;
    let inverse_supersedes = given.inverse_path("supersedes").is_some();

    let maps = store::Maps::new(given.clone(), map_given)?;

    // the keys the roles read (every key, and the raw text, when records go on to --stats)
    let role_keep = match with_records {
        true => KeySelection::all(),
        false => KeySelection::keys(maps.each().flat_map(|map| role_keys(map, order))),
    };

    // First pass, when something needs the whole store before the first line.
    let mut first = FirstPass::default();
    // with a reader, the first pass also finds the ids withheld from them, which a visible
    // record's supersedes must not name either
    if criteria.needs_supersession()
        || request.policy_line
        || inverse_supersedes
        || criteria.reader.is_some()
    {
        let policy_for = request.policy_line.then_some(criteria.reader.as_deref());
        first = FirstPass::read(
            input,
            &role_keep,
            &maps,
            policy_for,
            criteria.known_at.as_ref(),
            criteria.reader.as_deref(),
        )?;
    }

    emit(None, &compact::header(order))?;
    let policy = match (request.policy_line, &first.policy) {
        (false, _) => PolicyLine::NotAsked,
        (true, Some(text)) => {
            emit(
                None,
                &format!("# conflict_policy: {}", compact::escape(text, false)),
            )?;
            PolicyLine::Written
        }
        (true, None) if first.policy_withheld => PolicyLine::Withheld,
        (true, None) => PolicyLine::None,
    };

    let encoder = Encoder {
        criteria,
        supersession: &first.supersession,
        inverse_supersedes,
        order,
        plain: SpanPlan::new(
            given,
            order,
            criteria,
            inverse_supersedes,
            with_records || !first.hidden.is_empty(),
        ),
        hidden: &first.hidden,
        input_name: &input.display,
        engrama_keep: KeySelection::keys(role_keys(&store::engrama_map()?, order)),
    };
    let mut tally = Tally::default();
    let mut visit = |done: Option<Encoded>| -> Result<()> {
        let Some(done) = done else {
            return Ok(());
        };
        tally.count(done.verdict);
        match &done.line {
            Some(text) => emit(done.record.as_deref(), text),
            None => Ok(()),
        }
    };
    let shape = match first.buffered.take() {
        Some((shape, map, records)) => {
            for record in records {
                visit(Some(encoder.encode(&map, record, with_records)?))?;
            }
            shape
        }
        None => {
            let keep = encoder.keep(&role_keep);
            // the store's own map (an engrama dump's, unless `--map` was given), from its
            // header, which is worked on before any record
            let own_map: OnceLock<&FieldMap> = OnceLock::new();
            let work = |entry: Entry| -> Result<Option<Encoded>> {
                match entry {
                    Entry::Record(record) => match own_map.get() {
                        Some(map) if encoder.plain.is_some() => encoder
                            .encode(map, encoder.rebuild(record)?, false)
                            .map(Some),
                        Some(map) => encoder.encode(map, record, with_records).map(Some),
                        None => match &encoder.plain {
                            Some(plain) => encoder.encode_plain(plain, record).map(Some),
                            None => encoder.encode(given, record, with_records).map(Some),
                        },
                    },
                    non_record => {
                        if let Some(own) = maps.own(&non_record) {
                            let _ = own_map.set(own);
                        }
                        Ok(None)
                    }
                }
            };
            match &encoder.plain {
                // JSON lines the reader's scanner takes are looked at where they lie
                Some(plain) => {
                    let look = |view: store::View| encoder.encode_view(plain, view);
                    store::read_looking(input, &keep, &look, &work, &mut visit)?
                }
                None => store::read_parallel(input, &keep, &work, &mut visit)?,
            }
        }
    };
    Ok(Written {
        shape,
        tally,
        policy,
    })
}

/// The top-level keys the roles of the order, selection and the first pass read through a map.
fn role_keys(map: &FieldMap, order: &[String]) -> Vec<String> {
    let roles = order.iter().map(String::as_str).chain([
        "record_id",
        "concept",
        "valid_from",
        "valid_to",
        "release_to",
        "supersedes",
        "conflict_policy",
        "recorded_at",
        "expired_at",
    ]);
    let mut keys = Vec::new();
    for role in roles {
        let path = map.path(role);
        keys.extend(path.top_keys().map(str::to_string));
        if let Some(forward) = map.inverse_path(role) {
            keys.extend(forward.top_keys().map(str::to_string));
        }
    }
    keys
}
