//! The progress bar every long read shows on stderr: by bytes read for a large file, a
//! spinner for an input of unknown size where the command wants one, nothing for a small
//! file or when progress is off (see `output::progress_enabled`).

use crate::output;
use crate::spill;
use crate::store::Input;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::io::{self, IsTerminal};

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
            ProgressBar::with_draw_target(Some(len), target()).with_style(
                ProgressStyle::with_template(&format!(
                    "{verb} {{bar:30}} {{bytes}}/{{total_bytes}} {{eta}} {{msg}}"
                ))
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            ),
        ),
        None if spin_unsized => Some(
            ProgressBar::with_draw_target(None, target()).with_style(
                ProgressStyle::with_template(&format!("{verb} {{spinner}} {{bytes}} {{msg}}"))
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            ),
        ),
        None => None,
    }
}

/// Where bars are drawn: stderr; where it is no terminal (a log, a pipe) only with
/// `--progress always`, through [`ForcedStderr`], as indicatif's own stderr target draws
/// nothing there.
fn target() -> ProgressDrawTarget {
    match output::progress_forced() && !io::stderr().is_terminal() {
        true => ProgressDrawTarget::term_like_with_hz(Box::new(ForcedStderr), 4),
        false => ProgressDrawTarget::stderr(),
    }
}

/// stderr drawn on as a terminal of 80 columns, with ANSI cursor moves, through
/// `output::print_stderr` (a closed stderr is no failure).
#[derive(Debug)]
struct ForcedStderr;

impl ForcedStderr {
    /// The cursor `n` places in `direction` (an ANSI CSI final byte).
    fn cursor(n: usize, direction: char) -> io::Result<()> {
        if n > 0 {
            output::print_stderr(&format!("\x1b[{n}{direction}"));
        }
        Ok(())
    }
}

impl TermLike for ForcedStderr {
    fn width(&self) -> u16 {
        80
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        Self::cursor(n, 'A')
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        Self::cursor(n, 'B')
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        Self::cursor(n, 'C')
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        Self::cursor(n, 'D')
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        output::print_stderr(&format!("{s}\n"));
        Ok(())
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        output::print_stderr(s);
        Ok(())
    }

    fn clear_line(&self) -> io::Result<()> {
        output::print_stderr("\r\x1b[2K");
        Ok(())
    }

    fn flush(&self) -> io::Result<()> {
        Ok(())
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
