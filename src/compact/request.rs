//! What to compact, as the caller asked it.

use crate::error::{Result, VercyError};
use crate::mapping::FieldMap;
use crate::select::Criteria;
use crate::time;

/// What to compact: the map (and whether one was given: else an engrama dump reads through
/// the engrama map), the selection, whether to add the store's policy line, and the memory
/// the selection's tables may take.
pub struct Request {
    pub map: FieldMap,
    pub map_given: bool,
    pub criteria: Criteria,
    pub policy_line: bool,
    /// Bytes the selection's tables hold before they go to the temporary file (`--memory`).
    pub memory: usize,
}

/// The selection asked for, checked: a date that parses (the one date parser), a party that
/// is not empty. Errors name the CLI flag (`--as-of`, `--reader`).
pub fn criteria(
    as_of: Option<&str>,
    concept: Option<String>,
    reader: Option<String>,
) -> Result<Criteria> {
    let as_of = match as_of {
        None => None,
        Some(text) => Some(time::parse_argument("--as-of", text)?),
    };
    if reader.as_deref() == Some("") {
        return Err(VercyError::argument(
            "--reader",
            "the party is empty",
            "name the party exactly as release_to lists it (--reader finance)",
        ));
    }
    Ok(Criteria {
        as_of,
        concept,
        reader,
        known_at: None,
    })
}
