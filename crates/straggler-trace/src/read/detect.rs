//! Which format an input is in, from its content (magic bytes, then its first records).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::input::{self, Compression};
use crate::{TraceError, TraceFormat, Unread};

/// How much decompressed content detection looks at.
const HEAD_BYTES: u64 = 64 * 1024;

/// What the head of an input looks like.
#[derive(Debug, PartialEq)]
enum Classified {
    Format(TraceFormat),
    NotALog {
        what: &'static str,
        why: &'static str,
    },
    Unsupported {
        what: &'static str,
        why: &'static str,
    },
    Unknown(String),
}

/// The format of the log at `path`, from its content: the magic bytes of gzip and zstd (a
/// zstd stream may start with a skippable frame, as `pzstd` writes it), then its first
/// records: the first non-blank line of its first 64 KiB, or when that line is of no known
/// format (a damaged first record), the format most of the next ones give (16 non-blank
/// lines in all; see `classify`), so that the reading skips the damaged line, counted, as
/// it would with the format given. A directory is a Spark rolling event log
/// (`eventlog_v2_*`) if it holds `events_N_*` files.
///
/// # Errors
/// [`TraceError::Io`] if it cannot be read; [`TraceError::NotAFile`] for a path that is
/// neither a regular file nor a directory (a pipe, a device: detection would consume what
/// the reading needs); [`TraceError::NotALog`] for files that travel with logs but hold no
/// tasks (a Hadoop job configuration XML, a Rumen topology file);
/// [`TraceError::Unsupported`] for logs recognised but not read (an LZ4 or Snappy
/// compressed Spark log, a binary `.jhist`, an Alibaba `batch_task` table);
/// [`TraceError::UnknownFormat`]
/// otherwise, its hint saying what the first non-blank line looks like, with its number
/// and its start.
pub fn detect_format(path: &Path) -> Result<TraceFormat, TraceError> {
    if path.is_dir() {
        rolling_event_files(path)?;
        return Ok(TraceFormat::SparkEventLog);
    }
    // What the decoder finds past the head (a failed checksum, bytes after the end) is for
    // the reading to report; a failed check that stops it before anything is decoded is
    // the reading's error too.
    let (reader, check) = input::open(path)?;
    let mut head = Vec::new();
    // A read error here (a cut compressed file) still leaves the bytes read so far; with
    // none, the input is a compressed stream cut before anything of it can be decoded.
    // (The zstd decoder yields nothing of a frame before its end when the frame's window
    // spans it, as in a file `zstd` wrote in one frame.)
    if let Err(error) = reader.take(HEAD_BYTES).read_to_end(&mut head)
        && head.is_empty()
    {
        if let Some(corrupt) = check.corrupt_error(path) {
            return Err(corrupt);
        }
        return Err(TraceError::Io {
            path: path.to_owned(),
            error: std::io::Error::new(
                error.kind(),
                format!(
                    "the compressed stream is cut or damaged before anything of it can be \
                     decoded ({error}); decompress what it holds with `{} -dc` and read that",
                    check.tool()
                ),
            ),
        });
    }
    match classify(&head) {
        Classified::Format(format) => Ok(format),
        Classified::NotALog { what, why } => Err(TraceError::NotALog {
            path: path.to_owned(),
            what: what.to_owned(),
            why: why.to_owned(),
        }),
        Classified::Unsupported { what, why } => Err(TraceError::Unsupported {
            path: path.to_owned(),
            what: what.to_owned(),
            why: why.to_owned(),
        }),
        Classified::Unknown(hint) => Err(TraceError::UnknownFormat {
            path: path.to_owned(),
            hint,
        }),
    }
}

/// The format of an input whose first (decompressed) bytes are `head`, if it is one this
/// crate reads.
pub fn detect_bytes(head: &[u8]) -> Option<TraceFormat> {
    match classify(head) {
        Classified::Format(format) => Some(format),
        _ => None,
    }
}

