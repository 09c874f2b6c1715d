//! The host file: the only source of authority for `resolve` (DESIGN.md, "resolve").
//!
//! ```yaml
//! owners: {data_retention: legal}   # the ownership register: concept -> principal
//! writers: writes.jsonl             # the write log, relative to this file
//! policy: [later_valid_from]        # rules tried in order between two records
//! audiences: {finance: [board]}     # the audiences a party belongs to (it is always its own)
//! unrestricted: withheld            # withheld (default) | public
//! ```
//!
//! Every key, value and path is checked when the file is read, and a mistake is a diagnostic
//! naming the host file's line and column: a host that half-reads its authority would answer
//! with a guess. Nothing here is ever taken from the records or from a tool's arguments.

use crate::error::{Position, Result, Snippet, VercyError};
use crate::record::{is_filled, py_str};
use crate::store::{self, Input};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// A rule of the conflict policy: each decides between two records, or does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The later valid_from prevails; equal or unknown: undecided.
    LaterValidFrom,
    /// The later `recorded_at` (transaction time) prevails; equal or unknown: undecided.
    LaterRecorded,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::LaterValidFrom => "later_valid_from",
            Rule::LaterRecorded => "later_recorded",
        }
    }
}

/// How a record without `release_to` is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unrestricted {
    /// The profile's reading: absence is never permission; released to nobody.
    #[default]
    Withheld,
    /// The contract's reading: only a record with a restriction marker is restricted.
    Public,
}

/// The host file, as written (checked while it is read).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HostFile {
    owners: Unique<Name, Name>,
    writers: Name,
    #[serde(default)]
    policy: Policy,
    #[serde(default)]
    audiences: Unique<Name, Parties>,
    #[serde(default)]
    unrestricted: Unrestricted,
}

/// The host's configuration, checked.
#[derive(Debug, Clone)]
pub struct Host {
    /// The host file, for messages.
    pub path: String,
    owners: BTreeMap<String, String>,
    /// The write log's path, resolved against the host file's folder.
    pub writers: PathBuf,
    pub policy: Vec<Rule>,
    audiences: BTreeMap<String, Vec<String>>,
    pub unrestricted: Unrestricted,
}

impl Host {
    /// Read and check a host file; the write log must exist (it is read per question, see
    /// [`Host::writers_of`], so it may grow while a server runs).
    pub fn load(path: &str) -> Result<Host> {
        let text = std::fs::read_to_string(path).map_err(|e| VercyError::Read {
            path: path.to_string(),
            reason: crate::error::io_reason(&e),
        })?;
        Host::parse(path, &text)
    }

    pub fn parse(path: &str, text: &str) -> Result<Host> {
        let file: HostFile = serde_yaml::from_str(text).map_err(|e| yaml_error(path, text, &e))?;
        let base = Path::new(path).parent().unwrap_or(Path::new(""));
        let writers = base.join(&file.writers.0);
        let at_writers = |message: String, help: &str| {
            let (line, column) = key_position(text, "writers");
            host_error(path, text, line, column, message, help)
        };
        match std::fs::metadata(&writers) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                return Err(at_writers(
                    format!("writers: {} is not a file", writers.display()),
                    "name the write log, a JSON lines file of {\"record_id\", \"written_by\"}, relative to the host file",
                ))
            }
            Err(e) => {
                return Err(at_writers(
                    format!(
                        "writers: cannot read the write log {}: {}",
                        writers.display(),
                        crate::error::io_reason(&e)
                    ),
                    "name the write log, a JSON lines file of {\"record_id\", \"written_by\"}, relative to the host file",
                ))
            }
        }
        Ok(Host {
            path: path.to_string(),
            owners: file.owners.0.into_iter().map(|(k, v)| (k.0, v.0)).collect(),
            writers,
            policy: file.policy.0,
            audiences: file
                .audiences
                .0
                .into_iter()
                .map(|(k, v)| (k.0, v.0))
                .collect(),
            unrestricted: file.unrestricted,
        })
    }

    /// The principal that owns `concept` in the register.
    pub fn owner_of(&self, concept: &str) -> Option<&str> {
        self.owners.get(concept).map(String::as_str)
    }

    /// The parties a release_to may name for `caller` to read: the caller and its audiences.
    pub fn readers_for<'a>(&'a self, caller: &'a str) -> Vec<&'a str> {
        let mut parties = vec![caller];
        if let Some(more) = self.audiences.get(caller) {
            parties.extend(more.iter().map(String::as_str));
        }
        parties
    }

    /// Who wrote each of `ids`, from the write log (ids absent from the log have no known
    /// writer). Every line of the log is checked; only the ids asked for are kept.
    pub fn writers_of(&self, ids: &HashSet<String>) -> Result<HashMap<String, String>> {
        let name = self.writers.display().to_string();
        let input = Input::new(&name);
        let mut found: HashMap<String, (String, u64)> = HashMap::new();
        store::read_records(&input, &mut |record| {
            let line = record.origin.line;
            let bad = |message: String| {
                let raw = if record.raw.is_empty() {
                    Value::Object(record.fields.clone()).to_string()
                } else {
                    record.raw.to_string()
                };
                line_error(
                    &name,
                    &raw,
                    line,
                    1,
                    message,
                    "each line of the write log is {\"record_id\": \"...\", \"written_by\": \"...\"}",
                )
            };
            let id = match record.fields.get("record_id") {
                Some(v) if is_filled(v) && !v.is_object() && !v.is_array() => py_str(v),
                _ => return Err(bad("the entry has no record_id".into())),
            };
            let writer = match record.fields.get("written_by") {
                Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
                _ => {
                    return Err(bad(format!(
                        "the entry for {id:?} has no written_by (a party)"
                    )))
                }
            };
            if !ids.contains(&id) {
                return Ok(());
            }
            match found.get(&id) {
                Some((earlier, at)) if *earlier != writer => Err(bad(format!(
                    "{id:?} is written by {writer:?} here and by {earlier:?} on line {at}: a record has one writer"
                ))),
                Some(_) => Ok(()),
                None => {
                    found.insert(id, (writer, line));
                    Ok(())
                }
            }
        })?;
        Ok(found.into_iter().map(|(id, (w, _))| (id, w)).collect())
    }
}

