//! The answer: the outcome, and what of the records may cross the disclosure boundary.
//!
//! [`Answer::disclose`] is the boundary (contract §4). It is the only place that turns the
//! steps' decisions into output, and it reads a record's id, fields or dates only where the
//! caller may read that record; for a withheld record it keeps nothing but a count. The
//! renderings ([`Answer::to_json`], [`Answer::human`]) see only the disclosed answer, so no
//! output (stdout, stderr, JSON, human text, an MCP result) can carry a withheld record.

use super::disclosure::Access;
use super::precedence::Ranking;
use super::Candidate;
use crate::html::{seconds, Bar, End};
use crate::mapping::FieldMap;
use crate::record::py_str;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashSet};

pub const REPORT: &str = "vercy-resolve/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerOutcome {
    Answered,
    Abstained,
    Refused,
    Empty,
}

impl AnswerOutcome {
    pub fn name(self) -> &'static str {
        match self {
            AnswerOutcome::Answered => "answered",
            AnswerOutcome::Abstained => "abstained",
            AnswerOutcome::Refused => "refused",
            AnswerOutcome::Empty => "empty",
        }
    }
}

/// The contract's reason codes (§5), in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Code {
    Expired,
    ValidityUnknown,
    OutOfScope,
    Superseded,
    UnauthorizedSupersession,
    UnauthorizedPrecedence,
    ConflictUnresolved,
    NoAuthoritativeRecord,
    NotReleased,
    RestrictedWithoutRelease,
}

impl Code {
    pub const ALL: [Code; 10] = [
        Code::Expired,
        Code::ValidityUnknown,
        Code::OutOfScope,
        Code::Superseded,
        Code::UnauthorizedSupersession,
        Code::UnauthorizedPrecedence,
        Code::ConflictUnresolved,
        Code::NoAuthoritativeRecord,
        Code::NotReleased,
        Code::RestrictedWithoutRelease,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Code::Expired => "expired",
            Code::ValidityUnknown => "validity_unknown",
            Code::OutOfScope => "out_of_scope",
            Code::Superseded => "superseded",
            Code::UnauthorizedSupersession => "unauthorized_supersession",
            Code::UnauthorizedPrecedence => "unauthorized_precedence",
            Code::ConflictUnresolved => "conflict_unresolved",
            Code::NoAuthoritativeRecord => "no_authoritative_record",
            Code::NotReleased => "not_released",
            Code::RestrictedWithoutRelease => "restricted_without_release",
        }
    }
}

/// The reasons raised, each with the records it concerns (indices into the candidates).
#[derive(Debug, Default)]
pub struct Reasons(BTreeMap<Code, Vec<usize>>);

impl Reasons {
    /// Raise `code` for `records`; nothing when there are none.
    pub fn add(&mut self, code: Code, records: impl IntoIterator<Item = usize>) {
        for r in records {
            let list = self.0.entry(code).or_default();
            if !list.contains(&r) {
                list.push(r);
                list.sort_unstable();
            }
        }
    }

    /// Raise `code` about the concept, naming no record.
    pub fn flag(&mut self, code: Code) {
        self.0.entry(code).or_default();
    }
}

/// What the steps decided, before disclosure.
#[derive(Debug)]
pub enum Decision {
    /// Nothing survived validity and applicability.
    Empty,
    Ranked {
        ranking: Ranking,
        /// The records that entered precedence (store order).
        candidates: Vec<usize>,
    },
}

/// The question, as the caller asked it (echoed in the answer).
#[derive(Debug, Clone)]
pub struct Asked {
    pub store: String,
    pub concept: String,
    pub as_of: String,
    pub known_at: Option<String>,
    pub scope: Vec<String>,
    pub caller: String,
}

/// A reason as it may be shown: the records the caller may read by name, the others counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShownReason {
    pub code: Code,
    pub records: Vec<String>,
    pub withheld: usize,
}

/// The disclosed answer: everything in it may be shown to the caller.
#[derive(Debug, Clone)]
pub struct Answer {
    pub asked: Asked,
    pub outcome: AnswerOutcome,
    /// The answering record's id and its fields as stored (supersedes pointers to withheld
    /// records taken out: a withheld record's id must not cross, even inside another record).
    pub answer: Option<(String, Map<String, Value>)>,
    pub candidates: Vec<String>,
    pub reasons: Vec<ShownReason>,
    pub withheld: usize,
    /// The records the caller may read, in store order, as a timeline draws them (their
    /// dates as written, their reasons, the one that holds); a withheld record is only
    /// counted in `withheld`.
    pub timeline: Vec<Bar>,
}

