//! The progress bar every long read shows on stderr: by bytes read for a large file, a
//! spinner for an input of unknown size where the command wants one, nothing for a small
//! file or when progress is off (see `output::progress_enabled`).

use crate::output;
use crate::spill;
use crate::store::Input;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Bytes read between two moves of the bar: drawing it per line would cost more than the line.
pub const STEP: u64 = 1 << 20;

/// Files smaller than this get no bar (they are read in a blink).
const MIN_BYTES: u64 = 32 << 20;

/// A bar for reading `input`, labelled `verb` ("reading", "checking"). An input whose size is
/// not known (stdin, a pipe, a database) gets a spinner with `spin_unsized`, else no bar.
pub fn bar(input: &Input, verb: &str, spin_unsized: bool) -> Option<ProgressBar> {
    if !output::progress_enabled() {
        return None;
    }
    let size = input
        .path()
        .and_then(|p| std::fs::metadata(p).ok())
        .map(|m| m.len());
    match size {
        Some(len) if len < MIN_BYTES => None,
        Some(len) => Some(
            ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template(&format!(
                    "{verb} {{bar:30}} {{bytes}}/{{total_bytes}} {{eta}} {{msg}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
        ),
        None if spin_unsized => Some(
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
                ProgressStyle::with_template(&format!("{verb} {{spinner}} {{bytes}} {{msg}}"))
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        ),
        None => None,
    }
}

/// Move `bar` to `offset`, with what the temporary files hold beside it (`spill.rs`) once they
/// hold anything.
pub fn show(bar: &ProgressBar, offset: u64) {
    bar.set_position(offset);
    let temp = spill::temp_bytes();
    if temp > 0 {
        bar.set_message(format!(
            "· {} in temporary files",
            indicatif::HumanBytes(temp)
        ));
    }
}
