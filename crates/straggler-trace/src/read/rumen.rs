//! Rumen JSON: `LoggedJob` objects written one after another (pretty-printed, no enclosing
//! array), gzipped or not.
//!
//! - A job: `jobID`, `jobName`, `submitTime`; its tasks from `mapTasks`, `reduceTasks`,
//!   `otherTasks` (`taskID`, `taskType`, `startTime`, `inputBytes`, `inputRecords`).
//! - An attempt: `attemptID`, `hostName` (the last part of `/rack/host`), `startTime`,
//!   `finishTime`, `result` (`SUCCESS`, `KILLED`, `FAILED`; none, with no `finishTime`:
//!   unfinished; a `finishTime` without a `result`, or a `result` without a `finishTime`,
//!   is skipped as `"missing field"` naming the one absent),
//!   `clockSplits` (progress, as in `.jhist`). Rumen writes `-1` for unknown numbers: a
//!   time of `-1` is no time; any other negative time (`submitTime` too) is skipped as
//!   `"negative time"`, as a time past 10^10 s is as `"implausible time"` (see
//!   [`plausible`]); a bad `submitTime` costs the job.
//!   `speculative` is `None`: Rumen does not keep it.
//! - Input: the task's `inputBytes` / `inputRecords` when known, else the successful
//!   attempt's `hdfsBytesRead` / `mapInputRecords` (map) or `reduceShuffleBytes` /
//!   `reduceInputRecords` (reduce). `-1` is unknown; any other negative one of these is
//!   skipped as `"negative size"`, costing the task (its own) or the attempt (a counter).
//! - Speculation ([`TraceJob::speculation`]): the job's `jobProperties` (its configuration)
//!   give Hadoop's switches, `mapreduce.map.speculative` and `mapreduce.reduce.speculative`
//!   or their Hadoop 1 names, and its parameters of speculation, read as Hadoop reads them
//!   (see [`hadoop_conf`]); the other properties are passed over. A job without
//!   `jobProperties` (or `null`) says nothing (`None`). A property at fault (a value Hadoop
//!   cannot read, one that is no string, a key written twice, both names of a switch read
//!   differently) is counted as a record of its own, skipped on the line of its key and
//!   naming it, the setting standing as Hadoop reads it; `jobProperties` that are no object
//!   are a skip naming the field, the job saying nothing of speculation.
//!
//! Records: each top-level JSON object (found by matching braces and brackets outside
//! strings, each closer against its opener; an object over 64 MiB is read to its end and
//! skipped as `"record too long"`, a `{` where none can stand in it ending it there as in
//! a broken object below, and the rest of an object a line too long cuts is passed over
//! as a broken one's). A malformed object is skipped and the next one read: a
//! closer of the wrong kind, a `{` where none can stand (not after `:`, `[` or `,`), or a
//! line that ends inside a string (JSON strings hold no line break: a quote is missing)
//! breaks the object there, and what is left of it is passed over up to where the next
//! object starts: a `{` after a `}` with only whitespace between (`} {`, which no valid
//! JSON holds: Jackson's separator, on one line or two), or a `{` opening a line at its
//! first or second byte (in Jackson's, jq's and Python's layouts, the objects inside an
//! object are indented further, or follow a `[` or `,` on their line). A `{` where none
//! can stand that is such a start means the object misses a closer, and the next one
//! starts there (a valid object is never split). Each broken object is skipped once, as
//! `"malformed JSON"`, on the line where serde_json finds it is not JSON (its `NaN`s and
//! `Infinity`s replaced first) and naming the member it is in (see [`malformed`]). In a
//! line of several objects (Jackson's compact layout), a quote missing breaks its object
//! at the line's end (the input's last line too), or, where the quotes after it even out
//! before the line's end, at the `}` that seems to close it, which is then no JSON; the
//! next object starts at the first `} {` after the broken one's `{` (strings not told
//! apart there: an object that is JSON is never broken for a `} {` in a string). An object without `jobID` is
//! skipped as `"not a Rumen job"`, and one whose `jobID` a job read before has as `"job
//! read twice"`, whole, the first standing; an attempt with no start time (its own or its task's)
//! is left out and counted as a record of its own, skipped as
//! `"attempt without start time"`. A value of the wrong type costs the smallest part that
//! holds it: in an attempt, the attempt; in a task's own fields, the task (its attempts with
//! it); each counted as a record of its own, skipped as `"field of the wrong type"`, and
//! the job read without it; in the job's own fields, the job. A bare `NaN`, `Infinity` or
//! `-Infinity` (not JSON, but Python's and Jackson's words for such floats: a whole word
//! outside strings) costs the same, skipped as `"NaN is not a JSON number"` (or `Infinity`,
//! `-Infinity`), and nothing in a field the reader does not read (Rumen's doubles, as
//! `failedMapperFraction`); inside a `clockSplits` array it leaves the attempt without
//! progress from splits, as a split that is not an integer does (in place of the array, it
//! costs the attempt). Splits present but unusable (not integers, negative, a sum that
//! overflows) keep the attempt without progress from them, counted in
//! [`ReadReport::unusable_splits`] at the line of `clockSplits`. A job with malformed JSON
//! besides is skipped as `"malformed JSON"`. Every skip names the line of the field at
//! fault and the field (the attempt's line when the field is not written).
//! A number too large for a double (`1e400`) costs the job as `"number out of range"`.
//! Text outside any object is skipped line by line; an input that ends inside an object
//! well-formed so far is `"truncated record"` and sets [`ReadReport::truncated`].

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::ops::Range;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::assemble::{ClockSplits, plausible, reduce_phase_progress};
use super::hadoop_conf::{self, PropertyValue};
use super::hadoop1::host_of;
use super::input::{
    Lines, MAX_LINE_BYTES, duplicate_key, error_offset, json_field_at, non_number_at, out_of_range,
    syntax_field_at,
};
use super::jhist::kind_of;
use crate::{
    AttemptOutcome, ReadReport, SpeculationSetting, StageKind, TraceAttempt, TraceJob, TraceTask,
};

/// A job object. Read whole, its tasks are [`LoggedTask`]s; read in parts (after a value of
/// the wrong type), its tasks are first passed over ([`IgnoredAny`]) and read one by one.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedJob<T = LoggedTask> {
    #[serde(rename = "jobID")]
    job_id: Option<String>,
    job_name: Option<String>,
    submit_time: Option<i64>,
    map_tasks: Option<Vec<T>>,
    reduce_tasks: Option<Vec<T>>,
    other_tasks: Option<Vec<T>>,
    /// The job's configuration: its properties of speculation only.
    job_properties: Option<JobProperties>,
}

/// A job's `jobProperties`: its properties of speculation (see [`hadoop_conf`]), in the
/// order written, the others passed over unread; or, when it is no object, that.
#[derive(Debug)]
enum JobProperties {
    Object(Vec<(String, PropertyValue)>),
    NotAnObject,
}