/// A diagnostic at `line`:`column` (1-based) of `text`, the file `path`.
fn host_error(
    path: &str,
    text: &str,
    line: u64,
    column: u64,
    message: String,
    help: &str,
) -> VercyError {
    let line_text = text
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("");
    line_error(path, line_text, line, column, message, help)
}

/// A diagnostic at `column` of `line_text`, line `line` of the file `path`.
fn line_error(
    path: &str,
    line_text: &str,
    line: u64,
    column: u64,
    message: String,
    help: &str,
) -> VercyError {
    let byte = line_text
        .char_indices()
        .nth(column.saturating_sub(1) as usize)
        .map_or(line_text.len(), |(i, _)| i);
    let (snippet, span) = Snippet::new(path, line_text, line, byte);
    VercyError::Host {
        path: path.to_string(),
        pos: Position { line, column },
        message,
        help: help.to_string(),
        snippet,
        span,
    }
}

/// A YAML or schema error: the parser's line and column, its message without the position
/// it already appends.
fn yaml_error(path: &str, text: &str, e: &serde_yaml::Error) -> VercyError {
    let (line, column) = e
        .location()
        .map_or((1, 1), |l| (l.line() as u64, l.column() as u64));
    let mut message = e.to_string();
    if let Some(cut) = message.find(" at line ") {
        message.truncate(cut);
    }
    host_error(path, text, line, column, message, HELP)
}

const HELP: &str =
    "the host file's keys are owners (concept: principal), writers (the write log's path), \
policy (a list of later_valid_from, later_recorded), audiences (party: [audience, ...]) and \
unrestricted (withheld or public)";

/// Where a top-level key is written (`key:` at the start of a line), else the file's start.
fn key_position(text: &str, key: &str) -> (u64, u64) {
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix(key) {
            if rest.trim_start().starts_with(':') {
                return (i as u64 + 1, 1);
            }
        }
    }
    (1, 1)
}

/// A name: a string, not blank, without spaces around it (parties and concepts compare
/// exactly, so a stray space would silently match nothing).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Name(String);

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a name (a non-empty string)")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> std::result::Result<Name, E> {
                if s.trim().is_empty() {
                    return Err(E::custom("a name is empty"));
                }
                if s.trim() != s {
                    return Err(E::custom(format!(
                        "{s:?} has spaces around it (names compare exactly)"
                    )));
                }
                Ok(Name(s.to_string()))
            }
        }
        d.deserialize_str(V)
    }
}

/// A list of parties (an audience list).
#[derive(Debug)]
struct Parties(Vec<String>);

impl<'de> Deserialize<'de> for Parties {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let names: Vec<Name> = Vec::deserialize(d)?;
        Ok(Parties(names.into_iter().map(|n| n.0).collect()))
    }
}

/// The policy: rules from the fixed vocabulary, each at most once.
#[derive(Debug, Default)]
struct Policy(Vec<Rule>);