impl Answer {
    /// Apply disclosure to the decision (step 5) and keep only what the caller may see.
    pub fn disclose(
        asked: Asked,
        map: &FieldMap,
        all: &[Candidate],
        decision: Decision,
        mut reasons: Reasons,
    ) -> Answer {
        let readable = |i: usize| all[i].access.readable();
        // every withheld record of the concept, and why
        for (i, c) in all.iter().enumerate() {
            match c.access {
                Access::Readable => {}
                Access::NotReleased => reasons.add(Code::NotReleased, [i]),
                Access::RestrictedWithoutRelease => {
                    reasons.add(Code::RestrictedWithoutRelease, [i])
                }
            }
        }
        let (outcome, winner, candidates) = match decision {
            Decision::Empty => (AnswerOutcome::Empty, None, Vec::new()),
            Decision::Ranked {
                ranking,
                candidates,
            } => {
                let (outcome, winner) = match ranking {
                    Ranking::Winner(w) if readable(w) => (AnswerOutcome::Answered, Some(w)),
                    Ranking::Winner(_) => (AnswerOutcome::Refused, None),
                    Ranking::Conflict(sides) => {
                        let outcome = match sides.iter().all(|&s| readable(s)) {
                            true => AnswerOutcome::Abstained,
                            false => AnswerOutcome::Refused,
                        };
                        reasons.add(Code::ConflictUnresolved, sides);
                        (outcome, None)
                    }
                };
                (outcome, winner, candidates)
            }
        };
        let timeline = drawn(map, all, &reasons, winner);
        let withheld_ids: HashSet<&str> = all
            .iter()
            .filter(|c| !c.access.readable())
            .filter_map(|c| c.id.as_deref())
            .collect();
        let answer = winner.map(|w| {
            let c = &all[w];
            (
                c.name.clone(),
                without_pointers_to(map, &c.record.fields, &withheld_ids),
            )
        });
        let shown = reasons
            .0
            .into_iter()
            .map(|(code, records)| ShownReason {
                code,
                records: records
                    .iter()
                    .filter(|&&i| readable(i))
                    .map(|&i| all[i].name.clone())
                    .collect(),
                withheld: records.iter().filter(|&&i| !readable(i)).count(),
            })
            .collect();
        Answer {
            asked,
            outcome,
            answer,
            candidates: candidates
                .into_iter()
                .filter(|&i| readable(i))
                .map(|i| all[i].name.clone())
                .collect(),
            reasons: shown,
            withheld: all.iter().filter(|c| !c.access.readable()).count(),
            timeline,
        }
    }

    /// The `vercy-resolve/1` object; with `explain`, its `records` too
    /// ([`Answer::explained_json`]).
    pub fn to_json(&self, explain: bool) -> Value {
        let a = &self.asked;
        let reasons: Vec<Value> = self
            .reasons
            .iter()
            .map(|r| {
                let mut m = Map::new();
                m.insert("code".into(), json!(r.code.name()));
                if !r.records.is_empty() {
                    m.insert("records".into(), json!(r.records));
                }
                if r.withheld > 0 {
                    m.insert("count".into(), json!(r.withheld));
                }
                Value::Object(m)
            })
            .collect();
        let mut m = Map::new();
        m.insert("report".into(), json!(REPORT));
        m.insert("store".into(), json!(a.store));
        m.insert("concept".into(), json!(a.concept));
        m.insert("as_of".into(), json!(a.as_of));
        m.insert("known_at".into(), json!(a.known_at));
        m.insert("scope".into(), json!(a.scope));
        m.insert("caller".into(), json!(a.caller));
        m.insert("outcome".into(), json!(self.outcome.name()));
        m.insert(
            "answer".into(),
            self.answer
                .as_ref()
                .map_or(Value::Null, |(_, f)| Value::Object(f.clone())),
        );
        m.insert("candidates".into(), json!(self.candidates));
        m.insert("reasons".into(), Value::Array(reasons));
        m.insert("withheld".into(), json!(self.withheld));
        if explain {
            m.insert("records".into(), self.explained_json());
        }
        Value::Object(m)
    }

    /// The answer for people.
    pub fn human(&self, map: &FieldMap) -> String {
        let a = &self.asked;
        let mut out = format!(
            "{}: {} on {}{} for {}{}\n",
            self.outcome.name(),
            a.concept,
            a.as_of,
            a.known_at
                .as_ref()
                .map_or(String::new(), |k| format!(" as known at {k}")),
            a.caller,
            match a.scope.is_empty() {
                true => String::new(),
                false => format!(" in scope {}", a.scope.join(", ")),
            }
        );
        if let Some((name, fields)) = &self.answer {
            out.push_str(&format!("answer: {name}\n"));
            if let Some(value) = map.get("value", fields) {
                out.push_str(&format!("  value: {}\n", py_str(&value)));
            }
            out.push_str(&format!("  record: {}\n", Value::Object(fields.clone())));
        }
        if !self.candidates.is_empty() {
            out.push_str(&format!("candidates: {}\n", self.candidates.join(", ")));
        }
        for r in &self.reasons {
            let mut parts = Vec::new();
            if !r.records.is_empty() {
                parts.push(r.records.join(", "));
            }
            if r.withheld > 0 {
                parts.push(format!("{} withheld", r.withheld));
            }
            match parts.is_empty() {
                true => out.push_str(&format!("reason: {}\n", r.code.name())),
                false => out.push_str(&format!(
                    "reason: {}: {}\n",
                    r.code.name(),
                    parts.join("; ")
                )),
            }
        }
        out.push_str(&format!("withheld: {}\n", self.withheld));
        out
    }
}

