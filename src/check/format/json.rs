//! The `vercy-check/1` JSON report, written by hand into a byte buffer as it is made: the
//! object's one definition (the MCP tool reads these bytes back for its full detail), laid out
//! as serde_json's pretty printer with one space a level lays out a value (a test holds it to
//! that).
//!
//! Why by hand: a messy store's report names a record hundreds of thousands of times, and
//! through serde every key, bracket and indent of each was a call through `dyn Write` into a
//! small buffer. Here the long lists (offenders, warnings, their records) are cut into pieces
//! rendered on every core, each into its own buffer, and written in order; strings without
//! anything to escape are copied whole, and the records' names are looked up a batch ahead of
//! writing, so the lookups into the ids (spread over the whole store) overlap instead of
//! waiting one by one. Names in the temporary file are read for a window of pieces at once,
//! in the order they lie there (`index/names.rs`'s `read_together`). The small values (the
//! mapping, the register, what the next level needs) still go through serde.
//!
//! Memory: the buffer holds a chunk (and at most one item more), and a window of pieces is in
//! flight ([`WINDOW`] × [`PIECE`] items, and their records' names when read together),
//! whatever the report's size.

use super::super::report::{
    read_together, BookAhead, Finding, NamesAhead, Report, Warning, Warnings,
};
use crate::profile::Profile;
use crate::python::json::needs_no_escape as plain;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Write};

/// The buffer goes out when it holds this much: large enough that writing costs few calls,
/// small enough to leave a report's memory to the report.
const CHUNK: usize = 1 << 17;

/// The items of a long list rendered together on one core (see [`Json::pieces`]) ...
const PIECE: usize = 1 << 13;
/// ... and the pieces rendered at once: a few a core, so a core that finishes early takes
/// another.
const WINDOW: usize = 8;
/// What a window of pieces may hold, about, in bytes: each item's name read back and its
/// rendering. Pieces of long names have fewer items (see [`piece_for`]): a window of
/// records named by 250-byte ids held about 40 MB in pieces of [`PIECE`].
const WINDOW_BYTES: usize = 8 << 20;
/// An item's rendering besides its name, about (a warning's record: its braces, keys, line
/// and indents).
const ITEM_BYTES: usize = 64;

/// The items a piece renders when its records' names take `mean` bytes on average: at most
/// [`PIECE`], and fewer when a window of them would hold more than [`WINDOW_BYTES`].
fn piece_for(mean: usize) -> usize {
    let item = mean.saturating_mul(2).saturating_add(ITEM_BYTES);
    (WINDOW_BYTES / WINDOW / item).clamp(1, PIECE)
}

/// The pieces the next window takes, after one of `took` pieces rendered `bytes`: twice as
/// many (up to [`WINDOW`]) while a window renders at most half [`WINDOW_BYTES`] (as much
/// again is held of its names read back), half as many (one at the least) past all of it,
/// as many between (a window of pieces sized by [`piece_for`] renders about half). Pieces are
/// sized by the mean name, and the records a list names can all be the long ones of a store:
/// a tenth of its records named by 3,000-byte ids, and the warning that names that tenth.
fn next_window(took: usize, bytes: usize) -> usize {
    if bytes > WINDOW_BYTES {
        (took / 2).max(1)
    } else if bytes <= WINDOW_BYTES / 2 {
        took.saturating_mul(2).clamp(1, WINDOW)
    } else {
        took.clamp(1, WINDOW)
    }
}

/// Write `reports` as the `vercy-check/1` object (one report) or an array of them, then a
/// newline.
pub fn write(reports: &[Report], out: &mut dyn Write) -> io::Result<()> {
    write_in_pieces(reports, out, PIECE)
}

