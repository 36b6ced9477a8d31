//! Hadoop 1 JobHistory text logs: one record per line (a value may run over several lines),
//! `Type KEY="value" KEY="value" .`, with `\` escaping `"`, `.`, `=` and `\` inside values.
//! Rumen's concatenated form adds `!!FILE=<name>!!` lines between the files and embeds each
//! job's configuration XML.
//!
//! - `Job JOBID=...`: `JOBNAME`, `SUBMIT_TIME`; a `FINISH_TIME` closes the job (a job the
//!   log never closes is noted in [`ReadReport::truncated`]: the log may be cut at a line
//!   end, or written while the job ran). A later `Job`, `Task` or attempt record of a job
//!   handed out is skipped as `"record of a job already ended"`, naming `JOBID`,
//!   `TASKID` or, for an attempt record without `TASKID`, `TASK_ATTEMPT_ID`, and opens no
//!   second job of its id.
//! - `Task TASKID=... TASK_TYPE=...`: a task; stage `"map"`, `"reduce"`, `"setup"`,
//!   `"cleanup"`.
//! - `MapAttempt` / `ReduceAttempt` with `TASK_ATTEMPT_ID`: a record with `START_TIME`
//!   starts the attempt (host from `TRACKER_NAME`), one with `TASK_STATUS` and
//!   `FINISH_TIME` ends it (`SUCCESS`, `KILLED`, `FAILED`; host from `HOSTNAME`, the last
//!   part of `/rack/host`). The log does not say which attempts were speculative:
//!   `speculative` is `None` (replay infers it from overlapping attempts).
//! - Input from the `COUNTERS` of the successful attempt or of the task:
//!   `HDFS_BYTES_READ` (map) or `REDUCE_SHUFFLE_BYTES` (reduce), `MAP_INPUT_RECORDS` or
//!   `REDUCE_INPUT_RECORDS`; such a count whose value is no size skips its record, naming
//!   it (`"negative size"`, `"field of the wrong type"`).
//! - Embedded configurations: after a `!!FILE=` line naming a job's configuration (a name
//!   that ends in `_conf.xml`: `<host>_<start>_job_<id>_conf.xml`) whose next line that is
//!   not blank opens a tag (`<`), as Rumen's `HadoopLogsAnalyzer` tells one (it takes the
//!   very next line), that line and those after it up to the one that closes the XML's
//!   root (`</configuration>`, or `<configuration/>`) are that job's configuration XML. A
//!   name that ends so with no XML after it is a history file's (its name ends with its
//!   job's name, which may end in `_conf.xml`): a `!!FILE=` line like any other. A line
//!   after the one that closes the root is read as any line is (a history record, a
//!   `!!FILE=` line, `"not a history record"`, `"line too long"`); a `!!FILE=` line or
//!   history record before the root closes ends the XML there, left open. The XML is
//!   read as a `_conf.xml` file is, by the same parser and accounting (`conf_xml`): each
//!   `<property>` a record on its line of the log, parsed or skipped with the reason a
//!   `_conf.xml`'s would have; the setting
//!   its properties give goes to [`ReadReport::confs`] with its job and the line of its
//!   `!!FILE=` line, for the caller to give to the job of that id (`stragglers replay`
//!   pairs it as it pairs a `_conf.xml` among its inputs). The reader gives it to no job:
//!   a log may hold a job's configuration after its history (the Yahoo! sample holds job
//!   0002's so), when the job was handed out already.
//! - An embedded configuration that cannot be read is one record skipped, and its job's
//!   setting stays unknown: `"malformed job configuration"` on the line of the XML's fault,
//!   naming as its field the element the fault is in (as the error on a malformed
//!   `_conf.xml` does; `text` for bytes that are not UTF-8; XML without a `<configuration>`
//!   on its `!!FILE=` line, field `document`); `"truncated record"` when the
//!   input ends inside its XML; `"record too long"` past 64 MiB; `"embedded job
//!   configuration without a job id"` when no `!!FILE=` name gives its job (XML that no
//!   `!!FILE=` line names, or a name without `job_<id>`). When the input ends inside the
//!   XML (its root not closed), the input is noted as cut there, whatever the reason. A
//!   malformed `_conf.xml` file is an error that stops the reading, because the file is
//!   read for its job's setting alone and nothing else is lost; here an error would lose
//!   the whole log, every job's history, for a fault that costs one job its setting at
//!   most, so it is a counted skip instead: the note shows it, and `--strict` fails on it.
//!
//! Records: each history record, each `!!FILE=` line (parsed), each property of an embedded
//! configuration (or the configuration, when it cannot be read), and each other stray line
//! (skipped as `"not a history record"`). A record cut short (a key with no value before
//! the closing ` .`, or the input ending inside a record) is skipped as
//! `"truncated record"` and sets [`ReadReport::truncated`] to its line; a record that the
//! next one interrupts (a closing quote or its ` .` missing, the log going on) is skipped
//! as `"malformed record"`, on the line of the value left open and naming its key; a record over
//! 64 MiB is read to its end and skipped as `"record too long"`. An attempt record that
//! repeats or contradicts one applied (its id in another task, a second start or end, a
//! start after the end) is skipped whole, and so is one that is neither a start nor an end
//! (`"missing field"`: no `START_TIME`, no `TASK_STATUS`; or a `FINISH_TIME` without its
//! `TASK_STATUS`). Every time read (`SUBMIT_TIME`, `START_TIME`, `FINISH_TIME`) is checked
//! as [`plausible`]; an empty one is `"missing field"`. A record that writes a key twice is
//! skipped as `"duplicate key"` (Hadoop 1 writes each once; which value to take cannot be
//! told). A `Job` record that gives its job another `JOBNAME` or `SUBMIT_TIME` than an
//! earlier one did is counted as a skip, `"contradicts the job's submission"` naming the
//! field, the first standing; its other fields apply all the same (a `FINISH_TIME` closes
//! the job). So do they where its `SUBMIT_TIME` cannot be read, the record counted as that
//! skip (`negative time`, say). One restating them (the JobTracker writes a job's record again after a
//! restart) or adding other fields is parsed, and gives a value no earlier one did.
//!
//! Keys: a record may carry keys this reader does not use (each version of Hadoop 1 wrote
//! a few more), which are passed over. Those outside Hadoop 1's `JobHistory.Keys` (see
//! [`is_known_key`]) are not fatal either, since a log may come from a fork that added its
//! own, but each is counted in [`ReadReport::unknown_keys`] with the first line it is on:
//! a misspelt `TASK_STATUX` would otherwise lose an attempt's end without a word.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use super::assemble::{
    Assembler, AttemptFields, JobFields, Skip, plausible, reduce_phase_progress,
};
use super::conf_xml::{self, RootScan, conf_job_id};
use super::hadoop_conf::HadoopVersion;
use super::input::{Line, Lines, MAX_LINE_BYTES};
use super::jhist::{job_of, kind_of};
use crate::{AttemptOutcome, EmbeddedConf, JobConf, ReadReport, StageKind, TraceJob};