impl<'de> Deserialize<'de> for JobProperties {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Properties;
        impl<'de> serde::de::Visitor<'de> for Properties {
            type Value = JobProperties;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of properties")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<JobProperties, A::Error> {
                let mut kept = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if hadoop_conf::is_speculation_key(&key) {
                        let value = match map.next_value::<serde_json::Value>()? {
                            serde_json::Value::String(text) => PropertyValue::Text(text),
                            other => PropertyValue::Other(other.to_string()),
                        };
                        kept.push((key, value));
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(JobProperties::Object(kept))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<JobProperties, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(JobProperties::NotAnObject)
            }
            fn visit_bool<E>(self, _: bool) -> Result<JobProperties, E> {
                Ok(JobProperties::NotAnObject)
            }
            fn visit_i64<E>(self, _: i64) -> Result<JobProperties, E> {
                Ok(JobProperties::NotAnObject)
            }
            fn visit_u64<E>(self, _: u64) -> Result<JobProperties, E> {
                Ok(JobProperties::NotAnObject)
            }
            fn visit_f64<E>(self, _: f64) -> Result<JobProperties, E> {
                Ok(JobProperties::NotAnObject)
            }
            fn visit_str<E>(self, _: &str) -> Result<JobProperties, E> {
                Ok(JobProperties::NotAnObject)
            }
            fn visit_unit<E>(self) -> Result<JobProperties, E> {
                Ok(JobProperties::NotAnObject)
            }
        }
        deserializer.deserialize_any(Properties)
    }
}

/// A task object, its attempts read as `A` (as [`LoggedJob`]'s tasks).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedTask<A = LoggedAttempt> {
    #[serde(rename = "taskID")]
    task_id: Option<String>,
    task_type: Option<String>,
    start_time: Option<i64>,
    input_bytes: Option<i64>,
    input_records: Option<i64>,
    attempts: Option<Vec<A>>,
    /// Where the task's object starts in the job's bytes, when the job was read in parts;
    /// otherwise found from its place on the first skip that names it.
    #[serde(skip)]
    at: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct LoggedAttempt {
    #[serde(rename = "attemptID")]
    attempt_id: Option<String>,
    host_name: Option<String>,
    start_time: Option<i64>,
    finish_time: Option<i64>,
    result: Option<String>,
    /// Read as integers, up to a cap, never as a tree of values (see [`ClockSplits`]).
    clock_splits: Option<ClockSplits>,
    hdfs_bytes_read: Option<i64>,
    map_input_records: Option<i64>,
    reduce_shuffle_bytes: Option<i64>,
    reduce_input_records: Option<i64>,
    /// A reduce's phase ends (ms; `-1` unknown), its progress where it has no splits.
    shuffle_finished: Option<i64>,
    sort_finished: Option<i64>,
    /// Where the attempt's object starts in the job's bytes, when the job was read in
    /// parts; otherwise found from its place on the first skip that names it.
    #[serde(skip)]
    at: Option<usize>,
}

/// The keys of a job's task lists, in the order their tasks are read.
const TASK_LISTS: [&str; 3] = ["mapTasks", "reduceTasks", "otherTasks"];

/// Where the bracket matcher is.
#[derive(Debug, Default)]
struct Scanner {
    /// The closers (`}` or `]`) the open brackets expect, innermost last; empty outside any
    /// object.
    open: Vec<u8>,
    /// Brackets open in an object too long to keep, whose kinds are no longer matched: its
    /// end is found by counting.
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The last byte outside strings and whitespace in the object, to tell whether a `{`
    /// may stand where it is (see [`Scanner::may_open`]).
    last: u8,
    /// The object being gathered, its first line, and where in that line its `{` is.
    object: Vec<u8>,
    start: u64,
    start_at: usize,
    /// Whether the object grew past [`MAX_LINE_BYTES`]: it is no longer kept, only read to
    /// its end, and skipped as `"record too long"`.
    too_long: bool,
    /// Whether the object was found broken and skipped: what follows, up to where the next
    /// object starts (see [`line_start_brace`]), is the rest of it, passed over.
    resync: bool,
}

impl Scanner {
    fn inside(&self) -> bool {
        !self.open.is_empty() || self.depth > 0
    }

    /// Forgets the object: the scan is outside any object again.
    fn reset(&mut self) {
        self.open.clear();
        self.depth = 0;
        self.in_string = false;
        self.escaped = false;
        self.last = 0;
        self.object.clear();
        self.too_long = false;
    }

    /// Whether a `{` may come next in valid JSON: as a member's value (after `:`) or an
    /// element of an array (after `[` or `,`).
    fn may_open(&self) -> bool {
        match self.open.last() {
            Some(b'}') => self.last == b':',
            Some(_) => matches!(self.last, b'[' | b','),
            None => true,
        }
    }

    /// Skips the object gathered so far, which broke on line `no` (see [`broken`]), and
    /// passes over what is left of it if `resync`.
    fn broken(&mut self, no: u64, resync: bool, report: &mut ReadReport) {
        if self.too_long {
            report.skipped(self.start, None, "record too long");
        } else {
            broken(&self.object, self.start, no, report);
        }
        self.reset();
        self.resync = resync;
    }
}

/// The offset of a `{` that opens line `text` at its first or second byte: where an object
/// of a file starts when the object before it is broken, in every layout Rumen files come
/// in (Jackson writes the first object's `{` at the start of its line, and the others after
/// ` ` or `} `; jq and Python indent an object's members and the objects in its arrays by
/// two spaces or more). The other place an object starts is a `{` after a `}` with only
/// whitespace between (Jackson's `} {`, on one line or two): no valid JSON has it.
fn line_start_brace(text: &[u8]) -> Option<usize> {
    let first = text.iter().take(2).position(|b| !b.is_ascii_whitespace())?;
    (text[first] == b'{').then_some(first)
}

/// Where the next object starts in `line` (see [`next_object`]) when the object `scan`
/// holds, which started on this line (`no`) and closes at `at`, holds a `} {` and is no
/// JSON (its `NaN`s and `Infinity`s replaced): a quote missing made the brackets of the
/// objects after it its own. `None` for an object that is JSON, even with `} {` in a
/// string.
fn merged_at(scan: &Scanner, line: &[u8], no: u64, at: usize) -> Option<usize> {
    if scan.start != no || scan.too_long {
        return None;
    }
    let after = scan.start_at + 1;
    let next = after + next_object(line.get(after..at)?)?;
    let replaced = NonNumbers::replace(&scan.object);
    let bytes = replaced.as_ref().map_or(&scan.object[..], |(copy, _)| copy);
    serde_json::from_slice::<IgnoredAny>(bytes)
        .is_err()
        .then_some(next)
}

/// Where the first `{` after a `}` with only whitespace between is in `text`, strings
/// not told apart (where it is looked for, they are not known): the start of an object
/// after a broken one on its line.
fn next_object(text: &[u8]) -> Option<usize> {
    let mut after_close = false;
    for (at, &byte) in text.iter().enumerate() {
        match byte {
            b'{' if after_close => return Some(at),
            b'}' => after_close = true,
            _ if byte.is_ascii_whitespace() => {}
            _ => after_close = false,
        }
    }
    None
}