/// What a Spark rolling event-log directory holds: its event files, and every other entry.
#[derive(Debug)]
pub(crate) struct RollingFiles {
    /// The `events_<N>_<app>[.<codec>]` files to read, in the order of `N`: from the last
    /// compacted file on, if there is one.
    pub events: Vec<PathBuf>,
    /// Every other entry, named, with why it is not read, in the order of their names.
    pub others: Vec<Unread>,
}

/// The files of a Spark rolling event-log directory: its `events_<N>_<app>[.<codec>]` files,
/// which Spark's `RollingEventLogFilesWriter` writes and which are read in the order of
/// `N`, and every other entry, each noted with why it is not read: the
/// `appstatus_<app>[.inprogress]` file Spark writes beside them (empty: its name says
/// whether the application is still running) as `"Spark status file"`, and anything else
/// (a stray `README`, an `events_x_app` whose index is not a number, a subdirectory, and an
/// editor's or tool's backup of an event file, `events_1_app~` or `events_1_app.bak`,
/// which would give its events twice) as `"not an event file"`; the event files before
/// the last compacted one, whose events it holds, as `"replaced by a compacted file"`; a
/// gap in the indices (from 1, or from the last compacted file), or an index given to two
/// files, as `"missing event file"`; and files that start at index 0, which Spark's writer
/// never gives (it numbers from 1) but its reader reads, as `"unexpected event file
/// index"` (they are read). Each is named in the
/// report ([`ReadReport::unread`](crate::ReadReport::unread)), so that no file of the
/// directory goes unread without a word.
pub(crate) fn rolling_event_files(dir: &Path) -> Result<RollingFiles, TraceError> {
    let io_error = |error| TraceError::Io {
        path: dir.to_owned(),
        error,
    };
    let mut events: Vec<(u64, PathBuf)> = Vec::new();
    let mut others = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error)? {
        let entry = entry.map_err(io_error)?;
        let name = entry.file_name();
        let index = name.to_str().and_then(|name| {
            let (index, _) = name.strip_prefix("events_")?.split_once('_')?;
            index.parse::<u64>().ok()
        });
        let is_dir = entry.file_type().is_ok_and(|kind| kind.is_dir());
        let name = name.to_string_lossy();
        match index {
            Some(index) if !is_dir && !is_backup(&name) => events.push((index, entry.path())),
            _ => others.push(not_an_event_file(&name, is_dir)),
        }
    }
    if events.is_empty() {
        return Err(TraceError::UnknownFormat {
            path: dir.to_owned(),
            hint: "a directory without events_N_* files (not a Spark rolling event log)".into(),
        });
    }
    // As Spark's `RollingEventLogFilesFileReader`: by index, a compacted file after the
    // event file of its index; what comes before the last compacted file is in it.
    events.sort_by_key(|(index, path)| (*index, is_compacted(path), path.clone()));
    if let Some(last) = events.iter().rposition(|(_, path)| is_compacted(path)) {
        let compacted = file_name(&events[last].1);
        for (_, path) in events.drain(..last) {
            others.push(Unread {
                reason: "replaced by a compacted file".to_owned(),
                note: format!(
                    "its events are in the compacted file {compacted}, which Spark reads \
                     instead: not read, or they would be read twice"
                ),
                file: Some(file_name(&path)),
            });
        }
    }
    // Spark's writer numbers the files from 1 (its `RollingEventLogFilesWriter` adds 1 to
    // an index of 0 before it opens each file) and leaves no gap, and its reader refuses a
    // directory with a gap ("Found missing event log file"), but not one that starts
    // elsewhere: each missing index is named, each index given to two files (both read),
    // and an index 0 (read, as Spark's reader would, but never written by Spark).
    let mut previous: Option<u64> = None;
    for (index, path) in &events {
        // The index expected here: the one after the previous file's, or 1 (a compacted
        // file first holds the events before it, whatever its index).
        let expected = match previous {
            Some(previous) => previous.saturating_add(1),
            None if is_compacted(path) => *index,
            None => 1,
        };
        let note = if previous == Some(*index) {
            Some((
                "missing event file",
                format!(
                    "a second event file of index {index}, {}: both read, as Spark would not",
                    file_name(path)
                ),
            ))
        } else if previous.is_none() && *index == 0 {
            Some((
                "unexpected event file index",
                format!(
                    "the event files start at index 0, {}, which Spark's writer never gives \
                     (it numbers them from 1): read all the same, as Spark's reader does",
                    file_name(path)
                ),
            ))
        } else if *index > expected {
            let (first, last) = (expected, index - 1);
            let indices = match first == last {
                true => format!("index {first}"),
                false => format!("indices {first} to {last}"),
            };
            Some((
                "missing event file",
                format!(
                    "no event file of {indices} (before {}): its events are missing",
                    file_name(path)
                ),
            ))
        } else {
            None
        };
        if let Some((reason, note)) = note {
            others.push(Unread {
                reason: reason.to_owned(),
                note,
                file: None,
            });
        }
        previous = Some(*index);
    }
    others.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(RollingFiles {
        events: events.into_iter().map(|(_, path)| path).collect(),
        others,
    })
}