/// [`write`], the long lists rendered `piece` items at a time.
fn write_in_pieces(reports: &[Report], out: &mut dyn Write, piece: usize) -> io::Result<()> {
    let mut w = Json {
        buf: Vec::with_capacity(CHUNK + (CHUNK >> 3)),
        out: Some(out),
        piece,
    };
    match reports {
        [one] => w.report(one, 0)?,
        many => {
            w.buf.push(b'[');
            for (i, r) in many.iter().enumerate() {
                w.item(i == 0, 1);
                w.report(r, 1)?;
            }
            w.close(!many.is_empty(), 0, b']');
        }
    }
    w.buf.push(b'\n');
    w.flush()
}

/// The bytes JSON writes for each byte of a string, as serde_json's table has them: 0 the
/// byte itself, `u` a `\u00XX` escape, anything else a backslash and that letter.
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0A] = b'n';
    t[0x0C] = b'f';
    t[0x0D] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// One space a level, as the report has always been indented.
const SPACES: &[u8; 32] = b"                                ";

struct Json<'w> {
    buf: Vec<u8>,
    /// Where the buffer goes; `None` for a piece rendered on another core, which keeps all it
    /// renders for the report's writer.
    out: Option<&'w mut dyn Write>,
    /// The items of a long list rendered together ([`PIECE`]; fewer in tests).
    piece: usize,
}

