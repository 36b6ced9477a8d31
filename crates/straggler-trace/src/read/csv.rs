//! CSV cluster traces, from their published schemas: Google cluster trace 2011
//! `task_events` and Alibaba cluster trace 2018 `batch_instance`. Neither has a header
//! line, and neither says when a job is over: jobs are handed out at the end of the input
//! (so memory grows with the jobs of one file; both traces come split in files).
//!
//! **Google 2011 `task_events`** (schema "Google cluster-usage traces: format + schema",
//! v2.1): `timestamp` (µs), `missing info`, `job ID`, `task index`, `machine ID`,
//! `event type`, `user`, `scheduling class`, `priority`, `CPU request`, `memory request`,
//! `disk space request`, `different-machine restriction`.
//! - A task is `(job ID, task index)`, id `"<job>/<index>"`, stage `"tasks"`, kind Map (a
//!   Google job is one set of parallel tasks).
//! - An attempt runs from a SCHEDULE (1) event to the next EVICT (2, killed), FAIL (3,
//!   failed), FINISH (4, succeeded), KILL (5, killed) or LOST (6, failed) of the same task;
//!   its id is `"<job>/<index>#<n>"`, its host the machine ID. SUBMIT (0) and UPDATE (7, 8)
//!   events are parsed and change nothing. A timestamp of 2^63 − 1 ("after the trace")
//!   on an end leaves the attempt unfinished; on a SCHEDULE it is skipped as
//!   `"scheduled after the trace"`. An end before its attempt's start is skipped and the
//!   attempt still runs; so is a SCHEDULE while the task's attempt runs (`"attempt
//!   started twice"`), the first standing. An end of a task never scheduled is skipped as
//!   `"end of a task not scheduled"`, one of a task whose attempt has ended, no SCHEDULE
//!   since (a second FINISH), as `"end of a task already ended"`, the first end standing.
//!
//! **Alibaba 2018 `batch_instance`** (schema `cluster-trace-v2018/schema.md`, §1.6):
//! `instance_name`, `task_name`, `job_name`, `task_type`, `status`, `start_time` (s),
//! `end_time` (s), `machine_id`, `seq_no`, `total_seq_no`, `cpu_avg`, `cpu_max`, `mem_avg`,
//! `mem_max`.
//! - A task (the unit a straggler is) is an instance: id `"<task_name>/<instance_name>"`;
//!   its stage is the Alibaba task (`task_name`), of kind Map for `M*` names, Reduce for
//!   `R*` and `J*` (joins), Map otherwise.
//! - Each row is an attempt, id `"<instance_name>#<seq_no>"`, host `machine_id`; status
//!   `Terminated` succeeded, `Failed` failed, `Cancelled` and `Interrupted` killed,
//!   `Running`, `Waiting`, `Ready` unfinished. A row with no start time (0 or empty) is
//!   skipped as `"instance never started"`.
//! - Rows of one attempt are its status rows, in file order: while it is unfinished, a
//!   row with the same start is parsed (and ends it if finished); a row giving another
//!   start, or any row after it finished, is skipped (`"attempt started twice"`,
//!   `"attempt ended twice"`, `"attempt started after its end"`).
//!
//! In both, an attempt time beyond 10^10 s is skipped as `"implausible time"`, a negative
//! one as `"negative time"`; an Alibaba row without `instance_name`, `task_name`,
//! `job_name` or `seq_no` as `"missing field"`.

use std::collections::HashMap;
use std::io::BufRead;

use super::assemble::{Assembler, AttemptFields, EndError, Skip, StartError, plausible};
use super::input::{Lines, is_blank};
use crate::{AttemptOutcome, ReadReport, StageKind, TraceJob};

/// The fields of a Google attempt's events, as skips name them.
const GOOGLE_FIELDS: AttemptFields = AttemptFields {
    job: "job ID",
    id: "task index",
    start: "timestamp",
    end: "timestamp",
    no_start: ("end of a task not scheduled", "event type"),
};

/// The fields of an Alibaba attempt's rows, as skips name them.
const ALIBABA_FIELDS: AttemptFields = AttemptFields {
    job: "job_name",
    id: "seq_no",
    start: "start_time",
    end: "end_time",
    no_start: ("instance never started", "start_time"),
};

/// The Google timestamp that means "after the end of the trace".
const GOOGLE_AFTER_END: i64 = i64::MAX;

