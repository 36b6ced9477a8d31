//! `stragglers replay PATH...`: reads real job history logs, labels their stragglers against
//! their siblings, judges the speculation that really ran ("recorded") and replays the
//! chosen detectors over the logs (see docs/replay.md).

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, bail};
use rayon::prelude::*;
use serde_json::{Value, json};
use stragglers::sim::DetectorSpec;
use stragglers::sim::report::{self, Table};
use stragglers::trace::{
    CopyCounts, HadoopVersion, JobConf, Labels, MAX_SCANS_PER_JOB, ReadReport, ReplayConfig,
    ReplayMetrics, ScanInterval, SkippedJob, SpeculationSetting, SpeculationSwitch, Table3,
    TraceAttempt, TraceError, TraceFormat, TraceJob, TruthConfig, conf_job_id, detect_format,
    fakes_won_by_copy, judge, label, read_job_conf, read_path, recorded, replay_each, table3,
};
use stragglers::truth::SiblingReference;

use crate::detectors::{self, Group};
use crate::output;
use crate::replay_intervals::{
    brief_tasks_note, intervals_note, scan_intervals, unreadable_intervals_note,
    unreadable_intervals_used,
};
use crate::replay_speculation::speculation_notes;

/// The schema tag of `replay --json`: 4 since a job's speculation setting gives a switch
/// for each kind of stage (`per_job[].speculation.map` and `.reduce`, Hadoop's from a Rumen
/// job's `jobProperties`), where 3 gave Spark's one switch (`enabled`, `source`, `value`)
/// and `null` for every Hadoop job. 3 since each job gives the interval it was scanned at
/// (`per_job[].scan_interval`) and `scan_interval_secs` is the one `--scan-interval`
/// gives, `null` without it; 2 wrote the one interval of every job there. 2 since the
/// counts are integers (`"tasks": 25`), where 1 wrote them as floats (`"tasks": 25.0`).
pub const SCHEMA: &str = "stragglers.replay/4";

/// The detector name of the speculation the log records.
const RECORDED: &str = "recorded";
/// What the JSON says the recorded speculation is.
const RECORDED_DESCRIPTION: &str =
    "the speculation the log records: a task is detected when the engine launched its first copy";

/// Arguments of `stragglers replay`.
#[derive(Debug, clap::Args)]
pub struct ReplayArgs {
    /// Logs to read: Spark event logs (plain, gzip, zstd, or a rolling eventlog_v2_*
    /// directory), Hadoop .jhist, Hadoop 1 JobHistory, Rumen JSON, Google 2011 task_events,
    /// Alibaba 2018 batch_instance. The format is detected from the content. A directory
    /// (other than a rolling event log) stands for the files under it, in the order of
    /// their paths. A Hadoop job's configuration XML named `*_conf.xml` with its job id
    /// (`job_<id>_conf.xml` beside a .jhist, `<host>_<start>_job_<id>_conf.xml` beside a
    /// Hadoop 1 history) gives its speculation setting to the job of that id read from the
    /// other inputs; other files that are no log found in a directory are left out, each
    /// named in a note.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Detectors to judge, comma-separated, each once: `recorded` (the speculation the log
    /// shows, first in the results) and names from `stragglers detectors` but the oracle;
    /// `all` for every one and `recorded`. A name may set parameters in parentheses,
    /// `late(alpha = 0.5)` (docs/detectors.md). `--detector` is the same.
    #[arg(long, visible_alias = "detector", default_value = RECORDED, value_name = "LIST|all")]
    detectors: String,
    /// Seconds between two scans (and progress reports) of a replayed detector, for every
    /// job: finite and at least 0.001. Without it, each job is scanned as its engine checks:
    /// a Spark application at its spark.speculation.interval (0.1 s by default), a Hadoop
    /// job every 3 s (its tasks' progress reports), the Google and Alibaba traces every 3 s.
    #[arg(long, value_name = "SECS", allow_negative_numbers = true)]
    scan_interval: Option<f64>,
    /// The most scans one job's replay may take: a job whose span (first launch to last
    /// end) over the scan interval is larger is not replayed, and a note names it (a
    /// damaged time, an end years after the launch, would otherwise take minutes). At
    /// least 1.
    #[arg(
        long,
        default_value_t = MAX_SCANS_PER_JOB,
        value_name = "N",
        value_parser = clap::builder::RangedI64ValueParser::<u64>::new().range(1..=i64::MAX),
        allow_negative_numbers = true
    )]
    max_scans_per_job: u64,
    /// A task is a straggler if it takes more than this factor times its siblings'
    /// reference (Ouyang et al. and Garraghan et al.: 1.5; Phan et al.: 1.2). Finite and at
    /// least 1. `--straggler-factor` is the same, as in `simulate`.
    #[arg(
        long,
        visible_alias = "straggler-factor",
        default_value_t = 1.5,
        value_name = "F",
        allow_negative_numbers = true
    )]
    factor: f64,
    /// The siblings' reference: their median (Garraghan et al.) or mean (Ouyang et al.).
    #[arg(long, value_enum, default_value_t = Reference::Median)]
    reference: Reference,
    /// Compare durations per byte of input (Garraghan et al.'s DoS-index); tasks without an input
    /// size are left out.
    #[arg(long)]
    normalise_by_input: bool,
    /// Write the results (schema stragglers.replay/4) to this file; `-` writes them to
    /// standard output in place of the tables.
    #[arg(long, value_name = "PATH")]
    json: Option<PathBuf>,
    /// Leave out the inputs that are no log (a Rumen topology, a configuration XML whose
    /// name gives no job id, a README in a glob), each named in a note and in the JSON's
    /// `left_out`, instead of stopping before anything is read. A log that cannot be read
    /// (one that cannot be opened, an LZ4 or Snappy one, a binary `.jhist`) still stops the
    /// command.
    #[arg(long)]
    skip_other_files: bool,
    /// Fail (exit status 1, after the tables and the JSON) when the results rest on part of
    /// the inputs: a record skipped, an input that ends inside a record, bytes or files not
    /// read, or a job a detector scanned at Spark's default in place of a
    /// spark.speculation.interval Spark cannot read (not with --scan-interval, which does
    /// not use it). Without it, those are notes and the exit status is 0.
    #[arg(long)]
    strict: bool,
}

/// The siblings' reference statistic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Reference {
    /// Median of the siblings' durations.
    Median,
    /// Mean of the siblings' durations.
    Mean,
}

/// Which detectors `--detectors` names (`None` for `recorded`), each once in the order
/// first named; `all` names every one, `recorded` too.
fn parse_detectors(list: &str) -> anyhow::Result<Vec<Option<DetectorSpec>>> {
    let choices: Vec<Option<DetectorSpec>> = std::iter::once(None)
        .chain(DetectorSpec::all().into_iter().map(Some))
        .collect();
    let groups = [Group {
        word: "all",
        includes: &|_| true,
    }];
    detectors::parse(
        "--detectors",
        list,
        &choices,
        name_of,
        &groups,
        detectors::tune_some(RECORDED),
    )
}

/// The name of a detector of `--detectors`: `recorded` for the recorded speculation.
fn name_of(detector: &Option<DetectorSpec>) -> &str {
    detector.as_ref().map_or(RECORDED, DetectorSpec::name)
}

/// Skipped records listed one by one under an input's summary; `--json` lists the first
/// 100 the reader kept.
const SKIPS_SHOWN: usize = 5;