impl Json<'_> {
    /// Send the buffer on once it holds a chunk.
    #[inline]
    fn spill(&mut self) -> io::Result<()> {
        if self.buf.len() >= CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(out) = &mut self.out {
            out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// A long list, its items rendered on every core: `pieces` (runs of consecutive items)
    /// a window at a time, each piece into its own buffer by `render`, then written in order.
    /// The names a list gives its records are read at random places over the whole store,
    /// and two cores wait out those cache misses side by side.
    ///
    /// Memory: a window of pieces, whatever the list's length (see [`piece_for`]).
    fn pieces<P: Send + Sync>(
        &mut self,
        pieces: impl Iterator<Item = P>,
        render: impl Fn(&mut Json, P) + Sync,
    ) -> io::Result<()> {
        let ready = |_: &P| ();
        self.pieces_readied(pieces, (ready, |_: &mut [()]| {}), |json, piece, ()| {
            render(json, piece);
        })
    }

    /// [`Self::pieces`], each window's pieces first readied on every core by `ready`, then
    /// together by `together` (what the pieces of a window read from one place is read
    /// once for all of them), and rendered with what they were readied with.
    fn pieces_readied<P: Send + Sync, R: Send>(
        &mut self,
        pieces: impl Iterator<Item = P>,
        (ready, mut together): (impl Fn(&P) -> R + Sync, impl FnMut(&mut [R])),
        render: impl Fn(&mut Json, P, R) + Sync,
    ) -> io::Result<()> {
        let mut pieces = pieces.peekable();
        // the buffers of the last window's pieces, rendered into again: new ones for every
        // window were grown from nothing and their pages taken afresh from the system
        let mut spare: Vec<Vec<u8>> = Vec::new();
        // a piece a core first, then as many as the bytes rendered allow (see `next_window`)
        let mut take = next_window(1, 0);
        while pieces.peek().is_some() {
            let window: Vec<P> = pieces.by_ref().take(take).collect();
            let mut readied: Vec<R> = window.par_iter().map(&ready).collect();
            together(&mut readied);
            let bufs: Vec<Vec<u8>> = window
                .iter()
                .map(|_| spare.pop().unwrap_or_default())
                .collect();
            let rendered: Vec<Vec<u8>> = window
                .into_par_iter()
                .zip(readied)
                .zip(bufs)
                .map(|((piece, readied), buf)| {
                    let mut json = Json {
                        buf,
                        out: None,
                        piece: self.piece,
                    };
                    render(&mut json, piece, readied);
                    json.buf
                })
                .collect();
            take = next_window(take, rendered.iter().map(Vec::len).sum());
            for mut piece in rendered {
                match &mut self.out {
                    // a large piece goes out as it is, not copied into the buffer first
                    Some(out) if piece.len() >= CHUNK / 2 => {
                        out.write_all(&self.buf)?;
                        self.buf.clear();
                        out.write_all(&piece)?;
                    }
                    _ => {
                        self.buf.extend_from_slice(&piece);
                        self.spill()?;
                    }
                }
                piece.clear();
                spare.push(piece);
            }
            // a smaller window: the buffers it will not use go, with the room they took
            spare.truncate(take);
        }
        Ok(())
    }

    #[inline]
    fn indent(&mut self, level: usize) {
        let mut left = level;
        while left > 0 {
            let n = left.min(SPACES.len());
            self.buf.extend_from_slice(&SPACES[..n]);
            left -= n;
        }
    }

    /// Before an item of a list or a key of an object whose members are at `level`.
    #[inline]
    fn item(&mut self, first: bool, level: usize) {
        self.buf
            .extend_from_slice(if first { b"\n" } else { b",\n" });
        self.indent(level);
    }

    /// A key of an object whose keys are at `level` (a key of the report: nothing in it is
    /// escaped).
    #[inline]
    fn key(&mut self, first: bool, level: usize, key: &str) {
        debug_assert!(plain(key.as_bytes()));
        self.item(first, level);
        self.buf.push(b'"');
        self.buf.extend_from_slice(key.as_bytes());
        self.buf.extend_from_slice(b"\": ");
    }

    /// The end of a list or object whose opening line is at `level` (`any`: it has members).
    #[inline]
    fn close(&mut self, any: bool, level: usize, bracket: u8) {
        if any {
            self.buf.push(b'\n');
            self.indent(level);
        }
        self.buf.push(bracket);
    }

    /// A string, escaped as serde_json escapes it; a run with nothing to escape is copied
    /// whole.
    #[inline]
    fn string(&mut self, s: &str) {
        let bytes = s.as_bytes();
        self.buf.reserve(bytes.len() + 2);
        self.buf.push(b'"');
        if plain(bytes) {
            self.buf.extend_from_slice(bytes);
            self.buf.push(b'"');
            return;
        }
        let mut run = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let escape = ESCAPE[b as usize];
            if escape == 0 {
                continue;
            }
            self.buf.extend_from_slice(&bytes[run..i]);
            if escape == b'u' {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.buf.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[(b >> 4) as usize],
                    HEX[(b & 0xF) as usize],
                ]);
            } else {
                self.buf.extend_from_slice(&[b'\\', escape]);
            }
            run = i + 1;
        }
        self.buf.extend_from_slice(&bytes[run..]);
        self.buf.push(b'"');
    }

    #[inline]
    fn number(&mut self, n: u64) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut left = n;
        loop {
            at -= 1;
            digits[at] = b'0' + (left % 10) as u8;
            left /= 10;
            if left == 0 {
                break;
            }
        }
        self.buf.extend_from_slice(&digits[at..]);
    }

    fn boolean(&mut self, b: bool) {
        self.buf
            .extend_from_slice(if b { b"true" } else { b"false" });
    }

    /// A list of strings whose opening bracket is on a line at `level`, written out as it
    /// grows.
    fn strings(&mut self, level: usize, items: &[String]) -> io::Result<()> {
        self.buf.push(b'[');
        for (i, item) in items.iter().enumerate() {
            self.item(i == 0, level + 1);
            self.string(item);
            self.spill()?;
        }
        self.close(!items.is_empty(), level, b']');
        Ok(())
    }

    /// A small value through serde_json, starting on a line at `level`: its lines after the
    /// first are indented by `level` more (a JSON text has a newline only between tokens, so
    /// every newline of it is an indent's).
    fn value(&mut self, level: usize, v: &impl Serialize) -> io::Result<()> {
        let mut text = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
        v.serialize(&mut serde_json::Serializer::with_formatter(
            &mut text, formatter,
        ))?;
        for line in text.split_inclusive(|&b| b == b'\n') {
            self.buf.extend_from_slice(line);
            if line.ends_with(b"\n") {
                self.indent(level);
            }
        }
        Ok(())
    }

    /// One report, its opening brace where the cursor is, on a line at `level`: the
    /// reference's keys in the reference's order, then vercy's.
    fn report(&mut self, r: &Report, level: usize) -> io::Result<()> {
        let profile = Profile::embedded();
        let piece = self.piece.min(piece_for(r.warnings.mean_name_len()));
        let k = level + 1;
        self.buf.push(b'{');
        self.key(true, k, "report");
        self.string("vercy-check/1");
        self.key(false, k, "profile");
        self.string(&profile.overlay);
        self.key(false, k, "profile_version");
        self.string(&profile.version);
        self.key(false, k, "scope");
        self.string(&profile.checker.scope);
        self.key(false, k, "scope_note");
        self.string(&profile.checker.scope_note);
        self.key(false, k, "records");
        self.number(r.records as u64);
        self.key(false, k, "level");
        self.number(r.level.into());
        self.key(false, k, "min_level");
        self.number(r.min_level.into());
        self.key(false, k, "pass");
        self.boolean(r.pass);
        self.key(false, k, "mapping");
        self.value(k, &r.mapping.to_json())?;
        self.key(false, k, "policy_outside_records");
        self.boolean(r.policy_outside_records);
        self.key(false, k, "findings");
        self.buf.push(b'[');
        for (i, f) in r.findings.iter().enumerate() {
            self.item(i == 0, k + 1);
            self.finding(f, k + 1, piece)?;
        }
        self.close(!r.findings.is_empty(), k, b']');
        self.key(false, k, "store");
        self.string(&r.store);
        self.key(false, k, "shape");
        self.string(&r.shape.name());
        self.key(false, k, "strict");
        self.boolean(r.strict);
        self.key(false, k, "reference_level");
        self.number(r.reference_level.into());
        self.key(false, k, "warnings");
        self.warnings(r, k, piece)?;
        self.key(false, k, "expected_concepts");
        match &r.expected_concepts {
            None => self.buf.extend_from_slice(b"null"),
            // as `json!({"experimental": true, "register": …, "missing": …})` writes it, the
            // lists written as they are read: a register can name every concept of a store
            Some((register, missing)) => {
                self.buf.push(b'{');
                self.key(true, k + 1, "experimental");
                self.boolean(true);
                self.key(false, k + 1, "register");
                self.strings(k + 1, register)?;
                self.key(false, k + 1, "missing");
                self.strings(k + 1, missing)?;
                self.close(true, k, b'}');
            }
        }
        self.key(false, k, "next_level");
        let next = match r.next_level() {
            None => Value::Null,
            Some((level, needs)) => serde_json::json!({"level": level, "needs": needs}),
        };
        self.value(k, &next)?;
        self.close(true, level, b'}');
        self.spill()
    }

    /// A finding with every offender, as the reference writes it, `piece` of them rendered
    /// together.
    fn finding(&mut self, f: &Finding, level: usize, piece: usize) -> io::Result<()> {
        let k = level + 1;
        self.buf.push(b'{');
        self.key(true, k, "field");
        self.string(&f.field);
        self.key(false, k, "requirement");
        self.string(&f.requirement);
        self.key(false, k, "count");
        self.number(f.offenders.len() as u64);
        self.key(false, k, "offenders");
        self.buf.push(b'[');
        let mut before = b",\n".to_vec();
        before.extend(std::iter::repeat_n(b' ', k + 1));
        let count = f.offenders.len();
        let piece = piece.max(1);
        let pieces = (0..count)
            .step_by(piece)
            .map(|from| from..count.min(from.saturating_add(piece)));
        self.pieces(pieces, |json, range| {
            let first = range.start;
            for (i, name) in (first..).zip(f.offenders.range(range)) {
                let before = before.get(usize::from(i == 0)..).unwrap_or_default();
                json.buf.extend_from_slice(before);
                json.string(&name);
            }
        })?;
        self.close(count > 0, k, b']');
        self.close(true, level, b'}');
        Ok(())
    }

    /// The list of warnings, each with its count and every record it names, the list opening
    /// where the cursor is on a line at `level`; `piece` records rendered together.
    fn warnings(&mut self, r: &Report, level: usize, piece: usize) -> io::Result<()> {
        let k = level + 1;
        let frame = RecordFrame::at(k + 3);
        self.buf.push(b'[');
        let warnings = &r.warnings;
        let pieces = WarningPieces {
            warnings,
            at: (0, 0),
            steps: piece.max(1),
        };
        // the names of a piece's records are read before it is rendered, those in the
        // temporary file with the rest of the window's
        let ready = |&(from, to): &((usize, usize), (usize, usize))| {
            let mut names = warnings.names_ahead();
            if let Some((lo, hi)) = who_range(warnings, (from, to)) {
                names.hold(lo, hi);
            }
            names
        };
        let together = |names: &mut [NamesAhead]| read_together(names);
        self.pieces_readied(pieces, (ready, together), |json, (from, to), mut names| {
            let mut book = BookAhead::default();
            // `to` may be just past the last warning: `get` ends the loop there
            for i in from.0..=to.0 {
                let Some(w) = warnings.get(i) else { break };
                let first = if i == from.0 { from.1 } else { 0 };
                let end = if i == to.0 { to.1 } else { w.count() + 2 };
                for step in first..end {
                    let ahead = (&mut names, &mut book);
                    json.warning_step(&w, i, step, k, ahead, &frame);
                }
            }
        })?;
        self.close(!warnings.is_empty(), level, b']');
        Ok(())
    }

    /// One step of the warning `w` (the `i`th, on a line at `level`): 0 its opening, up to
    /// its list of records; 1 to its count, each record (its name the next of `names`); one
    /// more, its end. `frame` is what goes around each record; `book` reads its message's
    /// concept, for the warnings of a concept's owners.
    fn warning_step<'a>(
        &mut self,
        w: &Warning<'a>,
        i: usize,
        step: usize,
        level: usize,
        (names, book): (&mut NamesAhead<'a>, &mut BookAhead),
        frame: &RecordFrame,
    ) {
        let k = level + 1;
        let count = w.count();
        if step == 0 {
            self.item(i == 0, level);
            self.buf.push(b'{');
            self.key(true, k, "code");
            self.string(w.code.code());
            self.key(false, k, "field");
            self.string(w.code.field());
            self.key(false, k, "message");
            self.string(&w.message_through(Some(book)));
            self.key(false, k, "caps_level");
            self.number(w.code.caps_level().into());
            self.key(false, k, "count");
            self.number(count as u64);
            self.key(false, k, "records");
            self.buf.push(b'[');
        } else if step <= count {
            let (name, line) = w.record(step - 1, names);
            let open = frame.open.get(usize::from(step == 1)..).unwrap_or_default();
            self.buf.extend_from_slice(open);
            self.string(&name);
            self.buf.extend_from_slice(&frame.middle);
            self.number(line);
            self.buf.extend_from_slice(&frame.close);
        } else {
            self.close(count > 0, k, b']');
            self.close(true, level, b'}');
        }
    }
}