/// Reads a Rumen input.
pub(crate) fn read(
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    mut on_job: impl FnMut(TraceJob),
) {
    let mut lines = Lines::new(input);
    let mut scan = Scanner::default();
    // The ids of the jobs read, so that an object of one read before is skipped whole.
    let mut read_ids = HashSet::new();
    while let Some(line) = lines.next_or_note(report) {
        let no = line.no;
        if line.too_long {
            // Its brackets are not known: the object it is in (if any) is lost with it, and
            // the rest of that object is passed over (a line of a broken object's rest is
            // counted too: it may hold jobs of its own).
            if scan.inside() {
                report.skipped(scan.start, None, "record too long");
                scan.reset();
                scan.resync = true;
            } else {
                report.skipped(no, None, "line too long");
            }
            continue;
        }
        let line_start = line_start_brace(line.text);
        let mut stray = false;
        // Where the scan of the line starts: again from the next object's `{` when an
        // object broke at the line's end (below).
        let mut from = 0;
        loop {
            let mut rescan = None;
            for (at, &byte) in line.text.iter().enumerate().skip(from) {
                if scan.resync {
                    // The rest of a broken object, up to where the next starts (see
                    // [`line_start_brace`]); its strings are not known, so every byte counts.
                    let starts = byte == b'{' && (scan.last == b'}' || Some(at) == line_start);
                    if !byte.is_ascii_whitespace() {
                        scan.last = byte;
                    }
                    if !starts {
                        continue;
                    }
                    scan.resync = false;
                }
                if !scan.inside() {
                    if byte == b'{' {
                        scan.reset();
                        scan.open.push(b'}');
                        scan.last = b'{';
                        (scan.start, scan.start_at) = (no, at);
                        scan.object.push(byte);
                    } else if !byte.is_ascii_whitespace() {
                        stray = true;
                    }
                    continue;
                }
                if byte == b'{'
                    && !scan.in_string
                    && scan.too_long
                    && !matches!(scan.last, b':' | b'[' | b',')
                {
                    // A `{` where none can stand in an object too long to keep (whose kinds of
                    // brackets are no longer known): it is skipped, and where an object starts
                    // (as below), the next one starts here; elsewhere, its rest is passed over.
                    let starts = scan.last == b'}' || Some(at) == line_start;
                    report.skipped(scan.start, None, "record too long");
                    scan.reset();
                    if starts {
                        scan.open.push(b'}');
                        (scan.start, scan.start_at) = (no, at);
                        scan.object.push(byte);
                    } else {
                        scan.resync = true;
                    }
                    scan.last = b'{';
                    continue;
                }
                if byte == b'{' && !scan.in_string && !scan.too_long && !scan.may_open() {
                    // A `{` where none can stand: the object is broken here. Where an object
                    // starts (after a `}`, or opening its line), it misses a closer (or more),
                    // and the next one starts here; elsewhere, its rest is passed over.
                    let starts = scan.last == b'}' || Some(at) == line_start;
                    scan.broken(no, !starts, report);
                    if starts {
                        scan.open.push(b'}');
                        (scan.start, scan.start_at) = (no, at);
                        scan.object.push(byte);
                    }
                    scan.last = b'{';
                    continue;
                }
                if !scan.too_long {
                    scan.object.push(byte);
                    if scan.object.len() > MAX_LINE_BYTES {
                        scan.too_long = true;
                        scan.depth = scan.open.len();
                        scan.open.clear();
                        scan.object = Vec::new();
                    }
                }
                if scan.in_string {
                    if scan.escaped {
                        scan.escaped = false;
                    } else if byte == b'\\' {
                        scan.escaped = true;
                    } else if byte == b'"' {
                        scan.in_string = false;
                    }
                    continue;
                }
                if !byte.is_ascii_whitespace() {
                    scan.last = byte;
                }
                match byte {
                    b'"' => scan.in_string = true,
                    b'{' | b'[' if scan.too_long => scan.depth += 1,
                    b'}' | b']' if scan.too_long => {
                        scan.depth -= 1;
                        if scan.depth == 0 {
                            report.skipped(scan.start, None, "record too long");
                            scan.reset();
                        }
                    }
                    b'{' => scan.open.push(b'}'),
                    b'[' => scan.open.push(b']'),
                    b'}' | b']' => {
                        if scan.open.pop() != Some(byte) {
                            // A closer of the wrong kind: the object is broken here, and the
                            // rest of it passed over (a `{` right after this `}` starts the
                            // next).
                            scan.broken(no, true, report);
                            scan.last = byte;
                        } else if scan.open.is_empty() {
                            if let Some(next) = merged_at(&scan, line.text, no, at) {
                                // A quote missing made the next objects' brackets its own
                                // (their quotes evened out before the line's end): it is
                                // broken at the first `} {`, and the line scanned again
                                // from there.
                                scan.object.truncate(next - scan.start_at);
                                scan.broken(no, false, report);
                                rescan = Some(next);
                                break;
                            }
                            let object = (&scan.object[..], scan.start, no);
                            object_done(object, &mut read_ids, report, &mut on_job);
                            scan.reset();
                        }
                    }
                    _ => {}
                }
            }
            if let Some(next) = rescan {
                from = next;
                continue;
            }
            if scan.inside() && scan.in_string {
                // JSON strings hold no line break: a quote is missing (or one too many) on
                // this line. The object is broken here; the input is not cut. In a line of
                // several objects (Jackson's compact layout), the next starts at the first
                // `} {` after the broken one's `{`, which no valid JSON holds; the line is
                // scanned again from there. On the input's last line, without such a start,
                // the object is cut (below).
                let after = if scan.start == no {
                    scan.start_at + 1
                } else {
                    0
                };
                let next = line
                    .text
                    .get(after..)
                    .and_then(next_object)
                    .map(|at| after + at);
                if let Some(next) = next {
                    scan.broken(no, false, report);
                    from = next;
                    continue;
                }
                if line.terminated {
                    scan.broken(no, true, report);
                    // A `}` ending the line, read as string text, may close the broken
                    // object: a `{` after it on the next lines starts one.
                    let last = line.text.iter().rev().find(|b| !b.is_ascii_whitespace());
                    scan.last = last.copied().unwrap_or(0);
                }
            }
            break;
        }
        if scan.inside() && !scan.too_long {
            scan.object.push(b'\n');
        }
        if stray {
            report.skipped(no, None, "text outside any JSON object");
        }
    }
    if scan.inside() {
        report.skipped(scan.start, None, "truncated record");
        report.cut(
            scan.start,
            format!(
                "the input ends inside the JSON object that starts on line {}",
                scan.start
            ),
        );
    }
}

/// Counts the object `bytes` (whose first line is `start`), found broken on line `no`
/// before its end (a line ending inside a string, a closer of the wrong kind, the start of
/// the next object), as skipped: where serde_json finds it is not JSON, as
/// [`malformed`] says (the line where it broke when that is the end of its bytes).
fn broken(bytes: &[u8], start: u64, no: u64, report: &mut ReadReport) {
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace());
    let bytes = &bytes[..end.map_or(0, |end| end + 1)];
    // Its `NaN`s and `Infinity`s replaced first, as a whole job's are: the object breaks
    // where it breaks, not at a word the reader otherwise takes.
    let replaced = NonNumbers::replace(bytes);
    let bytes = replaced.as_ref().map_or(bytes, |(copy, _)| copy.as_slice());
    match serde_json::from_slice::<IgnoredAny>(bytes) {
        Err(error) => malformed(bytes, start, &error, report),
        Ok(_) => report.skipped(no, None, "malformed JSON"),
    }
}

/// The reason of a job object whose `jobID` a job read before has.
const JOB_READ_TWICE: &str = "job read twice";