/// The notes a user must see about an input: skipped records (a summary by reason, then
/// the first few as `path:line: reason, field`), where it stops, what was not read, unknown
/// keys, and attempts read without progress from their unusable splits (a summary, then
/// the first few as `path:line: reason, attempt`).
fn input_notes(report: &ReadReport) -> Vec<String> {
    let path = report.path.display();
    let mut notes = Vec::new();
    if report.records_skipped > 0 {
        let reasons: Vec<String> = report
            .skip_reasons
            .iter()
            .map(|(reason, n)| format!("{reason} ({n})"))
            .collect();
        notes.push(format!(
            "{path}: {} of {} records skipped: {}",
            report.records_skipped,
            report.records_read,
            reasons.join(", ")
        ));
        for skip in report.skips.iter().take(SKIPS_SHOWN) {
            let field = skip
                .field
                .as_deref()
                .map(|f| format!(", field `{f}`"))
                .unwrap_or_default();
            // In an input of several files (a rolling directory), the line is its file's.
            let file = in_file(skip.file.as_deref());
            notes.push(format!(
                "{path}{file}:{}: skipped: {}{field}",
                skip.line, skip.reason
            ));
        }
        let more = report.records_skipped.saturating_sub(SKIPS_SHOWN as u64);
        if more > 0 {
            notes.push(format!(
                "{path}: {more} more skipped {} (`--json` lists the first {})",
                if more == 1 { "record" } else { "records" },
                ReadReport::MAX_SKIPS_KEPT
            ));
        }
    }
    if let Some(truncation) = &report.truncated {
        // In a rolling directory, the line is its file's.
        let file = in_file(truncation.file.as_deref());
        notes.push(format!(
            "{path}{file}:{}: truncated: {}",
            truncation.line, truncation.note
        ));
    }
    for unread in &report.unread {
        let file = in_file(unread.file.as_deref());
        notes.push(format!("{path}{file}: {}: {}", unread.reason, unread.note));
    }
    if report.unknown_keys_seen > 0 {
        let keys: Vec<String> = report
            .unknown_keys
            .iter()
            .map(|(key, seen)| {
                let file = seen
                    .file
                    .as_deref()
                    .map(|f| format!("{f}:"))
                    .unwrap_or_default();
                format!(
                    "{key} ({}, first at {file}{})",
                    seen.records, seen.first_line
                )
            })
            .collect();
        // The report keeps the first keys seen only: at its limit, there may be more.
        let listed = match report.unknown_keys.len() {
            ReadReport::MAX_UNKNOWN_KEYS_KEPT => " (the first 100 keys seen)",
            _ => "",
        };
        notes.push(format!(
            "{path}: keys the format does not define, read as absent, seen {} times{listed}: \
             {}",
            report.unknown_keys_seen,
            keys.join(", ")
        ));
    }
    if report.unusable_splits_seen > 0 {
        notes.push(format!(
            "{path}: {} attempts read without progress from their clockSplits, present but \
             unusable",
            report.unusable_splits_seen
        ));
        let shown = report.unusable_splits.len().min(SKIPS_SHOWN);
        for splits in &report.unusable_splits[..shown] {
            let file = in_file(splits.file.as_deref());
            let attempt = match splits.attempt.as_str() {
                "" => String::new(),
                id => format!(", attempt `{id}`"),
            };
            notes.push(format!(
                "{path}{file}:{}: {}{attempt}",
                splits.line, splits.reason
            ));
        }
        let more = report.unusable_splits_seen.saturating_sub(shown as u64);
        if more > 0 {
            notes.push(format!(
                "{path}: {more} more attempts with unusable clockSplits (`--json` lists the \
                 first {})",
                ReadReport::MAX_UNUSABLE_SPLITS_KEPT
            ));
        }
    }
    if report.recovered_ends_seen > 0 {
        let seen = report.recovered_ends_seen;
        let (attempts, their) = match seen {
            1 => ("attempt", "its"),
            _ => ("attempts", "their"),
        };
        notes.push(format!(
            "{path}: {seen} {attempts} ended from {their} task's TASK_FINISHED, {their} own \
             end record skipped or absent (succeeded then; no clockSplits or counters from it)"
        ));
        let shown = report.recovered_ends.len().min(SKIPS_SHOWN);
        for end in &report.recovered_ends[..shown] {
            let file = in_file(end.file.as_deref());
            notes.push(format!(
                "{path}{file}:{}: attempt `{}` ended by TASK_FINISHED",
                end.line, end.attempt
            ));
        }
        let more = report.recovered_ends_seen.saturating_sub(shown as u64);
        if more > 0 {
            notes.push(format!(
                "{path}: {more} more attempts ended from their task's end (`--json` lists \
                 the first {})",
                ReadReport::MAX_RECOVERED_ENDS_KEPT
            ));
        }
    }
    notes
}

/// `/file` for a line of one file of an input of several (a rolling directory), so that
/// `path/file:line` names it; nothing for an input of one file.
pub(crate) fn in_file(file: Option<&str>) -> String {
    file.map(|f| format!("/{f}")).unwrap_or_default()
}

/// `value` with `digits` decimals, `n/a` when undefined (as `eval` prints it; `-` is a
/// column that a row has no value in, such as a replayed detector's copies).
fn cell(value: Option<f64>, digits: usize) -> String {
    value.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.digits$}"))
}

/// A note on the attempts a log dates before their job's submission, if any: a host whose
/// clock runs behind the one that dated the submission (a TaskTracker's behind the
/// JobTracker's), or a damaged time. They are replayed as dated; a rule that counts from a
/// job's first launch (Garraghan's) counts from the earliest.
fn early_launches(jobs: &[TraceJob]) -> Option<String> {
    let early: Vec<(&str, &TraceAttempt, f64)> = jobs
        .iter()
        .filter_map(|job| Some((job, job.submit_secs?)))
        .flat_map(|(job, submit)| {
            job.tasks
                .iter()
                .flat_map(|task| &task.attempts)
                .filter(move |a| a.start_secs < submit)
                .map(move |a| (job.id.as_str(), a, submit - a.start_secs))
        })
        .collect();
    let (job, first, _) = early.first()?;
    let most = early.iter().map(|e| e.2).fold(0.0, f64::max);
    let (count, verb) = match early.len() {
        1 => ("1 attempt".to_owned(), "is dated before its"),
        n => (format!("{n} attempts"), "are dated before their"),
    };
    let host = first
        .host
        .as_deref()
        .map_or_else(String::new, |h| format!(" on {h}"));
    Some(format!(
        "{count} {verb} job's submission, by up to {most:.1} s (first: {}{host}, of {job}): \
         a host's clock behind the submitter's, or a damaged time; replayed as dated",
        first.id
    ))
}

/// A job id the inputs hold more than once (the same log given twice, or in two formats,
/// such as a history file and its Rumen conversion): the inputs of each copy, in order,
/// the first being the one replayed. Jobs are matched by id alone: copies of one job in
/// two formats differ in what each format keeps (a conversion's attempts, a folded
/// trace's times), so no finer test tells them apart from two clusters' jobs that share an
/// id, which are taken for one.
#[derive(Debug, Clone, PartialEq, Eq)]
struct RepeatedJob {
    job: String,
    inputs: Vec<usize>,
}

/// `jobs` (with their inputs `job_input`) with each job id kept once, its first copy in
/// input order, so that a job read twice is neither replayed nor counted twice; and the
/// job ids read more than once.
fn first_of_each_job(
    jobs: Vec<TraceJob>,
    job_input: Vec<usize>,
) -> (Vec<TraceJob>, Vec<usize>, Vec<RepeatedJob>) {
    let mut copies: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    let (mut kept, mut kept_input) = (Vec::new(), Vec::new());
    for (job, input) in jobs.into_iter().zip(job_input) {
        let inputs = copies.entry(job.id.clone()).or_default();
        inputs.push(input);
        if inputs.len() == 1 {
            kept.push(job);
            kept_input.push(input);
        }
    }
    let repeated = (copies.into_iter())
        .filter(|(_, inputs)| inputs.len() > 1)
        .map(|(job, inputs)| RepeatedJob { job, inputs })
        .collect();
    (kept, kept_input, repeated)
}