/// Where the records the steps `from..to` of the warnings write (see
/// [`Json::warning_step`]) lie among the records named by `who`: from the first to the last
/// (the warnings between keep theirs there too, or none).
fn who_range(
    warnings: &Warnings,
    (from, to): ((usize, usize), (usize, usize)),
) -> Option<(usize, usize)> {
    let (mut lo, mut hi) = (usize::MAX, 0);
    for i in from.0..=to.0 {
        let Some(w) = warnings.get(i) else { break };
        let first = if i == from.0 { from.1 } else { 0 };
        let end = if i == to.0 { to.1 } else { w.count() + 2 };
        // step s writes record s - 1
        if let Some((a, b)) = w.who_range((first.saturating_sub(1), end.saturating_sub(1))) {
            lo = lo.min(a);
            hi = hi.max(b);
        }
    }
    (lo < hi).then_some((lo, hi))
}

/// The warnings cut into pieces of `steps` steps (see [`Json::warning_step`]: a warning's
/// opening, each of its records, its end), each piece from one place to the next: a warning
/// and a step of it. A warning that names half the store is cut like the rest.
struct WarningPieces<'a> {
    warnings: &'a Warnings,
    at: (usize, usize),
    steps: usize,
}

impl Iterator for WarningPieces<'_> {
    type Item = ((usize, usize), (usize, usize));

    fn next(&mut self) -> Option<Self::Item> {
        let from = self.at;
        let mut left = self.steps;
        while left > 0 {
            let Some(w) = self.warnings.get(self.at.0) else {
                break;
            };
            let steps = w.count() + 2;
            let take = (steps - self.at.1).min(left);
            left -= take;
            self.at.1 += take;
            if self.at.1 == steps {
                self.at = (self.at.0 + 1, 0);
            }
        }
        (self.at != from).then_some((from, self.at))
    }
}

