//! The scan interval of each job `stragglers replay` replays (its engine's, or the one
//! `--scan-interval` gives every job) and the notes that say what they were.

use std::path::PathBuf;

use stragglers::sim::report;
use stragglers::trace::{IntervalSource, Labels, ScanInterval, TraceFormat, TraceJob};

use crate::replay::in_file;

/// Each job's scan interval: `given` for every job, else its engine's
/// ([`ScanInterval::engine`], from its input's format: `job_input` gives each job's input,
/// `formats` each input's format).
pub fn scan_intervals(
    jobs: &[TraceJob],
    job_input: &[usize],
    formats: &[TraceFormat],
    given: Option<f64>,
) -> Vec<ScanInterval> {
    (jobs.iter().zip(job_input))
        .map(|(job, &input)| match given {
            Some(secs) => ScanInterval::given(secs),
            None => ScanInterval::engine(formats[input], job),
        })
        .collect()
}

/// Why a job is scanned at its interval, for the note on intervals.
fn reason(format: TraceFormat, source: IntervalSource) -> &'static str {
    match (format, source) {
        (_, IntervalSource::Given) => "--scan-interval",
        (TraceFormat::SparkEventLog, IntervalSource::Set) => {
            "the application's spark.speculation.interval"
        }
        (TraceFormat::SparkEventLog, IntervalSource::Unreadable) => {
            "Spark's default: the application's spark.speculation.interval is unreadable"
        }
        (TraceFormat::SparkEventLog, _) => "Spark's default spark.speculation.interval",
        (TraceFormat::HadoopJhist | TraceFormat::Hadoop1History | TraceFormat::Rumen, _) => {
            "Hadoop's: tasks report progress every 3 s"
        }
        _ => "the simulator's heartbeat: the trace records no engine speculation",
    }
}

/// The note on the intervals the jobs are scanned at, each its engine's: how many jobs at
/// each, and why, shortest first; `None` when one is given for all.
pub fn intervals_note(
    intervals: &[ScanInterval],
    job_input: &[usize],
    formats: &[TraceFormat],
) -> Option<String> {
    if intervals.iter().any(|i| i.source == IntervalSource::Given) {
        return None;
    }
    // (interval, why, jobs), in the order first seen, then sorted by interval.
    let mut groups: Vec<(f64, &str, usize)> = Vec::new();
    for (interval, &input) in intervals.iter().zip(job_input) {
        let why = reason(formats[input], interval.source);
        match (groups.iter_mut()).find(|(secs, w, _)| *secs == interval.secs && *w == why) {
            Some(group) => group.2 += 1,
            None => groups.push((interval.secs, why, 1)),
        }
    }
    if groups.is_empty() {
        return None;
    }
    groups.sort_by(|a, b| a.0.total_cmp(&b.0));
    let parts: Vec<String> = (groups.iter())
        .map(|(secs, why, n)| {
            let jobs = if *n == 1 { "job" } else { "jobs" };
            format!("{n} {jobs} every {} s ({why})", report::number(*secs))
        })
        .collect();
    Some(format!(
        "each job is scanned at its engine's interval (--scan-interval sets one for all \
         jobs): {}",
        parts.join(", ")
    ))
}

/// The jobs scanned at Spark's default in place of a `spark.speculation.interval` Spark
/// cannot read as a positive time: none when `--scan-interval` gives the interval, or
/// when no detector is replayed (`replayed` false), for no scan then uses it.
pub fn unreadable_intervals_used(intervals: &[ScanInterval], replayed: bool) -> usize {
    if !replayed {
        return 0;
    }
    (intervals.iter())
        .filter(|i| i.source == IntervalSource::Unreadable)
        .count()
}

