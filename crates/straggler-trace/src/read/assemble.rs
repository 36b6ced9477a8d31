//! Jobs under construction: tasks and attempts added as events arrive, a job handed out as
//! soon as the log has closed it and none of its attempts is still running. The ids of the
//! jobs handed out so are kept, and a later record of one of them is skipped as
//! [`JOB_ENDED`]: it opens no second job of the id.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::{AttemptOutcome, ReadReport, StageKind, TraceAttempt, TraceJob, TraceTask};

/// One job still open.
#[derive(Debug)]
pub(crate) struct OpenJob {
    job: TraceJob,
    /// Order of first sight, to hand out the jobs left at the end in log order.
    seq: u64,
    tasks: HashMap<String, usize>,
    attempts: HashMap<String, (usize, usize)>,
    /// Attempts started and not yet ended.
    running: usize,
    /// Whether the log has said the job is over.
    ended: bool,
}

/// Why a reader skips a record: a stable reason and the field at fault.
pub(crate) type Skip = (&'static str, Option<&'static str>);

/// The largest time, in seconds on a trace's clock, a reader takes for an attempt's start or
/// end: 10^10 s, past the year 2286 as a Unix time and far past the end of the traces whose
/// clock starts with them (Google 2011, Alibaba 2018). A time beyond it, either way (an
/// `i64::MAX` written for "unknown", a damaged digit), cannot be replayed: its record is
/// skipped as `"implausible time"` (`"negative time"` below zero).
pub(crate) const MAX_PLAUSIBLE_SECS: f64 = 1e10;

/// `secs`, or the skip of a record whose time `field` is negative (`"negative time"`: every
/// clock these readers know starts at the Unix epoch or at the trace's start, and a
/// negative start would make an attempt decades long) or beyond [`MAX_PLAUSIBLE_SECS`].
pub(crate) fn plausible(secs: f64, field: &'static str) -> Result<f64, Skip> {
    if secs < 0.0 {
        Err(("negative time", Some(field)))
    } else if secs.is_finite() && secs <= MAX_PLAUSIBLE_SECS {
        Ok(secs)
    } else {
        Err(("implausible time", Some(field)))
    }
}

/// What a reader calls the fields of an attempt's records, to name them in its skips.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AttemptFields {
    /// The field the record's job is read from (a task id, for most formats).
    pub job: &'static str,
    /// The field naming the attempt.
    pub id: &'static str,
    /// The field of its start time.
    pub start: &'static str,
    /// The field of its end time.
    pub end: &'static str,
    /// The reason given for the end of an attempt never started, and the field at fault.
    pub no_start: (&'static str, &'static str),
}

/// What a record that passed its check does to its attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// It starts or ends the attempt.
    Applies,
    /// It restates what the log recorded before, and changes nothing: a start at the
    /// attempt's recorded start time (Hadoop 1 writes one again when a map's output is
    /// lost after it succeeded), or a failure or kill after its success (Hadoop 1's
    /// `TASK_STATUS` after that second start, MRv2's `MAP_ATTEMPT_FAILED` after too many
    /// fetch failures): the attempt did succeed, as Spark's `Resubmitted` end says.
    Restates,
}

/// Why an attempt's start could not be recorded: the record repeats or contradicts one
/// already applied, and is skipped whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StartError {
    /// The attempt id already belongs to another task of the job.
    OtherTask,
    /// The attempt has started already and not ended: a second start.
    Twice,
    /// The attempt's end is recorded already.
    AfterEnd,
    /// The attempt's job has been handed out already ([`JOB_ENDED`]).
    JobEnded,
}

impl StartError {
    /// The reason a reader gives for skipping the start record, and the field at fault.
    pub(crate) fn skip(self, fields: &AttemptFields) -> Skip {
        match self {
            StartError::OtherTask => ("attempt id of another task", Some(fields.id)),
            StartError::Twice => ("attempt started twice", Some(fields.start)),
            StartError::AfterEnd => ("attempt started after its end", Some(fields.start)),
            StartError::JobEnded => (JOB_ENDED, Some(fields.job)),
        }
    }
}

/// Why an attempt's end could not be recorded. The end record is skipped, and the attempt
/// stays as it was (running, if it was).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EndError {
    /// The attempt was never started and its end carries no launch time.
    NoStart,
    /// The end is before the attempt's start: the attempt stays as if its end were lost.
    BeforeStart,
    /// The attempt id already belongs to another task of the job.
    OtherTask,
    /// The attempt's end is recorded already: a second end.
    Twice,
    /// The attempt's job has been handed out already ([`JOB_ENDED`]).
    JobEnded,
}

impl EndError {
    /// The reason a reader gives for skipping the end record, and the field at fault.
    pub(crate) fn skip(self, fields: &AttemptFields) -> Skip {
        match self {
            EndError::NoStart => (fields.no_start.0, Some(fields.no_start.1)),
            EndError::BeforeStart => ("attempt ends before it starts", Some(fields.end)),
            EndError::OtherTask => ("attempt id of another task", Some(fields.id)),
            EndError::Twice => ("attempt ended twice", Some(fields.end)),
            EndError::JobEnded => (JOB_ENDED, Some(fields.job)),
        }
    }
}

/// The reason a reader gives for a job record that gives its job another name or submit
/// time than an earlier record did (see [`OpenJob::check_submission`]).
pub(crate) const CONTRADICTS_SUBMISSION: &str = "contradicts the job's submission";

/// The reason a reader gives for a record of a job handed out already: the log closed it
/// and none of its attempts ran any more (see [`Assembler::job`]).
pub(crate) const JOB_ENDED: &str = "record of a job already ended";