/// The note on the jobs read more than once, naming the first (by id) and the inputs it
/// is in, each once with how many times it is there; `None` when no job is.
fn repeated_jobs_note(repeated: &[RepeatedJob], paths: &[PathBuf]) -> Option<String> {
    let first = repeated.first()?;
    // The inputs it is in, each once, with how many times it is there; the first few.
    const INPUTS_SHOWN: usize = 3;
    let mut times: std::collections::BTreeMap<usize, usize> = Default::default();
    for &input in &first.inputs {
        *times.entry(input).or_default() += 1;
    }
    let mut names: Vec<String> = times
        .iter()
        .take(INPUTS_SHOWN)
        .map(|(&i, &n)| {
            let name = paths
                .get(i)
                .map_or_else(String::new, |p| p.display().to_string());
            match n {
                1 => name,
                n => format!("{name} ({n} times)"),
            }
        })
        .collect();
    if times.len() > INPUTS_SHOWN {
        names.push(format!("{} more inputs", times.len() - INPUTS_SHOWN));
    }
    let (count, verb) = match repeated.len() {
        1 => ("1 job".to_owned(), "appears"),
        n => (format!("{n} jobs"), "appear"),
    };
    Some(format!(
        "{count} {verb} more than once (matched by id), each replayed and counted once, from \
         the first input that holds it (first: {}, {} times, in {})",
        first.job,
        first.inputs.len(),
        names.join(" and ")
    ))
}

/// Inputs left out that are named one by one in the notes (the JSON lists every one).
const LEFT_OUT_SHOWN: usize = 10;

/// An input left out, with why.
type LeftOut = (PathBuf, String);

/// An input of `stragglers replay`: a path the command line names, or a file found in a
/// directory it names.
#[derive(Debug)]
struct Input {
    path: PathBuf,
    /// Found in a directory: left out with a note if it is no log (a job's configuration
    /// XML beside its history file), as `--skip-other-files` does for the paths named.
    found: bool,
}

/// The inputs `paths` name: a file, or a Spark rolling event log directory, as it is; any
/// other directory, the files under it, in the order of their paths (a rolling event log
/// directory under it is one input), with what cannot be read under it (a link to a
/// directory, not followed; a socket) left out with a reason. A file found in a directory
/// that is also named, or found again (under two directories named, or through a link),
/// is not read again ([`read_once`]).
fn expand_directories(paths: &[PathBuf]) -> anyhow::Result<(Vec<Input>, Vec<LeftOut>)> {
    let mut inputs = Vec::new();
    let mut left_out = Vec::new();
    for path in paths {
        if path.is_dir() && detect_format(path).is_err() {
            walk(path, &mut inputs, &mut left_out)?;
        } else {
            inputs.push(Input {
                path: path.clone(),
                found: false,
            });
        }
    }
    Ok((read_once(inputs, &mut left_out), left_out))
}

/// `inputs` without the files found in a directory that are already among them: a file
/// named on the command line (anywhere on it), or found before. Each is left out with a
/// reason naming the other. A file named twice is read twice, as named (and the jobs it
/// holds are noted as appearing more than once).
fn read_once(inputs: Vec<Input>, left_out: &mut Vec<LeftOut>) -> Vec<Input> {
    let named: std::collections::HashMap<FileId, &PathBuf> = inputs
        .iter()
        .filter(|input| !input.found)
        .map(|input| (FileId::of(&input.path), &input.path))
        .collect();
    let mut found: std::collections::HashMap<FileId, PathBuf> = Default::default();
    let mut why_left_out = Vec::new();
    for (i, input) in inputs.iter().enumerate().filter(|(_, input)| input.found) {
        let file = FileId::of(&input.path);
        match named.get(&file).copied().or_else(|| found.get(&file)) {
            Some(other) => why_left_out.push((i, format!("the same file as {}", other.display()))),
            None => {
                found.insert(file, input.path.clone());
            }
        }
    }
    let mut why_left_out = why_left_out.into_iter().peekable();
    let mut kept = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.into_iter().enumerate() {
        match why_left_out.next_if(|(at, _)| *at == i) {
            Some((_, why)) => left_out.push((input.path, why)),
            None => kept.push(input),
        }
    }
    kept
}

/// What tells two paths to one file apart from two files: the device and inode where the
/// system has them (a hard link is the same file), else the canonical path (a symbolic
/// link resolved), else the path as given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FileId {
    Inode(u64, u64),
    Path(PathBuf),
}