/// A record longer than this many lines is taken as unterminated.
const MAX_RECORD_LINES: usize = 10_000;

const RECORD_TYPES: [&str; 5] = ["Meta", "Job", "Task", "MapAttempt", "ReduceAttempt"];

/// The fields of a `Job` record's name and submit time, as skips name them.
const JOB_FIELDS: JobFields = JobFields {
    id: "JOBID",
    name: "JOBNAME",
    submit: "SUBMIT_TIME",
};

/// The fields of an attempt's records, as skips name them.
const FIELDS: AttemptFields = AttemptFields {
    job: "TASKID",
    id: "TASK_ATTEMPT_ID",
    start: "START_TIME",
    end: "FINISH_TIME",
    no_start: ("attempt end without start", "START_TIME"),
};

/// Why a record's text could not be split into fields.
enum Unparsed<'a> {
    Truncated,
    Malformed,
    /// A key written twice: Hadoop 1 writes each key of a record once (none of the real logs
    /// repeats one), so which value stands cannot be told.
    Duplicate(&'a str),
}

/// Reads a Hadoop 1 history input.
pub(crate) fn read(
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    mut on_job: impl FnMut(TraceJob),
) {
    let mut lines = Lines::new(input);
    let mut jobs = Assembler::default();
    // A record being gathered over several lines.
    let mut pending: Option<Pending> = None;
    // An embedded configuration being gathered.
    let mut conf: Option<EmbeddedXml> = None;
    // A `!!FILE=` line (its line, and the job its name gives) naming a configuration whose
    // XML has not begun: it does if the next line that is not blank opens a tag.
    let mut named: Option<(u64, Option<String>)> = None;
    while let Some(line) = lines.next_or_note(report) {
        let no = line.no;
        if let Some(xml) = &mut conf {
            // A line of the configuration, up to the one that closes its root; a file or
            // history record before that ends it, its XML left open.
            let interrupts = !line.too_long && {
                let trimmed = String::from_utf8_lossy(line.text);
                let trimmed = trimmed.trim();
                trimmed.starts_with("!!FILE=") || opens_record(trimmed)
            };
            if !interrupts {
                xml.push(&line);
                if xml.scan.closed()
                    && let Some(xml) = conf.take()
                {
                    xml.finish(false, report);
                }
                continue;
            }
            if let Some(xml) = conf.take() {
                xml.finish(false, report);
            }
        }
        if let Some((start, job)) = named.take() {
            let text = (!line.too_long).then(|| String::from_utf8_lossy(line.text));
            match text.as_deref().map(str::trim) {
                Some("") => {
                    named = Some((start, job));
                    continue;
                }
                Some(text) if text.starts_with('<') => {
                    conf = EmbeddedXml::open(start, job, &line, report);
                    continue;
                }
                // No XML: the name was a history file's (its job's name ends so); this
                // line is read as any is.
                _ => {}
            }
        }
        if line.too_long {
            // Not kept: the record it is in (if any) cannot be read either.
            match pending.take() {
                Some(record) => report.skipped(record.start, None, "record too long"),
                None => report.skipped(no, None, "line too long"),
            }
            continue;
        }
        let text = String::from_utf8_lossy(line.text);
        let trimmed = text.trim();
        if let Some(mut record) = pending.take() {
            if opens_record(trimmed) {
                // The next record starts before this one ends: the log goes on, so this
                // one is malformed (a closing quote or its ` .` missing), not cut.
                if record.too_long {
                    report.skipped(record.start, None, "record too long");
                } else {
                    let (line, field) = unended_at(&record.text, record.start);
                    report.skipped(line, field, "malformed record");
                }
            } else {
                record.push_line(&text);
                if record.is_complete() && record.too_long {
                    report.skipped(record.start, None, "record too long");
                } else if record.is_complete() {
                    record_done(record.start, &record.text, report, &mut jobs, &mut on_job);
                } else if record.lines >= MAX_RECORD_LINES {
                    report.skipped(record.start, None, "unterminated record");
                } else {
                    pending = Some(record);
                }
                continue;
            }
        }
        if trimmed.is_empty() {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix("!!FILE=") {
            report.parsed();
            let name = name.strip_suffix("!!").unwrap_or(name);
            if name.ends_with("_conf.xml") {
                named = Some((no, conf_job_id(Path::new(name))));
            }
            continue;
        }
        if trimmed.starts_with("<?xml") || trimmed.starts_with("<configuration") {
            // A configuration that no `!!FILE=` line names: its job is not known.
            conf = EmbeddedXml::open(no, None, &line, report);
            continue;
        }
        if record_type(trimmed).is_none() {
            report.skipped(no, None, "not a history record");
            continue;
        }
        let record = Pending::new(no, &text);
        if record.is_complete() {
            record_done(no, &record.text, report, &mut jobs, &mut on_job);
        } else {
            pending = Some(record);
        }
    }
    if let Some(xml) = conf.take() {
        xml.finish(true, report);
    }
    if let Some(Pending { start, .. }) = pending {
        report.skipped(start, None, "truncated record");
        report.cut(
            start,
            format!("the input ends inside the record that starts on line {start}"),
        );
    }
    let end = "Job record with FINISH_TIME";
    jobs.finish_noting_unended(&mut on_job, report, lines.line(), end);
}

/// A job's configuration embedded in the log, being gathered: the lines after a `!!FILE=`
/// line naming a `_conf.xml` (or from a line opening XML that no such line names), up to
/// the one that closes its root ([`RootScan`]), or to the next `!!FILE=` line or history
/// record, which leaves its XML open.
struct EmbeddedXml {
    /// The line that opens it: its `!!FILE=` line, or its first line of XML.
    start: u64,
    /// The job its `!!FILE=` name gives ([`conf_job_id`]); `None` when it gives none.
    job: Option<String>,
    /// The line of its text's first line.
    first: u64,
    /// Its last line gathered; `first - 1` while it has none.
    last: u64,
    text: String,
    /// Why its XML cannot be read, whatever the text holds: a line over the cap, or the
    /// text growing past it (`"record too long"`, at `start`), or the line of the first
    /// bytes that are not UTF-8.
    unreadable: Option<Unreadable>,
    /// Where its XML stands: whether a line closed its root, which ends it.
    scan: RootScan,
}

/// Why an embedded configuration cannot be read (see [`EmbeddedXml::unreadable`]).
enum Unreadable {
    TooLong,
    NotUtf8(u64),
}

impl EmbeddedXml {
    fn new(start: u64, job: Option<String>, first: u64) -> EmbeddedXml {
        EmbeddedXml {
            start,
            job,
            first,
            last: first - 1,
            text: String::new(),
            unreadable: None,
            scan: RootScan::default(),
        }
    }

    /// The configuration that opens at `start` and whose XML starts on `line`: still open
    /// after it, or `None` when that line closes its root and it is counted already
    /// ([`EmbeddedXml::finish`]).
    fn open(
        start: u64,
        job: Option<String>,
        line: &Line<'_>,
        report: &mut ReadReport,
    ) -> Option<EmbeddedXml> {
        let mut xml = EmbeddedXml::new(start, job, line.no);
        xml.push(line);
        if xml.scan.closed() {
            xml.finish(false, report);
            return None;
        }
        Some(xml)
    }

    fn push(&mut self, line: &Line<'_>) {
        self.last = line.no;
        if line.too_long {
            self.scan.skip_line();
        } else {
            self.scan.line(&String::from_utf8_lossy(line.text));
        }
        if self.unreadable.is_some() {
            return;
        }
        if line.too_long || self.text.len() + line.text.len() + 1 > MAX_LINE_BYTES {
            self.unreadable = Some(Unreadable::TooLong);
            self.text = String::new();
            return;
        }
        match std::str::from_utf8(line.text) {
            Ok(text) => {
                self.text.push_str(text);
                self.text.push('\n');
            }
            Err(_) => self.unreadable = Some(Unreadable::NotUtf8(line.no)),
        }
    }

    /// Counts the configuration in `report`: each of its properties a record, read as a
    /// `_conf.xml`'s are, and the setting they give among [`ReadReport::confs`]; or one
    /// record skipped when it cannot be read: its job not known (`"embedded job
    /// configuration without a job id"`, on its first line), its XML malformed
    /// (`"malformed job configuration"`, on the fault's line, naming the element as the
    /// field, as [`read_job_conf`](crate::read_job_conf)'s error does), a line not UTF-8
    /// (the same, field `text`), or too long (`"record too long"`). When the input ends
    /// inside its XML (`at_end`, its root not closed), the input is noted as cut there,
    /// whatever the configuration is skipped for; XML that can be read up to that end is
    /// `"truncated record"`.
    fn finish(self, at_end: bool, report: &mut ReadReport) {
        let start = self.start;
        let cut = at_end && !self.scan.closed();
        if cut {
            report.cut(
                start,
                format!("the input ends inside the job configuration that starts on line {start}"),
            );
        }
        let Some(job) = self.job else {
            report.skipped(
                self.start,
                None,
                "embedded job configuration without a job id",
            );
            return;
        };
        match self.unreadable {
            Some(Unreadable::TooLong) => {
                report.skipped(self.start, None, "record too long");
                return;
            }
            Some(Unreadable::NotUtf8(line)) => {
                report.skipped(line, Some("text"), "malformed job configuration");
                return;
            }
            None => {}
        }
        match conf_xml::read_embedded(&self.text, self.first, HadoopVersion::Hadoop1, report) {
            Ok(speculation) => report.confs.push(EmbeddedConf {
                line: self.start,
                conf: JobConf { job, speculation },
                file: None,
            }),
            Err(error) if error.cut && cut => report.skipped(start, None, "truncated record"),
            Err(error) => {
                // XML without a root is at the line that opens the configuration; an error
                // past the text's last line (an element it leaves open is at its own line)
                // is at the configuration's last line.
                let line = if error.no_root {
                    self.start
                } else {
                    error.line.min(self.last)
                };
                report.skipped(line, Some(&error.field), "malformed job configuration");
            }
        }
    }
}

/// A record being gathered over several lines (a value may hold line breaks): its first
/// line, its text, how many lines it has taken, and where a scan of its quotes stands, kept
/// so that each line is scanned once.
struct Pending {
    start: u64,
    text: String,
    lines: usize,
    quotes: Quotes,
    /// Whether the text grew past [`MAX_LINE_BYTES`]: only its last line is kept then, to
    /// find where it ends, and it is skipped as `"record too long"`.
    too_long: bool,
}

impl Pending {
    fn new(start: u64, line: &str) -> Pending {
        Pending {
            start,
            text: line.to_owned(),
            lines: 1,
            quotes: Quotes::default().after(line),
            too_long: false,
        }
    }

    fn push_line(&mut self, line: &str) {
        if self.too_long || self.text.len() + 1 + line.len() > MAX_LINE_BYTES {
            self.too_long = true;
            self.text = line.to_owned();
        } else {
            self.text.push('\n');
            self.text.push_str(line);
        }
        self.lines += 1;
        // The line break is scanned too: a `\` at the end of a line escapes it, as
        // `fields` reads the joined text.
        self.quotes = self.quotes.after("\n").after(line);
    }

    /// Whether the record ends with ` .` outside any quoted value.
    fn is_complete(&self) -> bool {
        !self.quotes.open && self.text.trim_end().ends_with(" .")
    }
}

/// Where a scan of a record's text stands: inside a quoted value or not, just after a `\`
/// or not.
#[derive(Debug, Clone, Copy, Default)]
struct Quotes {
    open: bool,
    escaped: bool,
}

impl Quotes {
    /// The state after `text`.
    fn after(mut self, text: &str) -> Quotes {
        for c in text.chars() {
            if self.escaped {
                self.escaped = false;
            } else if c == '\\' {
                self.escaped = true;
            } else if c == '"' {
                self.open = !self.open;
            }
        }
        self
    }
}

/// Whether a line opens a history record (a record type, a space, `KEY="`) or a file of a
/// concatenated log: a record still being gathered when one comes is malformed. A line
/// of a value that runs over several lines (a stack trace) does not look so.
fn opens_record(line: &str) -> bool {
    if line.starts_with("!!FILE=") {
        return true;
    }
    let Some(kind) = record_type(line) else {
        return false;
    };
    let rest = &line[kind.len() + 1..];
    let key = rest
        .bytes()
        .take_while(|b| b.is_ascii_uppercase() || *b == b'_')
        .count();
    key > 0 && rest[key..].starts_with("=\"")
}

/// Where a record that the next record interrupts (`text`, whose first line is `start`)
/// went wrong, and the key at fault: the value that runs over a `KEY="` of its own (its
/// closing quote missing, so that it took the next key: Hadoop escapes `=` in values as
/// `\=`), else the value left open at the end, on the line where that value starts; the
/// record's first line, and no key, when no value is open (its ` .` is missing).
fn unended_at(text: &str, start: u64) -> (u64, Option<&str>) {
    let mut quotes = Quotes::default();
    // Where the value being read starts and its key.
    let mut value: Option<(usize, &str)> = None;
    let mut bytes = text.char_indices().peekable();
    while let Some((at, c)) = bytes.next() {
        let was_open = quotes.open;
        let was_escaped = quotes.escaped;
        quotes = quotes.after(c.encode_utf8(&mut [0; 4]));
        if !was_open && quotes.open {
            // The key written before `="`, if one is (the text is cut at char bounds).
            let key = text[..at].strip_suffix('=').map_or("", |before| {
                let is_key = |c: char| c.is_ascii_uppercase() || c == '_';
                &before[before.trim_end_matches(is_key).len()..]
            });
            value = Some((at, key));
        } else if was_open && !was_escaped && c == '=' && bytes.peek().map(|&(_, c)| c) == Some('"')
        {
            // An `=` not escaped, then a quote: the value took the next key.
            break;
        } else if was_open && !quotes.open {
            value = None;
        }
    }
    let Some((at, key)) = value else {
        return (start, None);
    };
    let line = start + text[..at].matches('\n').count() as u64;
    (line, Some(key).filter(|key| !key.is_empty()))
}

/// Counts the record starting on `line` as cut short, and notes the first such cut.
fn cut_short(line: u64, report: &mut ReadReport) {
    report.skipped(line, None, "truncated record");
    report.cut(
        line,
        format!("the record on line {line} is cut short; reading went on after it"),
    );
}

fn record_type(text: &str) -> Option<&'static str> {
    RECORD_TYPES.into_iter().find(|t| {
        text.strip_prefix(t)
            .is_some_and(|rest| rest.starts_with(' '))
    })
}

