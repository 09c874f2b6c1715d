//! `vercy mcp`: a read-only Model Context Protocol server on stdio.
//!
//! Newline-delimited JSON-RPC 2.0, protocol version 2025-11-25 (and the older ones of
//! [`session::VERSIONS`]): one message per line in, one answer per request out, in order,
//! flushed at once; notifications and client responses get none. stdout carries protocol messages only. The framing is written here rather than taken
//! from the `rmcp` SDK because the SDK does not answer an unparsable line with -32700 (it
//! drops it), answers a malformed request with -32600 under id null rather than the id sent,
//! and needs a newer Rust and an async runtime for a five-method protocol.
//!
//! [`rpc`] classifies lines, [`dispatch`] answers methods, [`session`] keeps the negotiated
//! version, [`tools`] holds the tools and [`schema`] checks their arguments against the
//! schemas they publish.

pub mod dispatch;
pub mod rpc;
pub mod schema;
pub mod session;
pub mod tools;

use crate::error::{Result, VercyError};
use rpc::Incoming;
use serde_json::Value;
use std::io::{self, BufRead, Read, Write};

/// The longest message read (16 MiB, documented in the README); a longer line is answered
/// with -32700 and skipped, read in blocks and never held whole. A message is parsed into a
/// tree that takes many times its bytes (bench/NOTES.md), and an agent has no need to send
/// more in one call.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// Serve requests from `input` until it ends, answering on `output`. A closed `output` (the
/// client went away) ends the server quietly too.
pub fn serve(input: impl BufRead, output: impl Write) -> Result<()> {
    serve_limited(input, output, MAX_MESSAGE_BYTES)
}

fn serve_limited(mut input: impl BufRead, mut output: impl Write, limit: usize) -> Result<()> {
    let mut line = Vec::with_capacity(4096);
    let mut first = true;
    let mut session = session::Session::default();
    loop {
        let complete = match read_message(&mut input, &mut line, limit) {
            Ok(Some(complete)) => complete,
            Ok(None) => return Ok(()),
            Err(e) => {
                return Err(VercyError::Read {
                    path: "<stdin>".into(),
                    reason: crate::error::io_reason(&e),
                })
            }
        };
        let mut message = trim(&line);
        if first {
            message = message.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(message);
            first = false;
        }
        if complete && message.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let reply = if complete {
            answer_in(&mut session, message)
        } else {
            Some(rpc::error(
                Value::Null,
                &rpc::RpcError::new(
                    rpc::PARSE_ERROR,
                    format!(
                        "parse error: the message is longer than {limit} bytes, the most this \
                         server reads; send fewer records in each call"
                    ),
                ),
            ))
        };
        if line.capacity() > 1 << 20 {
            // a big message's room is not kept for the small ones after it
            line = Vec::with_capacity(4096);
        }
        if let Some(reply) = reply {
            match write_line(&mut output, &reply) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(()),
                Err(e) => {
                    return Err(VercyError::Write {
                        path: "<stdout>".into(),
                        reason: crate::error::io_reason(&e),
                    })
                }
            }
        }
    }
}

/// The answer to one line in a fresh session, if it gets one.
pub fn answer(line: &[u8]) -> Option<Value> {
    answer_in(&mut session::Session::default(), line)
}

/// The answer to one line of `session`, if it gets one.
pub fn answer_in(session: &mut session::Session, line: &[u8]) -> Option<Value> {
    match rpc::classify(line) {
        Incoming::Request { id, method, params } => {
            Some(match dispatch::answer(session, &method, &params) {
                Ok(result) => rpc::result(id, result),
                Err(error) => rpc::error(id, &error),
            })
        }
        Incoming::Notification { .. } | Incoming::Response => None,
        Incoming::Invalid { id, error } => Some(rpc::error(id, &error)),
    }
}

fn write_line(output: &mut impl Write, reply: &Value) -> io::Result<()> {
    let mut text = serde_json::to_vec(reply).map_err(io::Error::other)?;
    text.push(b'\n');
    output.write_all(&text)?;
    output.flush()
}