impl FileId {
    fn of(path: &std::path::Path) -> FileId {
        #[cfg(unix)]
        if let Ok(meta) = std::fs::metadata(path) {
            use std::os::unix::fs::MetadataExt;
            return FileId::Inode(meta.dev(), meta.ino());
        }
        FileId::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// Adds the files under `dir` to `inputs` (see [`expand_directories`]).
fn walk(
    dir: &std::path::Path,
    inputs: &mut Vec<Input>,
    left_out: &mut Vec<LeftOut>,
) -> anyhow::Result<()> {
    let listing = || format!("listing the directory {}", dir.display());
    let mut entries = std::fs::read_dir(dir)
        .with_context(listing)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .with_context(listing)?;
    entries.sort();
    for path in entries {
        let kind = std::fs::symlink_metadata(&path)
            .with_context(|| format!("reading {}", path.display()))?
            .file_type();
        if kind.is_dir() {
            if detect_format(&path).is_ok() {
                inputs.push(Input { path, found: true });
            } else {
                walk(&path, inputs, left_out)?;
            }
        } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
            inputs.push(Input { path, found: true });
        } else {
            let why = if kind.is_symlink() && path.is_dir() {
                "a link to a directory (not followed)"
            } else if kind.is_symlink() {
                "a link to nothing that can be read"
            } else {
                "not a file or a directory"
            };
            left_out.push((path, why.to_owned()));
        }
    }
    Ok(())
}

/// A job's configuration read for the job's speculation setting: a `_conf.xml` among the
/// inputs (`paths[input]`), or one embedded in a Hadoop 1 log (`paths[input]`, at `line`).
struct GivenConf {
    input: usize,
    line: Option<u64>,
    conf: JobConf,
}

impl GivenConf {
    /// Where the configuration is, as a note names it: its path, and its line in a log.
    fn place(&self, paths: &[PathBuf]) -> String {
        let path = paths[self.input].display();
        match self.line {
            Some(line) => format!("{path}:{line}"),
            None => path.to_string(),
        }
    }
}

/// Gives each configuration of `confs` to the job of its id whose speculation setting is
/// not known (a `.jhist` or Hadoop 1 job); the notes on those not used: their job is not
/// among `jobs`, or its setting is known already (from Rumen's `jobProperties`, or an
/// earlier configuration of the same job), the note then saying whether this one gives
/// the same setting, or how it differs.
fn apply_confs(jobs: &mut [TraceJob], confs: Vec<GivenConf>, paths: &[PathBuf]) -> Vec<String> {
    let mut notes = Vec::new();
    // Where the configuration that gave each job its setting is.
    let mut given_by: HashMap<String, String> = HashMap::new();
    for given in confs {
        let place = given.place(paths);
        let conf = &given.conf;
        let mut same_id = jobs.iter_mut().filter(|job| job.id == conf.job).peekable();
        if same_id.peek().is_none() {
            notes.push(match given.line {
                None => format!(
                    "{place}: the configuration of {}, a job no other input holds: not used",
                    conf.job
                ),
                Some(_) => format!(
                    "{place}: the configuration of {} embedded here, a job no input holds: \
                     not used",
                    conf.job
                ),
            });
            continue;
        }
        let mut unknown = same_id.filter(|job| job.speculation.is_none()).peekable();
        if unknown.peek().is_none() {
            let known = (jobs.iter())
                .find(|job| job.id == conf.job)
                .and_then(|job| job.speculation.as_ref());
            let source = given_by
                .get(&conf.job)
                .map_or_else(|| "Rumen's jobProperties".to_owned(), Clone::clone);
            let compared = known.map_or_else(String::new, |known| {
                match setting_difference(&conf.speculation, known) {
                    None => ", and gives the same setting".to_owned(),
                    Some(how) => format!(", and differs: {how}"),
                }
            });
            notes.push(format!(
                "{place}: the speculation setting of {} is known already, from {source}: \
                 this one not used{compared}",
                conf.job
            ));
            continue;
        }
        for job in unknown {
            job.speculation = Some(conf.speculation.clone());
        }
        given_by.insert(conf.job.clone(), place);
    }
    notes
}

/// How `setting` differs from `known`, the setting a job has already, in words (`maps off
/// (mapreduce.map.speculative=false) where that one is on (Hadoop's default)`): each switch
/// read otherwise, and the parameters of speculation set otherwise, named; `None` when the
/// two read alike (written otherwise, perhaps: under another name, `TRUE` for `true`).
fn setting_difference(setting: &SpeculationSetting, known: &SpeculationSetting) -> Option<String> {
    let switch = |switch: &SpeculationSwitch| {
        let state = match switch.enabled {
            Some(true) => "on",
            Some(false) => "off",
            None => "not known",
        };
        match &switch.value {
            Some(value) => format!("{state} ({}={value})", switch.key),
            None => format!("{state} (Hadoop's default)"),
        }
    };
    let mut differences: Vec<String> = [
        ("maps", &setting.map, &known.map),
        ("reduces", &setting.reduce, &known.reduce),
    ]
    .into_iter()
    .filter(|(_, this, that)| this.enabled != that.enabled)
    .map(|(kind, this, that)| format!("{kind} {} where that one is {}", switch(this), switch(that)))
    .collect();
    let tuning = |setting: &SpeculationSetting| -> std::collections::BTreeMap<String, String> {
        (setting.tuning())
            .map(|(key, value)| (key.to_owned(), value.to_owned()))
            .collect()
    };
    let (this, that) = (tuning(setting), tuning(known));
    let keys: std::collections::BTreeSet<&String> = this.keys().chain(that.keys()).collect();
    let otherwise: Vec<&str> = (keys.into_iter())
        .filter(|key| this.get(*key) != that.get(*key))
        .map(String::as_str)
        .collect();
    if !otherwise.is_empty() {
        differences.push(format!(
            "parameters of speculation set otherwise ({})",
            otherwise.join(", ")
        ));
    }
    (!differences.is_empty()).then(|| differences.join("; "))
}

/// The Hadoop that loads the configuration file at `path`: Hadoop 1 when the job of the id
/// its name gives is read from a Hadoop 1 log (`reports[job_input[job]]`), Hadoop 2 when it
/// is read from another log, or from none (the version a configuration is read as when no
/// log says; a configuration whose job no input holds is not used).
fn conf_version(
    path: &std::path::Path,
    jobs: &[TraceJob],
    job_input: &[usize],
    reports: &[Option<ReadReport>],
) -> HadoopVersion {
    let id = conf_job_id(path);
    let job = jobs.iter().position(|job| Some(&job.id) == id.as_ref());
    let format = job
        .and_then(|job| reports.get(job_input[job]))
        .and_then(|report| report.as_ref().map(|report| report.format));
    match format {
        Some(TraceFormat::Hadoop1History) => HadoopVersion::Hadoop1,
        _ => HadoopVersion::Hadoop2,
    }
}

/// The paths, as a user named them.
fn names(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    names.join(", ")
}

/// The note on the labelled tasks re-run after an original failed: how many, and how many
/// of them are in a stage where every task was, so that they were labelled against each
/// other; `None` when there is none.
fn reruns_note(jobs: &[TraceJob], labels: &Labels) -> Option<String> {
    let stage_of = |t: &stragglers::trace::LabelledTask| (t.job, &jobs[t.job].tasks[t.task].stage);
    let ran_once: std::collections::BTreeSet<_> = (labels.tasks.iter())
        .filter(|t| !t.rerun)
        .map(stage_of)
        .collect();
    let reruns: Vec<_> = labels.tasks.iter().filter(|t| t.rerun).collect();
    if reruns.is_empty() {
        return None;
    }
    let among_themselves = reruns
        .iter()
        .filter(|t| !ran_once.contains(&stage_of(t)))
        .count();
    let (tasks, were) = if reruns.len() == 1 {
        ("task", "was")
    } else {
        ("tasks", "were")
    };
    let mut note = format!(
        "{} labelled {tasks} {were} re-run after an original attempt failed: labelled against \
         the usual time of the siblings that ran once, not part of it",
        reruns.len()
    );
    if among_themselves > 0 {
        note += &format!(
            "; {among_themselves} of them in stages where every labelled task was re-run, \
             labelled against each other"
        );
    }
    Some(note)
}

/// Per byte of input, the usual time of a task is its input times its stage's time per
/// byte, so a task with a small input, which still pays its launch and set-up, gets a
/// small usual time and a large ratio: the note counts the labelled tasks that took more
/// than [`PER_BYTE_OUTLIER`] times their usual time and names the largest, where the
/// ratios in usual times (Detection Latency, Undetected Time) may puzzle. `None` without
/// `--normalise-by-input` or such a task.
fn per_byte_note(jobs: &[TraceJob], labels: &Labels) -> Option<String> {
    if !labels.config.normalise_by_input {
        return None;
    }
    let ratio = |t: &&stragglers::trace::LabelledTask| t.exec_secs / t.usual_secs;
    let outliers: Vec<_> = (labels.tasks.iter())
        .filter(|t| ratio(t) > PER_BYTE_OUTLIER)
        .collect();
    let largest = outliers
        .iter()
        .copied()
        .max_by(|a, b| ratio(a).total_cmp(&ratio(b)))?;
    let task = &jobs[largest.job].tasks[largest.task];
    let input = task
        .input_bytes
        .map_or_else(|| "no".to_owned(), |bytes| bytes.to_string());
    let (tasks, their) = if outliers.len() == 1 {
        ("task", "its")
    } else {
        ("tasks", "their")
    };
    Some(format!(
        "per byte of input, {} labelled {tasks} took more than {PER_BYTE_OUTLIER} times \
         {their} usual time, up to {:.1} times ({} of {}, {input} bytes of input): a task's usual \
         time is its input times its stage's time per byte, so a small input, which still \
         pays its launch, gives a small usual time and a large ratio, in latency and \
         undetected time too",
        outliers.len(),
        ratio(&largest),
        task.id,
        jobs[largest.job].id,
    ))
}

/// How many times its usual time per byte a task takes before [`per_byte_note`] counts it.
const PER_BYTE_OUTLIER: f64 = 10.0;

/// The note on the logs among `paths` that hold no job (`no_jobs`, indexes into `paths`;
/// `is_conf` tells the configuration files, which are no logs): their records are read and
/// counted in the `Inputs` table, but no job of theirs is in the tables after it (a Spark
/// log of an application that ran none, a log cut before its first job). `None` when
/// every log holds a job.
fn no_jobs_note(no_jobs: &[usize], paths: &[PathBuf], is_conf: &[bool]) -> Option<String> {
    let &first = no_jobs.first()?;
    let logs = is_conf.iter().filter(|&&conf| !conf).count();
    let (hold, its) = match no_jobs.len() {
        1 => ("holds", "its"),
        _ => ("hold", "their"),
    };
    Some(format!(
        "{} of {} {hold} no job: {its} records are counted in the Inputs table, and none of \
         them is a task to label or replay; first: {}",
        no_jobs.len(),
        plural(logs, "log"),
        paths[first].display()
    ))
}

/// `n` and `noun`, plural but for one (`1 straggler`, `23 stragglers`).
pub(crate) fn plural(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// Pearson's r with 3 decimals, or why it is undefined.
fn correlation(r: Option<f64>) -> String {
    r.map_or_else(
        || "undefined (fewer than 2 jobs, or a constant ratio)".to_owned(),
        |r| format!("{r:.3}"),
    )
}

/// Runs `stragglers replay`: its notes go to standard error once the tables (and the
/// JSON) are written, where a reader of the terminal sees them under the figures they
/// explain, or once it stops on an error, before the error.
pub fn run(args: ReplayArgs) -> anyhow::Result<()> {
    let mut notes = Vec::new();
    let result = replay(args, &mut notes);
    for note in &notes {
        eprintln!("note: {note}");
    }
    result
}

/// Runs `stragglers replay`, adding its notes to `notes` (without their `note: `).
fn replay(args: ReplayArgs, notes: &mut Vec<String>) -> anyhow::Result<()> {
    // The recorded speculation comes first in the results, wherever it is named.
    let chosen = parse_detectors(&args.detectors)?;
    let with_recorded = chosen.iter().any(Option::is_none);
    let specs: Vec<DetectorSpec> = chosen.into_iter().flatten().collect();
    if let Some(path) = &args.json {
        let inputs: Vec<(&str, &std::path::Path)> = args
            .paths
            .iter()
            .map(|p| ("the input", p.as_path()))
            .collect();
        output::check("--json", path, &inputs)?;
    }
    let truth = TruthConfig {
        factor: args.factor,
        reference: match args.reference {
            Reference::Median => SiblingReference::Median,
            Reference::Mean => SiblingReference::Mean,
        },
        normalise_by_input: args.normalise_by_input,
    }
    .check()
    .context("--factor")?;
    let given_interval = (args.scan_interval)
        .map(|scan_interval_secs| {
            let config = ReplayConfig {
                scan_interval_secs,
                max_scans_per_job: args.max_scans_per_job,
            };
            config.check().map(|c| c.scan_interval_secs)
        })
        .transpose()
        .context("--scan-interval")?;

    // Every input's format first: one that is no log (a README in a glob, a job's
    // configuration XML) stops the command before anything is read, with every such input
    // named, unless `--skip-other-files` leaves it out; a log that cannot be read (an LZ4
    // one, a file that cannot be opened) stops it either way.
    let other_file = |e: &TraceError| {
        matches!(
            e,
            TraceError::UnknownFormat { .. } | TraceError::NotALog { .. }
        )
    };
    let mut unreadable: Vec<TraceError> = Vec::new();
    let (inputs, mut left_out) = expand_directories(&args.paths)?;
    // The inputs read, in order: the JSON's `inputs`, which `per_job`'s `input` indexes.
    let mut paths: Vec<PathBuf> = Vec::new();
    // Whether each of `paths` is a Hadoop job's configuration, read for its job's setting.
    let mut is_conf: Vec<bool> = Vec::new();
    for input in &inputs {
        let path = &input.path;
        match detect_format(path) {
            Ok(_) => {
                paths.push(path.clone());
                is_conf.push(false);
            }
            // Named as a job's configuration: read as one, so that one whose text is
            // damaged is an error at its line, not a file left out.
            Err(TraceError::NotALog { .. } | TraceError::UnknownFormat { .. })
                if conf_job_id(path).is_some() =>
            {
                paths.push(path.clone());
                is_conf.push(true);
            }
            Err(e) if (args.skip_other_files || input.found) && other_file(&e) => {
                // The reason without the path the error starts with.
                let text = e.to_string();
                let prefix = format!("{}: ", path.display());
                let why = text.strip_prefix(&prefix).unwrap_or(&text).to_owned();
                left_out.push((path.clone(), why));
            }
            Err(e) => unreadable.push(e),
        }
    }
    if !unreadable.is_empty() {
        let other_files = unreadable.iter().all(other_file);
        let listed: Vec<String> = unreadable.iter().map(ToString::to_string).collect();
        bail!(
            "{} of {} inputs cannot be read as logs:\n  {}{}",
            unreadable.len(),
            inputs.len(),
            listed.join("\n  "),
            if other_files {
                "\n(--skip-other-files leaves out the inputs that are no log)"
            } else {
                ""
            }
        );
    }
    for (path, why) in left_out.iter().take(LEFT_OUT_SHOWN) {
        notes.push(format!("left out {}: {why}", path.display()));
    }
    if left_out.len() > LEFT_OUT_SHOWN {
        notes.push(format!(
            "{} more inputs left out{}",
            left_out.len() - LEFT_OUT_SHOWN,
            if args.json.is_some() {
                " (the JSON's left_out lists every one)"
            } else {
                " (--json lists every one)"
            }
        ));
    }
    if paths.is_empty() {
        match (inputs.len(), args.paths.len()) {
            (0, _) => bail!("no file to read in {}", names(&args.paths)),
            (1, 1) => bail!("{}: no log this command reads", names(&args.paths)),
            (1, _) => bail!(
                "the only file in {} is no log this command reads",
                names(&args.paths)
            ),
            (n, _) => bail!("none of the {n} inputs is a log this command reads"),
        }
    }
    let mut jobs: Vec<TraceJob> = Vec::new();
    let mut job_input: Vec<usize> = Vec::new();
    // Each input's report, in the order of `paths`; a configuration file's once the logs
    // are read.
    let mut reports: Vec<Option<ReadReport>> = Vec::new();
    let mut confs: Vec<GivenConf> = Vec::new();
    // The logs that hold no job, which the tables after the `Inputs` table do not show.
    let mut no_jobs: Vec<usize> = Vec::new();
    for (input, path) in paths.iter().enumerate() {
        let reading = || format!("reading {}", path.display());
        if is_conf[input] {
            reports.push(None);
            continue;
        }
        let (read, mut report) = read_path(path).with_context(reading)?;
        for note in input_notes(&report) {
            notes.push(note);
        }
        // The configurations a Hadoop 1 log embeds, paired as a `_conf.xml` is.
        for embedded in std::mem::take(&mut report.confs) {
            let line = Some(embedded.line);
            let conf = embedded.conf;
            confs.push(GivenConf { input, line, conf });
        }
        if read.is_empty() {
            no_jobs.push(input);
        }
        job_input.extend(std::iter::repeat_n(input, read.len()));
        jobs.extend(read);
        reports.push(Some(report));
    }
    let (mut jobs, job_input, repeated) = first_of_each_job(jobs, job_input);
    // Each configuration file, read as the Hadoop that ran the job of its id loads it.
    for (input, path) in paths.iter().enumerate() {
        if !is_conf[input] {
            continue;
        }
        let version = conf_version(path, &jobs, &job_input, &reports);
        let reading = || format!("reading {}", path.display());
        let (conf, report) = read_job_conf(path, version).with_context(reading)?;
        for note in input_notes(&report) {
            notes.push(note);
        }
        confs.push(GivenConf {
            input,
            line: None,
            conf,
        });
        reports[input] = Some(report);
    }
    // In the order of the inputs, and of their lines in a log.
    confs.sort_by_key(|given| (given.input, given.line));
    let reports: Vec<ReadReport> = reports.into_iter().flatten().collect();
    for note in apply_confs(&mut jobs, confs, &paths) {
        notes.push(note);
    }
    if let Some(note) = no_jobs_note(&no_jobs, &paths, &is_conf) {
        notes.push(note);
    }
    if let Some(note) = repeated_jobs_note(&repeated, &paths) {
        notes.push(note);
    }
    if let Some(note) = early_launches(&jobs) {
        notes.push(note);
    }

    let labels = label(&jobs, truth)?;
    for (reason, n) in &labels.unlabelled {
        let tasks = if *n == 1 { "task" } else { "tasks" };
        notes.push(format!("{n} {tasks} not labelled: {reason}"));
    }
    if let Some(note) = reruns_note(&jobs, &labels) {
        notes.push(note);
    }
    if let Some(note) = per_byte_note(&jobs, &labels) {
        notes.push(note);
    }
    let formats: Vec<TraceFormat> = reports.iter().map(|r| r.format).collect();
    let intervals = scan_intervals(&jobs, &job_input, &formats, given_interval);
    if !specs.is_empty() {
        // Whether a Spark job's own interval is shorter than the one given.
        let engines = scan_intervals(&jobs, &job_input, &formats, None);
        let spark_scans_faster =
            (engines.iter().zip(&intervals))
                .zip(&job_input)
                .any(|((own, used), &input)| {
                    formats[input] == TraceFormat::SparkEventLog && own.secs < used.secs
                });
        let scanning = [
            intervals_note(&intervals, &job_input, &formats),
            unreadable_intervals_note(&jobs, &intervals, &job_input, &paths),
            brief_tasks_note(&labels, &intervals, spark_scans_faster),
        ];
        for note in scanning.into_iter().flatten() {
            notes.push(note);
        }
    }
    for note in speculation_notes(&jobs, &job_input, &formats, &labels) {
        notes.push(note);
    }
    let recorded = recorded(&jobs, &labels);
    let table = table3(&jobs, &recorded);

    let mut results: Vec<(String, ReplayMetrics)> = Vec::new();
    if with_recorded {
        let metrics = judge(&labels, &recorded.detections)?;
        let censored = fakes_won_by_copy(&labels, &recorded.detections, &recorded.won_by_copy);
        let metrics = ReplayMetrics::new(&metrics, censored, Some(&recorded.total));
        results.push((RECORDED.to_owned(), metrics));
    }
    let intervals_secs: Vec<f64> = intervals.iter().map(|i| i.secs).collect();
    let replayed: Vec<anyhow::Result<_>> = specs
        .par_iter()
        .map(|spec| {
            let mut detector = spec.make();
            let max_scans = args.max_scans_per_job;
            let outcome = replay_each(&jobs, &labels, &mut *detector, &intervals_secs, max_scans)
                .with_context(|| format!("replaying {}", spec.name()))?;
            let skipped = outcome.skipped_jobs;
            let metrics = judge(&labels, &outcome.detections)?;
            let censored = fakes_won_by_copy(&labels, &outcome.detections, &recorded.won_by_copy);
            let metrics = ReplayMetrics::new(&metrics, censored, None);
            Ok((spec.name().to_owned(), metrics, skipped))
        })
        .collect();
    // The jobs a replay leaves out depend on their times and scan intervals only: every
    // detector leaves out the same.
    let mut skipped_jobs = Vec::new();
    for result in replayed {
        let (name, metrics, skipped) = result?;
        results.push((name, metrics));
        skipped_jobs = skipped;
    }
    for job in &skipped_jobs {
        notes.push(format!(
            "{job}; its labelled tasks count as undetected by every replayed detector"
        ));
    }

    if !output::any_stdout([&args.json]) {
        output::print(&text_report(
            &jobs, &reports, &labels, &recorded, &table, &results,
        ))?;
    }

    if let Some(path) = &args.json {
        let value = json_report(
            &jobs,
            &job_input,
            &reports,
            &labels,
            &recorded,
            &table,
            &results,
            &skipped_jobs,
            &left_out,
            &repeated,
            &Scanning {
                given_secs: given_interval,
                max_scans_per_job: args.max_scans_per_job,
                intervals: &intervals,
            },
            &specs,
        );
        let text = serde_json::to_string_pretty(&value)?;
        output::write(path, &(text + "\n"))?;
    }
    let intervals_unread = unreadable_intervals_used(&intervals, !specs.is_empty());
    match partial_inputs(&reports, intervals_unread) {
        Some(what) if args.strict => {
            bail!("--strict: the results rest on part of the inputs: {what}")
        }
        _ => Ok(()),
    }
}

/// What of `reports`' inputs the results do not rest on, counted (`3 records skipped, 1
/// input truncated`), with the jobs a replayed detector scanned at Spark's default in place
/// of their `spark.speculation.interval` (`intervals_unread`); `None` when they rest on all
/// of it.
fn partial_inputs(reports: &[ReadReport], intervals_unread: usize) -> Option<String> {
    let skipped: u64 = reports.iter().map(|r| r.records_skipped).sum();
    let truncated = reports.iter().filter(|r| r.truncated.is_some()).count();
    let unread = reports.iter().filter(|r| !r.unread.is_empty()).count();
    let mut parts = Vec::new();
    if skipped > 0 {
        let records = if skipped == 1 { "record" } else { "records" };
        parts.push(format!("{skipped} {records} skipped"));
    }
    if truncated > 0 {
        parts.push(format!("{} truncated", plural(truncated, "input")));
    }
    if unread > 0 {
        parts.push(format!("{} with parts not read", plural(unread, "input")));
    }
    if intervals_unread > 0 {
        parts.push(format!(
            "{} scanned at Spark's default interval in place of a spark.speculation.interval \
             Spark cannot read",
            plural(intervals_unread, "job")
        ));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Per-job facts: (tasks, labelled, stragglers); `tasks - labelled` are counted by reason
/// in `labels.unlabelled`.
fn job_counts(jobs: &[TraceJob], labels: &Labels) -> Vec<(usize, usize, usize)> {
    let mut counts: Vec<(usize, usize, usize)> =
        jobs.iter().map(|job| (job.tasks.len(), 0, 0)).collect();
    for task in &labels.tasks {
        if let Some(c) = counts.get_mut(task.job) {
            c.1 += 1;
            c.2 += usize::from(task.straggler);
        }
    }
    counts
}

fn text_report(
    jobs: &[TraceJob],
    reports: &[ReadReport],
    labels: &Labels,
    recorded: &stragglers::trace::Recorded,
    table: &Table3,
    results: &[(String, ReplayMetrics)],
) -> String {
    let inputs = Table {
        title: "Inputs".to_owned(),
        headers: ["path", "format", "read", "parsed", "skipped"]
            .map(str::to_owned)
            .to_vec(),
        rows: reports
            .iter()
            .map(|r| {
                vec![
                    r.path.display().to_string(),
                    r.format.name().to_owned(),
                    r.records_read.to_string(),
                    r.records_parsed.to_string(),
                    r.records_skipped.to_string(),
                ]
            })
            .collect(),
    };
    let counts = job_counts(jobs, labels);
    let per_job = Table {
        title: "Per job (copies as the log shows them or as inferred; heavy tail = longest / mean task)".to_owned(),
        headers: [
            "job",
            "tasks",
            "labelled",
            "stragglers",
            "copies",
            "successful",
            "wasted (s)",
            "heavy tail",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows: jobs
            .iter()
            .enumerate()
            .map(|(j, job)| {
                let (tasks, labelled, stragglers) = counts[j];
                let copies = recorded.per_job.get(j).copied().unwrap_or_default();
                vec![
                    job.id.clone(),
                    tasks.to_string(),
                    labelled.to_string(),
                    stragglers.to_string(),
                    copies.speculative_copies.to_string(),
                    copies.successful_copies.to_string(),
                    format!("{:.1}", copies.wasted_container_secs),
                    cell(table.rows.get(j).and_then(|r| r.heavy_tail_ratio), 2),
                ]
            })
            .collect(),
    };
    let reference = match labels.config.reference {
        SiblingReference::Median => "median",
        SiblingReference::Mean => "mean",
    };
    let per_byte = if labels.config.normalise_by_input {
        " per byte of input"
    } else {
        ""
    };
    let detectors = Table {
        title: format!(
            "Detectors: {} among {} labelled tasks (duration > {} x the {reference} of the job's stage{per_byte}; latency and undetected in usual times)",
            plural(labels.stragglers(), "straggler"),
            labels.tasks.len(),
            report::number(labels.config.factor)
        ),
        headers: [
            "detector",
            "precision",
            "precision raw",
            "recall",
            "latency",
            "undetected",
            "fake pos.",
            "fakes (copy won)",
            "detected",
            "copies",
            "successful",
            "unsuccessful",
        ]
        .map(str::to_owned)
        .to_vec(),
        rows: results
            .iter()
            .map(|(name, m)| {
                // A replayed detector has no copies of its own.
                let copies = |count: fn(&CopyCounts) -> usize| {
                    m.copies
                        .as_ref()
                        .map_or_else(|| "-".to_owned(), |c| count(c).to_string())
                };
                vec![
                    name.clone(),
                    cell(m.metrics.precision, 3),
                    cell(m.metrics.precision_raw, 3),
                    cell(m.metrics.recall, 3),
                    cell(m.metrics.detection_latency, 3),
                    cell(m.metrics.undetected_time, 3),
                    cell(m.metrics.fake_positive, 3),
                    format!(
                        "{} ({})",
                        m.metrics.fake_positives, m.fake_positives_won_by_copy
                    ),
                    m.detected.to_string(),
                    copies(|c| c.speculative_copies),
                    copies(|c| c.successful_copies),
                    copies(|c| c.unsuccessful_copies),
                ]
            })
            .collect(),
    };
    let mut out = inputs.to_text();
    out.push('\n');
    out += &per_job.to_text();
    out.push('\n');
    out += &detectors.to_text();
    out.push('\n');
    out += &format!(
        "Table 3 (Phan et al.): correlation of the successful-copy ratio with the heavy-tail ratio over jobs\n\
         per copy launched: r = {} over n = {} jobs with a copy\n\
         per task:          r = {} over n = {} jobs with a completed task\n",
        correlation(table.per_copy.r),
        table.per_copy.n,
        correlation(table.per_task.r),
        table.per_task.n
    );
    out
}

/// How the jobs were scanned, for the JSON.
struct Scanning<'a> {
    /// The interval `--scan-interval` gives every job; `None` without it.
    given_secs: Option<f64>,
    /// `--max-scans-per-job`.
    max_scans_per_job: u64,
    /// Each job's interval.
    intervals: &'a [ScanInterval],
}

#[allow(clippy::too_many_arguments)]
fn json_report(
    jobs: &[TraceJob],
    job_input: &[usize],
    reports: &[ReadReport],
    labels: &Labels,
    recorded: &stragglers::trace::Recorded,
    table: &Table3,
    results: &[(String, ReplayMetrics)],
    skipped_jobs: &[SkippedJob],
    left_out: &[LeftOut],
    repeated: &[RepeatedJob],
    scanning: &Scanning<'_>,
    specs: &[DetectorSpec],
) -> Value {
    let counts = job_counts(jobs, labels);
    let inputs: Vec<Value> = reports
        .iter()
        .map(|r| {
            json!({
                "path": r.path.display().to_string(),
                "format": r.format.name(),
                "records_read": r.records_read,
                "records_parsed": r.records_parsed,
                "records_skipped": r.records_skipped,
                "skip_reasons": r.skip_reasons,
                "skips": r.skips,
                "truncated": r.truncated,
                "unread": r.unread,
                "unknown_keys": r.unknown_keys,
                "unknown_keys_seen": r.unknown_keys_seen,
                "unusable_splits": r.unusable_splits,
                "unusable_splits_seen": r.unusable_splits_seen,
                "recovered_ends": r.recovered_ends,
                "recovered_ends_seen": r.recovered_ends_seen,
            })
        })
        .collect();
    let per_job: Vec<Value> = jobs
        .iter()
        .enumerate()
        .map(|(j, job)| {
            let (tasks, labelled, stragglers) = counts[j];
            let row = table.rows.get(j);
            json!({
                "job": job.id,
                "input": job_input.get(j),
                "tasks": tasks,
                "labelled_tasks": labelled,
                "stragglers": stragglers,
                "copies": recorded.per_job.get(j),
                "speculation": job.speculation,
                "scan_interval": scanning.intervals.get(j),
                "heavy_tail_ratio": row.and_then(|r| r.heavy_tail_ratio),
                "successful_copy_ratio": row.and_then(|r| r.successful_copy_ratio),
                "successful_copies_per_task": row.and_then(|r| r.copies_per_task),
            })
        })
        .collect();
    // Each replayed detector with its parameters (`null` for the recorded speculation).
    let detectors: Vec<Value> = results
        .iter()
        .map(|(name, metrics)| {
            let spec = specs.iter().find(|s| s.name() == name);
            let description = spec.map_or(RECORDED_DESCRIPTION, DetectorSpec::description);
            json!({
                "detector": name,
                "description": description,
                "params": spec.and_then(DetectorSpec::params),
                "metrics": metrics,
            })
        })
        .collect();
    let tasks: usize = counts.iter().map(|c| c.0).sum();
    json!({
        "schema": SCHEMA,
        "inputs": inputs,
        "left_out": left_out
            .iter()
            .map(|(path, why)| json!({"path": path.display().to_string(), "reason": why}))
            .collect::<Vec<Value>>(),
        "jobs": jobs.len(),
        "tasks": tasks,
        "labelled_tasks": labels.tasks.len(),
        "unlabelled": labels.unlabelled,
        "stragglers": labels.stragglers(),
        "truth": labels.config,
        "scan_interval_secs": scanning.given_secs,
        "max_scans_per_job": scanning.max_scans_per_job,
        "skipped_jobs": skipped_jobs,
        "repeated_jobs": repeated
            .iter()
            .map(|r| json!({"job": r.job, "inputs": r.inputs}))
            .collect::<Vec<_>>(),
        "detectors": detectors,
        "per_job": per_job,
        "table3": {"per_copy": table.per_copy, "per_task": table.per_task},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use stragglers::trace::TraceFormat;

    /// Two settings of one job compared by hand: the switches read otherwise named with
    /// their values (or Hadoop's default), the parameters set otherwise named; alike
    /// readings under other names or texts are the same setting.
    #[test]
    fn a_second_configuration_says_how_its_setting_differs() {
        let hadoop = |map: (&str, Option<&str>), reduce: Option<&str>| {
            SpeculationSetting::hadoop(
                SpeculationSwitch::hadoop(map.0, map.1),
                SpeculationSwitch::hadoop("mapreduce.reduce.speculative", reduce),
            )
        };
        let first = hadoop(("mapreduce.map.speculative", Some("false")), None);
        // Alike: `FALSE` under the Hadoop 1 name reads as the first's `false`.
        let alike = hadoop(
            ("mapred.map.tasks.speculative.execution", Some("FALSE")),
            None,
        );
        assert_eq!(setting_difference(&alike, &first), None);
        let other = hadoop(("mapreduce.map.speculative", None), Some("${off}"))
            .with_parameter("mapreduce.job.speculative.minimum-allowed-tasks", "20");
        let first = first.with_parameter("mapreduce.job.speculative.retry-after-speculate", "1");
        assert_eq!(
            setting_difference(&other, &first).as_deref(),
            Some(
                "maps on (Hadoop's default) where that one is off \
                 (mapreduce.map.speculative=false); reduces not known \
                 (mapreduce.reduce.speculative=${off}) where that one is on (Hadoop's \
                 default); parameters of speculation set otherwise \
                 (mapreduce.job.speculative.minimum-allowed-tasks, \
                 mapreduce.job.speculative.retry-after-speculate)"
            )
        );
    }

    #[test]
    fn all_names_the_recorded_speculation_and_every_detector() {
        let names = |list: &str| -> Vec<String> {
            let chosen = parse_detectors(list).unwrap();
            chosen.iter().map(|d| name_of(d).to_owned()).collect()
        };
        let mut expected = vec!["late".to_owned(), RECORDED.to_owned()];
        for spec in DetectorSpec::all() {
            if spec.name() != "late" {
                expected.push(spec.name().to_owned());
            }
        }
        assert_eq!(names("late,all"), expected);
        assert_eq!(names("recorded,,recorded"), [RECORDED]);
        assert!(parse_detectors("oracle").is_err());
    }

    #[test]
    fn strict_counts_what_the_results_do_not_rest_on() {
        let mut report = ReadReport::new("log.json", TraceFormat::SparkEventLog);
        report.parsed();
        assert_eq!(partial_inputs(std::slice::from_ref(&report), 0), None);
        assert_eq!(
            partial_inputs(std::slice::from_ref(&report), 2).as_deref(),
            Some(
                "2 jobs scanned at Spark's default interval in place of a \
                 spark.speculation.interval Spark cannot read"
            )
        );
        report.skipped(2, None, "malformed JSON");
        assert_eq!(
            partial_inputs(&[report], 1).as_deref(),
            Some(
                "1 record skipped, 1 job scanned at Spark's default interval in place of a \
                 spark.speculation.interval Spark cannot read"
            )
        );
    }

    #[test]
    fn skipped_records_are_listed_by_line_and_field() {
        let mut report = ReadReport::new("log.json", TraceFormat::SparkEventLog);
        report.parsed();
        report.skipped(2, Some("Index"), "missing field");
        for line in 3..9 {
            report.skipped(line, None, "malformed JSON");
        }
        let notes = input_notes(&report);
        assert_eq!(
            notes[..3],
            [
                "log.json: 7 of 8 records skipped: malformed JSON (6), missing field (1)",
                "log.json:2: skipped: missing field, field `Index`",
                "log.json:3: skipped: malformed JSON",
            ]
        );
        assert_eq!(notes.len(), 1 + SKIPS_SHOWN + 1);
        assert_eq!(
            notes[6],
            "log.json: 2 more skipped records (`--json` lists the first 100)"
        );
        // In a rolling directory, a skip names its file and that file's line.
        let mut rolling = ReadReport::new("eventlog_v2_app", TraceFormat::SparkEventLog);
        rolling.skipped(4, None, "malformed JSON");
        rolling.skips[0].file = Some("events_2_app".to_owned());
        assert_eq!(
            input_notes(&rolling)[1],
            "eventlog_v2_app/events_2_app:4: skipped: malformed JSON"
        );
    }

    #[test]
    fn attempts_dated_before_their_jobs_submission_are_noted() {
        use stragglers::trace::{AttemptOutcome, StageKind, TraceTask};
        let attempt = |id: &str, start_secs: f64| TraceAttempt {
            id: id.to_owned(),
            host: Some("h1".to_owned()),
            start_secs,
            end_secs: Some(start_secs + 10.0),
            outcome: AttemptOutcome::Succeeded,
            speculative: None,
            progress: Vec::new(),
            revoked: false,
            line: 1,
        };
        let job = |id: &str, submit_secs: Option<f64>, starts: &[f64]| TraceJob {
            id: id.to_owned(),
            name: None,
            submit_secs,
            speculation: None,
            speculation_line: None,
            tasks: vec![TraceTask {
                id: format!("{id}-t"),
                stage: "map".to_owned(),
                kind: StageKind::Map,
                input_bytes: None,
                input_records: None,
                attempts: starts
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| attempt(&format!("{id}-a{i}"), s))
                    .collect(),
            }],
        };
        // At the submission is no fault; a job without a submission time has none to miss.
        let fine = [
            job("j", Some(100.0), &[100.0, 130.0]),
            job("k", None, &[-5.0]),
        ];
        assert_eq!(early_launches(&fine), None);
        let early = [
            job("j", Some(100.0), &[100.0, 99.5]),
            job("k", Some(50.0), &[-59.0]),
        ];
        assert_eq!(
            early_launches(&early).as_deref(),
            Some(
                "2 attempts are dated before their job's submission, by up to 109.0 s (first: \
                 j-a1 on h1, of j): a host's clock behind the submitter's, or a damaged time; \
                 replayed as dated"
            )
        );
    }

    #[test]
    fn a_repeated_job_is_kept_once_and_noted_with_each_input_once() {
        // A job of `tasks` tasks, its name telling copies apart (no part of what
        // identifies a job: its tasks' and attempts' ids).
        let job = |id: &str, tasks: usize, name: &str| TraceJob {
            id: id.to_owned(),
            name: Some(name.to_owned()),
            submit_secs: None,
            tasks: (0..tasks).map(|t| crate_task(&format!("t{t}"))).collect(),
            speculation: None,
            speculation_line: None,
        };
        fn crate_task(id: &str) -> stragglers::trace::TraceTask {
            stragglers::trace::TraceTask {
                id: id.to_owned(),
                stage: "map".to_owned(),
                kind: stragglers::trace::StageKind::Map,
                input_bytes: None,
                input_records: None,
                attempts: Vec::new(),
            }
        }
        let paths: Vec<PathBuf> = ["a.json", "b.json", "c.json", "d.json", "e.json"]
            .map(PathBuf::from)
            .into();
        // Job "x" 300 times in a.json, once in b.json; "y" once: "x" is kept once, its
        // first copy.
        let mut jobs = vec![job("x", 1, "first")];
        jobs.extend(std::iter::repeat_n(job("x", 1, "copy"), 300));
        jobs.push(job("y", 0, "first"));
        let mut inputs = vec![0; 300];
        inputs.extend([1, 2]);
        let (kept, kept_inputs, repeated) = first_of_each_job(jobs, inputs);
        let ids: Vec<(&str, Option<&str>)> = kept
            .iter()
            .map(|j| (j.id.as_str(), j.name.as_deref()))
            .collect();
        assert_eq!(
            (ids, kept_inputs),
            (vec![("x", Some("first")), ("y", Some("first"))], vec![0, 2])
        );
        let mut x_inputs = vec![0; 300];
        x_inputs.push(1);
        assert_eq!(
            repeated,
            [RepeatedJob {
                job: "x".to_owned(),
                inputs: x_inputs
            }]
        );
        assert_eq!(
            repeated_jobs_note(&repeated, &paths).as_deref(),
            Some(
                "1 job appears more than once (matched by id), each replayed and counted once, \
                 from the first input that holds it (first: x, 301 times, in a.json (300 times) \
                 and b.json)"
            )
        );
        // Two repeated jobs, one of them in every input.
        let jobs: Vec<TraceJob> = (0..5)
            .map(|_| job("x", 0, "x"))
            .chain([job("y", 0, "y"), job("y", 0, "y")])
            .collect();
        let (kept, _, repeated) = first_of_each_job(jobs, vec![0, 1, 2, 3, 4, 0, 0]);
        assert_eq!(kept.len(), 2);
        assert_eq!(
            repeated_jobs_note(&repeated, &paths).as_deref(),
            Some(
                "2 jobs appear more than once (matched by id), each replayed and counted once, \
                 from the first input that holds it (first: x, 5 times, in a.json and b.json and \
                 c.json and 2 more inputs)"
            )
        );
        let (_, _, repeated) = first_of_each_job(vec![job("x", 0, "x")], vec![0]);
        assert_eq!(repeated_jobs_note(&repeated, &paths), None);
    }

    #[test]
    fn what_was_not_read_and_unknown_keys_are_noted() {
        let mut report = ReadReport::new("logs", TraceFormat::Hadoop1History);
        report.unread.push(stragglers::trace::Unread {
            reason: "trailing zero bytes".to_owned(),
            note: "512 zero bytes".to_owned(),
            file: Some("events_1_app.gz".to_owned()),
        });
        for (key, line, records) in [("TASK_STATUX", 7, 2), ("COLOUR", 3, 1)] {
            report.unknown_keys.insert(
                key.to_owned(),
                stragglers::trace::UnknownKey {
                    records,
                    first_line: line,
                    file: None,
                },
            );
        }
        report.unknown_keys_seen = 3;
        assert_eq!(
            input_notes(&report),
            [
                "logs/events_1_app.gz: trailing zero bytes: 512 zero bytes",
                "logs: keys the format does not define, read as absent, seen 3 times: COLOUR \
                 (1, first at 3), TASK_STATUX (2, first at 7)",
            ]
        );
    }

    #[test]
    fn attempts_with_unusable_splits_are_listed_by_line_and_attempt() {
        let mut report = ReadReport::new("job.jhist", TraceFormat::HadoopJhist);
        let unusable =
            |line, attempt: &str, file: Option<&str>| stragglers::trace::UnusableSplits {
                line,
                attempt: attempt.to_owned(),
                reason: "clockSplits not integers".to_owned(),
                file: file.map(str::to_owned),
            };
        report
            .unusable_splits
            .push(unusable(8, "attempt_1_0001_m_000002_0", None));
        report.unusable_splits.push(unusable(9, "", Some("part_2")));
        report.unusable_splits_seen = 2;
        assert_eq!(
            input_notes(&report),
            [
                "job.jhist: 2 attempts read without progress from their clockSplits, present \
                 but unusable",
                "job.jhist:8: clockSplits not integers, attempt `attempt_1_0001_m_000002_0`",
                "job.jhist/part_2:9: clockSplits not integers",
            ]
        );
        // Past the few shown, a count of the rest.
        report.unusable_splits_seen = 8;
        let notes = input_notes(&report);
        assert_eq!(
            notes.last().map(String::as_str),
            Some(
                "job.jhist: 6 more attempts with unusable clockSplits (`--json` lists the first 100)"
            )
        );
    }

    #[test]
    fn attempts_ended_by_their_task_are_listed_by_line_and_attempt() {
        let mut report = ReadReport::new("job.jhist", TraceFormat::HadoopJhist);
        report.recovered_ends.push(stragglers::trace::RecoveredEnd {
            line: 29,
            attempt: "attempt_1_0001_m_000005_0".to_owned(),
            file: None,
        });
        report.recovered_ends_seen = 1;
        assert_eq!(
            input_notes(&report),
            [
                "job.jhist: 1 attempt ended from its task's TASK_FINISHED, its own end record \
                 skipped or absent (succeeded then; no clockSplits or counters from it)",
                "job.jhist:29: attempt `attempt_1_0001_m_000005_0` ended by TASK_FINISHED",
            ]
        );
    }
}