/// Splits `Type KEY="value" ... .` into its fields, values unescaped. A key written twice
/// is [`Unparsed::Duplicate`], once the record is known to be whole (a record cut short is
/// [`Unparsed::Truncated`] whatever it holds).
fn fields(record: &str) -> Result<HashMap<&str, String>, Unparsed<'_>> {
    let mut out = HashMap::new();
    let mut duplicate = None;
    let body = record.trim_end();
    let body = body.strip_suffix('.').ok_or(Unparsed::Malformed)?;
    let mut rest = body.split_once(' ').map_or("", |(_, r)| r);
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return match duplicate {
                Some(key) => Err(Unparsed::Duplicate(key)),
                None => Ok(out),
            };
        }
        let Some(eq) = rest.find("=\"") else {
            // A bare word before the end: the record was cut inside a key.
            return Err(if rest.trim_end().contains([' ', '"']) {
                Unparsed::Malformed
            } else {
                Unparsed::Truncated
            });
        };
        let key = &rest[..eq];
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_uppercase() || b == b'_') {
            return Err(Unparsed::Malformed);
        }
        let mut value = String::new();
        let mut escaped = false;
        let mut end = None;
        for (i, c) in rest[eq + 2..].char_indices() {
            if escaped {
                value.push(c);
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                end = Some(eq + 2 + i + 1);
                break;
            } else {
                value.push(c);
            }
        }
        let end = end.ok_or(Unparsed::Truncated)?;
        if out.insert(key, value).is_some() {
            duplicate = duplicate.or(Some(key));
        }
        rest = &rest[end..];
    }
}