/// Whether `path` is a file Spark's event-log compactor wrote (`events_<N>_<app>[.<codec>]`
/// with `.compact` added): it holds the events of the files up to index `N` that are
/// still needed, and Spark deletes those files once it is written.
fn is_compacted(path: &Path) -> bool {
    path.extension().is_some_and(|ending| ending == "compact")
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .into_owned()
}

/// Name endings of the copies editors and tools leave beside a file they change, which
/// Spark never writes: such a copy of an event file, read too, would give its events twice.
const BACKUP_ENDINGS: [&str; 5] = ["~", ".bak", ".orig", ".swp", ".tmp"];

/// Whether the file `name` is a backup copy (see [`BACKUP_ENDINGS`]).
fn is_backup(name: &str) -> bool {
    BACKUP_ENDINGS.iter().any(|ending| name.ends_with(ending))
}

/// The note of an entry of a rolling event-log directory, `name`, that is not read.
fn not_an_event_file(name: &str, is_dir: bool) -> Unread {
    let (reason, note) = if name.starts_with("appstatus_") && !is_dir {
        (
            "Spark status file",
            "Spark's marker of the application's status (`appstatus_<app>`, \
             `.inprogress` while it runs), which holds no events: not read"
                .to_owned(),
        )
    } else if is_dir {
        (
            "not an event file",
            "a directory in the event log: not read (only its `events_<N>_<app>` files are)"
                .to_owned(),
        )
    } else if name.starts_with("events_") && is_backup(name) {
        (
            "not an event file",
            format!(
                "a backup copy of an event file (its name ends with `{}`): not read, or its \
                 events would be read twice",
                BACKUP_ENDINGS
                    .into_iter()
                    .find(|ending| name.ends_with(ending))
                    .unwrap_or_default()
            ),
        )
    } else {
        (
            "not an event file",
            "not named `events_<N>_<app>` with N a number: not read (only such files of a \
             rolling event log are)"
                .to_owned(),
        )
    };
    Unread {
        reason: reason.to_owned(),
        note,
        file: Some(name.to_owned()),
    }
}

/// The first line of a `.jhist` written in Avro's binary encoding, Hadoop 3's default
/// (`mapreduce.jobhistory.jhist.format`, MAPREDUCE-6613): its schema line follows, then
/// the events as binary records, which this crate does not decode.
pub(crate) const JHIST_BINARY_HEADER: &str = "Avro-Binary";
/// What such a file is, and what to do instead.
pub(crate) const JHIST_BINARY: &str = "a binary .jhist (`Avro-Binary`, Hadoop 3's default)";
pub(crate) const JHIST_BINARY_WHY: &str = "this crate reads the JSON form: have the \
     job history server write it (`mapreduce.jobhistory.jhist.format=json`)";

/// How many non-blank lines of the head detection looks at: the first, and when it is of
/// no known format (a damaged first record), those after it, so that one bad line does not
/// refuse a whole log that its format's reader would read with that line skipped.
const DETECT_LINES: usize = 16;