/// What a reader calls the fields of a job's id, name and submit time, to name them in its
/// skips.
#[derive(Debug, Clone, Copy)]
pub(crate) struct JobFields {
    /// The field of its id.
    pub id: &'static str,
    /// The field of its name (or of what its name is taken from).
    pub name: &'static str,
    /// The field of its submit time.
    pub submit: &'static str,
}

impl OpenJob {
    /// The job's own fields (name, submit time).
    pub(crate) fn job_mut(&mut self) -> &mut TraceJob {
        &mut self.job
    }

    /// The skip of a record that gives this job `name` or `submit_secs` other than an
    /// earlier record gave it ([`CONTRADICTS_SUBMISSION`], naming the field, the name's
    /// first): which is right cannot be told, and the first stands. A value the record
    /// does not give, or one the job has none of yet, contradicts nothing, and a record
    /// that restates them (Hadoop 1 writes a job's record again after a JobTracker
    /// restart) is none.
    pub(crate) fn check_submission(
        &self,
        name: Option<&str>,
        submit_secs: Option<f64>,
        fields: JobFields,
    ) -> Result<(), Skip> {
        fn differs<T: PartialEq>(first: Option<T>, later: Option<T>) -> bool {
            first
                .zip(later)
                .is_some_and(|(first, later)| first != later)
        }
        if differs(self.job.name.as_deref(), name) {
            return Err((CONTRADICTS_SUBMISSION, Some(fields.name)));
        }
        if differs(self.job.submit_secs, submit_secs) {
            return Err((CONTRADICTS_SUBMISSION, Some(fields.submit)));
        }
        Ok(())
    }

    /// Gives the job `name` and `submit_secs` where it has none yet: a later record never
    /// replaces what an earlier one gave (see [`OpenJob::check_submission`]).
    pub(crate) fn fill_submission(&mut self, name: Option<&str>, submit_secs: Option<f64>) {
        if self.job.name.is_none() {
            self.job.name = name.map(str::to_owned);
        }
        self.job.submit_secs = self.job.submit_secs.or(submit_secs);
    }

    /// The index of task `id`, created with `stage` and `kind` on first sight. A kind learnt
    /// later replaces [`StageKind::Other`].
    pub(crate) fn task(&mut self, id: &str, stage: &str, kind: StageKind) -> usize {
        if let Some(&index) = self.tasks.get(id) {
            let task = &mut self.job.tasks[index];
            if task.kind == StageKind::Other && kind != StageKind::Other {
                task.kind = kind;
            }
            return index;
        }
        let index = self.job.tasks.len();
        self.job.tasks.push(TraceTask {
            id: id.to_owned(),
            stage: stage.to_owned(),
            kind,
            input_bytes: None,
            input_records: None,
            attempts: Vec::new(),
        });
        self.tasks.insert(id.to_owned(), index);
        index
    }

    /// The kind of task `id`, if it has been seen.
    pub(crate) fn task_kind(&self, id: &str) -> Option<StageKind> {
        self.tasks.get(id).map(|&index| self.job.tasks[index].kind)
    }

    /// The task at `index`.
    pub(crate) fn task_mut(&mut self, index: usize) -> &mut TraceTask {
        &mut self.job.tasks[index]
    }

    /// Whether attempt `id` may start in task `task_id` at `start_secs`: not if the id is
    /// known, as an attempt of another task, or started (and perhaps ended) already at
    /// another time; a start at its recorded time restates it ([`Change::Restates`]).
    pub(crate) fn check_start(
        &self,
        task_id: &str,
        id: &str,
        start_secs: f64,
    ) -> Result<Change, StartError> {
        self.start_conflict(self.tasks.get(task_id).copied(), id, start_secs)
    }

    fn start_conflict(
        &self,
        task: Option<usize>,
        id: &str,
        start_secs: f64,
    ) -> Result<Change, StartError> {
        let Some(&(t, a)) = self.attempts.get(id) else {
            return Ok(Change::Applies);
        };
        let attempt = &self.job.tasks[t].attempts[a];
        if Some(t) != task {
            Err(StartError::OtherTask)
        } else if attempt.start_secs == start_secs {
            Ok(Change::Restates)
        } else if attempt.end_secs.is_some() {
            Err(StartError::AfterEnd)
        } else {
            Err(StartError::Twice)
        }
    }

    /// Whether attempt `id` of task `task_id` may end at `end_secs` with `outcome`: it must
    /// be an attempt of that task not ended yet, with a start at or before the end, the one
    /// seen or, for an attempt not seen, `start_secs` (the launch time an end record may
    /// carry); a failure or kill after its success restates it ([`Change::Restates`]).
    pub(crate) fn check_end(
        &self,
        task_id: &str,
        id: &str,
        start_secs: Option<f64>,
        end: (f64, AttemptOutcome),
    ) -> Result<Change, EndError> {
        self.end_conflict(self.tasks.get(task_id).copied(), id, start_secs, end)
    }

    fn end_conflict(
        &self,
        task: Option<usize>,
        id: &str,
        start_secs: Option<f64>,
        (end_secs, outcome): (f64, AttemptOutcome),
    ) -> Result<Change, EndError> {
        let start = match self.attempts.get(id) {
            None => start_secs.ok_or(EndError::NoStart)?,
            Some(&(t, _)) if Some(t) != task => return Err(EndError::OtherTask),
            Some(&(t, a)) => {
                let attempt = &self.job.tasks[t].attempts[a];
                let revoked = matches!(outcome, AttemptOutcome::Killed | AttemptOutcome::Failed);
                match attempt.outcome {
                    AttemptOutcome::Succeeded if revoked => return Ok(Change::Restates),
                    _ if attempt.end_secs.is_some() => return Err(EndError::Twice),
                    _ => attempt.start_secs,
                }
            }
        };
        if end_secs < start {
            return Err(EndError::BeforeStart);
        }
        Ok(Change::Applies)
    }