fn record_done(
    line: u64,
    record: &str,
    report: &mut ReadReport,
    jobs: &mut Assembler,
    on_job: &mut impl FnMut(TraceJob),
) {
    let kind = record_type(record.trim_start()).unwrap_or("Meta");
    match fields(record.trim_start()) {
        Ok(fields) => {
            count_unknown_keys(&fields, line, report);
            match apply(kind, &fields, line, jobs, on_job) {
                Ok(()) => report.parsed(),
                Err((reason, field)) => report.skipped(line, field, reason),
            }
        }
        Err(Unparsed::Truncated) => cut_short(line, report),
        Err(Unparsed::Malformed) => report.skipped(line, None, "malformed record"),
        Err(Unparsed::Duplicate(key)) => report.skipped(line, Some(key), "duplicate key"),
    }
}

/// Counts in `report` the keys of the record on `line` that Hadoop 1 does not define (see
/// [`is_known_key`]), in the order of their names.
fn count_unknown_keys(fields: &HashMap<&str, String>, line: u64, report: &mut ReadReport) {
    // The usual record: nothing to sort, nothing allocated.
    if fields.keys().all(|key| is_known_key(key)) {
        return;
    }
    let mut unknown: Vec<&str> = fields
        .keys()
        .copied()
        .filter(|key| !is_known_key(key))
        .collect();
    unknown.sort_unstable();
    for key in unknown {
        report.unknown_key(key, line);
    }
}