/// Reads the job object `bytes` (from line `start` to line `end`) and hands its job out,
/// unless it is skipped; `read_ids` holds the ids of the jobs read before, and gets this
/// one's.
fn object_done(
    (bytes, start, end): (&[u8], u64, u64),
    read_ids: &mut HashSet<String>,
    report: &mut ReadReport,
    on_job: &mut impl FnMut(TraceJob),
) {
    let mut parsed = serde_json::from_slice::<LoggedJob>(bytes);
    // A job that failed is read again with its `NaN`s and `Infinity`s replaced, if it has
    // any (valid jobs pay nothing for the look): they then cost only the part that holds
    // them, as a value of the wrong type does, or nothing where the reader does not read.
    let copy;
    let mut bytes = bytes;
    let mut non_numbers = NonNumbers::default();
    if parsed.is_err()
        && let Some(replaced) = NonNumbers::replace(bytes)
    {
        (copy, non_numbers) = replaced;
        bytes = &copy;
        parsed = serde_json::from_slice(bytes);
    }
    let logged = match parsed {
        Ok(job) => job,
        Err(error) if error.is_data() => {
            match read_in_parts(bytes, start, &error, &non_numbers, report) {
                Some(job) => job,
                None => return,
            }
        }
        Err(error) => {
            malformed(bytes, start, &error, report);
            return;
        }
    };
    let Some(id) = logged.job_id else {
        report.skipped(start, Some("jobID"), "not a Rumen job");
        return;
    };
    let mut places = Places::new(bytes, start);
    // A job read before (two objects of one job, say two traces concatenated): the first
    // stands, and this one is skipped whole, as one record; which of the two is right
    // cannot be told, and two jobs of one id would be replayed twice.
    if read_ids.contains(&id) {
        report.skipped(
            places.field_line(Some(0), "jobID"),
            Some("jobID"),
            JOB_READ_TWICE,
        );
        return;
    }
    // A submit time other than Rumen's `-1` is checked as the attempts' times are; it is a
    // field of the job's own, and costs the job.
    let submit_secs = known_time(logged.submit_time).map(ms_to_secs);
    if let Some(Err((reason, field))) = submit_secs.map(|secs| plausible(secs, "submitTime")) {
        report.skipped(places.field_line(Some(0), "submitTime"), field, reason);
        return;
    }
    let speculation = (logged.job_properties)
        .and_then(|properties| job_speculation(properties, &places, &non_numbers, report));
    let mut job = TraceJob {
        id,
        name: logged.job_name,
        submit_secs,
        tasks: Vec::new(),
        speculation,
        speculation_line: None,
    };
    // The task of each attempt id read, so that an id read again is skipped, the first
    // standing, as in the other readers.
    let mut attempt_tasks: HashMap<String, usize> = HashMap::new();
    let all_tasks = [logged.map_tasks, logged.reduce_tasks, logged.other_tasks];
    let tasks = all_tasks.into_iter().enumerate().flat_map(|(list, tasks)| {
        let tasks = tasks.into_iter().flatten().enumerate();
        tasks.map(move |(index, task)| ((list, index), task))
    });
    for (task_place, logged_task) in tasks {
        let task_type = logged_task.task_type.as_deref().unwrap_or("");
        let (stage, kind) = match kind_of(task_type, "taskType") {
            Ok(stage_and_kind) => stage_and_kind,
            Err((reason, field)) => {
                // The task is skipped whole, as one record (as a task with a field of the
                // wrong type), at the line of its type.
                let line = places.task_line(logged_task.at, task_place, field.unwrap_or(""));
                report.skipped(line, field, reason);
                continue;
            }
        };
        let sizes = [
            ("inputBytes", logged_task.input_bytes),
            ("inputRecords", logged_task.input_records),
        ];
        if let Some(&(field, _)) = sizes.iter().find(|(_, size)| negative_size(*size)) {
            let line = places.task_line(logged_task.at, task_place, field);
            report.skipped(line, Some(field), NEGATIVE_SIZE);
            continue;
        }
        let task_start = known_time(logged_task.start_time);
        let mut task = TraceTask {
            id: logged_task.task_id.unwrap_or_default(),
            stage,
            kind,
            input_bytes: known_u64(logged_task.input_bytes),
            input_records: known_u64(logged_task.input_records),
            attempts: Vec::new(),
        };
        let attempts = logged_task.attempts.into_iter().flatten().enumerate();
        for (attempt_index, logged_attempt) in attempts {
            // The line of `field` in this attempt, for a skip naming it.
            let place = (task_place.0, task_place.1, attempt_index);
            let mut line_of = |field: &str| places.line(logged_attempt.at, place, field);
            // Given up on before it had a container: a kill or failure with no start and a
            // finish time of 0, as in the `.jhist` Rumen read it from (see `jhist.rs`).
            if known_time(logged_attempt.start_time).is_none()
                && logged_attempt.finish_time == Some(0)
                && matches!(logged_attempt.result.as_deref(), Some("KILLED" | "FAILED"))
            {
                let line = line_of("finishTime");
                report.skipped(line, Some("finishTime"), "attempt killed before launch");
                continue;
            }
            let Some(start_ms) = known_time(logged_attempt.start_time).or(task_start) else {
                let line = line_of("startTime");
                report.skipped(line, Some("startTime"), "attempt without start time");
                continue;
            };
            let start_secs = ms_to_secs(start_ms);
            let end_secs = known_time(logged_attempt.finish_time).map(ms_to_secs);
            let times = plausible(start_secs, "startTime")
                .and_then(|_| end_secs.map(|end| plausible(end, "finishTime")).transpose());
            if let Err((reason, field)) = times {
                report.skipped(line_of(field.unwrap_or("")), field, reason);
                continue;
            }
            let outcome = match logged_attempt.result.as_deref() {
                Some("SUCCESS") => AttemptOutcome::Succeeded,
                Some("KILLED") => AttemptOutcome::Killed,
                Some("FAILED") => AttemptOutcome::Failed,
                None => AttemptOutcome::Unfinished,
                Some(_) => {
                    report.skipped(line_of("result"), Some("result"), "unknown status");
                    continue;
                }
            };
            match end_secs {
                None if outcome != AttemptOutcome::Unfinished => {
                    report.skipped(line_of("finishTime"), Some("finishTime"), "missing field");
                    continue;
                }
                // It ended, and the log does not say how: not an attempt the log leaves
                // running (whose end is unknown), but one missing its `result`.
                Some(_) if outcome == AttemptOutcome::Unfinished => {
                    report.skipped(line_of("result"), Some("result"), "missing field");
                    continue;
                }
                Some(end) if end < start_secs => {
                    let line = line_of("finishTime");
                    report.skipped(line, Some("finishTime"), "attempt ends before it starts");
                    continue;
                }
                _ => {}
            }
            // The counters the task's input is read from, for a successful attempt.
            let sizes = match (outcome, kind) {
                (AttemptOutcome::Succeeded, StageKind::Map) => [
                    ("hdfsBytesRead", logged_attempt.hdfs_bytes_read),
                    ("mapInputRecords", logged_attempt.map_input_records),
                ],
                (AttemptOutcome::Succeeded, StageKind::Reduce) => [
                    ("reduceShuffleBytes", logged_attempt.reduce_shuffle_bytes),
                    ("reduceInputRecords", logged_attempt.reduce_input_records),
                ],
                _ => [("", None); 2],
            };
            if let Some(&(field, _)) = sizes.iter().find(|(_, size)| negative_size(*size)) {
                report.skipped(line_of(field), Some(field), NEGATIVE_SIZE);
                continue;
            }
            let id = logged_attempt.attempt_id.unwrap_or_default();
            if !id.is_empty() {
                let this_task = job.tasks.len();
                match attempt_tasks.get(&id) {
                    Some(&t) if t != this_task => {
                        let line = line_of("attemptID");
                        report.skipped(line, Some("attemptID"), "attempt id of another task");
                        continue;
                    }
                    Some(_) => {
                        let line = line_of("attemptID");
                        report.skipped(line, Some("attemptID"), "attempt started twice");
                        continue;
                    }
                    None => {
                        attempt_tasks.insert(id.clone(), this_task);
                    }
                }
            }
            if outcome == AttemptOutcome::Succeeded {
                let (bytes, records) = match kind {
                    StageKind::Map => (
                        logged_attempt.hdfs_bytes_read,
                        logged_attempt.map_input_records,
                    ),
                    StageKind::Reduce => (
                        logged_attempt.reduce_shuffle_bytes,
                        logged_attempt.reduce_input_records,
                    ),
                    StageKind::Other => (None, None),
                };
                task.input_bytes = task.input_bytes.or(known_u64(bytes));
                task.input_records = task.input_records.or(known_u64(records));
            }
            let duration = end_secs.map(|end| end - start_secs);
            let mut progress = match &logged_attempt.clock_splits {
                None => Vec::new(),
                Some(splits) => splits.progress(duration).unwrap_or_else(|fault| {
                    let line = line_of("clockSplits");
                    report.splits_unusable(line, &id, fault.reason());
                    Vec::new()
                }),
            };
            if let (true, StageKind::Reduce, AttemptOutcome::Succeeded, Some(end)) =
                (progress.is_empty(), kind, outcome, end_secs)
            {
                let phase = |ms: Option<i64>| known_time(ms).map(ms_to_secs);
                progress = reduce_phase_progress(
                    start_secs,
                    phase(logged_attempt.shuffle_finished),
                    phase(logged_attempt.sort_finished),
                    end,
                );
            }
            task.attempts.push(TraceAttempt {
                id,
                // Rumen keeps Hadoop 1's escapes (`cluster1020\\.example\\.com`).
                host: logged_attempt
                    .host_name
                    .as_deref()
                    .map(|name| host_of(&unescape(name))),
                start_secs,
                end_secs,
                outcome,
                speculative: None,
                progress,
                // Rumen writes a revoked success as the KILLED or FAILED it became.
                revoked: false,
                line: end,
            });
        }
        task.attempts
            .sort_by(|a, b| a.start_secs.total_cmp(&b.start_secs));
        job.tasks.push(task);
    }
    report.parsed();
    read_ids.insert(job.id.clone());
    on_job(job);
}