/// What the head of an input is: the first non-blank line's format, if it has one (as a
/// log of every format starts with a record of its own); otherwise the format most of the
/// next non-blank lines that have one give ([`DETECT_LINES`] in all, the first of them on
/// a tie), the first line then read as that format's reader reads a bad record (a counted
/// skip, or for a `.jhist` header, the error naming it). Lines end as [`input::Lines`]
/// ends them: at `\n` in a head that has one, at `\r` otherwise. `Unknown` when no line
/// looked at is of a known format, saying what the first one looks like.
fn classify(head: &[u8]) -> Classified {
    match Compression::sniff(head) {
        Compression::Lz4 => {
            return Classified::Unsupported {
                what: "an LZ4-compressed log",
                why: "decompress it first; this crate decodes gzip and zstd",
            };
        }
        Compression::Snappy => {
            return Classified::Unsupported {
                what: "a Snappy-compressed log",
                why: "decompress it first; this crate decodes gzip and zstd",
            };
        }
        Compression::Gzip | Compression::Zstd => {
            return Classified::Unknown("compressed twice".into());
        }
        Compression::None => {}
    }
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start_matches('\u{feff}');
    // Lines end with `\n` (or `\r\n`, the `\r` trimmed), or (classic Mac OS) `\r` alone.
    let end = if text.contains('\n') { '\n' } else { '\r' };
    let mut lines = text
        .split(end)
        .map(str::trim)
        .enumerate()
        .filter(|(_, line)| !line.is_empty())
        .take(DETECT_LINES);
    let Some((first_index, first)) = lines.next() else {
        return Classified::Unknown(binary_data(head).unwrap_or_else(|| "empty".into()));
    };
    let what_first = match classify_line(first, text) {
        Classified::Unknown(what) => what,
        known => return known,
    };
    // The first line is of no known format: the lines after it decide, by a majority of
    // those that are of one.
    let mut votes: Vec<(Classified, usize)> = Vec::new();
    let mut looked_at = 0;
    for (_, line) in lines {
        looked_at += 1;
        let classified = classify_line(line, text);
        if matches!(classified, Classified::Unknown(_)) {
            continue;
        }
        match votes.iter_mut().find(|(seen, _)| *seen == classified) {
            Some((_, count)) => *count += 1,
            None => votes.push((classified, 1)),
        }
    }
    // The first of the most given (`max_by_key` keeps the last of equals).
    if let Some((classified, _)) = votes.into_iter().rev().max_by_key(|(_, count)| *count) {
        return classified;
    }
    if let Some(binary) = binary_data(head) {
        return Classified::Unknown(binary);
    }
    // Control characters (an escape sequence, a bell) are escaped, not echoed to a
    // terminal.
    let preview: String = (first.chars().take(40))
        .flat_map(|c| match c.is_control() {
            true => c.escape_default().collect::<Vec<_>>(),
            false => vec![c],
        })
        .collect();
    let cut = if first.chars().count() > 40 {
        "..."
    } else {
        ""
    };
    let after = match looked_at {
        0 => "and no other line is".to_owned(),
        1 => "nor is the one line after it".to_owned(),
        n => format!("nor is any of the {n} lines after it"),
    };
    Classified::Unknown(format!(
        "line {} is {what_first} (`{preview}{cut}`), {after}",
        first_index + 1
    ))
}

/// How many bytes of a head are looked at for signs of binary data, as `git` does.
const BINARY_LOOK_BYTES: usize = 8000;

/// What says that `head`, of no format, is binary data (an executable, an image, random
/// bytes): a NUL byte, or bytes that are not UTF-8, in its first [`BINARY_LOOK_BYTES`]
/// (a character cut by their end excepted); `None` for text. Said in place of a preview of
/// its first line, which would echo binary to the terminal. Looked for only once no format
/// is found: a log with a stray NUL on a line is read, that line skipped.
fn binary_data(head: &[u8]) -> Option<String> {
    let look = &head[..head.len().min(BINARY_LOOK_BYTES)];
    if utf16(look) {
        return Some(
            "UTF-16 text, which no reader here reads (`iconv -f UTF-16 -t UTF-8` converts it)"
                .to_owned(),
        );
    }
    if let Some(at) = look.iter().position(|&b| b == 0) {
        return Some(format!("binary data: a NUL byte at byte {at}"));
    }
    match std::str::from_utf8(look) {
        Err(error) if error.error_len().is_some() => Some(format!(
            "binary data: bytes that are not UTF-8 at byte {}",
            error.valid_up_to()
        )),
        _ => None,
    }
}