/// Whether `key` is one of Hadoop 1's `JobHistory.Keys`, the namespace of every key its
/// history files hold (Hadoop's own parser, `JobHistory.parseLine`, takes each key with
/// `Keys.valueOf`). The set is branch-1's last (1.2), which holds those of 0.20 and adds
/// `MAP_COUNTERS`, `REDUCE_COUNTERS`, `VIEW_JOB`, `MODIFY_JOB`, `JOB_QUEUE`,
/// `FAIL_REASON`, `LOCALITY`, `AVATAAR` and the `WORKFLOW_*` keys; 0.19's held
/// `RESTART_COUNT` too (written when the JobTracker recovered a job after a restart), which
/// 0.20 dropped: it is known here. Rumen's copy of the
/// pre-0.21 keys (`Pre21JobHistoryConstants`) also lists `MAP_FINISHED`, which neither
/// 0.20's nor branch-1's `JobHistory.Keys` defines: it is not taken here (a log that
/// carries it has it reported, and is read all the same). The reader uses a few
/// of these keys; the others are known and passed over without a word. A key outside the
/// set is counted in [`ReadReport::unknown_keys`], since a misspelt key (`TASK_STATUX`)
/// would lose what it holds (an attempt's end) without a skip to show for it.
fn is_known_key(key: &str) -> bool {
    matches!(
        key,
        "JOBTRACKERID"
            | "START_TIME"
            | "FINISH_TIME"
            | "JOBID"
            | "JOBNAME"
            | "USER"
            | "JOBCONF"
            | "SUBMIT_TIME"
            | "LAUNCH_TIME"
            | "TOTAL_MAPS"
            | "TOTAL_REDUCES"
            | "FAILED_MAPS"
            | "FAILED_REDUCES"
            | "FINISHED_MAPS"
            | "FINISHED_REDUCES"
            | "JOB_STATUS"
            | "TASKID"
            | "HOSTNAME"
            | "TASK_TYPE"
            | "ERROR"
            | "TASK_ATTEMPT_ID"
            | "TASK_STATUS"
            | "COPY_PHASE"
            | "SORT_PHASE"
            | "REDUCE_PHASE"
            | "SHUFFLE_FINISHED"
            | "SORT_FINISHED"
            | "COUNTERS"
            | "SPLITS"
            | "JOB_PRIORITY"
            | "HTTP_PORT"
            | "TRACKER_NAME"
            | "STATE_STRING"
            | "VERSION"
            | "MAP_COUNTERS"
            | "REDUCE_COUNTERS"
            | "VIEW_JOB"
            | "MODIFY_JOB"
            | "JOB_QUEUE"
            | "FAIL_REASON"
            | "LOCALITY"
            | "AVATAAR"
            | "WORKFLOW_ID"
            | "WORKFLOW_NAME"
            | "WORKFLOW_NODE_NAME"
            | "WORKFLOW_ADJACENCIES"
            | "WORKFLOW_TAGS"
            | "RESTART_COUNT"
    )
}

