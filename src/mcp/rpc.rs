//! JSON-RPC 2.0 as MCP uses it: one message per line, classified into a request, a
//! notification or a client's response, or turned into the error its sender must get.
//!
//! The rules (JSON-RPC 2.0 §4–5 and MCP 2025-06-18 "Base protocol"):
//! - a line that is not JSON: -32700 with id null;
//! - JSON that is not a request object (an array — batches were removed in 2025-06-18 —, a
//!   wrong `jsonrpc`, no `method`, an id that is neither a string nor a number): -32600, with
//!   the id when one could be read, else null;
//! - no `id`: a notification, never answered, whatever its method;
//! - `result` or `error` without `method`: a response to a request of ours; this server sends
//!   none, so it is dropped without a reply (answering it could start an error storm).

use serde_json::{json, Map, Value};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// An error answer: a JSON-RPC code and a sentence for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, message)
    }
}

/// One incoming line, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    Notification {
        method: String,
    },
    /// A client's response; nothing of ours is waiting for it.
    Response,
    /// Not a usable message: answer `error` under `id` (null when none could be read).
    Invalid {
        id: Value,
        error: RpcError,
    },
}

/// Classify one line (without its line ending).
pub fn classify(line: &[u8]) -> Incoming {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid {
                id: Value::Null,
                error: RpcError::new(PARSE_ERROR, format!("parse error: {e}")),
            }
        }
    };
    let invalid = |id: Value, message: &str| Incoming::Invalid {
        id,
        error: RpcError::new(INVALID_REQUEST, format!("invalid request: {message}")),
    };
    let Value::Object(mut message) = value else {
        let what = if value.is_array() {
            "a batch (JSON array); send one request object per line"
        } else {
            "not a JSON object"
        };
        return invalid(Value::Null, what);
    };
    let id = match message.remove("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_))) => Some(id),
        Some(_) => return invalid(Value::Null, "`id` must be a string or a number"),
    };
    let has_method = message.contains_key("method");
    if !has_method && (message.contains_key("result") || message.contains_key("error")) {
        return Incoming::Response;
    }
    let reply_id = id.clone().unwrap_or(Value::Null);
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(reply_id, "`jsonrpc` must be \"2.0\"");
    }
    let method = match message.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => return invalid(reply_id, "`method` must be a string"),
        None => return invalid(reply_id, "no `method`"),
    };
    let Some(id) = id else {
        return Incoming::Notification { method };
    };
    let params = match message.remove("params") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => {
            return Incoming::Invalid {
                id,
                error: RpcError::invalid_params("`params` must be an object"),
            }
        }
    };
    Incoming::Request { id, method, params }
}

/// A success answer.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error answer.
pub fn error(id: Value, error: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": error.code, "message": error.message}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> (Value, i64) {
        match classify(line.as_bytes()) {
            Incoming::Invalid { id, error } => (id, error.code),
            other => panic!("{line}: expected an error, got {other:?}"),
        }
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
            Incoming::Request {
                id: json!("a"),
                method: "ping".into(),
                params: Map::new()
            }
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Incoming::Notification {
                method: "notifications/initialized".into()
            }
        );
        assert_eq!(
            classify(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Incoming::Response
        );
    }

    #[test]
    fn malformed_messages_get_the_right_code_and_keep_their_id() {
        assert_eq!(code("{not json"), (Value::Null, PARSE_ERROR));
        assert_eq!(code(""), (Value::Null, PARSE_ERROR));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1}"#),
            (json!(1), INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#),
            (Value::Null, INVALID_REQUEST)
        );
        assert_eq!(code("17"), (Value::Null, INVALID_REQUEST));
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#),
            (json!("x"), INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":7,"method":5}"#),
            (json!(7), INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            (Value::Null, INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#),
            (Value::Null, INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":2,"method":"ping","params":[1]}"#),
            (json!(2), INVALID_PARAMS)
        );
    }

    #[test]
    fn ids_keep_their_exact_text() {
        let Incoming::Request { id, .. } =
            classify(br#"{"jsonrpc":"2.0","id":12345678901234567890123,"method":"ping"}"#)
        else {
            panic!("a request")
        };
        assert_eq!(id.to_string(), "12345678901234567890123");
    }
}