/// The note on the Spark applications whose `spark.speculation.interval` Spark cannot read
/// as a positive time, scanned at Spark's default instead, naming the first, its input
/// (`job_input` gives each job's, `paths` each input's path) and the line of the update
/// that sets the value, its value and why; `None`
/// when there is none, or when `--scan-interval` gives the interval.
pub fn unreadable_intervals_note(
    jobs: &[TraceJob],
    intervals: &[ScanInterval],
    job_input: &[usize],
    paths: &[PathBuf],
) -> Option<String> {
    let unreadable: Vec<(usize, &ScanInterval)> = (intervals.iter().enumerate())
        .filter(|(_, i)| i.source == IntervalSource::Unreadable)
        .collect();
    let &(first_job, interval) = unreadable.first()?;
    let first = &jobs[first_job];
    // The input, and the line of the update that sets the value (in its file, in a rolling
    // directory).
    let line = (first.speculation_line.as_ref()).map_or_else(String::new, |at| {
        format!("{}:{}", in_file(at.file.as_deref()), at.line)
    });
    let path = (job_input.get(first_job))
        .and_then(|&input| paths.get(input))
        .map_or_else(String::new, |p| format!(" in {}{line}", p.display()));
    let apps: std::collections::BTreeSet<String> = unreadable
        .iter()
        .map(|&(j, _)| app_name(&jobs[j]))
        .collect();
    let (applications, sets) = match apps.len() {
        1 => ("1 Spark application".to_owned(), "sets"),
        n => (format!("{n} Spark applications"), "set"),
    };
    let jobs = match unreadable.len() {
        1 => "1 job".to_owned(),
        n => format!("{n} jobs"),
    };
    Some(format!(
        "{applications} ({jobs}) {sets} spark.speculation.interval to what Spark cannot read \
         as a positive time: scanned at Spark's default {} s instead; first: {}{path} \
         (`{}`: {})",
        report::number(interval.secs),
        app_name(first),
        interval.value.as_deref().unwrap_or_default(),
        interval.fault().unwrap_or_default()
    ))
}

/// A Spark application's id, from its jobs' `<App ID>/job <n>`; the job's id where it has
/// no such form.
pub fn app_name(job: &TraceJob) -> String {
    job.id
        .rsplit_once("/job ")
        .map_or_else(|| job.id.clone(), |(app, _)| app.to_owned())
}