    /// Records that attempt `id` of task `task` started, unless the record restates or
    /// contradicts one applied before ([`OpenJob::check_start`]).
    pub(crate) fn start_attempt(
        &mut self,
        task: usize,
        id: &str,
        start_secs: f64,
        host: Option<String>,
        speculative: Option<bool>,
        line: u64,
    ) -> Result<(), StartError> {
        if self.start_conflict(Some(task), id, start_secs)? == Change::Restates {
            return Ok(());
        }
        let attempts = &mut self.job.tasks[task].attempts;
        attempts.push(TraceAttempt {
            id: id.to_owned(),
            host,
            start_secs,
            end_secs: None,
            outcome: AttemptOutcome::Unfinished,
            speculative,
            progress: Vec::new(),
            revoked: false,
            line,
        });
        let a = attempts.len() - 1;
        self.attempts.insert(id.to_owned(), (task, a));
        self.running += 1;
        Ok(())
    }

    /// Records that attempt `id` of task `task` ended, and returns it, unless the record
    /// restates (`None`) or contradicts one applied before ([`OpenJob::check_end`]); an
    /// attempt never seen starting is created from `start_secs` if the end record gives it.
    pub(crate) fn end_attempt(
        &mut self,
        task: usize,
        id: &str,
        end_secs: f64,
        outcome: AttemptOutcome,
        start_secs: Option<f64>,
        line: u64,
    ) -> Result<Option<&mut TraceAttempt>, EndError> {
        let end = (end_secs, outcome);
        if self.end_conflict(Some(task), id, start_secs, end)? == Change::Restates {
            // A failure or kill after the success: the success is revoked.
            self.revoke(id);
            return Ok(None);
        }
        if !self.attempts.contains_key(id) {
            let start = start_secs.ok_or(EndError::NoStart)?;
            // A new id (checked above): no conflict.
            self.start_attempt(task, id, start, None, None, line)
                .map_err(|_| EndError::Twice)?;
        }
        let Some(&(t, a)) = self.attempts.get(id) else {
            return Err(EndError::NoStart);
        };
        self.running = self.running.saturating_sub(1);
        let attempt = &mut self.job.tasks[t].attempts[a];
        attempt.end_secs = Some(end_secs);
        attempt.outcome = outcome;
        attempt.line = line;
        Ok(Some(attempt))
    }

    /// Marks attempt `id`'s success revoked ([`TraceAttempt::revoked`]), if it has one.
    pub(crate) fn revoke(&mut self, id: &str) {
        if let Some(&(t, a)) = self.attempts.get(id) {
            let attempt = &mut self.job.tasks[t].attempts[a];
            attempt.revoked |= attempt.outcome == AttemptOutcome::Succeeded;
        }
    }

    /// Whether the job is closed and nothing of it runs.
    fn done(&self) -> bool {
        self.ended && self.running == 0
    }

    fn into_job(mut self) -> TraceJob {
        for task in &mut self.job.tasks {
            task.attempts
                .sort_by(|a, b| a.start_secs.total_cmp(&b.start_secs));
        }
        self.job
    }
}

/// The open jobs of one input, by id, and the ids of those handed out.
#[derive(Debug, Default)]
pub(crate) struct Assembler {
    jobs: HashMap<String, OpenJob>,
    order: BTreeMap<u64, String>,
    next_seq: u64,
    /// The ids of the jobs handed out once the log closed them ([`Assembler::emit_if_done`]),
    /// so that a later record of one opens no second job of its id: one string a job.
    handed_out: HashSet<String>,
}

impl Assembler {
    /// The skip of a record of job `id` (read from the record's `field`) once the job has
    /// been handed out ([`JOB_ENDED`]): the log closed it and none of its attempts ran any
    /// more, so whatever the record says of it comes too late, and opening the job again
    /// would give two jobs of one id. Until then (an attempt still running after the job's
    /// end: Spark writes the end of a killed copy after the job's), the job is open and its
    /// records apply.
    pub(crate) fn check_not_handed_out(&self, id: &str, field: &'static str) -> Result<(), Skip> {
        match self.handed_out.contains(id) {
            true => Err((JOB_ENDED, Some(field))),
            false => Ok(()),
        }
    }

    /// Job `id`, opened on first sight; a record of a job handed out already (its id read
    /// from `field`) is skipped ([`JOB_ENDED`]), and opens nothing.
    pub(crate) fn job(&mut self, id: &str, field: &'static str) -> Result<&mut OpenJob, Skip> {
        self.check_not_handed_out(id, field)?;
        if !self.jobs.contains_key(id) {
            let seq = self.next_seq;
            self.next_seq += 1;
            self.order.insert(seq, id.to_owned());
            self.jobs.insert(
                id.to_owned(),
                OpenJob {
                    job: TraceJob {
                        id: id.to_owned(),
                        name: None,
                        submit_secs: None,
                        tasks: Vec::new(),
                        speculation: None,
                        speculation_line: None,
                    },
                    seq,
                    tasks: HashMap::new(),
                    attempts: HashMap::new(),
                    running: 0,
                    ended: false,
                },
            );
        }
        // Just inserted if absent.
        Ok(self.jobs.get_mut(id).unwrap_or_else(|| unreachable!()))
    }

    /// Job `id` if it is open.
    pub(crate) fn get(&mut self, id: &str) -> Option<&mut OpenJob> {
        self.jobs.get_mut(id)
    }

