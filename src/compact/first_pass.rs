//! The first pass, for what must be known of the whole store before the first line.

use super::withheld::Withheld;
use crate::error::Result;
use crate::record::Record;
use crate::select::{self, Criteria, SelectRoles, Supersession, SupersessionBuilder, Verdict};
use crate::store::{self, Input, Role, RoleReading, RoleSet, Shape, ViewPlan};
use std::collections::HashSet;

/// What the first pass learns: who supersedes whom, the store's policy, and (inputs that read
/// once only) the records themselves.
#[derive(Default)]
pub(super) struct FirstPass<'r> {
    pub(super) supersession: Supersession,
    /// With a reader: the ids of the records not released to them that a record kept names.
    pub(super) hidden: HashSet<String>,
    /// The first truthy conflict_policy the reader may see.
    pub(super) policy: Option<String>,
    /// A policy exists, but only on records not released to the reader.
    pub(super) policy_withheld: bool,
    /// Inputs that read once only: the shape, the plan the records read through, and the
    /// records, as the first pass's reading built them.
    pub(super) buffered: Option<(Shape, &'r ViewPlan, Vec<Record>)>,
}

impl<'r> FirstPass<'r> {
    /// `reading`: how the records are read (built; what buffered records hold), through
    /// `set`, which holds selection's roles and the policy; `criteria`: the selection, whose
    /// tables are built in `memory` bytes (past them, in the temporary file). `policy_for`:
    /// find the policy, for this reader
    /// (`Some(None)`: no reader, anyone). With a reader, the policy is taken only from a
    /// record whose release_to names them: absence is never permission, for the policy line
    /// too. `progress` gets the byte offset of each record read.
    pub(super) fn read(
        input: &Input,
        reading: &'r RoleReading,
        set: &RoleSet,
        policy_for: Option<Option<&str>>,
        criteria: &Criteria,
        memory: usize,
        progress: &mut (dyn FnMut(u64) + Send),
    ) -> Result<Self> {
        let (known_at, hide_from) = (criteria.known_at.as_ref(), criteria.reader.as_deref());
        let roles = SelectRoles::of(set);
        let policy_role: Role = set.role("conflict_policy");
        let mut withheld: Option<Withheld> = None;
        let mut builder: Option<SupersessionBuilder> = None;
        let mut policy = None;
        let mut policy_withheld = false;
        let mut records = Vec::new();
        let keep = read_once(input);
        let (shape, plan) = store::read_mapped(input, reading, &mut |plan, record| {
            progress(record.origin.offset);
            let view = reading.view(plan, &record);
            if let Some(party) = hide_from {
                let kept = select::judge(criteria, &roles, &view) == Verdict::Keep;
                withheld
                    .get_or_insert_with(|| {
                        Withheld::new(party, plan.map().inverse_path("supersedes"), memory)
                    })
                    .observe(&roles, &view, kept);
            }
            // a record the store did not know yet at --known-at supersedes nothing
            let known = known_at.is_none_or(|t| select::known_at(&roles, &view, t));
            builder
                .get_or_insert_with(|| {
                    SupersessionBuilder::new(plan.map(), roles, criteria, memory)
                })
                .observe(&view, known);
            if let (Some(reader), None) = (policy_for, &policy) {
                if let Some(text) = view
                    .get(policy_role)
                    .filter(|v| v.is_truthy())
                    .map(|v| v.py_str())
                {
                    let released =
                        reader.is_none_or(|party| select::released_to(&roles, &view, party));
                    if released {
                        policy = Some(text);
                    } else {
                        policy_withheld = true;
                    }
                }
            }
            drop(view);
            if keep {
                records.push(record);
            }
            Ok(())
        })?;
        Ok(FirstPass {
            supersession: match builder {
                Some(builder) => builder.finish()?,
                None => Supersession::default(),
            },
            policy,
            policy_withheld,
            hidden: match withheld {
                Some(withheld) => withheld.finish()?,
                None => HashSet::new(),
            },
            buffered: keep.then_some((shape, plan, records)),
        })
    }
}

/// An input that cannot be read a second time (stdin, a pipe, a process substitution): its
/// records are kept from the first pass instead.
fn read_once(input: &Input) -> bool {
    match input.path() {
        None => true,
        Some(path) => std::fs::metadata(path).map_or(true, |m| !m.is_file()),
    }
}