/// Whether `look` is UTF-16 text: it starts with a UTF-16 byte order mark, or, in its
/// first 64 bytes (at least 8), every byte at even offsets or every byte at odd ones is a
/// NUL and the others are ASCII and not NUL (ASCII text in UTF-16, little- or big-endian).
fn utf16(look: &[u8]) -> bool {
    if look.starts_with(&[0xff, 0xfe]) || look.starts_with(&[0xfe, 0xff]) {
        return true;
    }
    let pairs = &look[..look.len().min(64) / 2 * 2];
    if pairs.len() < 8 {
        return false;
    }
    let ascii = |b: u8| b != 0 && b.is_ascii();
    let little = pairs.chunks(2).all(|p| ascii(p[0]) && p[1] == 0);
    let big = pairs.chunks(2).all(|p| p[0] == 0 && ascii(p[1]));
    little || big
}

/// What the non-blank line `line` of the head `text` is a record of, if it is one: the
/// table of `docs/trace-formats.md`. `Unknown` says what it looks like instead.
fn classify_line(line: &str, text: &str) -> Classified {
    if line == "Avro-Json" {
        return Classified::Format(TraceFormat::HadoopJhist);
    }
    if line == JHIST_BINARY_HEADER {
        return Classified::Unsupported {
            what: JHIST_BINARY,
            why: JHIST_BINARY_WHY,
        };
    }
    if line.starts_with('{') {
        // A `.jhist` record after its header: the Avro schema (whose record is named
        // `Event`) or an event (`{"type":"JOB_SUBMITTED","event":{...}}`).
        if line.starts_with("{\"type\":")
            && (line.contains("\"event\":") || line.contains("\"name\":\"Event\""))
        {
            return Classified::Format(TraceFormat::HadoopJhist);
        }
        if line.contains("\"Event\"") {
            return Classified::Format(TraceFormat::SparkEventLog);
        }
        if text.contains("\"jobID\"") {
            return Classified::Format(TraceFormat::Rumen);
        }
        if text.contains("\"children\"") {
            return Classified::NotALog {
                what: "a Rumen topology file",
                why: "it lists racks and hosts, no tasks; read the trace file beside it",
            };
        }
        return Classified::Unknown("JSON with neither Spark events nor Rumen jobs".into());
    }
    const HADOOP1_STARTS: [&str; 6] = [
        "Meta VERSION=",
        "Job JOBID=",
        "Task TASKID=",
        "MapAttempt ",
        "ReduceAttempt ",
        "!!FILE=",
    ];
    if HADOOP1_STARTS.iter().any(|s| line.starts_with(s)) {
        return Classified::Format(TraceFormat::Hadoop1History);
    }
    if line.starts_with("<?xml") || line.starts_with("<configuration") {
        return Classified::NotALog {
            what: "a Hadoop job configuration XML",
            why: "it holds settings, no tasks; read the job history log beside it",
        };
    }
    classify_csv(line)
}

/// Status words of Alibaba 2018 `batch_instance` and `batch_task`.
pub(crate) const ALIBABA_STATUSES: [&str; 7] = [
    "Terminated",
    "Failed",
    "Running",
    "Waiting",
    "Ready",
    "Cancelled",
    "Interrupted",
];

