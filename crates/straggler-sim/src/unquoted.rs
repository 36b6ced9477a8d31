//! The characters of a text outside its quoted strings, by TOML's rules for strings: one
//! scanner for the lists of detectors ([`crate::split_list`]) and the lines of scenario and
//! evaluation files, so that what a quote opens and closes is written once.

/// The quotes that open a string, each closed by the same: the multi-line forms first, so
/// that `"""` is not read as an empty string and a quote.
const QUOTES: [&str; 4] = ["\"\"\"", "'''", "\"", "'"];

/// A quoted string: its closing quotes, which are its opening ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Quote(&'static str);

impl Quote {
    /// The quote mark: `"` for a basic string (a backslash escapes the next character),
    /// `'` for a literal one (no escapes).
    pub(crate) fn mark(self) -> char {
        if self.0.starts_with('"') { '"' } else { '\'' }
    }

    /// Whether the string is a multi-line one (`"""` or `'''`), which goes on over the
    /// lines after the one it opens on until its three quotes close it.
    pub(crate) fn is_multiline(self) -> bool {
        self.0.len() == 3
    }

    /// The byte offset in `rest`, text inside the string, just past the quotes that close
    /// it; `None` if `rest` does not close it. One or two quote marks just before a
    /// multi-line string's closing three are the string's (TOML 1.0: `"""a""""` is
    /// `a"`), so a run of up to five closes it, and a sixth is left after it.
    fn end_in(self, rest: &str) -> Option<usize> {
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            if c == '\\' && self.mark() == '"' {
                chars.next();
            } else if rest[i..].starts_with(self.0) {
                let run = if self.is_multiline() {
                    rest[i..]
                        .chars()
                        .take(5)
                        .take_while(|&c| c == self.mark())
                        .count()
                } else {
                    1
                };
                // The marks are ASCII: one byte each.
                return Some(i + run);
            }
        }
        None
    }
}

/// The characters of a text outside its quoted strings, each with its byte offset in the
/// text. A basic string (`"..."`, in which a backslash escapes the next character, a quote
/// included), a literal one (`'...'`, in which a backslash is a backslash) and their
/// multi-line forms (`"""..."""`, `'''...'''`) are skipped, quotes included, and whatever
/// they hold with them (brackets, commas, `#`). A string the text leaves open is
/// [`Unquoted::open`] once the scan has come to the end.
#[derive(Debug, Clone)]
pub(crate) struct Unquoted<'a> {
    /// The text.
    text: &'a str,
    /// The byte offset of the next character to read.
    at: usize,
    /// The string the scan is inside, if any.
    open: Option<Quote>,
}

impl<'a> Unquoted<'a> {
    /// The characters of `text` outside its strings.
    pub(crate) fn new(text: &'a str) -> Self {
        Unquoted::inside(text, None)
    }

    /// As [`Unquoted::new`], for a text that starts inside `open`, if given: a multi-line
    /// string that the lines before left open.
    pub(crate) fn inside(text: &'a str, open: Option<Quote>) -> Self {
        Unquoted { text, at: 0, open }
    }

    /// The string the scan is inside: once the scan is at the end, the string the text
    /// leaves open, if any.
    pub(crate) fn open(&self) -> Option<Quote> {
        self.open
    }
}

impl Iterator for Unquoted<'_> {
    type Item = (usize, char);

    fn next(&mut self) -> Option<(usize, char)> {
        loop {
            let rest = &self.text[self.at..];
            if let Some(quote) = self.open {
                let Some(end) = quote.end_in(rest) else {
                    self.at = self.text.len();
                    return None;
                };
                self.at += end;
                self.open = None;
            } else if let Some(&opening) = QUOTES.iter().find(|q| rest.starts_with(**q)) {
                self.at += opening.len();
                self.open = Some(Quote(opening));
            } else {
                let c = rest.chars().next()?;
                let at = self.at;
                self.at += c.len_utf8();
                return Some((at, c));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a scan of `text` (starting inside `open`) reads: the characters outside its
    /// strings, and the mark of a string it leaves open and whether that is multi-line.
    fn check(text: &str, open: Option<Quote>, outside: &str, left_open: Option<(char, bool)>) {
        let mut unquoted = Unquoted::inside(text, open);
        let read: String = (&mut unquoted).map(|(_, c)| c).collect();
        assert_eq!(read, outside, "{text:?}");
        let left = unquoted.open().map(|q| (q.mark(), q.is_multiline()));
        assert_eq!(left, left_open, "{text:?}");
    }

    #[test]
    fn strings_are_skipped_with_what_they_hold() {
        check("a(x = \"),[\", y) # z", None, "a(x = , y) # z", None);
        check("[1, '{', \"#\"]", None, "[1, , ]", None);
        check("\"\"x''", None, "x", None);
        check("é\"ü\"ß", None, "éß", None);
    }

    #[test]
    fn a_backslash_escapes_in_a_basic_string_only() {
        // An escaped quote does not close a basic string; an escaped backslash is one.
        check(r#"a "b \" c" d"#, None, "a  d", None);
        check(r#"a "b \\" c"#, None, "a  c", None);
        // In a literal string a backslash is itself: the next quote closes it.
        check(r"a 'b \' c", None, "a  c", None);
        check(r"'\\' x", None, " x", None);
    }

    #[test]
    fn multi_line_strings_close_on_three_quotes_and_may_be_left_open() {
        check("a = \"\"\"x \"y\" z\"\"\" # b", None, "a =  # b", None);
        check("a = '''x 'y' ''' b", None, "a =  b", None);
        check("a = \"\"\"x [", None, "a = ", Some(('"', true)));
        check("a = '''x \\", None, "a = ", Some(('\'', true)));
        // A line inside a string a line before left open: read from where it closes.
        let basic = Some(Quote("\"\"\""));
        check("y ] \\\"\"\" ] \"\"\" [z", basic, " [z", None);
        check("no close \"\"", basic, "", Some(('"', true)));
        check("x ''' ]", Some(Quote("'''")), " ]", None);
        // One or two quote marks before the closing three are the string's (`C9"`), for
        // both forms, on the line that opens the string or on a later one.
        check(
            "[{ n = \"\"\"C9\"\"\"\", g = [1] }]",
            None,
            "[{ n = , g = [1] }]",
            None,
        );
        check(
            "[{ n = '''C9''''', g = [1] }]",
            None,
            "[{ n = , g = [1] }]",
            None,
        );
        check("a\"\"\"\" ]", basic, " ]", None);
        check("a''''' ]", Some(Quote("'''")), " ]", None);
        // A sixth mark is past the string (TOML refuses it; the scan goes on after five).
        check("x = '''a'''''' y", None, "x = ", Some(('\'', false)));
    }

    #[test]
    fn a_string_left_open_is_reported_with_its_mark() {
        check("a(s = \")", None, "a(s = ", Some(('"', false)));
        check("a, 'b", None, "a, ", Some(('\'', false)));
        check("x \"a\\\"", None, "x ", Some(('"', false)));
        check("", None, "", None);
    }

    #[test]
    fn the_offsets_are_the_characters_bytes_in_the_text() {
        let read: Vec<(usize, char)> = Unquoted::new("é'x'],").collect();
        assert_eq!(read, [(0, 'é'), (5, ']'), (6, ',')]);
    }
}