/// The time `name`, in seconds, checked as [`plausible`]; `None` when the record does not
/// write it. An empty value (`START_TIME=""`) is no time: `"missing field"`, as Hadoop 1
/// writes every time it writes as a number.
fn millis(fields: &HashMap<&str, String>, name: &'static str) -> Result<Option<f64>, Skip> {
    match fields.get(name) {
        None => Ok(None),
        Some(v) if v.is_empty() => Err(("missing field", Some(name))),
        Some(v) => {
            let ms = v
                .parse::<i64>()
                .map_err(|_| ("field of the wrong type", Some(name)))?;
            plausible(ms as f64 / 1000.0, name).map(Some)
        }
    }
}

fn apply(
    kind: &str,
    fields: &HashMap<&str, String>,
    line: u64,
    jobs: &mut Assembler,
    on_job: &mut impl FnMut(TraceJob),
) -> Result<(), Skip> {
    match kind {
        "Job" => {
            let id = fields
                .get("JOBID")
                .ok_or(("missing field", Some("JOBID")))?;
            let finish = millis(fields, "FINISH_TIME")?;
            let name = fields.get("JOBNAME").map(String::as_str);
            // A submit time that cannot be read, or a name or submit time other than an
            // earlier record's: the record is counted as the skip (the first values
            // standing), its other fields applied all the same (a `FINISH_TIME` still
            // closes the job, which it alone can).
            let (submit, unread) = match millis(fields, "SUBMIT_TIME") {
                Ok(submit) => (submit, Ok(())),
                Err(skip) => (None, Err(skip)),
            };
            let contradiction = jobs.check_submission(id, name, submit, JOB_FIELDS);
            jobs.job(id, JOB_FIELDS.id)?.fill_submission(name, submit);
            if finish.is_some() {
                jobs.end_job(id, JOB_FIELDS.id, on_job)?;
            }
            unread.and(contradiction)?;
        }
        "Task" => {
            let task_id = fields
                .get("TASKID")
                .ok_or(("missing field", Some("TASKID")))?;
            let job_id = job_of(task_id).ok_or(("unrecognised task id", Some("TASKID")))?;
            let task_type = fields.get("TASK_TYPE").map_or("", String::as_str);
            let (stage, stage_kind) = kind_of(task_type, "TASK_TYPE")?;
            // Read before anything changes: a count that is no size skips the record.
            let succeeded = fields.get("TASK_STATUS").map(String::as_str) == Some("SUCCESS");
            // The task's kind, as `task` below leaves it: a kind learnt replaces `Other`.
            let kind = (jobs.get(&job_id))
                .and_then(|job| job.task_kind(task_id))
                .filter(|&kind| kind != StageKind::Other)
                .unwrap_or(stage_kind);
            let input = succeeded.then(|| input_of(fields, kind)).transpose()?;
            let job = jobs.job(&job_id, FIELDS.job)?;
            let task = job.task(task_id, &stage, stage_kind);
            if let Some((bytes, records)) = input {
                let task = job.task_mut(task);
                task.input_bytes = task.input_bytes.or(bytes);
                task.input_records = task.input_records.or(records);
            }
        }
        "MapAttempt" | "ReduceAttempt" => {
            let attempt_id = fields
                .get("TASK_ATTEMPT_ID")
                .ok_or(("missing field", Some("TASK_ATTEMPT_ID")))?;
            // The task, and so the job, from `TASKID`, or else from the attempt's id: the
            // skips name the field it was read from.
            let (task_id, attempt_fields) = match fields.get("TASKID") {
                Some(id) => (id.clone(), FIELDS),
                None => (
                    task_of(attempt_id).ok_or(("missing field", Some("TASKID")))?,
                    AttemptFields {
                        job: "TASK_ATTEMPT_ID",
                        ..FIELDS
                    },
                ),
            };
            let job_id =
                job_of(&task_id).ok_or(("unrecognised task id", Some(attempt_fields.job)))?;
            let task_type = fields.get("TASK_TYPE").map_or(
                if kind == "MapAttempt" {
                    "MAP"
                } else {
                    "REDUCE"
                },
                String::as_str,
            );
            let (stage, stage_kind) = kind_of(task_type, "TASK_TYPE")?;
            let start = millis(fields, "START_TIME")?;
            let finish = millis(fields, "FINISH_TIME")?;
            let phases = (
                millis(fields, "SHUFFLE_FINISHED")?,
                millis(fields, "SORT_FINISHED")?,
            );
            let status = fields.get("TASK_STATUS");
            // The input of a successful attempt, read before anything changes.
            let input = match status.map(String::as_str) {
                Some("SUCCESS") => Some(input_of(fields, stage_kind)?),
                _ => None,
            };
            // Hadoop 1 writes an attempt's start (`START_TIME`) in one record and its end
            // (`TASK_STATUS` with `FINISH_TIME`) in another: a record with neither changes
            // nothing, and an end without its status cannot say how the attempt ended (Hadoop's
            // own history viewer counts an attempt by its `TASK_STATUS`). Both are skipped,
            // as an end without its `FINISH_TIME` is, rather than parsed and lost.
            match (start, finish, status) {
                (_, Some(_), None) => return Err(("missing field", Some("TASK_STATUS"))),
                (None, None, None) => return Err(("missing field", Some("START_TIME"))),
                _ => {}
            }
            // A start and an end are checked whole before anything is created: a record
            // that repeats or contradicts one applied before is skipped and leaves nothing.
            if let Some(start) = start {
                jobs.check_start(&job_id, &task_id, attempt_id, start)
                    .map_err(|e| e.skip(&attempt_fields))?;
            }
            let end = match status {
                None => None,
                Some(status) => {
                    let finish = finish.ok_or(("missing field", Some("FINISH_TIME")))?;
                    let end = (finish, outcome_of(status)?);
                    jobs.check_end(&job_id, &task_id, attempt_id, start, end)
                        .map_err(|e| e.skip(&attempt_fields))?;
                    Some(end)
                }
            };
            let job = jobs.job(&job_id, attempt_fields.job)?;
            let task = job.task(&task_id, &stage, stage_kind);
            if let Some(start) = start {
                let host = fields.get("TRACKER_NAME").map(|t| tracker_host(t));
                job.start_attempt(task, attempt_id, start, host, None, line)
                    .map_err(|e| e.skip(&attempt_fields))?;
            }
            let ended = match end {
                Some((finish, outcome)) => job
                    .end_attempt(task, attempt_id, finish, outcome, start, line)
                    .map_err(|e| e.skip(&attempt_fields))?
                    .map(|attempt| (attempt, outcome)),
                None => None,
            };
            if let Some((attempt, outcome)) = ended {
                if let Some(host) = fields.get("HOSTNAME") {
                    attempt.host = Some(host_of(host));
                }
                if outcome == AttemptOutcome::Succeeded
                    && stage_kind == StageKind::Reduce
                    && attempt.progress.is_empty()
                    && let Some(end) = attempt.end_secs
                {
                    attempt.progress =
                        reduce_phase_progress(attempt.start_secs, phases.0, phases.1, end);
                }
                if let Some((bytes, records)) =
                    input.filter(|_| outcome == AttemptOutcome::Succeeded)
                {
                    let task = job.task_mut(task);
                    task.input_bytes = bytes.or(task.input_bytes);
                    task.input_records = records.or(task.input_records);
                }
                jobs.emit_if_done(&job_id, on_job);
            }
        }
        _ => {}
    }
    Ok(())
}