/// The speculation setting of a job's `jobProperties` (see [`hadoop_conf`]); `None` when
/// they are no object, counted as a skip naming `jobProperties` (`"field of the wrong
/// type"`, or the word a `NaN` or `Infinity` there was). Each fault of a property is
/// counted as a record of its own, skipped on the line of its key, naming it, the setting
/// standing (a value of the wrong type under the word's reason where it replaces one of
/// `non_numbers`).
fn job_speculation(
    properties: JobProperties,
    places: &Places<'_>,
    non_numbers: &NonNumbers,
    report: &mut ReadReport,
) -> Option<SpeculationSetting> {
    let bytes = places.lines.bytes;
    let field = "jobProperties";
    // Where `jobProperties`' value lies (found on the first skip that needs it).
    let value = || members(bytes, 0, field).pop().map(|(_, value)| value);
    let properties = match properties {
        JobProperties::Object(properties) => properties,
        JobProperties::NotAnObject => {
            let reason = (value().and_then(|range| non_numbers.reason_in(&range)))
                .unwrap_or(hadoop_conf::WRONG_TYPE);
            report.skipped(places.field_line(Some(0), field), Some(field), reason);
            return None;
        }
    };
    let object = value();
    let properties = match &object {
        // A `NaN` or `Infinity` read as the float that replaced it: the value as written.
        Some(object) if non_numbers.reason_in(object).is_some() => {
            let mut seen: HashMap<&str, usize> = HashMap::new();
            let mut written = Vec::with_capacity(properties.len());
            for (key, value) in &properties {
                let occurrence = seen.entry(key).or_insert(0);
                let range = members(bytes, object.start, key)
                    .get(*occurrence)
                    .map(|(_, range)| range.clone());
                *occurrence += 1;
                let value = match (value, range) {
                    (PropertyValue::Other(_), Some(range))
                        if non_numbers.reason_in(&range).is_some() =>
                    {
                        PropertyValue::Other(non_numbers.original(bytes, &range))
                    }
                    _ => value.clone(),
                };
                written.push((key.clone(), value));
            }
            written
        }
        _ => properties,
    };
    let (setting, faults) = hadoop_conf::speculation(properties);
    if !faults.is_empty() {
        for fault in faults {
            let found = (object.as_ref()).and_then(|object| {
                members(bytes, object.start, &fault.key)
                    .get(fault.occurrence)
                    .cloned()
            });
            let line = match &found {
                Some((key_at, _)) => places.lines.line_at(*key_at),
                None => places.field_line(Some(0), field),
            };
            let word = (found.as_ref()).and_then(|(_, range)| non_numbers.reason_in(range));
            let reason = match (fault.reason, word) {
                (hadoop_conf::WRONG_TYPE, Some(word)) => word,
                (reason, _) => reason,
            };
            report.skipped(line, Some(&fault.key), reason);
        }
    }
    Some(setting)
}

/// Where each member `key` of the object that starts at `at` in `bytes` is written: its
/// key's offset and its value's range, in order (a key written with escapes is not found).
fn members(bytes: &[u8], at: usize, key: &str) -> Vec<(usize, Range<usize>)> {
    let mut cursor = Cursor { bytes, at };
    let mut found = Vec::new();
    cursor.object(|cursor, name, name_at| {
        let value = cursor.value()?;
        if name == key.as_bytes() {
            found.push((name_at, value));
        }
        Some(())
    });
    found
}