/// The bytes around each record of a warning's list, at its depth, made once for the
/// report: `,` newline, indent, `{`, newline, indent, `"record": ` (the first record skips
/// the comma); then `,` newline, indent, `"line": `; then newline, indent, `}`.
struct RecordFrame {
    open: Vec<u8>,
    middle: Vec<u8>,
    close: Vec<u8>,
}

impl RecordFrame {
    /// For records whose keys are at `level` (their braces one less).
    fn at(level: usize) -> RecordFrame {
        let indent = |n: usize| std::iter::repeat_n(b' ', n);
        let outer = level.saturating_sub(1);
        let mut open = b",\n".to_vec();
        open.extend(indent(outer));
        open.extend_from_slice(b"{\n");
        open.extend(indent(level));
        open.extend_from_slice(b"\"record\": ");
        let mut middle = b",\n".to_vec();
        middle.extend(indent(level));
        middle.extend_from_slice(b"\"line\": ");
        let mut close = b"\n".to_vec();
        close.extend(indent(outer));
        close.push(b'}');
        RecordFrame {
            open,
            middle,
            close,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(s: &str) -> String {
        let mut w = Json {
            buf: Vec::new(),
            out: None,
            piece: PIECE,
        };
        w.string(s);
        String::from_utf8(w.buf).unwrap_or_default()
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut cases: Vec<String> = (0u32..0x80)
            .filter_map(char::from_u32)
            .map(|c| format!("a{c}b"))
            .collect();
        cases.extend(
            [
                "",
                "R-0000001",
                "\"",
                "\\",
                "\\\"\\",
                "tab\there\r\n",
                "\u{0}\u{1f}\u{7f}",
                "é ü 中文 🙂",
                "line\u{2028}sep\u{2029}",
                "\u{85}\u{a0}\u{feff}",
                "ends with \\",
            ]
            .map(String::from),
        );
        for s in &cases {
            assert_eq!(
                escaped(s),
                serde_json::to_string(s).unwrap_or_default(),
                "{s:?}"
            );
        }
    }

    /// A store with something of every kind to report, names that need escaping among them.
    const MESSY: &str = concat!(
        r#"{"record_id": "R-1", "concept": "c1", "concept_owner": "a", "valid_from": "2021-01-01", "valid_to": null, "conflict_policy": "newest wins", "expected_concepts": ["c1", "gone"]}"#,
        "\n",
        r#"{"record_id": "R-2\"q\\", "concept": "c1", "concept_owner": "b", "valid_from": "2021-13-45", "valid_to": "2020-01-01", "supersedes": "R-3"}"#,
        "\n",
        r#"{"record_id": "R-3\u0001\t", "concept": "c1", "concept_owner": "c\u2028", "valid_from": "2021-02-01", "valid_to": null, "supersedes": "R-2\"q\\", "release_to": "é 中"}"#,
        "\n",
        r#"{"record_id": "R-1", "concept": "c2", "concept_owner": "a", "valid_from": "2020-05-01", "valid_to": "2021-05-01", "supersedes": "X-9", "rule": "r", "conflict_policy": "owner decides"}"#,
        "\n",
        r#"{"concept": "c2", "concept_owner": "d", "valid_from": 1600000000000, "valid_to": null, "classification": "secret"}"#,
        "\n",
    );

    /// The bytes serde_json's pretty printer (one space a level) gives the value `written`
    /// holds: the layout the report has always had.
    fn through_serde(written: &[u8]) -> Vec<u8> {
        let value: Value = match serde_json::from_slice(written) {
            Ok(v) => v,
            Err(e) => panic!("the report is JSON: {e}"),
        };
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b" ");
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        assert!(value.serialize(&mut ser).is_ok());
        out.push(b'\n');
        out
    }

    fn report(text: &str, strict: bool) -> Report {
        let opts = crate::check::Options {
            map: crate::mapping::FieldMap::identity(),
            map_given: false,
            policy_outside_records: false,
            min_level: 2,
            strict,
            expected: vec!["c2".into(), "nowhere".into()],
            memory: crate::spill::DEFAULT_MEMORY,
        };
        let input =
            crate::store::Input::from_bytes("dir/st\"ore\u{7}.jsonl", text.as_bytes().to_vec());
        match crate::check::check_store(&input, &opts) {
            Ok(r) => r,
            Err(e) => panic!("the test store reads: {e}"),
        }
    }

    #[test]
    fn reports_are_laid_out_as_serde_json_lays_out_their_value() {
        let clean = concat!(
            r#"{"record_id": "A", "valid_from": "2021-01-01", "valid_to": null}"#,
            "\n"
        );
        // large enough that the buffer goes out in several chunks
        let many: String = (0..6000)
            .map(|i| {
                format!(
                    r#"{{"record_id": "R-{}", "concept": "c{}", "concept_owner": "o{}", "valid_from": "2021-01-01", "valid_to": null}}"#,
                    i % 5900,
                    i % 1000,
                    i % 7
                ) + "\n"
            })
            .collect();
        let cases = [
            vec![report(MESSY, false)],
            vec![report(&many, false)],
            vec![report(MESSY, true)],
            vec![report(clean, false)],
            vec![report("", false)],
            vec![report(MESSY, false), report(clean, true), report("", false)],
            vec![],
        ];
        for reports in &cases {
            assert!(reports
                .iter()
                .all(|r| r.findings.len() + r.warnings.len() > 0 || r.records < 2));
            let mut out = Vec::new();
            assert!(write(reports, &mut out).is_ok());
            assert_eq!(
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&through_serde(&out))
            );
            // one object, or an array of as many as were given, each with its report's lists
            let value: Value = serde_json::from_slice(&out).unwrap_or_default();
            let objects = match (&value, reports.len()) {
                (Value::Object(_), 1) => vec![&value],
                (Value::Array(a), n) if a.len() == n && n != 1 => a.iter().collect(),
                _ => panic!("{} reports written as {value}", reports.len()),
            };
            // (the keys and their order: tests/cli's snapshot of check --json)
            for (o, r) in objects.iter().zip(reports) {
                assert_eq!(o["records"], r.records);
                assert_eq!(
                    o["findings"].as_array().map(Vec::len),
                    Some(r.findings.len())
                );
                assert_eq!(
                    o["warnings"].as_array().map(Vec::len),
                    Some(r.warnings.len())
                );
            }
        }
        let messy = report(MESSY, false);
        assert!(messy.warnings.len() >= 5, "{:?}", messy.warnings.groups());
    }

