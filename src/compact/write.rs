//! The entry point: a store's compact form, line by line.

use super::encode::{Encoded, Encoder, RecordSize};
use super::first_pass::FirstPass;
use super::Request;
use crate::error::Result;
use crate::profile::Profile;
use crate::select::{self, SelectRoles, Tally, Verdict};
use crate::store::compact;
use crate::store::{self, Input, RoleReading, RoleSet, Shape};

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
/// write through it. The first argument of `emit` is always `None` here (see
/// [`write_lines`]).
pub fn write(
    input: &Input,
    request: &Request,
    emit: &mut (dyn FnMut(Option<RecordSize>, &str) -> Result<()> + Send),
) -> Result<Written> {
    write_lines(input, request, false, &mut |_| {}, emit)
}

/// [`write()`]; with `sizes`, each record's line comes with its sizes (the record read whole),
/// for `--stats`. Each line is encoded on the decoding threads from the reader's view of its
/// record, and only the finished line reaches `emit`. `progress` gets the byte offset of each
/// record read, in each pass (a second pass starts again from the first record).
pub fn write_lines(
    input: &Input,
    request: &Request,
    sizes: bool,
    progress: &mut (dyn FnMut(u64) + Send),
    emit: &mut (dyn FnMut(Option<RecordSize>, &str) -> Result<()> + Send),
) -> Result<Written> {
    let criteria = &request.criteria;
    let order = &Profile::embedded().serialisation.field_order;
    let inverse_supersedes = request.map.inverse_path("supersedes").is_some();
    // with a reader, the first pass also finds the ids withheld from them, which a visible
    // record's supersedes must not name either
    let first_pass = criteria.needs_supersession()
        || request.policy_line
        || inverse_supersedes
        || criteria.reader.is_some();

    // the roles read: the form's fields, what selection asks, and what a first pass reads
    let mut roles: Vec<&'static str> = order.iter().map(String::as_str).collect();
    roles.extend(select::roles_for(criteria));
    if first_pass {
        roles.extend(select::ROLES.into_iter().chain(["conflict_policy"]));
    }
    let set = RoleSet::new(roles);
    let maps = store::Maps::new(request.map.clone(), request.map_given)?;
    let mut reading = RoleReading::new(maps, &set, &[], false);
    if sizes {
        reading = reading.whole_records();
    }

    // First pass, when something needs the whole store before the first line.
    let first_reading = match sizes {
        true => reading.clone(),
        false => reading.clone().built(),
    };
    let mut first = FirstPass::default();
    if first_pass {
        let policy_for = request.policy_line.then_some(criteria.reader.as_deref());
        first = FirstPass::read(
            input,
            &first_reading,
            &set,
            policy_for,
            criteria,
            request.memory,
            progress,
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
        roles: SelectRoles::of(&set),
        supersession: &first.supersession,
        inverse_supersedes,
        cells: Encoder::cells(&set, order),
        hidden: &first.hidden,
        sizes,
    };
    let mut tally = Tally::default();
    // the records come in store order: the n-th is the n-th the first pass saw
    let mut n = 0;
    let mut visit = |done: Encoded| -> Result<()> {
        progress(done.offset);
        let verdict = done
            .verdict
            .unless_ended(criteria, first.supersession.ended(n));
        n += 1;
        tally.count(verdict);
        match (&done.line, verdict) {
            (Some(text), Verdict::Keep) => emit(done.size, text),
            _ => Ok(()),
        }
    };
    let shape = match first.buffered.take() {
        Some((shape, plan, records)) => {
            for record in &records {
                visit(encoder.encode(&first_reading.view(plan, record)))?;
            }
            shape
        }
        None => {
            let encode = |view: &store::RecordView| Ok(encoder.encode(view));
            store::read_views(input, &reading, &encode, &mut visit)?.0
        }
    };
    Ok(Written {
        shape,
        tally,
        policy,
    })
}
