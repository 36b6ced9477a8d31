//! Reading the TOML files of scenarios and evaluations: every error names the file, the
//! line and the dotted key (`cluster.nodes`, `causes.episodes[1].node`), whether TOML,
//! serde or a configuration's check found it.

use std::path::Path;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::unquoted::{Quote, Unquoted};
use crate::{SimError, limits};

/// Parses `text` as a `T`; `origin` names the file in errors. The error of a bad value, a
/// missing key or an unknown one (where `T` refuses unknown fields) names the key, the line
/// and the file.
pub(crate) fn parse<T: DeserializeOwned>(text: &str, origin: &str) -> Result<T, SimError> {
    toml::from_str(text).map_err(|e| {
        let (line, key) = match e.span() {
            // An empty span at the start: the document itself (a missing top-level
            // table or key).
            Some(span) if span.start == 0 && span.is_empty() => (0, String::new()),
            Some(span) => key_at(text, span.start),
            None => (0, String::new()),
        };
        SimError::ConfigFile {
            file: origin.to_owned(),
            line,
            key: key_named(e.message(), key),
            message: in_files_words(e.message().trim()),
        }
    })
}

/// serde's message in the words of the file: a struct is a table (`expected struct
/// Platform`: `expected a table`), and a struct read from a list too short for it (serde
/// reads a struct from a list by position), `a list where a table belongs`, as
/// [`parse_known`] says when the list reads.
fn in_files_words(message: &str) -> String {
    const STRUCT: &str = "expected struct ";
    let Some((before, after)) = message.split_once(STRUCT) else {
        return message.to_owned();
    };
    if before.starts_with("invalid length ") {
        return "a list where a table belongs".to_owned();
    }
    let rest = after.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
    format!("{before}expected a table{}", in_files_words(rest))
}

/// [`parse`], and a key of `text` that `T` does not read is an error naming it, even where
/// `T` ignores unknown fields: every key written must be one that `T` writes back, but for
/// the top-level keys `others`, which another reader reads (`T` must ignore them).
pub(crate) fn parse_known<T: DeserializeOwned + Serialize>(
    text: &str,
    origin: &str,
    others: &[&str],
) -> Result<T, SimError> {
    let value: T = parse(text, origin)?;
    let mut written: toml::Table = parse(text, origin)?;
    written.retain(|key, _| !others.contains(&key));
    let read = toml::Table::try_from(&value).map_err(|e| SimError::ConfigFile {
        file: origin.to_owned(),
        line: 0,
        key: String::new(),
        message: format!("cannot be written back: {e}"),
    })?;
    if let Some((key, problem)) = misread_key(&written, &read, "") {
        let message = match problem {
            Misread::Unknown(beside) => {
                let known: Vec<String> = beside.keys().map(|k| format!("`{k}`")).collect();
                format!(
                    "unknown key; the known keys here include {}",
                    known.join(", ")
                )
            }
            Misread::NotATable => "a list where a table belongs".to_owned(),
        };
        return Err(SimError::ConfigFile {
            file: origin.to_owned(),
            line: line_of_key(text, &key),
            message,
            key,
        });
    }
    Ok(value)
}

/// How a key of a file was misread.
enum Misread<'r> {
    /// The struct has no such field; the table of what it has there.
    Unknown(&'r toml::Table),
    /// A list is written where the struct has a table (serde would read a struct from
    /// it by position).
    NotATable,
}