/// Reads the job object `bytes` (whose first line is `start`) piece by piece, after a value
/// of the wrong type (`error`) stopped reading it whole: its own fields, then each task's,
/// then each attempt, so that only the task or attempt at fault is skipped, naming the line
/// and the field of the fault, and the reason of the word that was there when the value
/// replaces one of `non_numbers`. Returns what is left of the job; `None` when the job
/// itself is skipped: its own fields at fault, malformed JSON further on, or its tasks not
/// found where serde found them (a key written with escapes).
fn read_in_parts(
    bytes: &[u8],
    start: u64,
    error: &serde_json::Error,
    non_numbers: &NonNumbers,
    report: &mut ReadReport,
) -> Option<LoggedJob> {
    let skip_job = |report: &mut ReadReport, error: &serde_json::Error| {
        if let Some(key) = duplicate_key(error) {
            report.skipped(error_line(start, error), Some(&key), "duplicate key");
            return;
        }
        let field = json_field_at(bytes, error);
        let reason = non_numbers.wrong_type_reason(0, bytes, error);
        report.skipped(error_line(start, error), field.as_deref(), reason);
    };
    // The first error may hide malformed JSON after it, which loses the whole job.
    if let Err(error) = serde_json::from_slice::<IgnoredAny>(bytes) {
        malformed(bytes, start, &error, report);
        return None;
    }
    let head: LoggedJob<IgnoredAny> = match serde_json::from_slice(bytes) {
        Ok(head) => head,
        Err(error) => {
            skip_job(report, &error);
            return None;
        }
    };
    if head.job_id.is_none() {
        // Not a Rumen job: skipped as such by the caller, its tasks not looked at.
        return Some(LoggedJob {
            job_id: None,
            job_name: None,
            submit_time: None,
            map_tasks: None,
            reduce_tasks: None,
            other_tasks: None,
            job_properties: None,
        });
    }
    let counts = [&head.map_tasks, &head.reduce_tasks, &head.other_tasks]
        .map(|tasks| tasks.as_ref().map_or(0, Vec::len));
    let Some(layout) =
        layout(bytes).filter(|layout| (layout.lists.iter().map(Vec::len)).eq(counts))
    else {
        skip_job(report, error);
        return None;
    };
    // Each task's own fields, its attempts passed over; every task read checked against the
    // layout before anything is skipped.
    let heads: Vec<Vec<Result<LoggedTask<IgnoredAny>, serde_json::Error>>> = (layout.lists)
        .iter()
        .map(|tasks| {
            let read = |task: &TaskPlace| serde_json::from_slice(&bytes[task.range.clone()]);
            tasks.iter().map(read).collect()
        })
        .collect();
    let attempts_found = (layout.lists.iter().flatten()).zip(heads.iter().flatten());
    for (place, head) in attempts_found {
        if let Ok(task) = head
            && task.attempts.as_ref().map_or(0, Vec::len) != place.attempts.len()
        {
            skip_job(report, error);
            return None;
        }
    }
    let lines = LineIndex::new(bytes, start);
    let mut lists = (layout.lists.iter().zip(heads)).map(|(places, heads)| {
        let mut tasks = Vec::new();
        for (place, head) in places.iter().zip(heads) {
            let task_head = match head {
                Ok(task) => task,
                Err(error) => {
                    part_skipped(&lines, place.range.start, &error, non_numbers, report);
                    continue;
                }
            };
            let mut attempts = Vec::new();
            for range in &place.attempts {
                match serde_json::from_slice::<LoggedAttempt>(&bytes[range.clone()]) {
                    Ok(attempt) => attempts.push(LoggedAttempt {
                        at: Some(range.start),
                        ..attempt
                    }),
                    Err(error) => {
                        part_skipped(&lines, range.start, &error, non_numbers, report);
                    }
                }
            }
            tasks.push(LoggedTask {
                task_id: task_head.task_id,
                task_type: task_head.task_type,
                start_time: task_head.start_time,
                input_bytes: task_head.input_bytes,
                input_records: task_head.input_records,
                attempts: task_head.attempts.map(|_| attempts),
                at: Some(place.range.start),
            });
        }
        tasks
    });
    let mut list = |read: Option<Vec<IgnoredAny>>| {
        let tasks = lists.next().unwrap_or_default();
        read.map(|_| tasks)
    };
    Some(LoggedJob {
        job_id: head.job_id,
        job_name: head.job_name,
        submit_time: head.submit_time,
        map_tasks: list(head.map_tasks),
        reduce_tasks: list(head.reduce_tasks),
        other_tasks: list(head.other_tasks),
        job_properties: head.job_properties,
    })
}

/// Counts the job object `bytes` (whose first line is `start`), which is not JSON (a
/// syntax `error`) even with its `NaN`s and `Infinity`s replaced ([`NonNumbers`]), as
/// skipped, on the line where serde_json found the error: as `"malformed JSON"` naming the
/// member it is in ([`syntax_field_at`]), as `"number out of range"` ([`out_of_range`]), or,
/// when the error is at a word [`NonNumbers`] leaves as it is but [`non_number_at`] takes
/// for one (`-NaN`, `1NaN`), for that; the last two naming the key written before (the whole
/// job is lost either way: serde_json reads none of it).
fn malformed(bytes: &[u8], start: u64, error: &serde_json::Error, report: &mut ReadReport) {
    let line = error_line(start, error);
    let known = non_number_at(bytes, error)
        .or_else(|| out_of_range(error).then_some("number out of range"));
    match known {
        Some(reason) => {
            let field = json_field_at(bytes, error);
            report.skipped(line, field.as_deref(), reason);
        }
        None => {
            let field = syntax_field_at(bytes, error);
            report.skipped(line, field.as_deref(), "malformed JSON");
        }
    }
}

/// Counts the task or attempt whose object starts at `at` in the job's bytes (`lines`) as
/// skipped for `error`, naming its line and field, and the reason of the word replaced
/// there when the value at fault replaces one of `non_numbers`.
fn part_skipped(
    lines: &LineIndex<'_>,
    at: usize,
    error: &serde_json::Error,
    non_numbers: &NonNumbers,
    report: &mut ReadReport,
) {
    let part = &lines.bytes[at..];
    let line = error_line(lines.line_at(at), error);
    if let Some(key) = duplicate_key(error) {
        report.skipped(line, Some(&key), "duplicate key");
        return;
    }
    let field = json_field_at(part, error);
    let reason = non_numbers.wrong_type_reason(at, part, error);
    report.skipped(line, field.as_deref(), reason);
}

/// The words for floats that JSON has no number for, which Python's `json` and Jackson
/// (with `QUOTE_NON_NUMERIC_NUMBERS` off) write bare, each with the float of the same length
/// that replaces it and its skip reason.
const NON_NUMBERS: [(&[u8], &[u8], &str); 3] = [
    (b"NaN", b"0.0", "NaN is not a JSON number"),
    (b"Infinity", b"0.000000", "Infinity is not a JSON number"),
    (b"-Infinity", b"-0.000000", "-Infinity is not a JSON number"),
];

/// The `NaN`, `Infinity` and `-Infinity` words of a job's bytes, which serde_json refuses
/// as syntax errors, so that none of the job would be read. In a copy of the bytes each is
/// replaced by a float of the same length (`0.0`, `0.000000`, `-0.000000`), so that every
/// byte offset and line stays where it was: where the reader does not read the field, the
/// float is passed over; every field it reads takes integers, strings, arrays or objects
/// (all refuse a float), so there it is a value of the wrong type, skipped with the part
/// that holds it, under the word's reason. (`clockSplits` takes any value, and a float
/// in it leaves the attempt without progress, as a `1.5` does.) A string would not do:
/// the reader's string fields would take it.
#[derive(Debug, Default)]
struct NonNumbers {
    /// Where each word replaced is in the job's bytes, in order, with its skip reason.
    words: Vec<(Range<usize>, &'static str)>,
}

impl NonNumbers {
    /// A copy of the job object `bytes` with each word replaced, and the words; `None`
    /// when there is none. A word is a whole run of the bytes a number or `true` can be
    /// written with (letters, digits, `_`, `-`, `+`, `.`) outside strings, so that `NaNa`,
    /// `Infinityx`, `-NaN` and a `NaN` inside a string are left as they are.
    fn replace(bytes: &[u8]) -> Option<(Vec<u8>, NonNumbers)> {
        let is_word_byte =
            |byte: u8| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'+' | b'.');
        let mut copy: Option<Vec<u8>> = None;
        let mut words = Vec::new();
        let mut in_string = false;
        let mut escaped = false;
        let mut at = 0;
        while let Some(&byte) = bytes.get(at) {
            if in_string {
                if escaped {
                    escaped = false;
                } else if byte == b'\\' {
                    escaped = true;
                } else if byte == b'"' {
                    in_string = false;
                }
                at += 1;
                continue;
            }
            if !is_word_byte(byte) {
                // Outside strings: a quote opens one.
                in_string = byte == b'"';
                at += 1;
                continue;
            }
            let end = (bytes[at..].iter().position(|&b| !is_word_byte(b)))
                .map_or(bytes.len(), |length| at + length);
            let word = &bytes[at..end];
            if let Some((_, float, reason)) = NON_NUMBERS.iter().find(|(name, ..)| *name == word) {
                let copy = copy.get_or_insert_with(|| bytes.to_vec());
                copy[at..end].copy_from_slice(float);
                words.push((at..end, *reason));
            }
            at = end;
        }
        Some((copy?, NonNumbers { words }))
    }