    /// Attempt `attempt` of the open job `job`, if it has been seen.
    pub(crate) fn attempt(&self, job: &str, attempt: &str) -> Option<&TraceAttempt> {
        let job = self.jobs.get(job)?;
        let &(t, a) = job.attempts.get(attempt)?;
        Some(&job.job.tasks[t].attempts[a])
    }

    /// The attempts of task `task` of the open job `job`, if it has been seen.
    pub(crate) fn task_attempts(&self, job: &str, task: &str) -> Option<&[TraceAttempt]> {
        let job = self.jobs.get(job)?;
        let &index = job.tasks.get(task)?;
        Some(&job.job.tasks[index].attempts)
    }

    /// The start of attempt `attempt` of the open job `job`, if it has been seen.
    pub(crate) fn attempt_start(&self, job: &str, attempt: &str) -> Option<f64> {
        self.attempt(job, attempt).map(|a| a.start_secs)
    }

    /// [`OpenJob::check_submission`] on job `job`, open or not (a job not open has no name
    /// or submit time to contradict), after [`JOB_ENDED`] for a job handed out.
    pub(crate) fn check_submission(
        &self,
        job: &str,
        name: Option<&str>,
        submit_secs: Option<f64>,
        fields: JobFields,
    ) -> Result<(), Skip> {
        self.check_not_handed_out(job, fields.id)?;
        self.jobs.get(job).map_or(Ok(()), |open| {
            open.check_submission(name, submit_secs, fields)
        })
    }

    /// [`OpenJob::check_start`] on job `job`, open or not (a job not open has no attempt;
    /// one handed out is [`StartError::JobEnded`]). A reader checks a start record so
    /// before the record opens a job or a task, so that a record skipped leaves nothing
    /// behind.
    pub(crate) fn check_start(
        &self,
        job: &str,
        task_id: &str,
        attempt: &str,
        start_secs: f64,
    ) -> Result<Change, StartError> {
        if self.handed_out.contains(job) {
            return Err(StartError::JobEnded);
        }
        self.jobs.get(job).map_or(Ok(Change::Applies), |open| {
            open.check_start(task_id, attempt, start_secs)
        })
    }

    /// [`OpenJob::check_end`] on job `job`, open or not: an end at `end_secs` of attempt
    /// `attempt` of task `task_id`. `start_secs` is the start the record gives, used for an
    /// attempt not seen (a Hadoop 1 record with both times, a Spark end's launch time). A
    /// reader checks an end record so before the record opens a job or a task. One of a job
    /// handed out is [`EndError::JobEnded`].
    pub(crate) fn check_end(
        &self,
        job: &str,
        task_id: &str,
        attempt: &str,
        start_secs: Option<f64>,
        end: (f64, AttemptOutcome),
    ) -> Result<Change, EndError> {
        if self.handed_out.contains(job) {
            return Err(EndError::JobEnded);
        }
        match self.jobs.get(job) {
            Some(open) => open.check_end(task_id, attempt, start_secs, end),
            None => match start_secs {
                None => Err(EndError::NoStart),
                Some(start) if end.0 < start => Err(EndError::BeforeStart),
                Some(_) => Ok(Change::Applies),
            },
        }
    }

    /// Marks job `id` as closed by the log; hands it out if nothing of it runs. The end of a
    /// job handed out already (its id read from `field`) is skipped ([`JOB_ENDED`]).
    pub(crate) fn end_job(
        &mut self,
        id: &str,
        field: &'static str,
        on_job: &mut impl FnMut(TraceJob),
    ) -> Result<(), Skip> {
        self.check_not_handed_out(id, field)?;
        if let Some(job) = self.jobs.get_mut(id) {
            job.ended = true;
        }
        self.emit_if_done(id, on_job);
        Ok(())
    }

    /// Hands job `id` out if the log has closed it and nothing of it runs, and keeps its id,
    /// so that a later record of it opens no second job ([`JOB_ENDED`]).
    pub(crate) fn emit_if_done(&mut self, id: &str, on_job: &mut impl FnMut(TraceJob)) {
        if self.jobs.get(id).is_some_and(OpenJob::done)
            && let Some(job) = self.jobs.remove(id)
        {
            self.order.remove(&job.seq);
            self.handed_out.insert(job.job.id.clone());
            on_job(job.into_job());
        }
    }

    /// Hands out every job still open, as [`Assembler::finish`], and notes in `report`
    /// (as a cut, on `line`, the input's last) the jobs whose end the log never gave:
    /// `end` names the records that end a job in the format. A log cut at a line end reads
    /// cleanly otherwise, its jobs' attempts left running. For formats with a job end only.
    pub(crate) fn finish_noting_unended(
        &mut self,
        on_job: &mut impl FnMut(TraceJob),
        report: &mut ReadReport,
        line: u64,
        end: &str,
    ) {
        let mut unended =
            (self.order.values()).filter(|id| self.jobs.get(*id).is_some_and(|job| !job.ended));
        if let Some(first) = unended.next() {
            let note = match unended.count() {
                0 => format!(
                    "the log ends before the end of job {first} (no {end}): it may be cut \
                     short, or written while the job ran"
                ),
                more => format!(
                    "the log ends before the end of {} jobs (the first {first}; no {end}): \
                     it may be cut short, or written while they ran",
                    more + 1
                ),
            };
            report.cut(line, note);
        }
        self.finish(on_job);
    }

    /// Hands out every job still open, in the order they were first seen: the end of input.
    pub(crate) fn finish(&mut self, on_job: &mut impl FnMut(TraceJob)) {
        for (_, id) in std::mem::take(&mut self.order) {
            if let Some(job) = self.jobs.remove(&id) {
                on_job(job.into_job());
            }
        }
    }
}