impl Answer {
    /// Every record of the concept the caller may read, in store order, with its dates and
    /// what decided it (`--explain`): the timeline's bars, which hold nothing withheld.
    pub fn explained_json(&self) -> Value {
        let records: Vec<Value> = self
            .timeline
            .iter()
            .map(|bar| {
                json!({
                    "record_id": bar.id,
                    "line": bar.line,
                    "valid_from": bar.from.as_ref().map(|(_, text)| text),
                    "valid_to": match &bar.to {
                        End::Open => None,
                        End::At(_, text) | End::Unreadable(text) => Some(text),
                    },
                    "concept_owner": bar.owner,
                    "supersedes": bar.supersedes,
                    "holds": bar.holds,
                    "reasons": bar.marks,
                })
            })
            .collect();
        Value::Array(records)
    }

    /// [`Answer::explained_json`] for people: a line a record, its columns aligned.
    pub fn explained_human(&self) -> String {
        let rows: Vec<[String; 4]> = self
            .timeline
            .iter()
            .map(|bar| {
                let from = bar.from.as_ref().map_or("?", |(_, text)| text.as_str());
                let to = match &bar.to {
                    End::Open => "open",
                    End::At(_, text) | End::Unreadable(text) => text.as_str(),
                };
                let decided = match (bar.holds, bar.marks.is_empty()) {
                    (true, _) => "holds".to_string(),
                    (false, true) => "-".to_string(),
                    (false, false) => bar.marks.join(", "),
                };
                let owner = match bar.owner.is_empty() {
                    true => "-".to_string(),
                    false => bar.owner.clone(),
                };
                [bar.id.clone(), format!("{from} .. {to}"), owner, decided]
            })
            .collect();
        let mut out = format!(
            "records the caller may read: {} (id, valid, owner, what decided it)\n",
            rows.len()
        );
        let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
        let widths = [width(0), width(1), width(2)];
        for [id, valid, owner, decided] in &rows {
            out.push_str(&format!(
                "  {id:<w0$}  {valid:<w1$}  {owner:<w2$}  {decided}\n",
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2]
            ));
        }
        out
    }
}

/// The readable records of `all` as bars: dates as written, the reasons raised about each,
/// the `winner` marked as the one that holds; supersedes pointers to withheld records left
/// out, as [`without_pointers_to`] leaves them out of the answer.
fn drawn(map: &FieldMap, all: &[Candidate], reasons: &Reasons, winner: Option<usize>) -> Vec<Bar> {
    let withheld: HashSet<&str> = all
        .iter()
        .filter(|c| !c.access.readable())
        .filter_map(|c| c.id.as_deref())
        .collect();
    let text = |c: &Candidate, role: &str| map.get(role, &c.record.fields).map(|v| py_str(&v));
    all.iter()
        .enumerate()
        .filter(|(_, c)| c.access.readable())
        .map(|(i, c)| {
            let to = match (&c.dates.to, text(c, "valid_to")) {
                (Some(Some(t)), Some(written)) => End::At(seconds(t), written),
                (None, Some(written)) if written != "None" => End::Unreadable(written),
                _ => End::Open,
            };
            let mut supersedes: Vec<String> = Vec::new();
            if let Some(v) = map.get("supersedes", &c.record.fields) {
                let mut ids = HashSet::new();
                crate::record::collect_ids(&v, &mut ids);
                supersedes.extend(ids.into_iter().filter(|id| !withheld.contains(id.as_str())));
                supersedes.sort();
            }
            Bar {
                id: c.name.clone(),
                line: c.record.origin.line,
                from: c
                    .dates
                    .from
                    .as_ref()
                    .and_then(|t| Some((seconds(t), text(c, "valid_from")?))),
                to,
                owner: text(c, "concept_owner").unwrap_or_default(),
                supersedes,
                conflict: reasons
                    .0
                    .get(&Code::ConflictUnresolved)
                    .is_some_and(|r| r.contains(&i)),
                holds: winner == Some(i),
                marks: reasons
                    .0
                    .iter()
                    .filter(|(_, r)| r.contains(&i))
                    .map(|(code, _)| code.name().to_string())
                    .collect(),
            }
        })
        .collect()
}

/// The record's fields, with any supersedes pointer to a withheld record taken out, wherever
/// the map reads supersedes (a key, a key inside an object, a list written in a string).
fn without_pointers_to(
    map: &FieldMap,
    fields: &Map<String, Value>,
    withheld: &HashSet<&str>,
) -> Map<String, Value> {
    let mut fields = fields.clone();
    if withheld.is_empty() {
        return fields;
    }
    let path = map
        .inverse_path("supersedes")
        .unwrap_or_else(|| map.path("supersedes").into_owned());
    path.remove_values(&mut fields, &|v: &Value| {
        !v.is_null() && withheld.contains(py_str(v).as_str())
    });
    fields
}