/// The first key of `written` (dotted under `path`, an array of tables' elements by
/// index) that `read` has not, or that holds a list where `read` has a table.
fn misread_key<'r>(
    written: &toml::Table,
    read: &'r toml::Table,
    path: &str,
) -> Option<(String, Misread<'r>)> {
    for (key, value) in written {
        let at = dotted(path, key);
        let Some(back) = read.get(key) else {
            return Some((at, Misread::Unknown(read)));
        };
        match (value, back) {
            (toml::Value::Table(inner), toml::Value::Table(back)) => {
                if let Some(misread) = misread_key(inner, back, &at) {
                    return Some(misread);
                }
            }
            (toml::Value::Array(_), toml::Value::Table(_)) => {
                return Some((at, Misread::NotATable));
            }
            (toml::Value::Array(items), toml::Value::Array(backs)) => {
                for (i, (item, back)) in items.iter().zip(backs).enumerate() {
                    let at = format!("{at}[{i}]");
                    match (item, back) {
                        (toml::Value::Table(item), toml::Value::Table(back)) => {
                            if let Some(misread) = misread_key(item, back, &at) {
                                return Some(misread);
                            }
                        }
                        (toml::Value::Array(_), toml::Value::Table(_)) => {
                            return Some((at, Misread::NotATable));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// A configuration's check error located in `text`: an [`SimError::InvalidConfig`] becomes
/// a [`SimError::ConfigFile`] at the line of its key (0 where the file leaves the key at
/// its default); any other error is returned as it is.
pub(crate) fn at_key(error: SimError, text: &str, origin: &str) -> SimError {
    match error {
        SimError::InvalidConfig {
            field,
            value,
            expected,
        } => SimError::ConfigFile {
            file: origin.to_owned(),
            line: line_of_key(text, &field),
            key: field,
            message: format!("{value}: must be {expected}"),
        },
        other => other,
    }
}

/// The text of the file at `path` and its name for errors. A file larger than
/// [`MAX_CONFIG_FILE_BYTES`](limits::MAX_CONFIG_FILE_BYTES) is an error naming `what` it
/// is (so is an endless one, such as `/dev/zero`): reading stops there.
pub(crate) fn read(path: &Path, what: &str) -> Result<(String, String), SimError> {
    use std::io::Read;

    let origin = path.display().to_string();
    let io_error = |error| SimError::Io {
        path: origin.clone(),
        error,
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .map_err(io_error)?
        .take(limits::MAX_CONFIG_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() as u64 > limits::MAX_CONFIG_FILE_BYTES {
        return Err(SimError::ConfigFile {
            file: origin,
            line: 0,
            key: String::new(),
            message: format!(
                "larger than {} MiB, the limit of {what}",
                limits::MAX_CONFIG_FILE_BYTES >> 20
            ),
        });
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| io_error(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))?;
    Ok((text, origin))
}

/// The table each line of `text` belongs to, dotted, with the index of an array of tables
/// (`cluster`, `causes.episodes[1]`; empty before the first header), and for a header line
/// the table it opens.
fn line_tables(text: &str) -> Vec<String> {
    let mut arrays: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut table = String::new();
    let depths = open_brackets(text);
    text.lines()
        .zip(depths)
        .map(|(line, depth)| {
            // A header may carry a comment (`[cluster] # the machines`); a line inside a
            // value's brackets (`  [2],` of an array of arrays) is none.
            let t = if depth == 0 { header_text(line) } else { "" };
            if let Some(name) = t.strip_prefix("[[").and_then(|r| r.strip_suffix("]]")) {
                let name = name.trim().to_owned();
                let index = arrays.entry(name.clone()).or_insert(0);
                table = format!("{name}[{index}]");
                *index += 1;
            } else if let Some(name) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                table = name.trim().to_owned();
            }
            table.clone()
        })
        .collect()
}

/// For each line of `text`, the brackets and braces of values left open before it, and 1
/// more inside a multi-line string: 0 for a line that starts a key or a header, more inside
/// a value written over several lines. Strings and comments are skipped (by [`Unquoted`]:
/// a basic string's escapes, a literal string, a multi-line one to its closing quotes; `#`
/// to the end of the line); a header line's brackets are its own.
fn open_brackets(text: &str) -> Vec<usize> {
    let mut depth = 0usize;
    // A multi-line string left open (`"""` or `'''`).
    let mut multiline: Option<Quote> = None;
    text.lines()
        .map(|line| {
            let at_start = depth + usize::from(multiline.is_some());
            if multiline.is_none() && depth == 0 && line.trim_start().starts_with('[') {
                return at_start;
            }
            let mut unquoted = Unquoted::inside(line, multiline);
            for (_, c) in &mut unquoted {
                match c {
                    '#' => break,
                    '[' | '{' => depth += 1,
                    ']' | '}' => depth = depth.saturating_sub(1),
                    _ => {}
                }
            }
            // A string of one line left open ends with its line (a TOML error that the
            // parser reports).
            multiline = unquoted.open().filter(|quote| quote.is_multiline());
            at_start
        })
        .collect()
}

/// A line without the comment a table header may end with: what is before a `#` after the
/// closing bracket, trimmed. Other lines come back trimmed.
fn header_text(line: &str) -> &str {
    let t = line.trim();
    if t.starts_with('[')
        && let Some(close) = t.rfind(']')
        && t[close + 1..].trim_start().starts_with('#')
    {
        return &t[..=close];
    }
    t
}

/// The key before the `=` of a line, if any.
fn key_of_line(line: &str) -> Option<&str> {
    let (key, _) = line.split_once('=')?;
    let key = key.trim().trim_matches('"');
    // `{ name` is a line of a value's inline tables, not a key.
    (!key.is_empty() && !key.starts_with(['#', '[', '{'])).then_some(key)
}

/// `key` in `table`, dotted.
fn dotted(table: &str, key: &str) -> String {
    if table.is_empty() {
        key.to_owned()
    } else {
        format!("{table}.{key}")
    }
}

/// The line (1-based) of byte `offset` of `text` and the dotted key written there: the
/// table the line belongs to (an array of tables with its index) and the key before the
/// `=` on that line, or the table a header line opens.
fn key_at(text: &str, offset: usize) -> (usize, String) {
    let offset = offset.min(text.len());
    let line_no = text.get(..offset).unwrap_or("").matches('\n').count() + 1;
    let tables = line_tables(text);
    let table = tables.get(line_no - 1).cloned().unwrap_or_default();
    // Inside a value written over several lines, the key that opened it.
    let depths = open_brackets(text);
    let owner = (0..line_no)
        .rev()
        .find(|&i| depths.get(i).is_some_and(|&d| d == 0))
        .unwrap_or(line_no - 1);
    let line = text.lines().nth(owner).unwrap_or("");
    let key = match key_of_line(line) {
        Some(key) if !line.trim().starts_with('[') => dotted(&table, key),
        _ => table,
    };
    (line_no, key)
}

/// The line (1-based) where the dotted `key` is written (`causes.episodes[0].node`), or
/// where its table starts if the key is a table's; 0 if the file does not write it (a
/// value left at its default). An element of an array (`causes.levels.containers[1]`) or
/// a sum of an array's or a table's values (`causes.mix.weights (sum)`) is at the line of
/// the key that writes them.
pub(crate) fn line_of_key(text: &str, key: &str) -> usize {
    let tables = line_tables(text);
    let depths = open_brackets(text);
    // The lines that start a key or a header (none inside a value written over several
    // lines), with their index and table.
    let numbered: Vec<(usize, &str, &String)> = (text.lines().zip(&tables).zip(&depths))
        .enumerate()
        .filter(|(_, (_, depth))| **depth == 0)
        .map(|(i, ((line, table), _))| (i, line, table))
        .collect();
    let line_of = |key: &str| {
        numbered.iter().find_map(|&(i, line, table)| {
            let found = if line.trim().starts_with('[') {
                table == key
            } else {
                key_of_line(line).is_some_and(|k| dotted(table, k) == key)
            };
            found.then_some(i)
        })
    };
    let written_at = |key: &str| {
        numbered.iter().find_map(|&(i, line, table)| {
            let found = !line.trim().starts_with('[')
                && key_of_line(line).is_some_and(|k| dotted(table, k) == key);
            found.then_some(i)
        })
    };
    // A key inside an inline table or array (`platform = { workers = 0 }`) is at the
    // line of the outer key that writes it.
    let inline = |key: &str| {
        let mut outer = key;
        while let Some((parent, _)) = outer.rsplit_once('.') {
            outer = written_key(parent);
            if let Some(at) = written_at(outer) {
                return Some(at);
            }
        }
        None
    };
    // An expression of keys (`sim.platform.workers * sim.platform.containers`) is at the
    // line of the first of them the file writes.
    let in_expression = |key: &str| {
        let is_key_char = |c: char| c.is_ascii_alphanumeric() || "_.[]".contains(c);
        (key.split(|c: char| !is_key_char(c)))
            .filter(|token| token.contains(|c: char| c.is_ascii_alphabetic()))
            .find_map(|token| line_of(written_key(token)))
    };
    line_of(key)
        .or_else(|| line_of(written_key(key)))
        .or_else(|| inline(written_key(key)))
        .or_else(|| in_expression(key))
        .map_or(0, |i| i + 1)
}

/// The key a file writes for the dotted `key`: `key` without the index of an array's
/// element (`causes.levels.containers[1]`: `causes.levels.containers`) or a note in
/// parentheses (`causes.mix.weights (sum)`: `causes.mix.weights`).
fn written_key(key: &str) -> &str {
    let key = key.split_once(" (").map_or(key, |(key, _)| key);
    match key.strip_suffix(']').and_then(|k| k.rsplit_once('[')) {
        Some((array, index)) if index.bytes().all(|b| b.is_ascii_digit()) => array,
        _ => key,
    }
}

/// The key of the error: serde's "missing field `x`" is put under the table found at the
/// error's position; otherwise the key written where the error points.
fn key_named(message: &str, at: String) -> String {
    let missing = message
        .split("missing field `")
        .nth(1)
        .and_then(|rest| rest.split('`').next());
    match missing {
        Some(field) if at.is_empty() => field.to_owned(),
        Some(field) => format!("{at}.{field}"),
        None => at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serdes_structs_are_tables_in_the_messages() {
        for (message, said) in [
            (
                "invalid type: integer `1`, expected struct Platform",
                "invalid type: integer `1`, expected a table",
            ),
            (
                "invalid length 0, expected struct ClusterSpec with 2 elements",
                "a list where a table belongs",
            ),
            ("missing field `nodes`", "missing field `nodes`"),
        ] {
            assert_eq!(in_files_words(message), said);
        }
    }

    #[test]
    fn the_brackets_left_open_count_outside_strings_and_comments() {
        let lines = [
            ("a = [ # ]", 0),
            ("  1, \"]\", '[',", 1),
            ("]", 1),
            ("[t]", 0),
            ("b = \"\"\"", 0),
            ("[x", 1),
            ("\"\"\" # [", 1),
            ("c = { d = '''", 0),
            ("}'''}", 2),
            // A string of one line left open ends with it; a comment's quote opens none.
            ("f = \"x [", 0),
            ("h = 1 # it's [", 0),
            ("i = 2", 0),
        ];
        let text: Vec<&str> = lines.iter().map(|(line, _)| *line).collect();
        let depths: Vec<usize> = lines.iter().map(|(_, depth)| *depth).collect();
        assert_eq!(open_brackets(&text.join("\n")), depths);
    }
}