/// Why an attempt's progress splits (`clockSplits`), present and not empty, give no
/// progress. The attempt is kept, its progress empty (linear, as without splits), and the
/// reader notes it in [`ReadReport::unusable_splits`](crate::ReadReport::unusable_splits):
/// unlike splits absent, empty or all zero (an attempt that never reported progress), these
/// are damaged input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SplitsFault {
    /// The value is not an array (`.jhist`; Rumen's reader refuses such a value as one of
    /// the wrong type, and skips the attempt).
    NotArray,
    /// An element is not a JSON integer: a float (`1.5`, or the `0.0` a Rumen `NaN` is read
    /// as; serde_json also reads `-0` and an integer past `u64::MAX` as floats), a string,
    /// `null`, an array or an object. Dropping it would shift the intervals.
    NotIntegers,
    /// An element is below [`UNREACHED`], or an interval is reached after one that was
    /// not: no time is spent in an interval for less than nothing, and progress does not
    /// skip an interval.
    Negative,
    /// The sum, in milliseconds, does not fit in an `i64` (an element past `i64::MAX`, up
    /// to `u64::MAX`, included).
    SumOverflows,
    /// More than [`MAX_CLOCK_SPLITS`] elements: Hadoop writes a few (12 by default), and
    /// an array of millions, read, would take gigabytes (one progress point each, kept
    /// with the job) from a file of kilobytes.
    TooMany,
}

impl SplitsFault {
    /// The reason a reader gives, one of the stable strings of
    /// [`UnusableSplits::reason`](crate::UnusableSplits::reason).
    pub(crate) fn reason(self) -> &'static str {
        match self {
            SplitsFault::NotArray => "clockSplits not an array",
            SplitsFault::NotIntegers => "clockSplits not integers",
            SplitsFault::Negative => "clockSplits negative",
            SplitsFault::SumOverflows => "clockSplits sum overflows",
            SplitsFault::TooMany => "clockSplits too long",
        }
    }
}

/// The most elements of a `clockSplits` array a reader takes. Hadoop divides an attempt's
/// progress into a fixed number of splits, 12 by default
/// (`mapreduce.jobhistory.task.numberprogresssplits`; every attempt of the shared `.jhist`
/// and Rumen logs has 12): a thousand leaves room for any setting seen in practice, and
/// bounds what one attempt's progress holds (16 KB of points). A longer array is not kept
/// ([`SplitsFault::TooMany`]).
pub(crate) const MAX_CLOCK_SPLITS: usize = 1000;

/// A JSON `clockSplits` array as read: its first [`MAX_CLOCK_SPLITS`] integers and what the
/// elements held, so that an array is never kept as a tree of values (one of 30 million
/// zeros, 60 MB of text, would take a gigabyte so). Past the cap the elements are only
/// counted (passed over, never kept). Deserialized from a JSON array only: any other
/// value is of the wrong type.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct ClockSplits {
    /// The integer elements, up to the cap.
    splits: Vec<i64>,
    /// How many elements the array has.
    len: usize,
    /// Whether an element (up to the cap) is no JSON integer.
    not_integers: bool,
    /// Whether an element (up to the cap) is below [`UNREACHED`], or an element other than
    /// `UNREACHED` follows one.
    negative: bool,
    /// Whether an element (up to the cap) is [`UNREACHED`].
    unreached: bool,
    /// Whether an element (up to the cap) is past `i64::MAX`.
    past_i64: bool,
}

impl ClockSplits {
    /// Reads the elements of a JSON array.
    pub(crate) fn from_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<ClockSplits, A::Error> {
        let mut out = ClockSplits::default();
        while let Some(element) = seq.next_element::<SplitElement>()? {
            out.len += 1;
            if out.len > MAX_CLOCK_SPLITS {
                continue;
            }
            match element {
                SplitElement::Integer(split) => {
                    out.negative |= split < UNREACHED || (out.unreached && split != UNREACHED);
                    out.unreached |= split == UNREACHED;
                    out.splits.push(split);
                }
                SplitElement::PastI64 => {
                    out.negative |= out.unreached;
                    out.past_i64 = true;
                }
                SplitElement::NotInteger => out.not_integers = true,
            }
        }
        Ok(out)
    }

    /// The splits, or why they cannot be used, checked in this order: more than
    /// [`MAX_CLOCK_SPLITS`] ([`SplitsFault::TooMany`], the elements not looked at); an
    /// element that is not an integer ([`SplitsFault::NotIntegers`], rather than a shorter
    /// list that would shift the intervals); a negative one other than a last run of
    /// [`UNREACHED`] ([`SplitsFault::Negative`]);
    /// one past `i64::MAX` ([`SplitsFault::SumOverflows`]: the sum is past it too).
    pub(crate) fn integers(&self) -> Result<&[i64], SplitsFault> {
        if self.len > MAX_CLOCK_SPLITS {
            Err(SplitsFault::TooMany)
        } else if self.not_integers {
            Err(SplitsFault::NotIntegers)
        } else if self.negative {
            Err(SplitsFault::Negative)
        } else if self.past_i64 {
            Err(SplitsFault::SumOverflows)
        } else {
            Ok(&self.splits)
        }
    }

    /// The progress of an attempt of `duration_secs` (if ended): [`ClockSplits::integers`],
    /// then [`progress_from_clock_splits`].
    pub(crate) fn progress(
        &self,
        duration_secs: Option<f64>,
    ) -> Result<Vec<(f64, f64)>, SplitsFault> {
        progress_from_clock_splits(self.integers()?, duration_secs)
    }
}

