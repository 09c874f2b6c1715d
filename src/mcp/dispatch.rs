//! The methods the server answers: `initialize`, `ping`, `tools/list`, `tools/call`.
//! Anything else is -32601; a panic while answering is -32603 with the request's id.

use super::rpc::{RpcError, INTERNAL_ERROR, METHOD_NOT_FOUND};
use super::session::Session;
use super::tools;
use serde_json::{json, Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The protocol version this server speaks (and the older ones of [`super::session::VERSIONS`]).
pub const PROTOCOL_VERSION: &str = super::session::LATEST_VERSION;

const INSTRUCTIONS: &str = "Read-only tools over the Vercy additive profile for agent-memory \
    records: check_records rates records (levels 1-3) exactly as `vercy check --json`, \
    compact_records writes them in the compact line form (only what a reader may see), \
    get_profile gives the fields and their measured effects, where_does_it_go says where a \
    field goes in a kind of store. Nothing is written and nothing leaves the machine.";

/// Answer one request; never panics (a panic inside becomes -32603).
pub fn answer(
    session: &mut Session,
    method: &str,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    guarded(|| dispatch(session, method, params))
}

/// Run `f`, turning a panic into an internal error so the client still gets its answer.
pub fn guarded(f: impl FnOnce() -> Result<Value, RpcError>) -> Result<Value, RpcError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(RpcError::new(
            INTERNAL_ERROR,
            format!("internal error: {what} (a bug in vercy; please report it)"),
        ))
    })
}

fn dispatch(
    session: &mut Session,
    method: &str,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    match method {
        "initialize" => initialize(session, params),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(tools::list()),
        "tools/call" => {
            let name = params.get("name").and_then(Value::as_str).ok_or_else(|| {
                RpcError::invalid_params("tools/call needs `name`, the tool's name (a string)")
            })?;
            let empty = Map::new();
            let arguments = match params.get("arguments") {
                None | Some(Value::Null) => &empty,
                Some(Value::Object(a)) => a,
                Some(_) => {
                    return Err(RpcError::invalid_params(
                        "tools/call: `arguments` must be an object",
                    ))
                }
            };
            tools::call(name, arguments, session)
        }
        other => Err(RpcError::new(
            METHOD_NOT_FOUND,
            format!(
                "method not found: {other:?} (this server answers initialize, ping, tools/list, tools/call)"
            ),
        )),
    }
}

fn initialize(session: &mut Session, params: &Map<String, Value>) -> Result<Value, RpcError> {
    let asked = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("initialize needs `protocolVersion` (a string)"))?;
    let version = session.negotiate(asked);
    Ok(json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "vercy", "title": "vercy", "version": env!("CARGO_PKG_VERSION")},
        "instructions": INSTRUCTIONS,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::rpc::{INVALID_PARAMS, METHOD_NOT_FOUND};

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn answer(method: &str, params: &Map<String, Value>) -> Result<Value, RpcError> {
        super::answer(&mut Session::default(), method, params)
    }

    #[test]
    fn a_panic_is_an_internal_error_not_a_crash() {
        let err = guarded(|| panic!("boom")).unwrap_err();
        assert_eq!(err.code, INTERNAL_ERROR);
        assert!(err.message.contains("boom"), "{}", err.message);
    }

    #[test]
    fn the_version_is_negotiated() {
        let r = answer(
            "initialize",
            &params(json!({"protocolVersion": "2025-03-26"})),
        )
        .unwrap();
        assert_eq!(r["protocolVersion"], "2025-03-26");
        let r = answer(
            "initialize",
            &params(json!({"protocolVersion": "2099-01-01"})),
        )
        .unwrap();
        assert_eq!(r["protocolVersion"], PROTOCOL_VERSION);
        let e = answer("initialize", &Map::new()).unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS);
    }

    #[test]
    fn unknown_methods_and_tools_are_refused_with_their_codes() {
        assert_eq!(
            answer("resources/list", &Map::new()).unwrap_err().code,
            METHOD_NOT_FOUND
        );
        let e = answer("tools/call", &params(json!({"name": "nope"}))).unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS);
        let e = answer(
            "tools/call",
            &params(json!({"name": "get_profile", "arguments": [1]})),
        )
        .unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS);
    }
}