/// Read one line into `buf` (without its `\n`). `Ok(None)` at the end of the input;
/// `Ok(Some(false))` for a line longer than `limit`, whose rest is skipped.
fn read_message(
    input: &mut impl BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Option<bool>> {
    buf.clear();
    // room for the longest message at once (pages are touched only as it fills): grown by
    // doubling, a message at the limit held the old and the new buffer together, 3 times it
    buf.reserve(limit + 1);
    let n = input
        .by_ref()
        .take(limit as u64 + 1)
        .read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        return Ok(Some(true));
    }
    if buf.len() <= limit {
        return Ok(Some(true)); // the last line, without a newline
    }
    buf.clear();
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(Some(false));
        }
        match memchr::memchr(b'\n', available) {
            Some(i) => {
                input.consume(i + 1);
                return Ok(Some(false));
            }
            None => {
                let len = available.len();
                input.consume(len);
            }
        }
    }
}

/// A line without the `\r` of a CRLF ending.
fn trim(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str) -> Vec<Value> {
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn blank_lines_crlf_and_a_bom_are_not_messages() {
        let replies = run("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n  \r\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[0]["id"], 1);
        assert_eq!(replies[1]["id"], 2);
    }

    #[test]
    fn an_overlong_line_is_a_parse_error_and_the_next_line_is_read() {
        let mut input = vec![b'x'; 100_000];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}\n");
        let mut out = Vec::new();
        serve_limited(&input[..], &mut out, 1000).unwrap();
        let replies: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[0]["error"]["code"], rpc::PARSE_ERROR);
        assert_eq!(replies[0]["id"], Value::Null);
        assert_eq!(replies[1]["id"], 9);
    }

    #[test]
    fn a_closed_output_ends_quietly() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        serve(
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"[..],
            Closed,
        )
        .unwrap();
    }

    mod never_crash {
        use super::super::*;
        use proptest::prelude::*;
        use serde_json::json;

        /// JSON values built from the words the tools care about, nested a few levels.
        fn value() -> impl Strategy<Value = Value> {
            let word = prop::sample::select(vec![
                "",
                " ",
                "record_id",
                "valid_from",
                "valid_to",
                "release_to",
                "graphiti",
                "record_id=uuid",
                "a=b,c",
                "~x",
                "2026-01-01",
                "not a date",
                "finance",
                "{",
                "[",
                "{\"record_id\": 1}\n",
                "# record_id|valid_from",
                "\u{feff}[]",
            ]);
            let leaf = prop_oneof![
                Just(Value::Null),
                any::<bool>().prop_map(Value::Bool),
                any::<i64>().prop_map(|n| json!(n)),
                (-1e6f64..1e6).prop_map(|n| json!(n)),
                word.prop_map(|w| json!(w)),
            ];
            leaf.prop_recursive(3, 24, 4, |inner| {
                let key = prop::sample::select(vec![
                    "records",
                    "map",
                    "min_level",
                    "field",
                    "target",
                    "as_of",
                    "reader",
                    "concept",
                    "record_id",
                    "valid_from",
                    "valid_to",
                    "release_to",
                    "x",
                ]);
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                    prop::collection::vec((key, inner), 0..4).prop_map(|pairs| {
                        Value::Object(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
                    }),
                ]
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(400))]

            #[test]
            fn any_line_gets_a_well_formed_answer_or_none(line in prop::collection::vec(any::<u8>(), 0..64)) {
                if let Some(reply) = answer(&line) {
                    prop_assert_eq!(&reply["jsonrpc"], "2.0");
                    prop_assert!(reply.get("error").is_some() || reply.get("result").is_some());
                }
            }

            #[test]
            fn any_arguments_to_any_tool_get_a_result_or_a_params_error(
                tool in prop::sample::select(vec!["check_records", "get_profile", "compact_records", "where_does_it_go"]),
                pairs in prop::collection::vec((prop::sample::select(vec![
                    "records", "map", "min_level", "field", "target", "as_of", "reader",
                    "concept", "strict", "policy_outside_records", "expected", "x",
                ]), value()), 0..4),
            ) {
                let arguments: serde_json::Map<String, Value> =
                    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
                let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                     "params": {"name": tool, "arguments": arguments}});
                let reply = answer(request.to_string().as_bytes()).expect("a request is answered");
                prop_assert_eq!(&reply["id"], 1);
                match reply.get("error") {
                    // arguments that are not an object, or not what the schema says
                    Some(error) => prop_assert_eq!(&error["code"], rpc::INVALID_PARAMS, "{}", reply),
                    None => prop_assert!(reply["result"]["isError"].is_boolean(), "{}", reply),
                }
            }
        }
    }
}