/// The note on the labelled tasks that ran shorter than their job's scan interval, which a
/// replayed detector sees at most once; `spark_scans_faster` when `--scan-interval` is
/// longer than some Spark job's own interval, which the note then points to. `None` when
/// no task is that short.
pub fn brief_tasks_note(
    labels: &Labels,
    intervals: &[ScanInterval],
    spark_scans_faster: bool,
) -> Option<String> {
    let mut brief: Vec<f64> = (labels.tasks.iter())
        .filter_map(|task| {
            let secs = intervals.get(task.job)?.secs;
            (task.exec_secs < secs).then_some(secs)
        })
        .collect();
    if brief.is_empty() {
        return None;
    }
    let uniform = intervals.windows(2).all(|w| w[0].secs == w[1].secs);
    let interval = if uniform {
        format!(
            "the scan interval ({} s)",
            report::number(intervals[0].secs)
        )
    } else {
        brief.sort_by(f64::total_cmp);
        let parts: Vec<String> = (brief.chunk_by(|a, b| a == b).enumerate())
            .map(|(i, group)| {
                let of_them = if i == 0 { " of them" } else { "" };
                format!("{}{of_them} at {} s", group.len(), report::number(group[0]))
            })
            .collect();
        format!("their job's scan interval ({})", parts.join(", "))
    };
    Some(format!(
        "{} of {} labelled tasks ran shorter than {interval}: a replayed detector sees each \
         at most once, or not at all; a shorter --scan-interval shows them{}",
        brief.len(),
        labels.tasks.len(),
        if spark_scans_faster {
            " (without --scan-interval, each Spark job is scanned as its application checks, \
             every 0.1 s by default)"
        } else {
            ""
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use stragglers::trace::{LogLine, SpeculationSetting, TruthConfig, label};

    /// A job of one map run `exec_secs`, with `interval` as its Spark application's
    /// `spark.speculation.interval` where given.
    fn job(id: &str, exec_secs: f64, interval: Option<&str>) -> TraceJob {
        use stragglers::trace::{AttemptOutcome, StageKind, TraceAttempt, TraceTask};
        TraceJob {
            id: id.to_owned(),
            name: None,
            submit_secs: None,
            speculation: interval.map(|text| {
                SpeculationSetting::spark(None).with_parameter("spark.speculation.interval", text)
            }),
            // The update of the properties on line 2 of its log.
            speculation_line: interval.map(|_| LogLine {
                line: 2,
                file: None,
            }),
            tasks: vec![TraceTask {
                id: format!("{id}-t"),
                stage: "map".to_owned(),
                kind: StageKind::Map,
                input_bytes: None,
                input_records: None,
                attempts: vec![TraceAttempt {
                    id: format!("{id}-a"),
                    host: None,
                    start_secs: 0.0,
                    end_secs: Some(exec_secs),
                    outcome: AttemptOutcome::Succeeded,
                    speculative: None,
                    progress: Vec::new(),
                    revoked: false,
                    line: 1,
                }],
            }],
        }
    }

    const FORMATS: [TraceFormat; 2] = [TraceFormat::SparkEventLog, TraceFormat::HadoopJhist];

    #[test]
    fn each_job_takes_its_engines_interval_unless_one_is_given() {
        // Inputs: 0 Spark, 1 jhist. Jobs: a Spark one unset, one set to 250 ms, one set to
        // what Spark cannot read; a Hadoop one.
        let jobs = [
            job("app-1/job 0", 1.0, None),
            job("app-2/job 0", 1.0, Some("250ms")),
            job("app-3/job 0", 1.0, Some("0.5s")),
            job("job_1_0001", 1.0, None),
        ];
        let inputs = [0, 0, 0, 1];
        let secs = |given| -> Vec<(f64, IntervalSource)> {
            (scan_intervals(&jobs, &inputs, &FORMATS, given).iter())
                .map(|i| (i.secs, i.source))
                .collect()
        };
        use IntervalSource::{Default, Given, Set, Unreadable};
        assert_eq!(
            secs(None),
            [
                (0.1, Default),
                (0.25, Set),
                (0.1, Unreadable),
                (3.0, Default)
            ]
        );
        assert_eq!(secs(Some(2.0)), [(2.0, Given); 4]);

        let intervals = scan_intervals(&jobs, &inputs, &FORMATS, None);
        assert_eq!(
            intervals_note(&intervals, &inputs, &FORMATS).as_deref(),
            Some(
                "each job is scanned at its engine's interval (--scan-interval sets one for all \
                 jobs): 1 job every 0.1 s (Spark's default spark.speculation.interval), 1 job \
                 every 0.1 s (Spark's default: the application's spark.speculation.interval is \
                 unreadable), 1 job every 0.25 s (the application's \
                 spark.speculation.interval), 1 job every 3 s (Hadoop's: tasks report progress \
                 every 3 s)"
            )
        );
        let paths = [PathBuf::from("spark.json"), PathBuf::from("job.jhist")];
        assert_eq!(
            unreadable_intervals_note(&jobs, &intervals, &inputs, &paths).as_deref(),
            Some(
                "1 Spark application (1 job) sets spark.speculation.interval to what Spark \
                 cannot read as a positive time: scanned at Spark's default 0.1 s instead; \
                 first: app-3 in spark.json:2 (`0.5s`: not a time)"
            )
        );
        // Used only where a detector is scanned at the engine's interval.
        assert_eq!(unreadable_intervals_used(&intervals, true), 1);
        assert_eq!(unreadable_intervals_used(&intervals, false), 0);
        let given = scan_intervals(&jobs, &inputs, &FORMATS, Some(2.0));
        assert_eq!(intervals_note(&given, &inputs, &FORMATS), None);
        assert_eq!(
            unreadable_intervals_note(&jobs, &given, &inputs, &paths),
            None
        );
        assert_eq!(unreadable_intervals_used(&given, true), 0);
    }

    #[test]
    fn the_note_on_brief_tasks_counts_them_against_their_jobs_interval() {
        // Tasks of 0.05 s and 2 s in Spark jobs (0.1 s), of 2 s in a Hadoop job (3 s): the
        // first and the last are shorter than their job's interval.
        let jobs = [
            job("app-1/job 0", 0.05, None),
            job("app-1/job 1", 2.0, None),
            job("job_1_0001", 2.0, None),
        ];
        let inputs = [0, 0, 1];
        let labels = label(&jobs, TruthConfig::default()).unwrap();
        let intervals = scan_intervals(&jobs, &inputs, &FORMATS, None);
        assert_eq!(
            brief_tasks_note(&labels, &intervals, false).as_deref(),
            Some(
                "2 of 3 labelled tasks ran shorter than their job's scan interval (1 of them at \
                 0.1 s, 1 at 3 s): a replayed detector sees each at most once, or not at all; a \
                 shorter --scan-interval shows them"
            )
        );
        // Given 3 s for all: every task, and the Spark jobs would be scanned faster.
        let intervals = scan_intervals(&jobs, &inputs, &FORMATS, Some(3.0));
        assert_eq!(
            brief_tasks_note(&labels, &intervals, true).as_deref(),
            Some(
                "3 of 3 labelled tasks ran shorter than the scan interval (3 s): a replayed \
                 detector sees each at most once, or not at all; a shorter --scan-interval \
                 shows them (without --scan-interval, each Spark job is scanned as its \
                 application checks, every 0.1 s by default)"
            )
        );
        let intervals = scan_intervals(&jobs, &inputs, &FORMATS, Some(0.01));
        assert_eq!(brief_tasks_note(&labels, &intervals, false), None);
    }
}