fn classify_csv(line: &str) -> Classified {
    let fields: Vec<&str> = line.split(',').collect();
    let int = |i: usize| fields.get(i).is_some_and(|f| f.parse::<i64>().is_ok());
    match fields.len() {
        // Google 2011 task_events: timestamp, missing info, job ID, task index, machine ID,
        // event type (0..=8), user, scheduling class, priority, CPU, memory, disk, different-
        // machine restriction.
        13 if int(0) && int(2) && int(3) && fields[5].parse::<u8>().is_ok_and(|t| t <= 8) => {
            Classified::Format(TraceFormat::Google2011TaskEvents)
        }
        // Alibaba 2018 batch_instance: instance, task, job, task type, status, start, end,
        // machine, seq_no, total_seq_no, cpu_avg, cpu_max, mem_avg, mem_max.
        14 if ALIBABA_STATUSES.contains(&fields[4]) => {
            Classified::Format(TraceFormat::Alibaba2018BatchInstance)
        }
        9 if ALIBABA_STATUSES.contains(&fields[4]) => Classified::Unsupported {
            what: "an Alibaba 2018 batch_task table",
            why: "it has one row per task, no instance times; read batch_instance.csv",
        },
        n if n > 1 => {
            Classified::Unknown(format!("a CSV line of {n} fields, of no format read here"))
        }
        _ => Classified::Unknown("text of no format read here".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_is_told_by_its_first_records() {
        let check = |head: &str, expected: Option<TraceFormat>| {
            assert_eq!(detect_bytes(head.as_bytes()), expected, "{head:?}");
        };
        check(
            "Avro-Json\n{\"type\":\"record\"}\n",
            Some(TraceFormat::HadoopJhist),
        );
        check(
            "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"3.1.0\"}\n",
            Some(TraceFormat::SparkEventLog),
        );
        check(
            "{\n  \"priority\" : \"NORMAL\",\n  \"jobID\" : \"job_1\",\n",
            Some(TraceFormat::Rumen),
        );
        check("Meta VERSION=\"1\" .\n", Some(TraceFormat::Hadoop1History));
        check(
            "!!FILE=x_conf.xml!!\n<?xml?>\n",
            Some(TraceFormat::Hadoop1History),
        );
        check(
            "0,,3418309,0,,0,user,3,9,0.125,0.07446,0.0004244,0\n",
            Some(TraceFormat::Google2011TaskEvents),
        );
        check(
            "ins_1,M1,j_1,1,Terminated,100,200,m_1,1,1,50,60,0.1,0.2\n",
            Some(TraceFormat::Alibaba2018BatchInstance),
        );
        check("hello world\n", None);
        check("", None);
    }

    #[test]
    fn a_first_line_of_no_format_is_decided_by_the_lines_after_it() {
        let google = "0,,3418309,0,,0,user,3,9,0.125,0.07446,0.0004244,0\n";
        let spark = "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0}\n";
        let detected = |head: String| detect_bytes(head.as_bytes());
        // One damaged line, then the format's records; blank lines are passed over.
        assert_eq!(
            detected(format!("x,,1,0\n\n{}", google.repeat(3))),
            Some(TraceFormat::Google2011TaskEvents)
        );
        assert_eq!(
            detected(format!("{{\"Evnt\":1}}\r{}", spark.replace('\n', "\r"))),
            Some(TraceFormat::SparkEventLog)
        );
        // The most given, and on a tie the first.
        assert_eq!(
            detected(format!("?\n{spark}{google}{google}")),
            Some(TraceFormat::Google2011TaskEvents)
        );
        assert_eq!(
            detected(format!("?\n{spark}{google}")),
            Some(TraceFormat::SparkEventLog)
        );
        // A `.jhist` whose header is damaged is a `.jhist` (whose reader names the header).
        assert_eq!(
            detected(
                "Avro-Jsn\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n\
                 {\"type\":\"JOB_SUBMITTED\",\"event\":{\"e\":{}}}\n"
                    .to_owned()
            ),
            Some(TraceFormat::HadoopJhist)
        );
        // A first line of a known format decides, whatever follows.
        assert_eq!(
            detected(format!("{spark}{}", google.repeat(5))),
            Some(TraceFormat::SparkEventLog)
        );
        // Only the first 16 non-blank lines are looked at.
        assert_eq!(detected(format!("{}{google}", "?\n".repeat(16))), None);
        assert_eq!(
            detected(format!("{}{google}", "?\n".repeat(15))),
            Some(TraceFormat::Google2011TaskEvents)
        );
    }

    #[test]
    fn an_unknown_head_says_what_its_first_line_looks_like() {
        let hint = |head: &str| match classify(head.as_bytes()) {
            Classified::Unknown(hint) => hint,
            other => panic!("{head:?}: {other:?}"),
        };
        assert_eq!(
            hint("\nhello world\nand more\n\nand more\n"),
            "line 2 is text of no format read here (`hello world`), nor is any of the 2 lines \
             after it"
        );
        assert_eq!(
            hint(&format!("{{\"a\":\"{}\"}}\n", "b".repeat(50))),
            "line 1 is JSON with neither Spark events nor Rumen jobs \
             (`{\"a\":\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb...`), and no other line is"
        );
        assert_eq!(
            hint("a,b,c\nx\n"),
            "line 1 is a CSV line of 3 fields, of no format read here (`a,b,c`), nor is the \
             one line after it"
        );
        assert_eq!(hint(" \n\t\n"), "empty");
        // Control characters are escaped, not echoed.
        assert_eq!(
            hint("a\u{1b}[31mb\u{7}\n"),
            "line 1 is text of no format read here (`a\\u{1b}[31mb\\u{7}`), and no other line is"
        );
    }

    #[test]
    fn binary_data_is_said_to_be_binary_and_not_echoed() {
        let hint = |head: &[u8]| match classify(head) {
            Classified::Unknown(hint) => hint,
            other => panic!("{head:?}: {other:?}"),
        };
        // An ELF executable's header, random bytes, bytes not UTF-8 with no NUL.
        let elf = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00>\x00";
        assert_eq!(hint(elf), "binary data: a NUL byte at byte 7");
        // UTF-16 text, little-endian without a byte order mark and big-endian with one.
        let utf16 =
            "UTF-16 text, which no reader here reads (`iconv -f UTF-16 -t UTF-8` converts it)";
        let little: Vec<u8> = "{\"Event\":\"x\"}\n".bytes().flat_map(|b| [b, 0]).collect();
        assert_eq!(hint(&little), utf16);
        let big: Vec<u8> = [0xfe, 0xff]
            .into_iter()
            .chain("{\"Event\":\"x\"}\n".bytes().flat_map(|b| [0, b]))
            .collect();
        assert_eq!(hint(&big), utf16);
        assert_eq!(
            hint(b"\x12\xfe-\xf3,\x8fU91b\xef\x10\x03"),
            "binary data: bytes that are not UTF-8 at byte 1"
        );
        assert_eq!(hint(b"\x00\x00\x00"), "binary data: a NUL byte at byte 0");
        // A character cut by the end of the bytes looked at is not binary.
        let mut text = vec![b'x'; BINARY_LOOK_BYTES - 1];
        text.extend_from_slice("é".as_bytes());
        assert!(hint(&text).starts_with("line 1 is text"), "{}", hint(&text));
        // A log of a known format with a NUL further on is still read as that format.
        let spark = "{\"Event\":\"SparkListenerLogStart\"}\n\0\n";
        assert_eq!(
            detect_bytes(spark.as_bytes()),
            Some(TraceFormat::SparkEventLog)
        );
    }

    #[test]
    fn recognised_but_unread_inputs_say_so() {
        let unsupported = |head: &[u8]| matches!(classify(head), Classified::Unsupported { .. });
        let no_log = |head: &[u8]| matches!(classify(head), Classified::NotALog { .. });
        assert!(no_log(b"<?xml version=\"1.0\"?><configuration>"));
        assert!(no_log(
            b"{\n  \"name\" : \"<root>\",\n  \"children\" : [ ]\n}"
        ));
        assert!(unsupported(b"LZ4Block\x10\x00\x00"));
        assert!(unsupported(b"\x82SNAPPY\x00\x00\x00\x00\x01"));
        assert!(unsupported(b"M1,1,j_1,1,Terminated,100,200,50.0,0.3\n"));
    }
}