    /// Rendered in pieces on several cores, a report is the same bytes however its lists are
    /// cut: inside a warning's records, between warnings, inside a finding's offenders.
    #[test]
    fn reports_are_the_same_however_their_lists_are_cut() {
        let many: String = (0..300)
            .map(|i| {
                format!(
                    r#"{{"record_id": "R-{}", "concept": "c{}", "concept_owner": "o{}", "valid_from": "2021-0{}-01", "valid_to": null, "value": {}}}"#,
                    i % 290,
                    i % 40,
                    i % 3,
                    1 + i % 9,
                    i % 7
                ) + "\n"
            })
            .collect();
        let reports = [report(MESSY, true), report(&many, false)];
        let written = |piece: usize| {
            let mut out = Vec::new();
            assert!(write_in_pieces(&reports, &mut out, piece).is_ok());
            String::from_utf8_lossy(&out).into_owned()
        };
        let whole = written(usize::MAX);
        let value: Value = serde_json::from_str(&whole).unwrap_or_default();
        // a warning with many records, and a finding with many offenders, to cut
        let longest = |list: &str, key: &str| {
            value[1][list]
                .as_array()
                .into_iter()
                .flatten()
                .map(|v| v[key].as_array().map_or(0, Vec::len))
                .max()
        };
        assert!(longest("warnings", "records") > Some(20), "{whole}");
        assert!(longest("findings", "offenders") > Some(200), "{whole}");
        for piece in [1, 2, 3, 5, 8, 64, PIECE] {
            assert!(written(piece) == whole, "cut every {piece}");
        }
    }