/// An attempt's `TASK_STATUS`: `SUCCESS`, `KILLED` or `FAILED` (Hadoop 1's
/// `JobHistory.Values`); any other value is a skip, not a guess.
fn outcome_of(status: &str) -> Result<AttemptOutcome, Skip> {
    match status {
        "SUCCESS" => Ok(AttemptOutcome::Succeeded),
        "KILLED" => Ok(AttemptOutcome::Killed),
        "FAILED" => Ok(AttemptOutcome::Failed),
        _ => Err(("unknown status", Some("TASK_STATUS"))),
    }
}

/// `attempt_200904211745_0002_m_000010_0` to `task_200904211745_0002_m_000010`.
fn task_of(attempt_id: &str) -> Option<String> {
    let rest = attempt_id.strip_prefix("attempt_")?;
    let (task, _) = rest.rsplit_once('_')?;
    Some(format!("task_{task}"))
}

/// `/192.30.63.192/cluster1020.example.com` to `cluster1020.example.com`.
pub(crate) fn host_of(hostname: &str) -> String {
    hostname
        .rsplit('/')
        .find(|part| !part.is_empty())
        .unwrap_or(hostname)
        .to_owned()
}

/// `tracker_cluster1020.example.com:localhost/127.0.0.1:54153` to its host.
fn tracker_host(tracker: &str) -> String {
    let name = tracker.strip_prefix("tracker_").unwrap_or(tracker);
    name.split(':').next().unwrap_or(name).to_owned()
}