    /// The reason of the first word replaced within `range` of the job's bytes, if any.
    fn reason_in(&self, range: &Range<usize>) -> Option<&'static str> {
        let first = self
            .words
            .partition_point(|(word, _)| word.end <= range.start);
        (self.words.get(first))
            .filter(|(word, _)| word.start < range.end)
            .map(|&(_, reason)| reason)
    }

    /// The text of `range` of the job's bytes (the copy), as the log writes it: each word
    /// replaced in it put back (a word and its float have the same length).
    fn original(&self, bytes: &[u8], range: &Range<usize>) -> String {
        let mut text = bytes[range.clone()].to_vec();
        for (word, reason) in &self.words {
            if word.start >= range.start && word.end <= range.end {
                let written = NON_NUMBERS.iter().find(|(.., r)| r == reason);
                if let Some((name, ..)) = written {
                    text[word.start - range.start..word.end - range.start].copy_from_slice(name);
                }
            }
        }
        String::from_utf8_lossy(&text).into_owned()
    }

    /// The reason to skip a part for a value of the wrong type, `error`, in `part`, which
    /// starts at offset `at` in the job's bytes: the word's, when the value is a float that
    /// replaces one; `"field of the wrong type"` otherwise.
    fn wrong_type_reason(&self, at: usize, part: &[u8], error: &serde_json::Error) -> &'static str {
        // serde_json points at the value's last byte, which it has read.
        let word = error_offset(part, error).and_then(|offset| {
            let offset = at + offset;
            let next = self.words.partition_point(|(word, _)| word.end <= offset);
            self.words
                .get(next)
                .filter(|(word, _)| word.contains(&offset))
        });
        word.map_or("field of the wrong type", |&(_, reason)| reason)
    }
}

/// The line `error` points at, in a text whose first line is `first`.
fn error_line(first: u64, error: &serde_json::Error) -> u64 {
    first + error.line().saturating_sub(1) as u64
}

/// The lines of the bytes of a job object, whose first line is `first`: the offsets of its
/// line ends, found on the first lookup (none in a clean input), so that each skip costs a
/// binary search rather than a count from the job's start (a job of 700,000 attempts all
/// skipped would otherwise take hours).
#[derive(Debug)]
struct LineIndex<'b> {
    bytes: &'b [u8],
    first: u64,
    ends: OnceCell<Vec<usize>>,
}

impl<'b> LineIndex<'b> {
    fn new(bytes: &'b [u8], first: u64) -> Self {
        LineIndex {
            bytes,
            first,
            ends: OnceCell::new(),
        }
    }

    /// The line of byte `at`: the first line plus the line ends before it.
    fn line_at(&self, at: usize) -> u64 {
        let ends = self.ends.get_or_init(|| {
            let ends = self.bytes.iter().enumerate().filter(|&(_, &b)| b == b'\n');
            ends.map(|(i, _)| i).collect()
        });
        self.first + ends.partition_point(|&end| end < at) as u64
    }
}

/// The lines of a job object's attempts and their fields, for naming them in skips; the
/// layout is found on the first skip that needs it (none, in a clean input).
#[derive(Debug)]
struct Places<'b> {
    lines: LineIndex<'b>,
    /// The job's layout, once looked for (`Some(None)`: not found).
    layout: Option<Option<Layout>>,
}

impl<'b> Places<'b> {
    fn new(bytes: &'b [u8], start: u64) -> Self {
        Places {
            lines: LineIndex::new(bytes, start),
            layout: None,
        }
    }

    /// The line of `field` in the attempt whose object starts at `at` if known, else the
    /// attempt at `(list, task, attempt)` (indices in the job as read whole); the line of
    /// the attempt when `field` is not written in it, of the job when the attempt is not
    /// found.
    fn line(&mut self, at: Option<usize>, place: (usize, usize, usize), field: &str) -> u64 {
        let (list, task, attempt) = place;
        let at = at.or_else(|| {
            let task = self.task_place(list, task)?;
            task.attempts.get(attempt).map(|range| range.start)
        });
        self.field_line(at, field)
    }

    /// The line of `field` in the task whose object starts at `at` if known, else the task
    /// at `(list, task)` (indices in the job as read whole); the line of the task when
    /// `field` is not written in it, of the job when the task is not found.
    fn task_line(&mut self, at: Option<usize>, (list, task): (usize, usize), field: &str) -> u64 {
        let at = at.or_else(|| Some(self.task_place(list, task)?.range.start));
        self.field_line(at, field)
    }

    fn task_place(&mut self, list: usize, task: usize) -> Option<&TaskPlace> {
        let bytes = self.lines.bytes;
        let found = self.layout.get_or_insert_with(|| layout(bytes));
        found.as_ref()?.lists.get(list)?.get(task)
    }

    /// The line of `field` in the object that starts at `at`, of the object when `field`
    /// is not written in it, of the job without an object.
    fn field_line(&self, at: Option<usize>, field: &str) -> u64 {
        let Some(at) = at else {
            return self.lines.first;
        };
        let at = key_offset(self.lines.bytes, at, field).unwrap_or(at);
        self.lines.line_at(at)
    }
}

/// Where the tasks and attempts of a job object lie in its bytes.
#[derive(Debug)]
struct Layout {
    /// The tasks of each list of [`TASK_LISTS`] (none where the list is not an array).
    lists: [Vec<TaskPlace>; 3],
}

/// Where a task (an element of a task list, an object or not) and its attempts lie.
#[derive(Debug)]
struct TaskPlace {
    range: Range<usize>,
    /// Each element of its `attempts` array (none where that is not an array).
    attempts: Vec<Range<usize>>,
}

/// The layout of the job object `bytes`, or `None` if they are not a JSON object. Where
/// a key is written twice, the last stands (serde refuses such an object anyway).
fn layout(bytes: &[u8]) -> Option<Layout> {
    let mut lists: [Vec<TaskPlace>; 3] = Default::default();
    let mut cursor = Cursor { bytes, at: 0 };
    cursor.object(|cursor, key, _| {
        let list = TASK_LISTS.iter().position(|name| name.as_bytes() == key);
        let Some(list) = list.filter(|_| cursor.peek() == Some(b'[')) else {
            return cursor.value().map(drop);
        };
        let mut tasks = Vec::new();
        cursor.array(|cursor| {
            cursor.peek()?;
            let begin = cursor.at;
            let mut attempts = Vec::new();
            if cursor.peek() == Some(b'{') {
                cursor.object(|cursor, key, _| {
                    if key != b"attempts" || cursor.peek() != Some(b'[') {
                        return cursor.value().map(drop);
                    }
                    attempts.clear();
                    cursor.array(|cursor| {
                        attempts.push(cursor.value()?);
                        Some(())
                    })
                })?;
            } else {
                cursor.value()?;
            }
            tasks.push(TaskPlace {
                range: begin..cursor.at,
                attempts,
            });
            Some(())
        })?;
        lists[list] = tasks;
        Some(())
    })?;
    Some(Layout { lists })
}

