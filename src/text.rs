//! Text from a store made safe to show on a terminal or in a CI log. It sits at the bottom
//! of the house: errors, reports and notices all show record text through it.

/// `text` as it may reach a terminal or a CI log: every character that could move the cursor,
/// start an escape sequence (ESC, OSC hyperlinks, C1), rewrite the line (CR), begin a new log
/// line (a newline followed by `::error` or `::add-mask::`), or reorder what is shown (bidi
/// controls, U+2028/U+2029) is written as `\u{XX}`, as `char::escape_unicode` writes it.
/// Everything else, backslashes included, is left as it is, borrowed when nothing changes.
/// For human outputs only: JSON outputs carry record texts exactly.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    fn unsafe_char(c: char) -> bool {
        c.is_control()
            || matches!(
                c,
                '\u{2028}'
                    | '\u{2029}'
                    | '\u{061C}'
                    | '\u{200E}'
                    | '\u{200F}'
                    | '\u{202A}'..='\u{202E}'
                    | '\u{2066}'..='\u{2069}'
            )
    }
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `s` after a count of `n`.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    #[test]
    fn terminal_safe_borrows_plain_text_and_escapes_controls() {
        assert!(matches!(
            terminal_safe("plain – ñ \\ text"),
            Cow::Borrowed(_)
        ));
        assert_eq!(terminal_safe("a\x1b[31mb"), "a\\u{1b}[31mb");
        assert_eq!(terminal_safe("x\r\n::error::y"), "x\\u{d}\\u{a}::error::y");
        assert_eq!(
            terminal_safe("\u{7f}\u{9b}\u{202e}\u{2066}"),
            "\\u{7f}\\u{9b}\\u{202e}\\u{2066}"
        );
        assert_eq!(
            terminal_safe("\u{2028}\u{2029}\u{61c}\u{200e}"),
            "\\u{2028}\\u{2029}\\u{61c}\\u{200e}"
        );
        assert_eq!(terminal_safe("a\\u{1b}b"), "a\\u{1b}b");
        assert_eq!(terminal_safe("\u{200d}"), "\u{200d}"); // a joiner is no control
    }
}