impl<'de> Deserialize<'de> for Policy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Policy;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a list of rules (later_valid_from, later_recorded)")
            }
            fn visit_seq<A: SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<Policy, A::Error> {
                let mut rules = Vec::new();
                while let Some(rule) = seq.next_element::<Rule>()? {
                    if rules.contains(&rule) {
                        return Err(de::Error::custom(format!(
                            "policy: {} is listed twice",
                            rule.name()
                        )));
                    }
                    rules.push(rule);
                }
                Ok(Policy(rules))
            }
        }
        d.deserialize_seq(V)
    }
}

/// A mapping whose keys are each written once (YAML would let a later one win silently).
#[derive(Debug)]
struct Unique<K, V>(BTreeMap<K, V>);

impl<K, V> Default for Unique<K, V> {
    fn default() -> Self {
        Unique(BTreeMap::new())
    }
}

impl<'de, K, V> Deserialize<'de> for Unique<K, V>
where
    K: Deserialize<'de> + Ord + fmt::Debug,
    V: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Vis<K, V>(std::marker::PhantomData<(K, V)>);
        impl<'de, K, V> Visitor<'de> for Vis<K, V>
        where
            K: Deserialize<'de> + Ord + fmt::Debug,
            V: Deserialize<'de>,
        {
            type Value = Unique<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping of names")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                while let Some(key) = map.next_key::<K>()? {
                    if out.contains_key(&key) {
                        return Err(de::Error::custom(format!("{key:?} is written twice")));
                    }
                    let value = map.next_value::<V>()?;
                    out.insert(key, value);
                }
                Ok(Unique(out))
            }
        }
        d.deserialize_map(Vis(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host_in(dir: &Path, yaml: &str) -> Result<Host> {
        std::fs::write(dir.join("writes.jsonl"), "").unwrap();
        let path = dir.join("host.yaml");
        std::fs::write(&path, yaml).unwrap();
        Host::load(path.to_str().unwrap())
    }

    fn error_at(yaml: &str) -> (u64, u64, String) {
        let dir = tempfile::tempdir().unwrap();
        match host_in(dir.path(), yaml) {
            Err(VercyError::Host { pos, message, .. }) => (pos.line, pos.column, message),
            other => panic!("expected a host error, got {other:?}"),
        }
    }

    #[test]
    fn a_good_file_reads_whole() {
        let dir = tempfile::tempdir().unwrap();
        let host = host_in(
            dir.path(),
            "owners:\n  data_retention: legal\nwriters: writes.jsonl\npolicy: [later_valid_from, later_recorded]\naudiences:\n  finance: [board]\nunrestricted: public\n",
        )
        .unwrap();
        assert_eq!(host.owner_of("data_retention"), Some("legal"));
        assert_eq!(host.owner_of("Data_retention"), None);
        assert_eq!(host.policy, [Rule::LaterValidFrom, Rule::LaterRecorded]);
        assert_eq!(host.readers_for("finance"), ["finance", "board"]);
        assert_eq!(host.readers_for("hr"), ["hr"]);
        assert_eq!(host.unrestricted, Unrestricted::Public);
    }

    #[test]
    fn mistakes_name_their_line_and_column() {
        let (line, _, m) =
            error_at("owners: {}\nwriters: writes.jsonl\npolicy: [later_valid_from, newest]\n");
        assert_eq!(line, 3, "{m}");
        assert!(m.contains("newest"), "{m}");
        let (line, col, m) = error_at("owners: {}\nwriters: writes.jsonl\nowner: x\n");
        assert_eq!((line, col), (3, 1), "{m}");
        let (line, _, m) = error_at("owners: {}\nwriters: missing.jsonl\n");
        assert_eq!(line, 2, "{m}");
        let (line, _, m) = error_at("owners:\n  a: legal\n  a: hr\nwriters: writes.jsonl\n");
        assert!(line == 3 || line == 2, "{line} {m}");
        assert!(m.contains("twice"), "{m}");
        let (line, _, m) = error_at("owners:\n  a: \" legal\"\nwriters: writes.jsonl\n");
        assert_eq!(line, 2, "{m}");
        let (_, _, m) = error_at("writers: writes.jsonl\n");
        assert!(m.contains("owners"), "{m}");
        let (line, _, m) = error_at("owners: {}\nwriters: writes.jsonl\nunrestricted: open\n");
        assert_eq!(line, 3, "{m}");
        let (line, _, m) = error_at(
            "owners: {}\nwriters: writes.jsonl\npolicy: [later_recorded, later_recorded]\n",
        );
        assert_eq!(line, 3, "{m}");
        let (line, _, m) =
            error_at("owners: {}\nwriters: writes.jsonl\naudiences:\n  finance: board\n");
        assert_eq!(line, 4, "{m}");
    }
}