/// Where `key` is written among the keys of the object that starts at `at` in `bytes`.
fn key_offset(bytes: &[u8], at: usize, key: &str) -> Option<usize> {
    let mut cursor = Cursor { bytes, at };
    let mut found = None;
    // The walk stops (returns `None`) at the key.
    cursor.object(|cursor, name, name_at| {
        if name == key.as_bytes() {
            found = Some(name_at);
            return None;
        }
        cursor.value().map(drop)
    });
    found
}

/// A walk over JSON text that finds where values are, without reading them. It trusts
/// the text to be JSON (serde has checked it) and stops, returning `None`, where it is not.
#[derive(Debug)]
struct Cursor<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl<'b> Cursor<'b> {
    /// The next byte that is not whitespace, the cursor moved to it.
    fn peek(&mut self) -> Option<u8> {
        while self.bytes.get(self.at)?.is_ascii_whitespace() {
            self.at += 1;
        }
        self.bytes.get(self.at).copied()
    }

    /// Moves past `byte`, if it comes next.
    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// Moves past a string and returns its text, escapes kept.
    fn string(&mut self) -> Option<&'b [u8]> {
        self.eat(b'"')?;
        let open = self.at;
        loop {
            match *self.bytes.get(self.at)? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return self.bytes.get(open..self.at - 1);
                }
                _ => self.at += 1,
            }
        }
    }

    /// Moves past a value of any kind and returns where it lies. Brackets are counted, not
    /// followed, so that depth takes no stack.
    fn value(&mut self) -> Option<Range<usize>> {
        let first = self.peek()?;
        let begin = self.at;
        match first {
            b'"' => {
                self.string()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *self.bytes.get(self.at)? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                let scalar = self.bytes[begin..]
                    .iter()
                    .position(|&b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                    .unwrap_or(self.bytes.len() - begin);
                if scalar == 0 {
                    return None;
                }
                self.at += scalar;
            }
        }
        Some(begin..self.at)
    }

    /// Walks the object that comes next: `entry` is called on each key (its text and where
    /// it starts) with the cursor on its value, which it moves past; it returns `None` to
    /// stop the walk.
    fn object(
        &mut self,
        mut entry: impl FnMut(&mut Self, &'b [u8], usize) -> Option<()>,
    ) -> Option<()> {
        self.eat(b'{')?;
        if self.eat(b'}').is_some() {
            return Some(());
        }
        loop {
            self.peek()?;
            let key_at = self.at;
            let key = self.string()?;
            self.eat(b':')?;
            entry(self, key, key_at)?;
            if self.eat(b',').is_none() {
                return self.eat(b'}');
            }
        }
    }

    /// Walks the array that comes next: `element` is called with the cursor on each
    /// element, which it moves past.
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(b'[')?;
        if self.eat(b']').is_some() {
            return Some(());
        }
        loop {
            element(self)?;
            if self.eat(b',').is_none() {
                return self.eat(b']');
            }
        }
    }
}

/// `text` without Hadoop 1's history escapes: a `\\` takes the next character as it is.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' {
            chars.next().unwrap_or(c)
        } else {
            c
        });
    }
    out
}

/// A time Rumen knows: Rumen writes `-1` for an unknown one (`LoggedTask` and
/// `LoggedTaskAttempt` start their times at `-1`, and the shared Rumen logs hold no other
/// negative time). Any other negative time is kept, for [`plausible`] to skip as a
/// `"negative time"`, rather than taken for unknown: a `startTime` of `-5000` would
/// otherwise be replaced by its task's without a word.
fn known_time(value: Option<i64>) -> Option<i64> {
    value.filter(|&v| v != -1)
}

/// A count Rumen knows (`inputBytes`, `hdfsBytesRead`...): Rumen writes `-1` (or any
/// negative number) for unknown.
/// The reason of a part skipped for a size (`inputBytes`, a counter) below zero other than
/// Rumen's `-1` for unknown: damage, not an unknown size.
const NEGATIVE_SIZE: &str = "negative size";

/// Whether `value`, a size as Rumen writes it, is negative other than `-1` (unknown).
fn negative_size(value: Option<i64>) -> bool {
    value.is_some_and(|v| v < -1)
}

fn known_u64(value: Option<i64>) -> Option<u64> {
    value.and_then(|v| u64::try_from(v).ok())
}

fn ms_to_secs(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_that_are_not_integers_leave_the_job_and_give_no_progress() {
        let text = r#"{"jobID": "job_1", "mapTasks": [{"taskID": "task_1_m_0",
            "taskType": "MAP", "attempts": [{"attemptID": "a", "startTime": 1000,
            "finishTime": 5000, "result": "SUCCESS", "clockSplits": [1.5, 2]}]}]}"#;
        let mut report = ReadReport::new("t.json", crate::TraceFormat::Rumen);
        let mut jobs = Vec::new();
        read(Box::new(text.as_bytes()), &mut report, |job| jobs.push(job));
        assert_eq!((report.records_parsed, report.records_skipped), (1, 0));
        let attempt = &jobs[0].tasks[0].attempts[0];
        assert_eq!((attempt.start_secs, attempt.end_secs), (1.0, Some(5.0)));
        assert!(attempt.progress.is_empty());
        // Not dropped without a word: named at the line of its `clockSplits`.
        assert_eq!(report.unusable_splits_seen, 1);
        let unusable = &report.unusable_splits[0];
        assert_eq!(
            (
                unusable.line,
                unusable.attempt.as_str(),
                unusable.reason.as_str()
            ),
            (3, "a", "clockSplits not integers")
        );
    }

    #[test]
    fn non_numbers_are_replaced_by_floats_of_their_length_outside_strings_only() {
        let text = br#"{"a\"NaN": NaN, "b": [-Infinity,Infinity], "c\\": "x", "d": NaNa,
            "e": -NaN, "f":1NaN, "g":Infinity}"#;
        let (copy, non_numbers) = NonNumbers::replace(text).expect("words to replace");
        let replaced = br#"{"a\"NaN": 0.0, "b": [-0.000000,0.000000], "c\\": "x", "d": NaNa,
            "e": -NaN, "f":1NaN, "g":0.000000}"#;
        assert_eq!(
            String::from_utf8_lossy(&copy),
            String::from_utf8_lossy(replaced)
        );
        let words: Vec<_> = (non_numbers.words.iter())
            .map(|(range, reason)| (&text[range.clone()], *reason))
            .collect();
        assert_eq!(
            words,
            [
                (&b"NaN"[..], "NaN is not a JSON number"),
                (b"-Infinity", "-Infinity is not a JSON number"),
                (b"Infinity", "Infinity is not a JSON number"),
                (b"Infinity", "Infinity is not a JSON number"),
            ]
        );
        // Words only in strings: nothing to replace, no copy.
        assert!(NonNumbers::replace(br#"{"NaN": "Infinity", "x": "\"-Infinity"}"#).is_none());
        for (word, float, _) in NON_NUMBERS {
            assert_eq!(word.len(), float.len());
        }
    }

    #[test]
    fn history_escapes_are_undone() {
        assert_eq!(
            host_of(&unescape(r"/192\.30\.63\.192/cluster1020\.example\.com")),
            "cluster1020.example.com"
        );
        // `\\` is a backslash, `\"` a quote; a lone backslash at the end stays.
        assert_eq!(unescape("a\\\\b\\\"c\\"), "a\\b\"c\\");
    }
}
