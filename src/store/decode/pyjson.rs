//! JSON as Python's `json.loads` reads it, for the lines serde_json refuses: the reference
//! checker (vercy 0.2.0) reads its stores with `json.loads`, which also takes
//!
//! - the literals `NaN`, `Infinity` and `-Infinity` (held as a number whose text is the
//!   literal: Python's `float('nan')` and `float('inf')`, printed `nan`, `inf`, `-inf`);
//! - a lone surrogate escape (`"\ud800"`), which Rust text cannot hold: it reads as U+FFFD;
//! - nesting as deep as Python's recursion allows (about 990 levels): this parser keeps its
//!   own stack, so [`MAX_DEPTH`] does not depend on the thread's.
//!
//! It is the slow path only: every line goes to the scanner and serde_json first, and what
//! they take this takes with the same value (a property test holds the two to that).

use serde_json::{Map, Number, Value};

/// The deepest nesting read, counted from the record (the record object is level 1). The
/// reference reads about 985 levels and crashes with a RecursionError beyond; vercy reads
/// every store the reference reads and refuses deeper ones with a diagnostic.
pub const MAX_DEPTH: usize = 1000;

/// Why a text is not JSON even to Python, with the byte offset where it went wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub at: usize,
    pub too_deep: bool,
}

/// One open list or object while its items are read.
enum Open {
    List(Vec<Value>),
    Object(Map<String, Value>, String),
}

/// `text` as `json.loads(text)` reads it (JSON whitespace only around the value).
pub fn parse(text: &str) -> Result<Value, Refused> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        text,
        at: 0,
    };
    let value = p.document()?;
    p.space();
    if p.at != p.bytes.len() {
        return Err(p.refused());
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn refused(&self) -> Refused {
        Refused {
            at: self.at,
            too_deep: false,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    /// One value, lists and objects kept on an explicit stack.
    fn document(&mut self) -> Result<Value, Refused> {
        let mut stack: Vec<Open> = Vec::new();
        loop {
            self.space();
            // a value starts here: a scalar, or a list or object that opens
            let mut done = match self.peek() {
                Some(b'[') | Some(b'{') => {
                    if stack.len() >= MAX_DEPTH {
                        return Err(Refused {
                            at: self.at,
                            too_deep: true,
                        });
                    }
                    let list = self.peek() == Some(b'[');
                    self.at += 1;
                    self.space();
                    if list {
                        if self.peek() == Some(b']') {
                            self.at += 1;
                            Value::Array(Vec::new())
                        } else {
                            stack.push(Open::List(Vec::new()));
                            continue;
                        }
                    } else if self.peek() == Some(b'}') {
                        self.at += 1;
                        Value::Object(Map::new())
                    } else {
                        let key = self.key()?;
                        stack.push(Open::Object(Map::new(), key));
                        continue;
                    }
                }
                _ => self.scalar()?,
            };
            // the value is complete: add it to the list or object it is in, closing those
            // that end after it
            loop {
                let Some(open) = stack.last_mut() else {
                    return Ok(done);
                };
                self.space();
                let close = match open {
                    Open::List(items) => {
                        items.push(done);
                        b']'
                    }
                    Open::Object(map, key) => {
                        map.insert(std::mem::take(key), done);
                        b'}'
                    }
                };
                match self.peek() {
                    Some(b',') => {
                        self.at += 1;
                        if let Open::Object(_, key) = open {
                            self.space();
                            *key = self.key()?;
                        }
                        break;
                    }
                    Some(b) if b == close => {
                        self.at += 1;
                        done = match stack.pop() {
                            Some(Open::List(items)) => Value::Array(items),
                            Some(Open::Object(map, _)) => Value::Object(map),
                            None => unreachable!("the stack held the list or object"),
                        };
                    }
                    _ => return Err(self.refused()),
                }
            }
        }
    }

    /// An object's key and the `:` after it.
    fn key(&mut self) -> Result<String, Refused> {
        if self.peek() != Some(b'"') {
            return Err(self.refused());
        }
        let key = self.string()?;
        self.space();
        if self.peek() != Some(b':') {
            return Err(self.refused());
        }
        self.at += 1;
        Ok(key)
    }

    fn scalar(&mut self) -> Result<Value, Refused> {
        let rest = &self.bytes[self.at..];
        let literal = [
            (&b"null"[..], None),
            (b"true", Some(Value::Bool(true))),
            (b"false", Some(Value::Bool(false))),
            (b"NaN", Some(non_finite("NaN"))),
            (b"Infinity", Some(non_finite("Infinity"))),
            (b"-Infinity", Some(non_finite("-Infinity"))),
        ]
        .into_iter()
        .find(|(word, _)| rest.starts_with(word));
        if let Some((word, value)) = literal {
            self.at += word.len();
            return Ok(value.unwrap_or(Value::Null));
        }
        match self.peek() {
            Some(b'"') => self.string().map(Value::String),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.refused()),
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as written.
    fn number(&mut self) -> Result<Value, Refused> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let from = p.at;
            while let Some(b'0'..=b'9') = p.peek() {
                p.at += 1;
            }
            p.at > from
        };
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return Err(self.refused()),
        }
        // Python's number pattern takes a fraction or exponent only when digits follow; what
        // is left over is then refused as extra data
        let mark = self.at;
        if self.peek() == Some(b'.') {
            self.at += 1;
            if !digits(self) {
                self.at = mark;
            }
        }
        let mark = self.at;
        if let Some(b'e' | b'E') = self.peek() {
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if !digits(self) {
                self.at = mark;
            }
        }
        let text = &self.text[start..self.at];
        text.parse::<Number>()
            .map(Value::Number)
            .map_err(|_| Refused {
                at: start,
                too_deep: false,
            })
    }

    /// A string (from its opening quote), escapes decoded; a lone surrogate becomes U+FFFD.
    fn string(&mut self) -> Result<String, Refused> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let run = self.bytes[self.at..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .ok_or(Refused {
                    at: self.bytes.len(),
                    too_deep: false,
                })?;
            out.push_str(&self.text[self.at..self.at + run]);
            self.at += run;
            match self.bytes[self.at] {
                b'"' => {
                    self.at += 1;
                    return Ok(out);
                }
                b'\\' => {
                    let escaped = self.bytes.get(self.at + 1).copied();
                    self.at += 2;
                    match escaped {
                        Some(b'"') => out.push('"'),
                        Some(b'\\') => out.push('\\'),
                        Some(b'/') => out.push('/'),
                        Some(b'b') => out.push('\u{8}'),
                        Some(b'f') => out.push('\u{c}'),
                        Some(b'n') => out.push('\n'),
                        Some(b'r') => out.push('\r'),
                        Some(b't') => out.push('\t'),
                        Some(b'u') => {
                            let unit = self.hex4()?;
                            out.push(self.code_point(unit)?);
                        }
                        _ => {
                            self.at -= 2;
                            return Err(self.refused());
                        }
                    }
                }
                // Python's strict mode refuses a control character inside a string
                _ => return Err(self.refused()),
            }
        }
    }

    /// Four hex digits after `\u`.
    fn hex4(&mut self) -> Result<u32, Refused> {
        let hex = self
            .text
            .get(self.at..self.at + 4)
            .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| self.refused())?;
        self.at += 4;
        u32::from_str_radix(hex, 16).map_err(|_| self.refused())
    }

    /// The character a `\uXXXX` escape stands for: a high surrogate takes the low one that
    /// follows as `\uXXXX` (as Python pairs them); alone, either is U+FFFD.
    fn code_point(&mut self, unit: u32) -> Result<char, Refused> {
        if (0xD800..0xDC00).contains(&unit) && self.bytes[self.at..].starts_with(b"\\u") {
            let back = self.at;
            self.at += 2;
            let low = self.hex4()?;
            if (0xDC00..0xE000).contains(&low) {
                let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return Ok(char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            // not a pair: the next escape is read on its own
            self.at = back;
        }
        Ok(char::from_u32(unit).unwrap_or('\u{FFFD}'))
    }
}

/// A record's raw text as an object: serde_json's reading, else Python's (a record the reader
/// took only through `parse`).
pub fn object(text: &str) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(text)
        .ok()
        .or_else(|| parse(text).ok())?
    {
        Value::Object(fields) => Some(fields),
        _ => None,
    }
}