/// Input bytes and records from a `COUNTERS` value:
/// `{(group)(Group name)[(NAME)(Display name)(value)]...}...`.
/// Input bytes and records of a task of `kind` from a record's `COUNTERS`, `None` where no
/// count gives them; the skip of the record when a count that would give one holds no size
/// (see [`counter`]).
fn input_of(
    fields: &HashMap<&str, String>,
    kind: StageKind,
) -> Result<(Option<u64>, Option<u64>), Skip> {
    let (bytes_name, records_name) = match kind {
        StageKind::Map => ("HDFS_BYTES_READ", "MAP_INPUT_RECORDS"),
        StageKind::Reduce => ("REDUCE_SHUFFLE_BYTES", "REDUCE_INPUT_RECORDS"),
        StageKind::Other => return Ok((None, None)),
    };
    let Some(counters) = fields.get("COUNTERS") else {
        return Ok((None, None));
    };
    Ok((
        counter(counters, bytes_name)?,
        counter(counters, records_name)?,
    ))
}

/// The value of count `name` in `counters` (`[(NAME)(display name)(value)]`), `None` when
/// no count has the name; a value that is no size (a negative number, `"negative size"`,
/// or one that is no number, `"field of the wrong type"`, or no value to read) is the skip
/// of its record, naming the count: damage, not an unknown size.
fn counter(counters: &str, name: &'static str) -> Result<Option<u64>, Skip> {
    let Some(start) = counters.find(&format!("[({name})(")) else {
        return Ok(None);
    };
    let rest = &counters[start + name.len() + 3..];
    // Skip the display name, then read the value.
    let value = (rest.split_once(")("))
        .and_then(|(_, rest)| rest.split_once(")]"))
        .map(|(value, _)| value);
    match value.map(|value| (value, value.parse::<u64>())) {
        Some((_, Ok(size))) => Ok(Some(size)),
        Some((value, Err(_))) if value.parse::<i64>().is_ok_and(|v| v < 0) => {
            Err(("negative size", Some(name)))
        }
        _ => Err(("field of the wrong type", Some(name))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_split_into_unescaped_fields() {
        let record = r#"MapAttempt TASK_TYPE="MAP" HOSTNAME="/192\.30\.63\.192/h1\.example\.com" ERROR="a \"b\"" ."#;
        assert!(Pending::new(1, record).is_complete());
        let f = fields(record).ok().expect("parses");
        assert_eq!(f["HOSTNAME"], "/192.30.63.192/h1.example.com");
        assert_eq!(f["ERROR"], r#"a "b""#);
        assert_eq!(host_of(&f["HOSTNAME"]), "h1.example.com");
        assert!(matches!(
            fields(r#"Task TASKID="task_1_2_m_3" TASK_TY ."#),
            Err(Unparsed::Truncated)
        ));
        assert!(!Pending::new(1, "Task ERROR=\"spans").is_complete());
        // A key written twice; a record cut short is that first, whatever it holds.
        assert!(matches!(
            fields(r#"Task TASKID="a" TASKID="b" ."#),
            Err(Unparsed::Duplicate("TASKID"))
        ));
        assert!(matches!(
            fields(r#"Task TASKID="a" TASKID="b" TASK_TY ."#),
            Err(Unparsed::Truncated)
        ));
        // A `\` ending a line escapes the line break, not the next line's first character.
        let mut record = Pending::new(1, "Job JOBID=\"job_1_2\" JOBNAME=\"x\\");
        record.push_line("\" SUBMIT_TIME=\"1000\" .");
        assert!(record.is_complete());
        assert!(opens_record(r#"Task TASKID="task_1_2_m_3" ."#));
        assert!(opens_record("!!FILE=job_1_conf.xml!!"));
        // A line of a stack trace in a value, or a record type without fields: not a new
        // record.
        assert!(!opens_record("Task process exit with nonzero status of 1."));
        assert!(!opens_record("Task"));
    }

    #[test]
    fn counters_give_input() {
        let c = "{(FileSystemCounters)(FileSystemCounters)[(HDFS_BYTES_READ)(HDFS_BYTES_READ)(53639)]}\
                 {(Task$Counter)(Map-Reduce Framework)[(MAP_INPUT_RECORDS)(Map input records)(3601)]}";
        assert_eq!(counter(c, "HDFS_BYTES_READ"), Ok(Some(53639)));
        assert_eq!(counter(c, "MAP_INPUT_RECORDS"), Ok(Some(3601)));
        assert_eq!(counter(c, "REDUCE_SHUFFLE_BYTES"), Ok(None));
        assert_eq!(
            tracker_host("tracker_h2.example.com:localhost/127.0.0.1:1"),
            "h2.example.com"
        );
        assert_eq!(
            task_of("attempt_1_2_m_000010_0").as_deref(),
            Some("task_1_2_m_000010")
        );
    }
}
