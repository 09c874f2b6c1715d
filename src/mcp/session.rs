//! What one connection has settled: the protocol version the client asked for in `initialize`.
//! Before `initialize` (and for a client that never sends it) the newest version's rules hold.

/// The newest protocol version this server speaks.
pub const LATEST_VERSION: &str = "2025-11-25";
/// Every version it speaks, newest first; their messages are a subset of the newest one's.
pub const VERSIONS: [&str; 4] = [LATEST_VERSION, "2025-06-18", "2025-03-26", "2024-11-05"];
/// The first version in which arguments that fail their schema are a tool result the model
/// reads (`isError`), not a JSON-RPC -32602 that most clients never show the model.
const ARGUMENT_ERRORS_AS_RESULTS_SINCE: &str = "2025-11-25";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Session {
    pub version: &'static str,
}

impl Default for Session {
    fn default() -> Self {
        Session {
            version: LATEST_VERSION,
        }
    }
}

impl Session {
    /// Settle on `asked` when this server speaks it, else on the newest version (the client
    /// then decides whether it can go on); the version answered.
    pub fn negotiate(&mut self, asked: &str) -> &'static str {
        self.version = VERSIONS
            .into_iter()
            .find(|v| *v == asked)
            .unwrap_or(LATEST_VERSION);
        self.version
    }

    /// Whether bad tool arguments are answered as an `isError` result (versions are dates, so
    /// their texts sort as they were released).
    pub fn argument_errors_are_results(&self) -> bool {
        self.version >= ARGUMENT_ERRORS_AS_RESULTS_SINCE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_negotiated_and_decide_how_bad_arguments_are_answered() {
        let mut s = Session::default();
        assert!(s.argument_errors_are_results());
        assert_eq!(s.negotiate("2025-06-18"), "2025-06-18");
        assert!(!s.argument_errors_are_results());
        assert_eq!(s.negotiate("2024-11-05"), "2024-11-05");
        assert!(!s.argument_errors_are_results());
        assert_eq!(s.negotiate("2099-01-01"), LATEST_VERSION);
        assert!(s.argument_errors_are_results());
        assert_eq!(s.negotiate("2025-11-25"), "2025-11-25");
        assert!(s.argument_errors_are_results());
    }
}