/// A number holding Python's non-finite float literal as its text (`NaN`, `Infinity`,
/// `-Infinity`). serde_json keeps a number's text as written (`arbitrary_precision`) and has
/// no other way to hold these; the text is what `json.dumps` writes for them.
fn non_finite(literal: &str) -> Value {
    Value::Number(Number::from_string_unchecked(literal.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_python_reads_beyond_json() {
        let v =
            parse(r#"{"a": NaN, "b": [Infinity, -Infinity], "c": "\ud800x\udc00\ud83d\ude00"}"#)
                .expect("Python reads it");
        assert_eq!(v["a"].to_string(), "NaN");
        assert_eq!(v["b"][1].to_string(), "-Infinity");
        assert_eq!(v["c"], "\u{FFFD}x\u{FFFD}\u{1F600}");
        assert_eq!(
            parse(r#""\ud800\u0041""#),
            Ok(Value::String("\u{FFFD}A".into()))
        );
    }

    #[test]
    fn refuses_what_python_refuses() {
        for bad in [
            "{",
            "[1,]",
            "nan",
            "-NaN",
            "{\"a\":1,}",
            "\"a\u{1}\"",
            "01",
            "1.",
            "{} x",
            "\u{a0}{}",
            "\"\\x\"",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        // Python's extra data after a number: `1.` is refused, `1.5` read
        assert!(parse("1.5").is_ok());
    }

    #[test]
    fn nests_to_its_limit_without_the_thread_stack() {
        let deep = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
        // a small stack: the parser's depth is its own, not the thread's
        let ok = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                (
                    parse(&deep(MAX_DEPTH)).is_ok(),
                    parse(&deep(MAX_DEPTH + 1)).map_err(|r| r.too_deep),
                )
            })
            .expect("spawn")
            .join();
        // dropping the value recurses in serde_json's drop glue: join only after it is gone
        let (at_limit, beyond) = ok.expect("no overflow");
        assert!(at_limit);
        assert_eq!(beyond, Err(true));
    }

    proptest::proptest! {
        /// What serde_json reads, this reads with the same value.
        #[test]
        fn agrees_with_serde_json_on_json(value in crate::store::decode::pyjson::tests::json_value()) {
            let text = serde_json::to_string(&value).expect("serializes");
            let ours = parse(&text).expect("valid JSON");
            proptest::prop_assert_eq!(ours, serde_json::from_str::<Value>(&text).expect("valid"));
        }
    }

    pub(super) fn json_value() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e10f64..1e10).prop_map(Value::from),
            "[\\PC\"\\\\\u{0}-\u{1f}\u{2028}]{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[a-c\"]{0,2}", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }
}