impl<'de> Deserialize<'de> for ClockSplits {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Splits;
        impl<'de> Visitor<'de> for Splits {
            type Value = ClockSplits;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of progress splits")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ClockSplits, A::Error> {
                ClockSplits::from_seq(seq)
            }
        }
        deserializer.deserialize_seq(Splits)
    }
}

/// One element of a `clockSplits` array, whatever JSON it is; nothing of it kept but an
/// integer (an array or object in its place is passed over).
enum SplitElement {
    Integer(i64),
    PastI64,
    NotInteger,
}

impl<'de> Deserialize<'de> for SplitElement {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Element;
        impl<'de> Visitor<'de> for Element {
            type Value = SplitElement;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_i64<E>(self, v: i64) -> Result<SplitElement, E> {
                Ok(SplitElement::Integer(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<SplitElement, E> {
                Ok(i64::try_from(v).map_or(SplitElement::PastI64, SplitElement::Integer))
            }
            fn visit_f64<E>(self, _: f64) -> Result<SplitElement, E> {
                Ok(SplitElement::NotInteger)
            }
            fn visit_bool<E>(self, _: bool) -> Result<SplitElement, E> {
                Ok(SplitElement::NotInteger)
            }
            fn visit_str<E>(self, _: &str) -> Result<SplitElement, E> {
                Ok(SplitElement::NotInteger)
            }
            fn visit_unit<E>(self) -> Result<SplitElement, E> {
                Ok(SplitElement::NotInteger)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<SplitElement, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(SplitElement::NotInteger)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SplitElement, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(SplitElement::NotInteger)
            }
        }
        deserializer.deserialize_any(Element)
    }
}

/// Progress over time from Hadoop's progress splits (`clockSplits`).
///
/// Hadoop (`ProgressSplitsBlock`, MAPREDUCE-1327) divides an attempt's progress into
/// `n` (12) equal intervals; `clock_splits_ms[i]` is the wall-clock time, in milliseconds,
/// the attempt spent while its progress was in `[i/n, (i+1)/n)`. At each progress report
/// the application master extends the splits to the time since the attempt's launch
/// (`TaskAttemptImpl.updateProgressSplits`: `extend(progress, now - launch)`), the first
/// report's time spread over the intervals it covers: the time before the first report
/// (container and JVM start) is in the first splits, and the sum `Σ` is the time of the
/// last report. So the attempt reached progress `(i+1)/n` at `S_i = Σ_{j≤i}
/// clock_splits_ms[j]` ms after its launch, and the remainder `d − Σ` of its duration
/// `d` comes after the last report, at the progress it reached. The points are `(0, 0)`,
/// `(S_i, (i+1)/n)` in seconds, and `(d, 1)` if `d > Σ`. If the sum exceeds `d` (clock
/// skew) the times are scaled by `d / Σ`; without a duration (attempt unfinished) the times
/// are the plain sums.
///
/// Hadoop starts every split at [`UNREACHED`] (`PeriodicStatsAccumulator`) and writes
/// split `i` when the progress passes `(i+1)/n`; MRv2 extends the splits to progress 1
/// when an attempt ends, whatever its outcome (`TaskAttemptImpl.finalizeProgress`), but
/// skips every extension of an attempt without a launch time (never launched: its splits
/// stay all `-1`) and of one more than `Integer.MAX_VALUE` ms (24.8 days) after its
/// launch (the splits keep the intervals reached before). Splits that end in a run of
/// `-1` (only that run: `k` splits reached, then none) give the points of the `k`
/// reached, then `(d, k/n)` if `d > Σ`: the attempt's progress at its end is known to be
/// at least `k/n`, no more.
///
/// No points, and no error, when no split is above zero: empty, all zero, or none reached
/// (no progress reported: nothing to place on the clock). An error when there are more
/// than [`MAX_CLOCK_SPLITS`] ([`SplitsFault::TooMany`]), a split is negative other than
/// the last run of `-1` ([`SplitsFault::Negative`]) or the sum overflows
/// ([`SplitsFault::SumOverflows`]), in that order: the reader keeps the attempt without
/// progress and reports it.
pub(crate) fn progress_from_clock_splits(
    clock_splits_ms: &[i64],
    duration_secs: Option<f64>,
) -> Result<Vec<(f64, f64)>, SplitsFault> {
    let n = clock_splits_ms.len();
    if n > MAX_CLOCK_SPLITS {
        return Err(SplitsFault::TooMany);
    }
    let reached = (clock_splits_ms.iter())
        .position(|&s| s == UNREACHED)
        .unwrap_or(n);
    let (splits, unreached) = clock_splits_ms.split_at(reached);
    if splits.iter().any(|&s| s < 0) || unreached.iter().any(|&s| s != UNREACHED) {
        return Err(SplitsFault::Negative);
    }
    let total_ms = splits
        .iter()
        .try_fold(0i64, |sum, &split| sum.checked_add(split))
        .ok_or(SplitsFault::SumOverflows)?;
    // Non-negative splits: a zero sum is no splits or all zero.
    if total_ms == 0 {
        return Ok(Vec::new());
    }
    let total_secs = total_ms as f64 / 1000.0;
    let (end_secs, scale) = match duration_secs {
        Some(d) if d.is_finite() && d > total_secs => (Some(d), 1.0),
        Some(d) if d.is_finite() && d > 0.0 => (None, d / total_secs),
        _ => (None, 1.0),
    };
    let mut points = Vec::with_capacity(reached + 2);
    points.push((0.0, 0.0));
    // Sums of non-negative splits whose total fits: no overflow.
    let mut elapsed_ms = 0i64;
    for (i, &split) in splits.iter().enumerate() {
        elapsed_ms += split;
        points.push((
            elapsed_ms as f64 / 1000.0 * scale,
            (i + 1) as f64 / n as f64,
        ));
    }
    if let Some(end) = end_secs {
        points.push((end, reached as f64 / n as f64));
    }
    Ok(points)
}

/// A split Hadoop never wrote: the attempt's progress did not pass the end of its interval
/// (see [`progress_from_clock_splits`]).
pub(crate) const UNREACHED: i64 = -1;

/// Progress over time of a successful reduce attempt from its phases' ends, for a log
/// without progress splits (Hadoop 1's `SHUFFLE_FINISHED` and `SORT_FINISHED`, Rumen's
/// `shuffleFinished` and `sortFinished`): Hadoop's reduce reports its progress in three
/// equal parts, copy (shuffle), sort and reduce (`ReduceTask`'s `copyPhase`, `sortPhase`
/// and `reducePhase`), so the points are
///
/// ```text
/// (0, 0), (shuffle - launch, 1/3), (sort - launch, 2/3), (end - launch, 1)
/// ```
///
/// in seconds since launch, linear in between. No points (linear progress, as without
/// them) when a phase's end is unknown or the four times are out of order.
pub(crate) fn reduce_phase_progress(
    launch_secs: f64,
    shuffle_secs: Option<f64>,
    sort_secs: Option<f64>,
    end_secs: f64,
) -> Vec<(f64, f64)> {
    let (Some(shuffle), Some(sort)) = (shuffle_secs, sort_secs) else {
        return Vec::new();
    };
    if !(launch_secs <= shuffle && shuffle <= sort && sort <= end_secs) {
        return Vec::new();
    }
    vec![
        (0.0, 0.0),
        (shuffle - launch_secs, 1.0 / 3.0),
        (sort - launch_secs, 2.0 / 3.0),
        (end_secs - launch_secs, 1.0),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_splits_become_progress_points() {
        let progress = |splits: &[i64], duration| {
            progress_from_clock_splits(splits, Some(duration)).expect("usable splits")
        };
        // Worked by hand: 12 splits of 1 s each over a 14 s attempt: 1/12 more each second
        // from the launch, 1 at 12 s (the last report), then 2 s more at 1 until the end.
        let points = progress(&[1000; 12], 14.0);
        assert_eq!(points.len(), 14);
        assert_eq!(points[0], (0.0, 0.0));
        assert_eq!(points[1], (1.0, 1.0 / 12.0));
        assert_eq!(points[12], (12.0, 1.0));
        assert_eq!(points[13], (14.0, 1.0));
        // As long as the attempt: no point after the last split.
        assert_eq!(progress(&[1000; 12], 12.0).len(), 13);
        // Sum 12 s over a 6 s attempt: halved.
        let points = progress(&[1000; 12], 6.0);
        assert_eq!(points[1], (0.5, 1.0 / 12.0));
        assert_eq!(points[12], (6.0, 1.0));
        // No splits, or no time in them (no progress reported): no points, no fault.
        assert!(progress(&[], 3.0).is_empty());
        assert!(progress(&[0; 12], 3.0).is_empty());
        // None reached (an attempt killed before it reported), or none reached after
        // intervals of no time: the same.
        assert!(progress(&[-1; 12], 3.0).is_empty());
        assert!(progress(&[0, 0, -1, -1], 3.0).is_empty());
    }

    #[test]
    fn reduce_phases_give_thirds_of_progress() {
        // Worked by hand: launched at 100 s, shuffle done at 187 s, sort at 188 s, ended at
        // 200 s: 1/3 at 87 s, 2/3 at 88 s, 1 at 100 s.
        assert_eq!(
            reduce_phase_progress(100.0, Some(187.0), Some(188.0), 200.0),
            [
                (0.0, 0.0),
                (87.0, 1.0 / 3.0),
                (88.0, 2.0 / 3.0),
                (100.0, 1.0)
            ]
        );
        // A phase unknown, or times out of order: none (linear, as without them).
        assert!(reduce_phase_progress(100.0, None, Some(188.0), 200.0).is_empty());
        assert!(reduce_phase_progress(100.0, Some(190.0), Some(188.0), 200.0).is_empty());
        assert!(reduce_phase_progress(100.0, Some(99.0), Some(188.0), 200.0).is_empty());
        assert!(reduce_phase_progress(100.0, Some(187.0), Some(201.0), 200.0).is_empty());
    }

    #[test]
    fn splits_never_reached_end_the_curve_where_the_last_reached_one_does() {
        // Worked by hand: 3 of 12 intervals reached, 1 s each, over a 5 s attempt: 1/12 at
        // 1 s, 2/12 at 2 s, 3/12 at 3 s, then at least 3/12 until the end.
        let mut splits = [-1; 12];
        splits[..3].copy_from_slice(&[1000; 3]);
        let points = progress_from_clock_splits(&splits, Some(5.0)).expect("usable splits");
        assert_eq!(
            points,
            [
                (0.0, 0.0),
                (1.0, 1.0 / 12.0),
                (2.0, 2.0 / 12.0),
                (3.0, 0.25),
                (5.0, 0.25)
            ]
        );
        // Reached in 8 s, over a 4 s attempt: the times halved, no point after.
        let points = progress_from_clock_splits(&[4000, 4000, -1, -1], Some(4.0));
        assert_eq!(points, Ok(vec![(0.0, 0.0), (2.0, 0.25), (4.0, 0.5)]));
        // Unfinished: the plain sums.
        let points = progress_from_clock_splits(&[1000, -1], None);
        assert_eq!(points, Ok(vec![(0.0, 0.0), (1.0, 0.5)]));
    }

    #[test]
    fn splits_that_cannot_be_used_say_why() {
        // A sum that overflows is a fault, not a panic.
        assert_eq!(
            progress_from_clock_splits(&[i64::MAX, i64::MAX], Some(3.0)),
            Err(SplitsFault::SumOverflows)
        );
        // Below -1, or an interval reached after one that was not.
        for negative in [&[-2, 5][..], &[5, -2], &[-1, 5], &[5, -1, 0], &[-1, -2]] {
            assert_eq!(
                progress_from_clock_splits(negative, Some(3.0)),
                Err(SplitsFault::Negative),
                "{negative:?}"
            );
        }
        // Negative first, as `ClockSplits::integers` checks them; a last -1 is no fault.
        assert_eq!(
            progress_from_clock_splits(&[i64::MAX, i64::MAX, -2], None),
            Err(SplitsFault::Negative)
        );
        assert_eq!(
            progress_from_clock_splits(&[i64::MAX, i64::MAX, -1], None),
            Err(SplitsFault::SumOverflows)
        );
        let values =
            |text: &str| -> ClockSplits { serde_json::from_str(text).expect("a JSON array") };
        let integer_splits = |splits: &ClockSplits| splits.integers().map(<[i64]>::to_vec);
        assert_eq!(
            integer_splits(&values("[1000, 2, 0]")),
            Ok(vec![1000, 2, 0])
        );
        assert_eq!(integer_splits(&values("[]")), Ok(vec![]));
        for not_integers in [
            "[1000, 1.5]",
            "[2.0]",
            "[1, \"2\"]",
            "[null]",
            "[[1]]",
            "[-1, 1.5]",
        ] {
            assert_eq!(
                integer_splits(&values(not_integers)),
                Err(SplitsFault::NotIntegers),
                "{not_integers}"
            );
        }
        assert_eq!(
            integer_splits(&values("[18446744073709551615, -2]")),
            Err(SplitsFault::Negative)
        );
        // A last run of -1 is read as intervals never reached; a split after one is not.
        assert_eq!(
            integer_splits(&values("[1000, -1, -1]")),
            Ok(vec![1000, -1, -1])
        );
        for negative in ["[-1, 1000]", "[-1, 18446744073709551615]", "[1000, -1, -3]"] {
            assert_eq!(
                integer_splits(&values(negative)),
                Err(SplitsFault::Negative),
                "{negative}"
            );
        }
        assert_eq!(
            values("[1000, -1]").progress(Some(2.0)),
            Ok(vec![(0.0, 0.0), (1.0, 0.5), (2.0, 0.5)])
        );
        // An element past `i64::MAX` (a `u64`): the sum is past it too.
        assert_eq!(
            integer_splits(&values("[1, 9223372036854775808]")),
            Err(SplitsFault::SumOverflows)
        );
        assert_eq!(
            values("[1, 9223372036854775807]").progress(None),
            Err(SplitsFault::SumOverflows)
        );
        assert_eq!(
            values("[1000, 1000]").progress(Some(2.0)),
            Ok(vec![(0.0, 0.0), (1.0, 0.5), (2.0, 1.0)])
        );
        // Anything but an array is of the wrong type.
        for not_array in ["1", "\"[1]\"", "{\"a\": [1]}", "null"] {
            assert!(
                serde_json::from_str::<ClockSplits>(not_array).is_err(),
                "{not_array}"
            );
        }
    }

    #[test]
    fn splits_past_the_cap_are_counted_not_kept() {
        let array = |n: usize, element: &str| format!("[{}]", vec![element; n].join(","));
        let read = |text: &str| -> ClockSplits { serde_json::from_str(text).expect("an array") };
        // At the cap: read as any other.
        let at_cap = read(&array(MAX_CLOCK_SPLITS, "1"));
        assert_eq!(at_cap.integers().map(<[i64]>::len), Ok(MAX_CLOCK_SPLITS));
        assert_eq!(
            at_cap.progress(Some(1.0)).map(|p| p.len()),
            Ok(MAX_CLOCK_SPLITS + 1)
        );
        // One past it: too long, whatever the elements, none of them kept past the cap.
        for element in ["1", "-1", "1.5", "[0, [0]]", "{\"a\": 1}"] {
            let splits = read(&array(MAX_CLOCK_SPLITS + 1, element));
            assert_eq!(splits.integers(), Err(SplitsFault::TooMany), "{element}");
            assert!(splits.splits.len() <= MAX_CLOCK_SPLITS);
        }
        let long = read(&array(100_000, "0"));
        assert_eq!((long.len, long.splits.len()), (100_000, MAX_CLOCK_SPLITS));
        assert_eq!(long.progress(None), Err(SplitsFault::TooMany));
        assert_eq!(
            progress_from_clock_splits(&[1; MAX_CLOCK_SPLITS + 1], None),
            Err(SplitsFault::TooMany)
        );
    }

    #[test]
    fn a_job_is_handed_out_when_closed_and_idle() {
        let mut assembler = Assembler::default();
        let mut out = Vec::new();
        let job = assembler.job("j", "id").expect("a new job");
        let t = job.task("t", "map", StageKind::Map);
        job.start_attempt(t, "a", 1.0, None, None, 1)
            .expect("a new attempt");
        assembler
            .end_job("j", "id", &mut |j| out.push(j))
            .expect("open");
        assert!(out.is_empty(), "an attempt still runs");
        let job = assembler.get("j").expect("open");
        job.end_attempt(t, "a", 2.0, AttemptOutcome::Killed, None, 3)
            .expect("started");
        assembler.emit_if_done("j", &mut |j| out.push(j));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].tasks[0].attempts[0].end_secs, Some(2.0));
    }
}
