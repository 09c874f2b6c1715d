//! With a reader: the ids of records withheld from them that a record they see names in its
//! supersedes (a visible record's pointer must not name what the reader may not see). Every
//! record withheld and every pointer of a record kept go into `spill::Column`s by the
//! partition of the id, to the temporary file past their share of the budget; they are
//! matched a partition at a time, and only the ids both withheld and named stay in memory.

use super::encode::named_ids;
use crate::error::{Result, VercyError};
use crate::mapping::FieldPath;
use crate::select::{self, SelectRoles};
use crate::spill::{self, part_of, Column, Writer};
use crate::store::RecordView;
use std::collections::HashSet;

/// The two columns of the match, filled in store order.
pub(super) struct Withheld {
    party: String,
    inverse: Option<FieldPath>,
    /// Ids of the records not released to the reader.
    withheld: Column,
    /// Ids a record kept may name in the supersedes written.
    named: Column,
}

impl Withheld {
    /// For `party`, records read with the map's supersedes `inverse` or not; `memory`: what
    /// the columns hold before they go to the temporary file.
    pub(super) fn new(party: &str, inverse: Option<FieldPath>, memory: usize) -> Withheld {
        Withheld {
            party: party.to_string(),
            inverse,
            withheld: Column::new((memory / 8).max(4 << 10)),
            named: Column::new((memory / 32).max(4 << 10)),
        }
    }

    /// The next record; `kept`: selection keeps it unless it is ended (its supersedes is
    /// written).
    pub(super) fn observe(&mut self, roles: &SelectRoles, view: &RecordView, kept: bool) {
        let id = select::record_id(roles, view);
        let push = |column: &mut Column, id: &str| {
            let mut w = Writer::default();
            w.text(id);
            column.push(part_of(id), &w.0);
        };
        if !select::released_to(roles, view, &self.party) {
            if let Some(id) = &id {
                push(&mut self.withheld, id);
            }
        }
        match &self.inverse {
            // a kept record's supersedes is written from its own pointers ...
            None if kept => {
                if let Some(value) = view.get(roles.supersedes()) {
                    for target in named_ids(&value.into_json()) {
                        push(&mut self.named, &target);
                    }
                }
            }
            None => {}
            // ... or, the map inverse, from the ids of the old records naming it
            Some(path) => {
                if let (Some(id), Some(_)) = (&id, view.path(path)) {
                    push(&mut self.named, id);
                }
            }
        }
    }

    /// The ids withheld and named. Fails only when the temporary file cannot be read back.
    pub(super) fn finish(self) -> Result<HashSet<String>> {
        let both = spill::join(&self.withheld, &self.named, |withheld, r| {
            let id = r.text()?;
            Some(withheld.contains(id).then(|| id.to_string()))
        });
        both.map(HashSet::from_iter).map_err(|e| VercyError::Read {
            path: "compact's temporary file".to_string(),
            reason: e.to_string(),
        })
    }
}