/// Reads every line of a CSV input with `row`, then hands out the jobs.
fn read_rows(
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    on_job: &mut impl FnMut(TraceJob),
    mut row: impl FnMut(&[&str], u64, &mut Assembler) -> Result<(), Skip>,
    columns: usize,
) {
    let mut lines = Lines::new(input);
    let mut jobs = Assembler::default();
    while let Some(line) = lines.next_or_note(report) {
        if line.too_long {
            report.skipped(line.no, None, "line too long");
            continue;
        }
        if is_blank(line.text) {
            continue;
        }
        let no = line.no;
        let Ok(text) = std::str::from_utf8(line.text) else {
            report.skipped(no, None, "not UTF-8");
            continue;
        };
        let fields: Vec<&str> = text.split(',').collect();
        if fields.len() != columns {
            if !line.terminated && fields.len() < columns {
                report.skipped(no, None, "truncated record");
                report.cut(no, format!("the input ends in the middle of line {no}"));
            } else {
                report.skipped(no, None, "wrong number of fields");
            }
            continue;
        }
        match row(&fields, no, &mut jobs) {
            Ok(()) => report.parsed(),
            Err((reason, field)) => report.skipped(no, field, reason),
        }
    }
    jobs.finish(on_job);
}

fn int(fields: &[&str], index: usize, name: &'static str) -> Result<i64, Skip> {
    fields[index]
        .trim()
        .parse()
        .map_err(|_| ("field of the wrong type", Some(name)))
}

/// Reads a Google 2011 `task_events` input.
pub(crate) fn read_google(
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    mut on_job: impl FnMut(TraceJob),
) {
    // Per task: attempts so far, and whether the last one runs.
    let mut tasks: HashMap<(i64, i64), (u32, bool)> = HashMap::new();
    let row = |fields: &[&str], line: u64, jobs: &mut Assembler| -> Result<(), Skip> {
        let timestamp = int(fields, 0, "timestamp")?;
        if timestamp < 0 {
            return Err(("negative time", Some("timestamp")));
        }
        let job_id = int(fields, 2, "job ID")?;
        let index = int(fields, 3, "task index")?;
        let event = int(fields, 5, "event type")?;
        if !(0..=8).contains(&event) {
            return Err(("unknown event type", Some("event type")));
        }
        let task_id = format!("{job_id}/{index}");
        let state = tasks.entry((job_id, index)).or_insert((0, false));
        if (2..=6).contains(&event) && !state.1 {
            // Checked before the job and task are opened: a skipped row leaves nothing. A
            // task whose attempt has ended, no SCHEDULE since (a second FINISH, a KILL
            // after an EVICT), was scheduled: its end is not the end of a task never
            // scheduled.
            let reason = match state.0 {
                0 => "end of a task not scheduled",
                _ => "end of a task already ended",
            };
            return Err((reason, Some("event type")));
        }
        if event == 1 && state.1 {
            // A SCHEDULE while the task's attempt runs (no end between): the first stands,
            // and the task's next end ends it.
            return Err(("attempt started twice", Some("event type")));
        }
        let after_end = timestamp == GOOGLE_AFTER_END;
        if event == 1 && after_end {
            return Err(("scheduled after the trace", Some("timestamp")));
        }
        let secs = timestamp as f64 / 1e6;
        if !after_end {
            plausible(secs, "timestamp")?;
        }
        let job = jobs.job(&job_id.to_string(), GOOGLE_FIELDS.job)?;
        let task = job.task(&task_id, "tasks", StageKind::Map);
        match event {
            1 => {
                let machine = fields[4].trim();
                let host = (!machine.is_empty()).then(|| machine.to_owned());
                // A new id (the task's next attempt): no conflict.
                job.start_attempt(
                    task,
                    &format!("{task_id}#{}", state.0 + 1),
                    secs,
                    host,
                    None,
                    line,
                )
                .map_err(|e| e.skip(&GOOGLE_FIELDS))?;
                state.0 += 1;
                state.1 = true;
            }
            2..=6 => {
                if after_end {
                    // The attempt ends after the trace: it stays unfinished.
                    state.1 = false;
                    return Ok(());
                }
                let outcome = match event {
                    4 => AttemptOutcome::Succeeded,
                    2 | 5 => AttemptOutcome::Killed,
                    _ => AttemptOutcome::Failed,
                };
                // An end skipped (before the start) leaves the attempt running, as if the
                // end were lost: a later end of the task still ends it.
                job.end_attempt(
                    task,
                    &format!("{task_id}#{}", state.0),
                    secs,
                    outcome,
                    None,
                    line,
                )
                .map_err(|e| e.skip(&GOOGLE_FIELDS))?;
                state.1 = false;
            }
            _ => {}
        }
        Ok(())
    };
    read_rows(input, report, &mut on_job, row, 13);
}