    /// A window holds about as many bytes whatever the length of its records' names: short
    /// names fill whole pieces, long ones fewer items a piece, and a name past the window's
    /// room one item a piece.
    #[test]
    fn a_window_holds_about_as_many_bytes_whatever_the_names() {
        assert_eq!(piece_for(0), PIECE);
        assert_eq!(piece_for("R-0000001".len()), PIECE);
        for mean in [40, 73, 250, 3_000] {
            let window = WINDOW * piece_for(mean) * (2 * mean + ITEM_BYTES);
            assert!(
                window <= WINDOW_BYTES,
                "{mean}-byte names: {window} bytes a window"
            );
            assert!(
                2 * window > WINDOW_BYTES,
                "{mean}-byte names: {window} bytes a window"
            );
        }
        assert_eq!(piece_for(WINDOW_BYTES), 1);
        assert_eq!(piece_for(usize::MAX), 1);
    }

    /// A window starts at a piece a core, grows to [`WINDOW`] pieces while they render
    /// little, and shrinks to one when they render much (names far longer than the mean).
    #[test]
    fn a_window_takes_as_many_pieces_as_their_bytes_allow() {
        let mut take = next_window(1, 0);
        assert_eq!(take, 2);
        let mut seen = vec![take];
        let (little, about_half, much) = (1 << 20, 6 << 20, 40 << 20);
        for bytes in [little, little, little, about_half, much, much, much, much] {
            take = next_window(take, bytes);
            seen.push(take);
        }
        seen.extend([next_window(1, about_half), next_window(1, little)]);
        assert_eq!(seen, [2, 4, 8, 8, 8, 4, 2, 1, 1, 1, 2]);
    }

    proptest::proptest! {
        #[test]
        fn any_string_is_escaped_as_serde_json_escapes_it(s in "\\PC*|[\\x00-\\x7f]*") {
            proptest::prop_assert_eq!(escaped(&s), serde_json::to_string(&s).unwrap_or_default());
        }

        #[test]
        fn plain_is_nothing_to_escape(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            let expected = bytes.iter().all(|&b| ESCAPE[usize::from(b)] == 0);
            proptest::prop_assert_eq!(plain(&bytes), expected);
        }

        #[test]
        fn numbers_are_written_as_serde_json_writes_them(n in proptest::num::u64::ANY) {
            let mut w = Json { buf: Vec::new(), out: None, piece: PIECE };
            w.number(n);
            proptest::prop_assert_eq!(w.buf, n.to_string().into_bytes());
        }
    }
}