/// Reads an Alibaba 2018 `batch_instance` input.
pub(crate) fn read_alibaba(
    input: Box<dyn BufRead + '_>,
    report: &mut ReadReport,
    mut on_job: impl FnMut(TraceJob),
) {
    let row = |fields: &[&str], line: u64, jobs: &mut Assembler| -> Result<(), Skip> {
        let [
            instance,
            task_name,
            job_name,
            _task_type,
            status,
            start,
            end,
            machine,
            seq,
            ..,
        ] = fields
        else {
            return Err(("wrong number of fields", None));
        };
        if instance.is_empty() {
            return Err(("missing field", Some("instance_name")));
        }
        if job_name.is_empty() {
            return Err(("missing field", Some("job_name")));
        }
        if task_name.is_empty() {
            return Err(("missing field", Some("task_name")));
        }
        if seq.is_empty() {
            return Err(("missing field", Some("seq_no")));
        }
        let outcome = match *status {
            "Terminated" => AttemptOutcome::Succeeded,
            "Failed" => AttemptOutcome::Failed,
            "Cancelled" | "Interrupted" => AttemptOutcome::Killed,
            "Running" | "Waiting" | "Ready" => AttemptOutcome::Unfinished,
            _ => return Err(("unknown status", Some("status"))),
        };
        let seconds = |text: &str, name| -> Result<Option<f64>, Skip> {
            match text.trim() {
                "" => Ok(None),
                t => match t.parse::<i64>() {
                    Ok(s) if s < 0 => Err(("negative time", Some(name))),
                    Ok(s) => Ok((s > 0).then_some(s as f64)),
                    Err(_) => Err(("field of the wrong type", Some(name))),
                },
            }
        };
        let Some(start) = seconds(start, "start_time")? else {
            return Err(("instance never started", Some("start_time")));
        };
        let start = plausible(start, "start_time")?;
        let end = seconds(end, "end_time")?
            .map(|end| plausible(end, "end_time"))
            .transpose()?;
        match (end, outcome) {
            (None, AttemptOutcome::Unfinished) => {}
            (None, _) => return Err(("missing field", Some("end_time"))),
            (Some(end), _) if end < start => {
                return Err(("attempt ends before it starts", Some("end_time")));
            }
            (Some(_), _) => {}
        }
        let kind = match task_name.as_bytes().first() {
            Some(b'R' | b'J') => StageKind::Reduce,
            _ => StageKind::Map,
        };
        let task_id = format!("{task_name}/{instance}");
        // The instance name repeats across the tasks of a job: the attempt is named by its
        // task too.
        let attempt_id = format!("{task_id}#{seq}");
        let end = end.filter(|_| outcome != AttemptOutcome::Unfinished);
        // Rows of one attempt are its status rows: while it is unfinished, a later row
        // restating its start is parsed (and ends it if finished); a row of an attempt
        // already finished, or giving it another start, contradicts what was applied.
        // Checked before the job and task are opened: a row skipped leaves nothing.
        let seen = jobs
            .attempt(job_name, &attempt_id)
            .map(|a| (a.start_secs, a.end_secs.is_some()));
        match seen {
            Some((_, true)) if end.is_some() => return Err(EndError::Twice.skip(&ALIBABA_FIELDS)),
            Some((_, true)) => return Err(StartError::AfterEnd.skip(&ALIBABA_FIELDS)),
            Some((seen_start, false)) if seen_start != start => {
                return Err(StartError::Twice.skip(&ALIBABA_FIELDS));
            }
            _ => {}
        }
        let job = jobs.job(job_name, ALIBABA_FIELDS.job)?;
        let task = job.task(&task_id, task_name, kind);
        if seen.is_none() {
            let host = (!machine.is_empty()).then(|| (*machine).to_owned());
            job.start_attempt(task, &attempt_id, start, host, None, line)
                .map_err(|e| e.skip(&ALIBABA_FIELDS))?;
        }
        if let Some(end) = end {
            job.end_attempt(task, &attempt_id, end, outcome, Some(start), line)
                .map_err(|e| e.skip(&ALIBABA_FIELDS))?;
        }
        Ok(())
    };
    read_rows(input, report, &mut on_job, row, 14);
}
