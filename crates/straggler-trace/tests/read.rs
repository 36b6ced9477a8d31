//! The readers against every real log in `../shared/traces` and the fixtures in
//! `fixtures/traces/`, with counts verified by hand; and that no input makes them panic.
//!
//! How the expected counts were made (independently of this crate), in Python 3 on the
//! decompressed files:
//! - Spark: `json.loads` on each non-blank line; jobs = distinct `Job ID` of
//!   `SparkListenerJobStart`; tasks = distinct `(Stage ID, Stage Attempt ID, Index)`;
//!   attempts = distinct `Task ID`; an attempt is killed if `Killed` or reason
//!   `TaskKilled` or `TaskCommitDenied` (none of the shared logs has the latter), failed if
//!   `Failed` or reason not `Success`; speculative if `Speculative`.
//! - `.jhist`: non-blank lines = records; tasks = distinct `taskid`; attempts = distinct
//!   `attemptId`, outcome from the suffix of the last event type (`_FINISHED`, `_FAILED`,
//!   `_KILLED`).
//! - Hadoop 1: a regex for `^(Job|Task|MapAttempt|ReduceAttempt|Meta) (KEY="value" )*\.$`
//!   over the whole text (values may span lines, `\"` escaped); tasks = distinct `TASKID`
//!   of `Task` records; attempts = distinct `TASK_ATTEMPT_ID`, outcome from `TASK_STATUS`;
//!   `grep -o 'HOSTNAME="[^"]*"' | sort -u | wc -l` = 260 hosts for the Yahoo! sample.
//!   Records read = those + one per `!!FILE=` line (a form feed before it, stripped) + one
//!   per `<property>` of the embedded configurations (`re.findall(r'<property>', text)`).
//! - Rumen: `json.JSONDecoder.raw_decode` object after object; jobs = distinct `jobID`
//!   (an object of a `jobID` seen before is a skip); tasks from `mapTasks`,
//!   `reduceTasks`, `otherTasks` of each first object; attempts and their `result`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use straggler_trace::{
    AttemptOutcome, HadoopVersion, IntervalSource, ReadReport, ScanInterval, SettingSource,
    SpeculationSetting, SpeculationSwitch, StageKind, TraceAttempt, TraceError, TraceFormat,
    TraceJob, read_bytes, read_job_conf, read_path, read_reader,
};

/// `../shared/traces`, the real logs beside the repository (README, "Set-up"); the tests
/// that read them fail without it rather than pass unseen.
fn shared_traces() -> PathBuf {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces"
    ));
    assert!(
        dir.is_dir(),
        "{} is absent: the real-log tests read the shared logs there (README, Set-up)",
        dir.display()
    );
    dir.to_owned()
}

fn fixtures() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/traces"
    ))
    .to_owned()
}

/// What a read gave, in numbers.
#[derive(Debug, PartialEq, Eq)]
struct Counts {
    jobs: usize,
    tasks: usize,
    attempts: usize,
    succeeded: usize,
    killed: usize,
    failed: usize,
    unfinished: usize,
    speculative: usize,
    read: u64,
    skipped: u64,
}

fn attempts(jobs: &[TraceJob]) -> impl Iterator<Item = &TraceAttempt> {
    jobs.iter()
        .flat_map(|j| j.tasks.iter().flat_map(|t| t.attempts.iter()))
}

fn counts(jobs: &[TraceJob], report: &ReadReport) -> Counts {
    let outcome = |o| attempts(jobs).filter(|a| a.outcome == o).count();
    Counts {
        jobs: jobs.len(),
        tasks: jobs.iter().map(|j| j.tasks.len()).sum(),
        attempts: attempts(jobs).count(),
        succeeded: outcome(AttemptOutcome::Succeeded),
        killed: outcome(AttemptOutcome::Killed),
        failed: outcome(AttemptOutcome::Failed),
        unfinished: outcome(AttemptOutcome::Unfinished),
        speculative: attempts(jobs)
            .filter(|a| a.speculative == Some(true))
            .count(),
        read: report.records_read,
        skipped: report.records_skipped,
    }
}

/// Reads `path`, checks the report's invariant and its format, returns the jobs and report.
/// The line and reason of each skip kept by `report`.
fn skipped_lines(report: &ReadReport) -> Vec<(u64, &str)> {
    report
        .skips
        .iter()
        .map(|s| (s.line, s.reason.as_str()))
        .collect()
}

fn read(path: &Path, format: TraceFormat) -> (Vec<TraceJob>, ReadReport) {
    let (jobs, report) = read_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(report.format, format, "{}", path.display());
    assert_eq!(
        report.records_read,
        report.records_parsed + report.records_skipped,
        "{}",
        path.display()
    );
    assert_eq!(
        report.skip_reasons.values().sum::<u64>(),
        report.records_skipped,
        "{}",
        path.display()
    );
    (jobs, report)
}

/// `(path, format, jobs, tasks, attempts, succeeded, killed, failed, unfinished,
/// speculative, records read, records skipped)`.
type Row = (&'static str, TraceFormat, [usize; 8], u64, u64);

const SPARK: TraceFormat = TraceFormat::SparkEventLog;
const JHIST: TraceFormat = TraceFormat::HadoopJhist;
const HADOOP1: TraceFormat = TraceFormat::Hadoop1History;
const RUMEN: TraceFormat = TraceFormat::Rumen;

/// Every readable log in `../shared/traces`, counted by hand (see the top of this file).
const REAL: &[Row] = &[
    (
        "spark-core-test-events/app-20161115172038-0000",
        SPARK,
        [1, 16, 26, 16, 0, 10, 0, 0],
        75,
        0,
    ),
    (
        "spark-core-test-events/app-20161116163331-0000",
        SPARK,
        [1, 16, 24, 16, 0, 8, 0, 0],
        68,
        0,
    ),
    (
        "spark-core-test-events/app-20180109111548-0000",
        SPARK,
        [1, 20, 22, 20, 0, 2, 0, 0],
        59,
        0,
    ),
    (
        "spark-core-test-events/app-20200706201101-0003",
        SPARK,
        [3, 48, 48, 48, 0, 0, 0, 0],
        124,
        0,
    ),
    (
        "spark-core-test-events/application_1516285256255_0012",
        SPARK,
        [1, 20, 24, 20, 0, 4, 0, 0],
        71,
        0,
    ),
    (
        "spark-core-test-events/application_1553914137147_0018",
        SPARK,
        [3, 6, 6, 6, 0, 0, 0, 0],
        44,
        0,
    ),
    (
        "spark-core-test-events/application_1555004656427_0144",
        SPARK,
        [0, 0, 0, 0, 0, 0, 0, 0],
        10,
        0,
    ),
    (
        "spark-core-test-events/application_1578436911597_0052",
        SPARK,
        [1, 6, 6, 6, 0, 0, 0, 0],
        27,
        0,
    ),
    (
        "spark-core-test-events/application_1628109047826_1317105",
        SPARK,
        [1, 4, 5, 4, 1, 0, 0, 1],
        52,
        0,
    ),
    (
        "spark-core-test-events/local-1422981759269",
        SPARK,
        [4, 33, 33, 33, 0, 0, 0, 0],
        88,
        0,
    ),
    (
        "spark-core-test-events/local-1422981780767",
        SPARK,
        [3, 32, 32, 31, 0, 1, 0, 0],
        82,
        0,
    ),
    (
        "spark-core-test-events/local-1425081759269",
        SPARK,
        [4, 33, 33, 33, 0, 0, 0, 0],
        88,
        0,
    ),
    (
        "spark-core-test-events/local-1426533911241",
        SPARK,
        [1, 8, 8, 8, 0, 0, 0, 0],
        24,
        0,
    ),
    (
        "spark-core-test-events/local-1426633911242",
        SPARK,
        [1, 8, 8, 8, 0, 0, 0, 0],
        24,
        0,
    ),
    (
        "spark-core-test-events/local-1430917381534",
        SPARK,
        [1, 110, 110, 110, 0, 0, 0, 0],
        231,
        0,
    ),
    (
        "spark-core-test-events/local-1430917381535_1",
        SPARK,
        [0, 0, 0, 0, 0, 0, 0, 0],
        5,
        0,
    ),
    (
        "spark-core-test-events/local-1430917381535_2",
        SPARK,
        [0, 0, 0, 0, 0, 0, 0, 0],
        5,
        0,
    ),
    (
        "spark-core-test-events/local-1642039451826",
        SPARK,
        [6, 35, 35, 35, 0, 0, 0, 0],
        115,
        0,
    ),
    (
        "spark-core-test-events/removed-in-2019/application_1506645932520_24630151",
        SPARK,
        [1, 9, 9, 9, 0, 0, 0, 0],
        63,
        0,
    ),
    (
        "spark-core-test-events/removed-in-2019/application_1536831636016_59384_1",
        SPARK,
        [1, 100, 100, 100, 0, 0, 0, 0],
        214,
        0,
    ),
    (
        "spark-core-test-events/removed-in-2019/application_1538416563558_0014",
        SPARK,
        [8, 27, 35, 27, 0, 8, 0, 0],
        190,
        0,
    ),
    (
        "hadoop-jhist/job_0.23.9-FAILED.jhist",
        JHIST,
        [1, 3, 8, 0, 1, 7, 0, 0],
        29,
        0,
    ),
    (
        "hadoop-jhist/job_1329348432655_0001-10.jhist",
        JHIST,
        [1, 11, 11, 11, 0, 0, 0, 0],
        51,
        0,
    ),
    (
        "hadoop-jhist/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist",
        JHIST,
        [1, 12, 12, 12, 0, 0, 0, 0],
        55,
        0,
    ),
    (
        "hadoop-jhist/job_1393307629410_0001-1393307687476-user-Sleep+job-1393307723835-0-0-FAILED-default-1393307693920.jhist",
        JHIST,
        [1, 1, 1, 0, 0, 1, 0, 0],
        11,
        0,
    ),
    (
        "hadoop-jhist/job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist",
        JHIST,
        [1, 2, 2, 2, 0, 0, 0, 0],
        16,
        0,
    ),
    (
        "hadoop-jhist/job_2.0.3-alpha-FAILED.jhist",
        JHIST,
        [1, 3, 4, 0, 0, 4, 0, 0],
        22,
        0,
    ),
    (
        "hadoop-jhist/job_2.4.0-FAILED.jhist",
        JHIST,
        [1, 3, 4, 0, 0, 4, 0, 0],
        22,
        0,
    ),
    // 1009 history records + 8 `!!FILE=` lines + the 4 properties of the 4 embedded
    // configurations (one each, `mapred.child.java.opts`).
    (
        "hadoop-rumen-testdata/small-trace-test/sample-job-tracker-logs.gz",
        HADOOP1,
        [4, 210, 283, 210, 69, 4, 0, 0],
        1021,
        0,
    ),
    // The same, its first configuration holding a second property
    // (`mapred.job.queue.name`): 5 properties.
    (
        "hadoop-rumen-testdata/small-trace-test/dispatch-sample-v20-jt-log.gz",
        HADOOP1,
        [4, 210, 283, 210, 69, 4, 0, 0],
        1022,
        0,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/v20-single-input-log.gz",
        HADOOP1,
        [1, 23, 24, 23, 0, 1, 0, 0],
        100,
        0,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/v20-resource-usage-log.gz",
        HADOOP1,
        [1, 3, 3, 3, 0, 0, 0, 0],
        16,
        0,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/counters-format-test-logs/megacluster.megacorp.com_1265616107882_job_201002080801_40864_job_name-DAILY%2F20100210%5D.gz",
        HADOOP1,
        [1, 9, 11, 9, 2, 0, 0, 0],
        46,
        0,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/counters-format-test-logs/megacluster.megacorp.com_1265616107882_job_201002080801_50510_job_name-DAILY%2F20100208%5D.gz",
        HADOOP1,
        [1, 9, 10, 9, 1, 0, 0, 0],
        44,
        0,
    ),
    // 99 whole records + 1 cut record + 1 `!!FILE=` line + the 1 property of the embedded
    // configuration + the `!!FILE=` line before it.
    (
        "hadoop-rumen-testdata/small-trace-test/truncated-job-tracker-log",
        HADOOP1,
        [1, 23, 24, 23, 0, 1, 0, 0],
        103,
        1,
    ),
    (
        "hadoop-rumen-testdata/zombie/input-trace.json",
        RUMEN,
        [4, 209, 261, 190, 66, 5, 0, 0],
        4,
        0,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/counters-test-trace.json.gz",
        RUMEN,
        [2, 18, 21, 18, 3, 0, 0, 0],
        2,
        0,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/dispatch-trace-output.json.gz",
        RUMEN,
        [4, 210, 283, 210, 69, 4, 0, 0],
        4,
        0,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/job-tracker-logs-trace-output.gz",
        RUMEN,
        [4, 210, 283, 210, 69, 4, 0, 0],
        4,
        0,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/folder-input-trace.json.gz",
        RUMEN,
        [59, 1226, 1226, 1226, 0, 0, 0, 0],
        59,
        0,
    ),
    // 89 objects of 59 jobs: 30 are copies of the object before them, byte for byte, each
    // skipped as `job read twice`.
    (
        "hadoop-rumen-testdata/small-trace-test/goldFoldedTrace.json.gz",
        RUMEN,
        [59, 1226, 1226, 1226, 0, 0, 0, 0],
        89,
        30,
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/truncated-trace-output",
        RUMEN,
        [1, 23, 24, 23, 0, 1, 0, 0],
        1,
        0,
    ),
    (
        "hadoop-sls-gridmix-rumen/2jobs2min-rumen-jh.json",
        RUMEN,
        [2, 192, 192, 192, 0, 0, 0, 0],
        2,
        0,
    ),
    (
        "hadoop-sls-gridmix-rumen/wordcount.json",
        RUMEN,
        [1, 6, 6, 6, 0, 0, 0, 0],
        1,
        0,
    ),
    // The job of `wordcount.json` twice, byte for byte (Gridmix's test submits it twice):
    // the second skipped as `job read twice`.
    (
        "hadoop-sls-gridmix-rumen/wordcount2.json",
        RUMEN,
        [1, 6, 6, 6, 0, 0, 0, 0],
        2,
        1,
    ),
];

/// Files in `../shared/traces` recognised and refused, with the word the error must name.
const REFUSED: &[(&str, &str)] = &[
    (
        "hadoop-rumen-testdata/small-trace-test/sample-conf.file.xml",
        "configuration",
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/sample-conf.file.new.xml",
        "configuration",
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/counters-format-test-logs/megacluster.megacorp.com_1265616107882_job_201002080801_40864_conf.xml",
        "configuration",
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/counters-format-test-logs/megacluster.megacorp.com_1265616107882_job_201002080801_50510_conf.xml",
        "configuration",
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/dispatch-topology-output.json.gz",
        "topology",
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/job-tracker-logs-topology-output",
        "topology",
    ),
    (
        "hadoop-rumen-testdata/small-trace-test/truncated-topology-output",
        "topology",
    ),
    (
        "hadoop-rumen-testdata/zombie/input-topology.json",
        "topology",
    ),
];

fn check(path: &Path, format: TraceFormat, expected: [usize; 8], read_n: u64, skipped: u64) {
    let (jobs, report) = read(path, format);
    eprintln!("{}", path.display());
    check_counts(&jobs, &report, expected, read_n, skipped);
    // Every key of the Hadoop 1 logs is one of `JobHistory.Keys`, no compressed file has
    // bytes after its end, and no attempt has splits it cannot use.
    assert!(
        report.unknown_keys.is_empty() && report.unknown_keys_seen == 0,
        "{}: {:?}",
        path.display(),
        report.unknown_keys
    );
    assert!(
        report.unread.is_empty(),
        "{}: {:?}",
        path.display(),
        report.unread
    );
    // Every `clockSplits` of the `.jhist` and Rumen logs is usable, or absent.
    assert!(
        report.unusable_splits.is_empty() && report.unusable_splits_seen == 0,
        "{}: {:?}",
        path.display(),
        report.unusable_splits
    );
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).expect("readable folder");
    for entry in entries {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn every_shared_trace_is_read_or_refused_as_counted_by_hand() {
    let base = shared_traces();
    let mut covered = BTreeSet::new();
    for &(rel, format, expected, read_n, skipped) in REAL {
        check(&base.join(rel), format, expected, read_n, skipped);
        covered.insert(base.join(rel));
    }
    for &(rel, word) in REFUSED {
        let path = base.join(rel);
        match read_path(&path) {
            Err(error @ TraceError::NotALog { .. }) => {
                assert!(error.to_string().contains(word), "{error}");
            }
            other => panic!("{rel}: expected NotALog, got {other:?}"),
        }
        covered.insert(path);
    }
    // Nothing in the folder is left untested (but the SOURCE.txt notes).
    let mut all = Vec::new();
    walk(&base, &mut all);
    for path in all {
        if path.file_name().is_some_and(|n| n == "SOURCE.txt") {
            assert!(matches!(
                read_path(&path),
                Err(TraceError::UnknownFormat { .. })
            ));
            continue;
        }
        assert!(
            covered.contains(&path),
            "no expected counts for {}",
            path.display()
        );
    }
}

#[test]
fn the_yahoo_sample_matches_the_reference_note() {
    let base = shared_traces();
    let path = base.join("hadoop-rumen-testdata/small-trace-test/sample-job-tracker-logs.gz");
    let (jobs, _) = read(&path, HADOOP1);
    let kind_count = |kind| {
        jobs.iter()
            .flat_map(|j| &j.tasks)
            .filter(|t| t.kind == kind)
            .count()
    };
    // traces.md: 4 jobs, 154 maps + 49 reduces, 283 attempts on 260 hosts, 69 KILLED (37
    // overlap a successful attempt of the same task), 4 FAILED.
    assert_eq!(kind_count(StageKind::Map), 154);
    assert_eq!(kind_count(StageKind::Reduce), 49);
    // The 260 hosts of traces.md are distinct `HOSTNAME` strings, `/rack/host`; three hosts
    // appear under two racks, so there are 257 distinct host names (checked in Python:
    // the set of `HOSTNAME.split('/')[-1]` over the attempts' last records has 257).
    let hosts: BTreeSet<&str> = attempts(&jobs).filter_map(|a| a.host.as_deref()).collect();
    assert_eq!(hosts.len(), 257);
    let mut overlapping = 0;
    for task in jobs.iter().flat_map(|j| &j.tasks) {
        for killed in task
            .attempts
            .iter()
            .filter(|a| a.outcome == AttemptOutcome::Killed)
        {
            let (start, end) = (killed.start_secs, killed.end_secs.expect("ended"));
            let overlaps = task.attempts.iter().any(|s| {
                s.outcome == AttemptOutcome::Succeeded
                    && s.start_secs < end
                    && start < s.end_secs.expect("ended")
            });
            overlapping += usize::from(overlaps);
        }
    }
    assert_eq!(overlapping, 37);
    assert!(attempts(&jobs).all(|a| a.speculative.is_none()));
}

#[test]
fn the_cut_job_tracker_log_yields_what_it_holds_and_says_where_it_stops() {
    let base = shared_traces();
    let path = base.join("hadoop-rumen-testdata/small-trace-test/truncated-job-tracker-log");
    let (jobs, report) = read(&path, HADOOP1);
    // Line 58 is `Task TASKID="task_200904211745_0002_m_000010" TASK_TY .`
    let truncation = report.truncated.expect("truncated");
    assert_eq!(truncation.line, 58);
    assert_eq!(report.skip_reasons["truncated record"], 1);
    assert!(report.skips.iter().any(|s| s.line == 58));
    // The task whose finish record was cut keeps its successful attempt.
    let task = jobs[0]
        .tasks
        .iter()
        .find(|t| t.id == "task_200904211745_0002_m_000010")
        .expect("task kept");
    assert_eq!(task.attempts.len(), 1);
}

/// The same log with line 57 cut inside a quoted value (after `HOSTNAME="/192\`), or
/// between two fields: the cut record is skipped as malformed (the log goes on: it is not
/// truncated; the value left open named) and every later line is read as before, not
/// swallowed by the cut record.
#[test]
fn a_record_cut_inside_a_value_does_not_swallow_the_next_ones() {
    let base = shared_traces();
    let path = base.join("hadoop-rumen-testdata/small-trace-test/truncated-job-tracker-log");
    let text = std::fs::read_to_string(&path).expect("readable");
    let (_, whole) = read(&path, HADOOP1);
    let lines: Vec<&str> = text.lines().collect();
    let line_57 = lines[56];
    let in_value = line_57.find("HOSTNAME=\"/192\\").expect("the field") + 15;
    let between_fields = line_57.find(" HOSTNAME=").expect("the field");
    for (cut, field) in [(in_value, Some("HOSTNAME")), (between_fields, None)] {
        let mut cut_lines = lines.clone();
        cut_lines[56] = &line_57[..cut];
        let (_, report) = read_bytes(cut_lines.join("\n").as_bytes(), HADOOP1).expect("readable");
        assert_eq!(report.records_read, whole.records_read, "cut at {cut}");
        assert_eq!(
            report.records_parsed + 1,
            whole.records_parsed,
            "cut at {cut}"
        );
        assert!(
            skips_with_fields(&report).contains(&(57, "malformed record", field)),
            "cut at {cut}: {:?}",
            report.skips
        );
        // Only the log's own cut, on line 58, as in the whole log.
        assert_eq!(report.truncated, whole.truncated, "cut at {cut}");
    }
}

#[test]
fn the_spark_speculative_copy_is_read_as_killed_and_speculative() {
    let base = shared_traces();
    let path = base.join("spark-core-test-events/application_1628109047826_1317105");
    let (jobs, _) = read(&path, SPARK);
    // Task index 3 of stage 0: attempt Task ID 3 (launched 1628638073.904 on host-12413,
    // finished 1628638137.677) and speculative Task ID 4 (launched 1628638084.499 on
    // host-12291, killed at 1628638137.700, "another attempt succeeded").
    let task = jobs[0]
        .tasks
        .iter()
        .find(|t| t.id == "0.0:3")
        .expect("task");
    assert_eq!(task.kind, StageKind::Reduce);
    assert_eq!(task.attempts.len(), 2);
    let (first, copy) = (&task.attempts[0], &task.attempts[1]);
    assert_eq!(first.id, "3");
    assert_eq!(first.outcome, AttemptOutcome::Succeeded);
    assert_eq!(first.speculative, Some(false));
    assert_eq!(copy.id, "4");
    assert_eq!(copy.outcome, AttemptOutcome::Killed);
    assert_eq!(copy.speculative, Some(true));
    assert_eq!(copy.host.as_deref(), Some("host-12291"));
    assert!((copy.start_secs - 1_628_638_084.499).abs() < 1e-6);
    assert_eq!(copy.end_secs, Some(1_628_638_137.7));
}

/// The speculation setting of a shared Spark log with `spark.speculation` set, and of one
/// without it. Checked with `grep -o '"spark.speculation[^"]*":"[^"]*"'` over every shared
/// Spark log: only application_1628109047826_1317105 holds such keys (on line 4, its one
/// `SparkListenerEnvironmentUpdate`): `"spark.speculation":"true"`,
/// `"spark.speculation.min.threshold":"30s"`, `"spark.speculation.multiplier":"4"`,
/// `"spark.speculation.quantile":"0.9"`; app-20161115172038-0000 has one update (line 3)
/// and none of them.
#[test]
fn the_spark_speculation_setting_is_read_from_the_environment_update() {
    let base = shared_traces();
    let (jobs, report) = read(
        &base.join("spark-core-test-events/application_1628109047826_1317105"),
        SPARK,
    );
    assert_eq!(report.records_skipped, 0);
    let on = SpeculationSetting::spark(Some("true"))
        .with_parameter("spark.speculation.min.threshold", "30s")
        .with_parameter("spark.speculation.multiplier", "4")
        .with_parameter("spark.speculation.quantile", "0.9");
    assert_eq!(on.map.enabled, Some(true));
    assert_eq!(on.map.source, SettingSource::Set);
    // One switch for every kind of stage.
    assert_eq!(on.one_switch(), Some(&on.reduce));
    assert_eq!(on.map.key, "spark.speculation");
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].speculation.as_ref(), Some(&on));

    let (jobs, report) = read(
        &base.join("spark-core-test-events/app-20161115172038-0000"),
        SPARK,
    );
    assert_eq!(report.records_skipped, 0);
    let unset = SpeculationSetting::spark(None);
    assert_eq!(
        (
            unset.map.enabled,
            unset.map.source,
            unset.map.value.as_deref()
        ),
        (Some(false), SettingSource::Default, None)
    );
    assert!(unset.parameters.is_empty());
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].speculation.as_ref(), Some(&unset));
}

/// `spark.speculation` is read as Spark 3 and 4 read a boolean property (`ConfigHelpers
/// .toBoolean`: `s.trim.toBoolean`, Scala's `toBoolean` taking `true` and `false` in any
/// case and throwing on anything else).
#[test]
fn spark_speculation_values_are_read_as_spark_reads_a_boolean() {
    for (value, enabled) in [
        ("true", Some(true)),
        ("false", Some(false)),
        ("TRUE", Some(true)),
        ("False", Some(false)),
        ("tRuE", Some(true)),
        // Java's `String.trim` strips every character up to U+0020, tabs and newlines too.
        (" true", Some(true)),
        ("false\t", Some(false)),
        ("\n TRUE \r", Some(true)),
        ("", None),
        ("   ", None),
        ("yes", None),
        ("1", None),
        ("0", None),
        ("on", None),
        ("t", None),
        ("truee", None),
        ("tru e", None),
        ("\"true\"", None),
        // A no-break space is not trimmed by Java's `trim`.
        ("\u{a0}true", None),
        // Not ASCII letters (a fullwidth `ｔｒｕｅ`): not Spark's `true`.
        ("\u{ff54}\u{ff52}\u{ff55}\u{ff45}", None),
    ] {
        let setting = SpeculationSetting::spark(Some(value));
        assert_eq!(setting.map.enabled, enabled, "{value:?}");
        let source = match enabled {
            Some(_) => SettingSource::Set,
            None => SettingSource::Unreadable,
        };
        assert_eq!(setting.map.source, source, "{value:?}");
        assert_eq!(setting.map.value.as_deref(), Some(value));
        assert_eq!(setting.one_switch(), Some(&setting.reduce));
    }
}

/// How the Spark reader takes `Spark Properties`: a value Spark cannot read is a skip
/// naming the field, the setting unreadable (never taken for false); an explicit `false`
/// is told from an unset one; a log without an update says nothing; the jobs carry the
/// setting of the last update before their start.
#[test]
fn the_spark_reader_reports_a_speculation_setting_it_cannot_read() {
    let log = |properties: &str| {
        format!(
            concat!(
                "{{\"Event\":\"SparkListenerApplicationStart\",\"App ID\":\"app-1\"}}\n",
                "{}",
                "{{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}}\n",
                "{{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0}}\n",
            ),
            properties
        )
    };
    let update = |properties: &str| {
        format!(
            "{{\"Event\":\"SparkListenerEnvironmentUpdate\",\"JVM Information\":{{}},\
             \"Spark Properties\":{properties},\"System Properties\":{{}}}}\n"
        )
    };
    let read = |text: &str| {
        let (jobs, report) = read_bytes(text.as_bytes(), SPARK).expect("readable");
        assert_eq!(jobs.len(), 1, "{text}");
        (jobs[0].speculation.clone(), report)
    };

    let (setting, report) = read(&log(&update(
        r#"{"spark.app.name":"x","spark.speculation":"yes","spark.speculation.quantile":"0.5"}"#,
    )));
    let setting = setting.expect("a setting");
    assert_eq!(setting.map.enabled, None);
    assert_eq!(setting.map.source, SettingSource::Unreadable);
    assert_eq!(setting.map.value.as_deref(), Some("yes"));
    assert_eq!(setting.parameters["spark.speculation.quantile"], "0.5");
    assert_eq!(report.skip_reasons["not a boolean"], 1);
    assert_eq!(report.skips[0].line, 2);
    assert_eq!(report.skips[0].field.as_deref(), Some("spark.speculation"));

    // Not a string (Spark writes strings): of the wrong type, and unreadable.
    let (setting, report) = read(&log(&update(r#"{"spark.speculation":true}"#)));
    let setting = setting.expect("a setting");
    assert_eq!(
        (setting.map.enabled, setting.map.source),
        (None, SettingSource::Unreadable)
    );
    assert_eq!(report.skip_reasons["field of the wrong type"], 1);
    assert_eq!(report.skips[0].field.as_deref(), Some("spark.speculation"));

    // Set false, padded upper case true, unset, a parameter not a string: no skip.
    let (setting, report) = read(&log(&update(r#"{"spark.speculation":"false"}"#)));
    assert_eq!(setting, Some(SpeculationSetting::spark(Some("false"))));
    assert_eq!(setting.unwrap().map.source, SettingSource::Set);
    assert_eq!(report.records_skipped, 0);
    let (setting, _) = read(&log(&update(r#"{"spark.speculation":" TRUE "}"#)));
    assert_eq!(setting.and_then(|s| s.map.enabled), Some(true));
    let (setting, report) = read(&log(&update(
        r#"{"spark.speculationX":"true","spark.speculation.multiplier":4}"#,
    )));
    let expected =
        SpeculationSetting::spark(None).with_parameter("spark.speculation.multiplier", "4");
    assert_eq!(setting, Some(expected));
    assert_eq!(report.records_skipped, 0);

    // No update, or one without `Spark Properties`: the log does not say.
    let (setting, _) = read(&log(""));
    assert_eq!(setting, None);
    let (setting, _) = read(&log(
        "{\"Event\":\"SparkListenerEnvironmentUpdate\",\"JVM Information\":{}}\n",
    ));
    assert_eq!(setting, None);
    // A later update stands for the jobs started after it.
    let (setting, _) =
        read(&log(&(update(r#"{"spark.speculation":"true"}"#)
            + &update(r#"{"spark.speculation":"false"}"#))));
    assert_eq!(setting.and_then(|s| s.map.enabled), Some(false));
}

/// A speculation property written twice in one update's `Spark Properties` is counted as
/// a `duplicate key` naming it, the last standing (as Spark's `JsonProtocol` reads the
/// object into a map), as a Rumen job's `jobProperties` count one; before, the earlier
/// value was dropped without a word. A fault of the value that stands is named first.
#[test]
fn a_spark_speculation_property_written_twice_is_a_duplicate_key() {
    let log = |properties: &str| {
        format!(
            "{{\"Event\":\"SparkListenerEnvironmentUpdate\",\"Spark Properties\":{properties}}}\n\
             {{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}}\n\
             {{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0}}\n"
        )
    };
    let read = |properties: &str| {
        let (jobs, report) = read_bytes(log(properties).as_bytes(), SPARK).expect("readable");
        (jobs[0].speculation.clone().expect("a setting"), report)
    };
    let (setting, report) =
        read(r#"{"spark.speculation":"false","spark.app.name":"x","spark.speculation":"true"}"#);
    assert_eq!(setting.map.enabled, Some(true));
    assert_eq!(
        skips_with_fields(&report),
        [(1, "duplicate key", Some("spark.speculation"))]
    );
    let (setting, report) =
        read(r#"{"spark.speculation.quantile":"0.5","spark.speculation.quantile":"0.9"}"#);
    assert_eq!(setting.parameters["spark.speculation.quantile"], "0.9");
    assert_eq!(
        skips_with_fields(&report),
        [(1, "duplicate key", Some("spark.speculation.quantile"))]
    );
    // The value that stands cannot be read: that fault is named.
    let (setting, report) = read(r#"{"spark.speculation":"true","spark.speculation":"yes"}"#);
    assert_eq!(setting.map.enabled, None);
    assert_eq!(
        skips_with_fields(&report),
        [(1, "not a boolean", Some("spark.speculation"))]
    );
    // Once each: read, no skip.
    let (setting, report) =
        read(r#"{"spark.speculation":"true","spark.speculation.quantile":"0.9"}"#);
    assert_eq!(setting.map.enabled, Some(true));
    assert_eq!(report.records_skipped, 0);
}

/// A `spark.speculation.interval` is kept as written and its update parsed, whatever the
/// value: it is judged where the interval is chosen. The engine's interval
/// (`ScanInterval::engine`) reads it, or takes Spark's default saying why where Spark
/// cannot read it as a positive time (`ScanInterval::fault`); a run given one interval for
/// every job does not use it, so the read report counts nothing against it. Where
/// `spark.speculation` is bad, that field's skip stands.
#[test]
fn a_speculation_interval_is_judged_where_the_interval_is_chosen_not_read_as_a_skip() {
    let read = |properties: &str| {
        let text = format!(
            concat!(
                "{{\"Event\":\"SparkListenerApplicationStart\",\"App ID\":\"app-1\"}}\n",
                "{{\"Event\":\"SparkListenerEnvironmentUpdate\",\"Spark Properties\":{}}}\n",
                "{{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}}\n",
                "{{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0}}\n",
            ),
            properties
        );
        let (jobs, report) = read_bytes(text.as_bytes(), SPARK).expect("readable");
        assert_eq!(jobs.len(), 1, "{text}");
        assert_eq!(report.records_read, 4, "{text}");
        let interval = ScanInterval::engine(TraceFormat::SparkEventLog, &jobs[0]);
        let skip = report.skips.first().map(|s| {
            assert_eq!(s.line, 2);
            (s.reason.clone(), s.field.clone().unwrap_or_default())
        });
        (interval, skip)
    };
    for (value, secs, source, fault) in [
        ("250ms", 0.25, IntervalSource::Set, None),
        ("1S", 1.0, IntervalSource::Set, None),
        ("50", 0.05, IntervalSource::Set, None),
        ("0.5s", 0.1, IntervalSource::Unreadable, Some("not a time")),
        (
            "0",
            0.1,
            IntervalSource::Unreadable,
            Some("not a positive time"),
        ),
        (
            "500us",
            0.1,
            IntervalSource::Unreadable,
            Some("not a positive time"),
        ),
    ] {
        let properties =
            format!(r#"{{"spark.speculation":"true","spark.speculation.interval":"{value}"}}"#);
        let (interval, skipped_as) = read(&properties);
        assert_eq!(
            (interval.secs, interval.source, interval.value.as_deref()),
            (secs, source, Some(value)),
            "{value}"
        );
        assert_eq!(interval.fault(), fault, "{value}");
        assert_eq!(skipped_as, None, "{value}: the update is parsed");
    }
    // A number where Spark writes a string is kept as its text, and read as that text.
    let (interval, skipped_as) = read(r#"{"spark.speculation.interval":200}"#);
    assert_eq!((interval.secs, interval.source), (0.2, IntervalSource::Set));
    assert_eq!(skipped_as, None);
    // Unset: Spark's default, no skip.
    let (interval, skipped_as) = read(r#"{"spark.speculation":"true"}"#);
    assert_eq!(
        (interval.secs, interval.source),
        (0.1, IntervalSource::Default)
    );
    assert_eq!(skipped_as, None);
    // A bad switch is the update's skip, whatever its interval.
    let skip = |reason: &str, field: &str| Some((reason.to_owned(), field.to_owned()));
    let (interval, skipped_as) =
        read(r#"{"spark.speculation":"yes","spark.speculation.interval":"soon"}"#);
    assert_eq!(interval.source, IntervalSource::Unreadable);
    assert_eq!(skipped_as, skip("not a boolean", "spark.speculation"));
    let (interval, skipped_as) =
        read(r#"{"spark.speculation":"yes","spark.speculation.interval":"1s"}"#);
    assert_eq!(interval.source, IntervalSource::Set);
    assert_eq!(skipped_as, skip("not a boolean", "spark.speculation"));
}

/// The speculation setting of the shared Rumen logs, from their jobs' `jobProperties`.
/// Checked with `grep -n 'speculat' 2jobs2min-rumen-jh.json`: both jobs set
/// `mapreduce.map.speculative` and `mapreduce.reduce.speculative` to `"false"` (lines 4710
/// and 4785, 9815 and 9890) and `mapreduce.job.speculative.speculativecap` `"0.1"`,
/// `slownodethreshold` `"1.0"` and `slowtaskthreshold` `"1.0"`, and no other key holds
/// `specul`. `zcat dispatch-trace-output.json.gz | grep -c jobProperties` gives 4 (one per
/// job), `grep -ci specul` 0: Hadoop's defaults. `zombie/input-trace.json` has no
/// `jobProperties`: the log does not say.
#[test]
fn the_rumen_speculation_setting_is_read_from_job_properties() {
    let base = shared_traces();
    let (jobs, report) = read(
        &base.join("hadoop-sls-gridmix-rumen/2jobs2min-rumen-jh.json"),
        RUMEN,
    );
    assert_eq!((report.records_read, report.records_skipped), (2, 0));
    let off = SpeculationSetting::hadoop(
        SpeculationSwitch::hadoop("mapreduce.map.speculative", Some("false")),
        SpeculationSwitch::hadoop("mapreduce.reduce.speculative", Some("false")),
    )
    .with_parameter("mapreduce.job.speculative.slownodethreshold", "1.0")
    .with_parameter("mapreduce.job.speculative.slowtaskthreshold", "1.0")
    .with_parameter("mapreduce.job.speculative.speculativecap", "0.1");
    assert_eq!(
        (off.map.enabled, off.map.source, off.reduce.enabled),
        (Some(false), SettingSource::Set, Some(false))
    );
    assert_eq!(off.one_switch(), None);
    assert_eq!(jobs.len(), 2);
    for job in &jobs {
        assert_eq!(job.speculation.as_ref(), Some(&off), "{}", job.id);
    }

    let (jobs, report) = read(
        &base.join("hadoop-rumen-testdata/small-trace-test/dispatch-trace-output.json.gz"),
        RUMEN,
    );
    assert_eq!(report.records_skipped, 0);
    let defaults = SpeculationSetting::hadoop(
        SpeculationSwitch::hadoop("mapreduce.map.speculative", None),
        SpeculationSwitch::hadoop("mapreduce.reduce.speculative", None),
    );
    assert_eq!(
        (
            defaults.map.enabled,
            defaults.map.source,
            &defaults.map.value
        ),
        (Some(true), SettingSource::Default, &None)
    );
    assert_eq!(jobs.len(), 4);
    for job in &jobs {
        assert_eq!(job.speculation.as_ref(), Some(&defaults), "{}", job.id);
    }

    let (jobs, _) = read(
        &base.join("hadoop-rumen-testdata/zombie/input-trace.json"),
        RUMEN,
    );
    assert_eq!(jobs.len(), 4);
    assert!(jobs.iter().all(|job| job.speculation.is_none()));
}

/// Hadoop's switches are read as Hadoop 2 and later read a boolean property
/// (`Configuration.getBoolean`: `getTrimmed`, then `true` or `false` in any case; any other
/// text, the empty one too, is the default, true), and a variable, which Hadoop expands
/// first, is not known.
#[test]
fn hadoop_speculation_values_are_read_as_hadoop_reads_a_boolean() {
    for (value, enabled, source) in [
        ("true", Some(true), SettingSource::Set),
        ("false", Some(false), SettingSource::Set),
        ("FALSE", Some(false), SettingSource::Set),
        ("False", Some(false), SettingSource::Set),
        // Java's `String.trim` strips every character up to U+0020.
        (" false", Some(false), SettingSource::Set),
        ("\tfalse\n", Some(false), SettingSource::Set),
        (" TRUE ", Some(true), SettingSource::Set),
        // Anything else: Hadoop's default, true, from a value it cannot read.
        ("", Some(true), SettingSource::Unreadable),
        ("yes", Some(true), SettingSource::Unreadable),
        ("no", Some(true), SettingSource::Unreadable),
        ("0", Some(true), SettingSource::Unreadable),
        ("off", Some(true), SettingSource::Unreadable),
        ("f", Some(true), SettingSource::Unreadable),
        ("fals e", Some(true), SettingSource::Unreadable),
        ("\u{a0}false", Some(true), SettingSource::Unreadable),
        ("\"false\"", Some(true), SettingSource::Unreadable),
        // A variable Hadoop expands first: not known.
        ("${spec.on}", None, SettingSource::Unreadable),
        (" ${a}x ", None, SettingSource::Unreadable),
        // Not a variable to Hadoop (no name, a space or `$` in it, no closing brace).
        ("${}", Some(true), SettingSource::Unreadable),
        ("${a b}", Some(true), SettingSource::Unreadable),
        ("${a", Some(true), SettingSource::Unreadable),
    ] {
        let switch = SpeculationSwitch::hadoop("mapreduce.map.speculative", Some(value));
        assert_eq!(
            (switch.enabled, switch.source),
            (enabled, source),
            "{value:?}"
        );
        assert_eq!(switch.value.as_deref(), Some(value));
    }
    let unset = SpeculationSwitch::hadoop("mapreduce.reduce.speculative", None);
    assert_eq!(
        (unset.enabled, unset.source, unset.key.as_str()),
        (
            Some(true),
            SettingSource::Default,
            "mapreduce.reduce.speculative"
        )
    );
}

/// How the Rumen reader takes a job's `jobProperties`, on jobs made by hand (the line of
/// each key counted in the text below): both switches set, one set, none set (Hadoop's
/// default), Hadoop 1's names, a value Hadoop cannot read (a skip naming it, the default
/// standing), a value that is no JSON string (a skip, not known), properties that are no
/// object, a bare `NaN`, a key written twice, and no `jobProperties` at all.
#[test]
fn the_rumen_reader_reads_the_speculation_switches_of_job_properties() {
    // Line 1 the job's id, line 2 its tasks, line 3 `jobProperties`, its members from line 4.
    let job = |properties: &[&str]| {
        format!(
            "{{\"jobID\": \"job_1_0001\",\n\"mapTasks\": [],\n\"jobProperties\": {{\n{}\n}}}}\n",
            properties.join(",\n")
        )
    };
    let read = |text: &str| {
        let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
        assert_eq!(jobs.len(), 1, "{text}");
        let skips: Vec<(u64, String, String)> = (report.skips.iter())
            .map(|s| {
                (
                    s.line,
                    s.field.clone().unwrap_or_default(),
                    s.reason.clone(),
                )
            })
            .collect();
        assert_eq!(report.records_parsed, 1, "{text}");
        assert_eq!(report.records_skipped, skips.len() as u64, "{text}");
        (jobs[0].speculation.clone(), skips)
    };
    let skip = |line: u64, field: &str, reason: &str| (line, field.to_owned(), reason.to_owned());
    let map = |value: Option<&str>| SpeculationSwitch::hadoop("mapreduce.map.speculative", value);
    let reduce =
        |value: Option<&str>| SpeculationSwitch::hadoop("mapreduce.reduce.speculative", value);

    // Both set, with a parameter and a property of no speculation.
    let (setting, skips) = read(&job(&[
        r#""mapreduce.map.speculative": "false""#,
        r#""mapreduce.job.queuename": "default""#,
        r#""mapreduce.reduce.speculative": "true""#,
        r#""mapreduce.job.speculative.minimum-allowed-tasks": "10""#,
    ]));
    let expected = SpeculationSetting::hadoop(map(Some("false")), reduce(Some("true")))
        .with_parameter("mapreduce.job.speculative.minimum-allowed-tasks", "10");
    assert_eq!(setting, Some(expected));
    assert!(skips.is_empty());

    // One set: the other is Hadoop's default, true.
    let (setting, skips) = read(&job(&[r#""mapreduce.reduce.speculative": "false""#]));
    let setting = setting.expect("a setting");
    assert_eq!(
        setting,
        SpeculationSetting::hadoop(map(None), reduce(Some("false")))
    );
    assert_eq!(
        (setting.map.enabled, setting.map.source),
        (Some(true), SettingSource::Default)
    );
    assert!(skips.is_empty());

    // None set: both Hadoop's default.
    let (setting, skips) = read(&job(&[r#""mapreduce.job.queuename": "default""#]));
    assert_eq!(
        setting,
        Some(SpeculationSetting::hadoop(map(None), reduce(None)))
    );
    assert!(skips.is_empty());
    let (setting, _) = read("{\"jobID\": \"job_1_0001\", \"jobProperties\": {}}\n");
    assert_eq!(
        setting,
        Some(SpeculationSetting::hadoop(map(None), reduce(None)))
    );

    // Hadoop 1's names, read as Hadoop 2 reads them (deprecated names of the same switches).
    let (setting, skips) = read(&job(&[
        r#""mapred.map.tasks.speculative.execution": "False""#,
        r#""mapred.reduce.tasks.speculative.execution": " true""#,
        r#""mapred.speculative.execution.slowTaskThreshold": "1.0""#,
    ]));
    let setting = setting.expect("a setting");
    assert_eq!(
        (
            setting.map.enabled,
            setting.map.source,
            setting.map.key.as_str()
        ),
        (
            Some(false),
            SettingSource::Set,
            "mapred.map.tasks.speculative.execution"
        )
    );
    assert_eq!(setting.reduce.enabled, Some(true));
    assert_eq!(
        setting.parameters["mapred.speculative.execution.slowTaskThreshold"],
        "1.0"
    );
    assert!(skips.is_empty());

    // A value Hadoop cannot read: Hadoop's default stands, the property is a skip on its line.
    let (setting, skips) = read(&job(&[
        r#""mapreduce.job.queuename": "default""#,
        r#""mapreduce.map.speculative": "no""#,
    ]));
    let setting = setting.expect("a setting");
    assert_eq!(
        (
            setting.map.enabled,
            setting.map.source,
            setting.map.value.as_deref()
        ),
        (Some(true), SettingSource::Unreadable, Some("no"))
    );
    assert_eq!(
        skips,
        [skip(5, "mapreduce.map.speculative", "not a boolean")]
    );
    // A variable: not known.
    let (setting, skips) = read(&job(&[r#""mapreduce.reduce.speculative": "${spec}""#]));
    assert_eq!(setting.expect("a setting").reduce.enabled, None);
    assert_eq!(
        skips,
        [skip(
            4,
            "mapreduce.reduce.speculative",
            "unexpanded variable"
        )]
    );

    // No JSON string (Rumen writes strings): of the wrong type, not known, its JSON text kept.
    let (setting, skips) = read(&job(&[
        r#""mapreduce.map.speculative": false"#,
        r#""mapreduce.job.speculative.speculativecap": 0.1"#,
    ]));
    let setting = setting.expect("a setting");
    assert_eq!(
        (
            setting.map.enabled,
            setting.map.source,
            setting.map.value.as_deref()
        ),
        (None, SettingSource::Unreadable, Some("false"))
    );
    // A parameter that is no string is kept as its JSON text, as Spark's are.
    assert_eq!(
        setting.parameters["mapreduce.job.speculative.speculativecap"],
        "0.1"
    );
    assert_eq!(
        skips,
        [skip(
            4,
            "mapreduce.map.speculative",
            "field of the wrong type"
        )]
    );

    // A bare `NaN` (Jackson's and Python's word): skipped under its reason, kept as written.
    let (setting, skips) = read(&job(&[
        r#""mapreduce.map.speculative": NaN"#,
        r#""mapreduce.job.speculative.slowtaskthreshold": [Infinity]"#,
    ]));
    let setting = setting.expect("a setting");
    assert_eq!(
        (setting.map.enabled, setting.map.value.as_deref()),
        (None, Some("NaN"))
    );
    assert_eq!(
        setting.parameters["mapreduce.job.speculative.slowtaskthreshold"],
        "[Infinity]"
    );
    assert_eq!(
        skips,
        [skip(
            4,
            "mapreduce.map.speculative",
            "NaN is not a JSON number"
        )]
    );

    // Properties that are no object: a skip naming `jobProperties`, the log saying nothing.
    let (setting, skips) =
        read("{\"jobID\": \"job_1_0001\",\n\"jobProperties\": [\"mapreduce.map.speculative\"]}\n");
    assert_eq!(setting, None);
    assert_eq!(skips, [skip(2, "jobProperties", "field of the wrong type")]);

    // A key written twice: the last stands, as Jackson reads it; the first is a skip.
    let (setting, skips) = read(&job(&[
        r#""mapreduce.map.speculative": "true""#,
        r#""mapreduce.map.speculative": "false""#,
    ]));
    assert_eq!(setting.expect("a setting").map.enabled, Some(false));
    assert_eq!(
        skips,
        [skip(4, "mapreduce.map.speculative", "duplicate key")]
    );

    // Both names of a switch, read differently: not known, the Hadoop 1 name a skip.
    let (setting, skips) = read(&job(&[
        r#""mapreduce.map.speculative": "false""#,
        r#""mapred.map.tasks.speculative.execution": "true""#,
    ]));
    let setting = setting.expect("a setting");
    assert_eq!(
        (setting.map.enabled, setting.map.source),
        (None, SettingSource::Conflicting)
    );
    assert_eq!(
        setting.parameters["mapred.map.tasks.speculative.execution"],
        "true"
    );
    assert_eq!(
        skips,
        [skip(
            5,
            "mapred.map.tasks.speculative.execution",
            "contradicts its Hadoop 2 name"
        )]
    );

    // No `jobProperties` (or `null`): the log does not say.
    let (setting, _) = read("{\"jobID\": \"job_1_0001\", \"mapTasks\": []}\n");
    assert_eq!(setting, None);
    let (setting, skips) = read("{\"jobID\": \"job_1_0001\", \"jobProperties\": null}\n");
    assert_eq!(setting, None);
    assert!(skips.is_empty());
}

#[test]
fn jhist_progress_splits_are_rebuilt_as_hadoop_defines_them() {
    let base = shared_traces();
    let path = base.join("hadoop-jhist/job_1329348432655_0001-10.jhist");
    let (jobs, _) = read(&path, JHIST);
    // attempt_1329348432655_0001_m_000005_0: started 1329348450580, finished 1329348461951
    // (11.371 s); clockSplits [8691, 129, 128, 129, 128, 129, 128, 129, 128, 129, 128, 129]
    // sum 10105 ms: 1/12 at 8.691 s (the launch and first report in the first split), 1
    // at 10.105 s (the last report), then flat until the end at 11.371 s.
    let attempt = attempts(&jobs)
        .find(|a| a.id == "attempt_1329348432655_0001_m_000005_0")
        .expect("attempt");
    assert_eq!(attempt.progress.len(), 14);
    // Epoch seconds in f64 carry about 2e-7 s of rounding.
    assert!((attempt.progress[1].0 - 8.691).abs() < 1e-6);
    assert!((attempt.progress[12].0 - 10.105).abs() < 1e-6);
    assert!((attempt.progress[13].0 - 11.371).abs() < 1e-6);
    assert!((attempt.progress[1].1 - 1.0 / 12.0).abs() < 1e-12);
    let (end, full) = attempt.progress[13];
    assert!((end - 11.371).abs() < 1e-6);
    assert_eq!(full, 1.0);
    assert_eq!(attempt.speculative, None, "this 2012 log has no avataar");
}

#[test]
fn bad_lines_are_counted_with_their_line_and_never_dropped() {
    let log = concat!(
        "{\"Event\":\"SparkListenerApplicationStart\",\"App ID\":\"app-1\"}\n",
        "not json at all\n",
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}\n",
        "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"Task Info\":{\"Task ID\":1}}\n",
        "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"Stage Attempt ID\":0,",
        "\"Task Info\":{\"Task ID\":2,\"Index\":0,\"Launch Time\":1000,\"Host\":\"h\",",
        "\"Speculative\":false}}\n",
        "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":7,\"Task Info\":{\"Task ID\":3,",
        "\"Index\":0,\"Launch Time\":1000}}\n",
        "\n",
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Task Type\":\"ResultTask\",",
        "\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":2,",
        "\"Index\":0,\"Launch Time\":1000,\"Finish Time\":3500}}\n",
        "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0}\n",
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Task Info\":{\"Task ",
    );
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(report.records_read, 9, "the blank line is no record");
    assert_eq!(report.records_parsed, 5);
    let lines = skipped_lines(&report);
    assert_eq!(
        lines,
        [
            (2, "malformed JSON"),
            (4, "missing field"),
            (6, "stage of no open job"),
            (10, "truncated record"),
        ]
    );
    assert_eq!(report.skips[1].field.as_deref(), Some("Index"));
    assert_eq!(report.truncated.as_ref().map(|t| t.line), Some(10));
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].id, "app-1/job 0");
    let attempt = &jobs[0].tasks[0].attempts[0];
    assert_eq!((attempt.start_secs, attempt.end_secs), (1.0, Some(3.5)));
}

/// Records whose times or statuses cannot be true are skipped, with their line, field and
/// reason, before they open anything: an end without a start opens no task, nor, after its
/// job closed, a second job; an end before its start keeps nothing of the record, an unknown
/// status is not guessed.
#[test]
fn impossible_records_are_skipped_whole_and_leave_nothing_behind() {
    let hadoop1 = concat!(
        "Job JOBID=\"job_1_0001\" JOBNAME=\"j\" SUBMIT_TIME=\"1000\" .\n",
        "Task TASKID=\"task_1_0001_m_000000\" TASK_TYPE=\"MAP\" START_TIME=\"1000\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" START_TIME=\"2000\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" TASK_STATUS=\"SUCEESS\" ",
        "FINISH_TIME=\"3000\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" TASK_STATUS=\"SUCCESS\" ",
        "FINISH_TIME=\"1500\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" TASK_STATUS=\"SUCCESS\" ",
        "FINISH_TIME=\"4000\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000002\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000002_0\" TASK_STATUS=\"KILLED\" ",
        "FINISH_TIME=\"4500\" .\n",
        "Job JOBID=\"job_1_0001\" FINISH_TIME=\"5000\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000001\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000001_0\" TASK_STATUS=\"KILLED\" ",
        "FINISH_TIME=\"6000\" .\n",
    );
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    let skips: Vec<(u64, &str, Option<&str>)> = report
        .skips
        .iter()
        .map(|s| (s.line, s.reason.as_str(), s.field.as_deref()))
        .collect();
    assert_eq!(
        skips,
        [
            (4, "unknown status", Some("TASK_STATUS")),
            (5, "attempt ends before it starts", Some("FINISH_TIME")),
            (7, "attempt end without start", Some("START_TIME")),
            (9, "record of a job already ended", Some("TASKID")),
        ]
    );
    assert_eq!(jobs.len(), 1, "no job opened by the skipped end");
    assert_eq!(jobs[0].tasks.len(), 1);
    assert_eq!(jobs[0].tasks[0].attempts[0].end_secs, Some(4.0));

    // Alibaba: `ins_5` under two tasks is two attempts; an instance that ended without an
    // end time, or before its start, is skipped.
    let alibaba = concat!(
        "ins_5,M1,j_1,1,Terminated,100,110,m_1,1,1,,,,\n",
        "ins_5,R2_1,j_1,1,Terminated,120,130,m_2,1,1,,,,\n",
        "ins_6,M1,j_1,1,Terminated,100,,m_1,1,1,,,,\n",
        "ins_7,M1,j_1,1,Failed,100,90,m_1,1,1,,,,\n",
    );
    let (jobs, report) =
        read_bytes(alibaba.as_bytes(), TraceFormat::Alibaba2018BatchInstance).expect("readable");
    let reasons = skipped_lines(&report);
    assert_eq!(
        reasons,
        [(3, "missing field"), (4, "attempt ends before it starts")]
    );
    let times: Vec<(&str, f64, Option<f64>)> = jobs[0]
        .tasks
        .iter()
        .flat_map(|t| {
            t.attempts
                .iter()
                .map(move |a| (t.id.as_str(), a.start_secs, a.end_secs))
        })
        .collect();
    assert_eq!(
        times,
        [
            ("M1/ins_5", 100.0, Some(110.0)),
            ("R2_1/ins_5", 120.0, Some(130.0))
        ]
    );

    // Google: a negative timestamp is skipped.
    let google = "-5,,1,0,,1,u,2,9,0.1,0.1,0.1,0\n";
    let (_, report) =
        read_bytes(google.as_bytes(), TraceFormat::Google2011TaskEvents).expect("readable");
    assert_eq!(report.skip_reasons["negative time"], 1);

    // Spark: a task that finishes before its launch.
    let spark = concat!(
        "{\"Event\":\"SparkListenerApplicationStart\",\"App ID\":\"app-1\"}\n",
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}\n",
        "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Task Type\":\"ResultTask\",",
        "\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":2,",
        "\"Index\":0,\"Launch Time\":3000,\"Finish Time\":1000}}\n",
    );
    let (jobs, report) = read_bytes(spark.as_bytes(), SPARK).expect("readable");
    assert_eq!(report.skips[0].reason, "attempt ends before it starts");
    assert_eq!(report.skips[0].field.as_deref(), Some("Finish Time"));
    assert!(jobs.iter().all(|j| j.tasks.is_empty()), "{jobs:?}");
}

/// The small Spark fixture, read from each of its encodings: 13 events, 1 job of 3 tasks,
/// 4 attempts (3 succeeded, 1 killed, 1 speculative).
#[test]
fn the_spark_fixture_reads_the_same_plain_gzip_zstd_and_rolling() {
    let dir = fixtures();
    let plain = read(&dir.join("spark-small.json"), SPARK);
    for other in [
        "spark-small.json.gz",
        "spark-small.json.zst",
        "spark-rolling/eventlog_v2_app-20260101000000-0001",
    ] {
        let (mut jobs, report) = read(&dir.join(other), SPARK);
        if other.starts_with("spark-rolling") {
            // The lines of a rolling log are numbered in each of its files.
            let plain_lines: Vec<u64> = attempts(&plain.0).map(|a| a.line).collect();
            for (attempt, line) in jobs
                .iter_mut()
                .flat_map(|j| j.tasks.iter_mut().flat_map(|t| t.attempts.iter_mut()))
                .zip(plain_lines)
            {
                attempt.line = line;
            }
        }
        assert_eq!(jobs, plain.0, "{other}");
        assert_eq!(report.records_read, plain.1.records_read, "{other}");
    }
    let (jobs, report) = plain;
    check_counts(&jobs, &report, [1, 3, 4, 3, 1, 0, 0, 1], 13, 0);
    let job = &jobs[0];
    assert_eq!(job.id, "app-20260101000000-0001/job 0");
    assert_eq!(job.name.as_deref(), Some("collect at fixture:2"));
    assert_eq!(job.submit_secs, Some(1_767_225_601.0));
    let inputs: Vec<(&str, StageKind, Option<u64>, Option<u64>)> = job
        .tasks
        .iter()
        .map(|t| (t.id.as_str(), t.kind, t.input_bytes, t.input_records))
        .collect();
    assert_eq!(
        inputs,
        [
            ("0.0:0", StageKind::Map, Some(1000), Some(10)),
            ("0.0:1", StageKind::Map, Some(1200), Some(12)),
            ("1.0:0", StageKind::Reduce, Some(500), Some(22)),
        ]
    );
    let raced = &job.tasks[1].attempts;
    assert_eq!(raced[0].outcome, AttemptOutcome::Killed);
    assert_eq!(raced[1].speculative, Some(true));
    assert_eq!(raced[1].outcome, AttemptOutcome::Succeeded);
    match read_path(&dir.join("spark-small.json.lz4")) {
        Err(error @ TraceError::Unsupported { .. }) => assert!(error.to_string().contains("LZ4")),
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

/// A rolling event log whose first file is cut in its last line: the cut event is skipped
/// as truncated, the cut naming the file (`Truncation::file`), and the second file is read
/// all the same.
#[test]
fn a_cut_file_of_a_rolling_log_does_not_hide_the_next_ones() {
    let fixture = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    let dir = std::env::temp_dir().join(format!(
        "stragglers-rolling-cut-{}/eventlog_v2_app-20260101000000-0001",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    for entry in std::fs::read_dir(&fixture).expect("the fixture") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().expect("a name").to_owned();
        let mut bytes = std::fs::read(&path).expect("readable");
        if name.to_string_lossy().starts_with("events_1_") {
            // Drop the last line's second half and its newline.
            let last = bytes[..bytes.len() - 1]
                .iter()
                .rposition(|&b| b == b'\n')
                .expect("several lines");
            bytes.truncate(last + 1 + (bytes.len() - last) / 2);
        }
        std::fs::write(dir.join(name), bytes).expect("writable");
    }
    let (whole_jobs, whole) = read(&fixture, SPARK);
    let (jobs, report) = read(&dir, SPARK);
    // The second file cut too: the first cut is still the one reported.
    let second = std::fs::read_dir(&dir)
        .expect("the copy")
        .map(|e| e.expect("an entry").path())
        .find(|p| p.to_string_lossy().contains("events_2_"))
        .expect("a second file");
    let bytes = std::fs::read(&second).expect("readable");
    std::fs::write(&second, &bytes[..bytes.len() / 2]).expect("writable");
    let (_, both_cut) = read(&dir, SPARK);
    std::fs::remove_dir_all(dir.parent().expect("a parent")).expect("removable");
    let first = "events_1_app-20260101000000-0001";
    let both_cut = both_cut.truncated.expect("a cut noted");
    assert_eq!((both_cut.file.as_deref(), both_cut.line), (Some(first), 6));
    assert_eq!(report.records_read, whole.records_read);
    assert_eq!(report.records_skipped, 1);
    assert_eq!(report.skips[0].reason, "truncated record");
    let cut = report.truncated.expect("a cut noted");
    assert_eq!((cut.file.as_deref(), cut.line), (Some(first), 6));
    assert_eq!(
        cut.note,
        "the input ends in the middle of the event on line 6"
    );
    // The events of the second file are there: the job ends, as in the whole log, with
    // one event fewer.
    assert_eq!(jobs.len(), whole_jobs.len());
}

/// Worked by hand from the fixture, line by line (see fixtures/traces/README.md): lines
/// 1–3 submit job 6251812952's tasks 0–2; 4–6 schedule them; 7 task 0 finishes (11 s);
/// 8 task 1 is evicted, 9 rescheduled, 12 finishes (40 s); 10 task 2 fails, 11 is
/// rescheduled and never ends; 13–15 job 6251999999 task 0 submitted, scheduled, killed;
/// 16 a second kill (skipped: already ended), 17 four fields, 18 event type 11.
#[test]
fn the_google_2011_fixture_is_read_as_counted_by_hand() {
    let (jobs, report) = read(
        &fixtures().join("google-2011-task_events.csv"),
        TraceFormat::Google2011TaskEvents,
    );
    check_counts(&jobs, &report, [2, 4, 6, 2, 2, 1, 1, 0], 18, 3);
    let reasons = skipped_lines(&report);
    assert_eq!(
        reasons,
        [
            (16, "end of a task already ended"),
            (17, "wrong number of fields"),
            (18, "unknown event type"),
        ]
    );
    let task1 = &jobs[0].tasks[1];
    assert_eq!(task1.id, "6251812952/1");
    assert_eq!(task1.attempts.len(), 2);
    assert_eq!(task1.attempts[0].outcome, AttemptOutcome::Killed);
    assert_eq!(task1.attempts[1].host.as_deref(), Some("1436333635"));
    assert_eq!(
        (task1.attempts[1].start_secs, task1.attempts[1].end_secs),
        (13.0, Some(40.0))
    );
}

/// Worked by hand: rows 1–4 are attempts of `j_1` (instance 1002 failed then rerun), row 5
/// never started (skipped), row 6 runs on in `j_2`, row 7 has an unknown status (skipped).
#[test]
fn the_alibaba_2018_fixture_is_read_as_counted_by_hand() {
    let (jobs, report) = read(
        &fixtures().join("alibaba-2018-batch_instance.csv"),
        TraceFormat::Alibaba2018BatchInstance,
    );
    check_counts(&jobs, &report, [2, 4, 5, 3, 0, 1, 1, 0], 7, 2);
    assert_eq!(report.skip_reasons["instance never started"], 1);
    assert_eq!(report.skip_reasons["unknown status"], 1);
    let rerun = &jobs[0].tasks[1];
    assert_eq!(rerun.id, "M1/ins_1002");
    assert_eq!(rerun.stage, "M1");
    let outcomes: Vec<AttemptOutcome> = rerun.attempts.iter().map(|a| a.outcome).collect();
    assert_eq!(
        outcomes,
        [AttemptOutcome::Failed, AttemptOutcome::Succeeded]
    );
    assert_eq!(jobs[0].tasks[2].kind, StageKind::Reduce);
}

fn check_counts(
    jobs: &[TraceJob],
    report: &ReadReport,
    expected: [usize; 8],
    read_n: u64,
    skipped: u64,
) {
    let [
        jobs_n,
        tasks,
        attempts,
        succeeded,
        killed,
        failed,
        unfinished,
        speculative,
    ] = expected;
    let expected = Counts {
        jobs: jobs_n,
        tasks,
        attempts,
        succeeded,
        killed,
        failed,
        unfinished,
        speculative,
        read: read_n,
        skipped,
    };
    assert_eq!(counts(jobs, report), expected);
}

const ALL_FORMATS: [TraceFormat; 7] = [
    TraceFormat::SparkEventLog,
    TraceFormat::HadoopJhist,
    TraceFormat::Hadoop1History,
    TraceFormat::Rumen,
    TraceFormat::Google2011TaskEvents,
    TraceFormat::Alibaba2018BatchInstance,
    TraceFormat::HadoopConf,
];

/// Reads `bytes` in every format; an error is fine, a panic or a broken account is not.
fn read_anyhow(bytes: &[u8]) {
    let _ = straggler_trace::detect_bytes(bytes);
    for format in ALL_FORMATS {
        if let Ok((jobs, report)) = read_bytes(bytes, format) {
            assert_eq!(
                report.records_read,
                report.records_parsed + report.records_skipped
            );
            let kept = report.unusable_splits.len();
            assert!(kept as u64 <= report.unusable_splits_seen);
            assert!(kept <= ReadReport::MAX_UNUSABLE_SPLITS_KEPT);
            for attempt in attempts(&jobs) {
                assert!(
                    attempt
                        .progress
                        .iter()
                        .all(|&(_, p)| (0.0..=1.0).contains(&p))
                );
            }
        }
    }
}

/// Pieces of real records, so that random inputs go past the first checks of each reader.
const FRAGMENTS: &[&str] = &[
    "Avro-Json\n",
    "{\"type\":\"record\"}\n",
    "{\"type\":\"MAP_ATTEMPT_STARTED\",\"event\":{\"x\":{\"taskid\":\"task_1_2_m_3\",\"taskType\":\"MAP\",\"attemptId\":\"attempt_1_2_m_3_0\",\"startTime\":5}}}\n",
    "{\"type\":\"MAP_ATTEMPT_FINISHED\",\"event\":{\"x\":{\"taskid\":\"task_1_2_m_3\",\"taskType\":\"MAP\",\"attemptId\":\"attempt_1_2_m_3_0\",\"finishTime\":9,\"clockSplits\":[1,2,-3]}}}\n",
    "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}\n",
    "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"Task Info\":{\"Task ID\":1,\"Index\":0,\"Launch Time\":1}}\n",
    "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Task Info\":{\"Task ID\":1,\"Index\":0,\"Finish Time\":2}}\n",
    "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0}\n",
    "Job JOBID=\"job_1_2\" SUBMIT_TIME=\"1\" .\n",
    "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_2_m_3\" TASK_ATTEMPT_ID=\"attempt_1_2_m_3_0\" START_TIME=\"4\" .\n",
    "MapAttempt TASKID=\"task_1_2_m_3\" TASK_ATTEMPT_ID=\"attempt_1_2_m_3_0\" TASK_STATUS=\"KILLED\" FINISH_TIME=\"7\" COUNTERS=\"[(HDFS_BYTES_READ)(\" .\n",
    "!!FILE=x_conf.xml!!\n",
    "{ \"jobID\" : \"job_1\", \"mapTasks\" : [ { \"attempts\" : [ { \"startTime\" : -1 } ] } ] }\n",
    "{ \"jobID\" : \"job_2\", \"x\" : NaN, \"mapTasks\" : [ { \"taskType\" : \"MAP\", \"attempts\" : [ { \"startTime\" : Infinity }, { \"startTime\" : 5, \"finishTime\" : -Infinity, \"hostName\" : \"NaN\\\"\" } ] } ] }\n",
    "0,,1,0,m,1,u,0,0,0,0,0,0\n",
    "1,,1,0,m,4,u,0,0,0,0,0,0\n",
    "i,M1,j,1,Terminated,5,9,m,1,1,0,0,0,0\n",
    "\"\\",
    "{[",
    "}]",
    " .\n",
    "\n",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    #[test]
    fn readers_never_panic_on_arbitrary_bytes(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2048)) {
        read_anyhow(&bytes);
    }

    #[test]
    fn readers_never_panic_on_shuffled_record_pieces(
        pieces in proptest::collection::vec((0..FRAGMENTS.len(), 0usize..200), 0..40)
    ) {
        let mut bytes = Vec::new();
        for (index, cut) in pieces {
            let piece = FRAGMENTS[index].as_bytes();
            // Sometimes a piece is cut short, as in a truncated file.
            bytes.extend_from_slice(&piece[..piece.len().min(cut.max(1))]);
        }
        read_anyhow(&bytes);
    }

    #[test]
    fn readers_never_panic_on_broken_compressed_streams(
        magic in 0usize..2,
        tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512),
    ) {
        let mut bytes = if magic == 0 { vec![0x1f, 0x8b, 8, 0] } else { vec![0x28, 0xb5, 0x2f, 0xfd] };
        bytes.extend_from_slice(&tail);
        read_anyhow(&bytes);
    }
}

#[test]
fn a_cut_compressed_log_yields_what_it_holds() {
    let bytes = std::fs::read(fixtures().join("spark-small.json.gz")).expect("fixture");
    let cut = &bytes[..bytes.len() * 2 / 3];
    let (_, report) = read_bytes(cut, SPARK).expect("readable start");
    assert!(report.truncated.is_some(), "{report:?}");
    assert!(report.records_read > 0);
    let bytes = std::fs::read(fixtures().join("spark-small.json.zst")).expect("fixture");
    let cut = &bytes[..bytes.len() * 2 / 3];
    let (_, report) = read_bytes(cut, SPARK).expect("readable start");
    assert!(report.truncated.is_some(), "{report:?}");
    // Written by `zstd` in one frame whose window spans it, the cut file decodes to
    // nothing: detection says so, rather than "not a trace format".
    let path = std::env::temp_dir().join(format!("stragglers-cut-{}.zst", std::process::id()));
    std::fs::write(&path, cut).expect("writable");
    let result = read_path(&path);
    std::fs::remove_file(&path).expect("removable");
    match result {
        Err(error @ TraceError::Io { .. }) => {
            assert!(error.to_string().contains("cut or damaged"), "{error}");
        }
        other => panic!("expected an Io error, got {other:?}"),
    }
}

/// A gzip stream cut in the middle of a line counts the same records as the text it
/// decompresses to: the cut line is a record, skipped as truncated, not lost.
#[test]
fn a_cut_gzip_log_counts_the_line_it_cuts() {
    use std::io::Read;
    let base = shared_traces();
    let path = base.join("hadoop-rumen-testdata/small-trace-test/sample-job-tracker-logs.gz");
    let bytes = std::fs::read(path).expect("readable");
    let cut = &bytes[..2000];
    let (_, from_gzip) = read_bytes(cut, HADOOP1).expect("readable start");
    let mut text = Vec::new();
    // The decoder fails at the cut, leaving what it decoded before it.
    let _ = flate2::read::MultiGzDecoder::new(cut).read_to_end(&mut text);
    let (_, from_text) = read_bytes(&text, HADOOP1).expect("readable");
    assert_eq!(from_gzip.records_read, from_text.records_read);
    assert_eq!(from_gzip.skip_reasons, from_text.skip_reasons);
    assert_eq!(from_gzip.skip_reasons["truncated record"], 1);
}

/// The line, reason and field of each skip kept by `report`.
fn skips_with_fields(report: &ReadReport) -> Vec<(u64, &str, Option<&str>)> {
    report
        .skips
        .iter()
        .map(|s| (s.line, s.reason.as_str(), s.field.as_deref()))
        .collect()
}

/// Each job of `jobs` as `(id, name, submit time)`.
fn submissions(jobs: &[TraceJob]) -> Vec<(&str, Option<&str>, Option<f64>)> {
    jobs.iter()
        .map(|j| (j.id.as_str(), j.name.as_deref(), j.submit_secs))
        .collect()
}

/// Each attempt of `jobs` as `(task, attempt, start, end, outcome)`.
fn attempt_rows(jobs: &[TraceJob]) -> Vec<(&str, &str, f64, Option<f64>, AttemptOutcome)> {
    jobs.iter()
        .flat_map(|j| &j.tasks)
        .flat_map(|t| {
            t.attempts.iter().map(move |a| {
                (
                    t.id.as_str(),
                    a.id.as_str(),
                    a.start_secs,
                    a.end_secs,
                    a.outcome,
                )
            })
        })
        .collect()
}

/// The one job of the tests of records after a job's end, as handed out at its end: job
/// `job_1_0001` named `n`, submitted at 1 s, its one map attempt run from 1 to 2 s.
fn assert_only_the_job_as_handed_out(jobs: &[TraceJob]) {
    assert_eq!(submissions(jobs), [("job_1_0001", Some("n"), Some(1.0))]);
    assert_eq!(
        attempt_rows(jobs),
        [(
            "task_1_0001_m_000000",
            "attempt_1_0001_m_000000_0",
            1.0,
            Some(2.0),
            AttemptOutcome::Succeeded
        )]
    );
}

/// The kind of each task of `jobs`.
fn task_kinds(jobs: &[TraceJob]) -> Vec<StageKind> {
    jobs.iter().flat_map(|j| &j.tasks).map(|t| t.kind).collect()
}

/// A Spark log of job 0 (stage 0) with `events` after its start, then its end.
fn spark_job(events: &[String]) -> String {
    let mut log = String::from(concat!(
        "{\"Event\":\"SparkListenerApplicationStart\",\"App ID\":\"app-1\"}\n",
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}\n",
    ));
    for event in events {
        log.push_str(event);
        log.push('\n');
    }
    log.push_str("{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0}\n");
    log
}

fn spark_start(task_id: u64, index: u64, launch_ms: u64) -> String {
    format!(
        "{{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"Task Info\":{{\"Task ID\":{task_id},\
         \"Index\":{index},\"Launch Time\":{launch_ms},\"Host\":\"h\"}}}}"
    )
}

fn spark_end(task_id: u64, index: u64, launch_ms: u64, finish_ms: u64, reason: &str) -> String {
    format!(
        "{{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Task Type\":\"ResultTask\",\
         \"Task End Reason\":{{\"Reason\":\"{reason}\"}},\"Task Info\":{{\"Task ID\":{task_id},\
         \"Index\":{index},\"Launch Time\":{launch_ms},\"Finish Time\":{finish_ms}}}}}"
    )
}

/// A Spark record that repeats or contradicts one applied before is skipped, named, and
/// changes nothing (the repros of the fuzzing audit): `Task ID` 1 reused for `Index` 1, a
/// second start after the end, a second end.
#[test]
fn spark_attempt_records_that_repeat_or_contradict_are_skipped() {
    // Lines 3-4: Task ID 1 of index 0 runs 2 s → 5 s; 5-6: Task ID 1 again, for index 1.
    let log = spark_job(&[
        spark_start(1, 0, 2000),
        spark_end(1, 0, 2000, 5000, "Success"),
        spark_start(1, 1, 2000),
        spark_end(1, 1, 2000, 9000, "Success"),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (5, "attempt id of another task", Some("Task ID")),
            (6, "attempt id of another task", Some("Task ID")),
        ]
    );
    assert_eq!(
        attempt_rows(&jobs),
        [("0.0:0", "1", 2.0, Some(5.0), AttemptOutcome::Succeeded)],
        "no task opened by the skipped records"
    );

    // Line 5: Task ID 1 starts again at 8 s, after its end at 5 s.
    let log = spark_job(&[
        spark_start(1, 0, 2000),
        spark_end(1, 0, 2000, 5000, "Success"),
        spark_start(1, 0, 8000),
        spark_start(2, 1, 2000),
        spark_end(2, 1, 2000, 5000, "Success"),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(5, "attempt started after its end", Some("Launch Time"))]
    );
    assert_eq!(
        attempt_rows(&jobs),
        [
            ("0.0:0", "1", 2.0, Some(5.0), AttemptOutcome::Succeeded),
            ("0.0:1", "2", 2.0, Some(5.0), AttemptOutcome::Succeeded),
        ]
    );

    // Line 4: a second start at another time; line 7: a second success (the first
    // stands). A start at the recorded time (line 5) and a failure after the success (line
    // 8) restate the attempt, as a `Resubmitted` end (line 9) does: parsed, and change
    // nothing.
    let log = spark_job(&[
        spark_start(1, 0, 2000),
        spark_start(1, 0, 3000),
        spark_start(1, 0, 2000),
        spark_end(1, 0, 2000, 5000, "Success"),
        spark_end(1, 0, 2000, 6000, "Success"),
        spark_end(1, 0, 2000, 6500, "ExceptionFailure"),
        spark_end(1, 0, 2000, 7000, "Resubmitted"),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (4, "attempt started twice", Some("Launch Time")),
            (7, "attempt ended twice", Some("Finish Time")),
        ]
    );
    assert_eq!(report.records_parsed, 8);
    assert_eq!(
        attempt_rows(&jobs),
        [("0.0:0", "1", 2.0, Some(5.0), AttemptOutcome::Succeeded)]
    );
    // The failure after the success revoked it.
    assert!(jobs[0].tasks[0].attempts[0].revoked);

    // Spark revokes a success with a `Resubmitted` end alone (its map output lost with its
    // executor); a success without one stands.
    let log = spark_job(&[
        spark_start(1, 0, 2000),
        spark_end(1, 0, 2000, 5000, "Success"),
        spark_start(2, 1, 2000),
        spark_end(2, 1, 2000, 5000, "Success"),
        spark_end(1, 0, 2000, 5000, "Resubmitted"),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(report.records_skipped, 0);
    let revoked: Vec<bool> = jobs[0]
        .tasks
        .iter()
        .map(|task| task.attempts[0].revoked)
        .collect();
    assert_eq!(revoked, [true, false]);

    // A `Resubmitted` end of an attempt never seen opens no task.
    let log = spark_job(&[spark_end(7, 3, 2000, 7000, "Resubmitted")]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(report.records_skipped, 0);
    assert!(jobs.iter().all(|job| job.tasks.is_empty()), "{jobs:?}");
}

/// The same in `.jhist` and Hadoop 1 logs: an attempt id reused by another task, and a
/// start after the end (which left an attempt running 8 s → 5 s before).
#[test]
fn hadoop_attempt_records_that_repeat_or_contradict_are_skipped() {
    let header = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n";
    let started = |task: &str, start_ms: u64| {
        format!(
            "{{\"type\":\"MAP_ATTEMPT_STARTED\",\"event\":{{\"e\":{{\"taskid\":\"task_1_0001_m_00000{task}\",\
             \"taskType\":\"MAP\",\"attemptId\":\"attempt_1_0001_m_000000_0\",\"startTime\":{start_ms}}}}}}}\n"
        )
    };
    let finished = |task: &str, finish_ms: u64| {
        format!(
            "{{\"type\":\"MAP_ATTEMPT_FINISHED\",\"event\":{{\"e\":{{\"taskid\":\"task_1_0001_m_00000{task}\",\
             \"taskType\":\"MAP\",\"attemptId\":\"attempt_1_0001_m_000000_0\",\"finishTime\":{finish_ms}}}}}}}\n"
        )
    };
    // Lines 9-10: the failure MRv2 writes after too many fetch failures of a map that
    // succeeded, and a start at the recorded time, restate the attempt: parsed, no change.
    let failed = finished("0", 9500).replace("MAP_ATTEMPT_FINISHED", "MAP_ATTEMPT_FAILED");
    let jhist = [
        header.to_owned(),
        started("0", 2000),
        finished("0", 5000),
        started("1", 2000),
        finished("1", 9000),
        started("0", 8000),
        finished("0", 9000),
        failed,
        started("0", 2000),
    ]
    .concat();
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (5, "attempt id of another task", Some("attemptId")),
            (6, "attempt id of another task", Some("attemptId")),
            (7, "attempt started after its end", Some("startTime")),
            (8, "attempt ended twice", Some("finishTime")),
        ]
    );
    assert_eq!(
        report.records_parsed, 6,
        "the two header lines, lines 3-4, 9-10"
    );
    assert_eq!(
        attempt_rows(&jobs),
        [(
            "task_1_0001_m_000000",
            "attempt_1_0001_m_000000_0",
            2.0,
            Some(5.0),
            AttemptOutcome::Succeeded
        )]
    );
    assert!(jobs[0].tasks[0].attempts[0].revoked);

    let attempt = |task: &str, times: &str| {
        format!(
            "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_00000{task}\" \
             TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" {times} .\n"
        )
    };
    let hadoop1 = [
        "Job JOBID=\"job_1_0001\" JOBNAME=\"x\" SUBMIT_TIME=\"1000\" .\n".to_owned(),
        attempt("0", "START_TIME=\"2000\""),
        attempt("0", "TASK_STATUS=\"SUCCESS\" FINISH_TIME=\"5000\""),
        attempt("1", "START_TIME=\"2000\""),
        attempt("1", "TASK_STATUS=\"SUCCESS\" FINISH_TIME=\"9000\""),
        attempt("0", "START_TIME=\"8000\""),
        attempt("0", "TASK_STATUS=\"SUCCESS\" FINISH_TIME=\"9000\""),
        // A map's output lost after its success (`JobInProgress.failedTask`): its start
        // written again at the recorded time, then a kill; both restate it.
        attempt("0", "START_TIME=\"2000\""),
        attempt("0", "TASK_STATUS=\"KILLED\" FINISH_TIME=\"9500\""),
    ]
    .concat();
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (4, "attempt id of another task", Some("TASK_ATTEMPT_ID")),
            (5, "attempt id of another task", Some("TASK_ATTEMPT_ID")),
            (6, "attempt started after its end", Some("START_TIME")),
            (7, "attempt ended twice", Some("FINISH_TIME")),
        ]
    );
    assert_eq!(report.records_parsed, 5);
    assert_eq!(
        attempt_rows(&jobs),
        [(
            "task_1_0001_m_000000",
            "attempt_1_0001_m_000000_0",
            2.0,
            Some(5.0),
            AttemptOutcome::Succeeded
        )]
    );
    assert!(jobs[0].tasks[0].attempts[0].revoked);
}

/// Alibaba rows of one attempt (task, instance, `seq_no`) are its status rows: a row
/// restating the start of an attempt still unfinished is parsed, and ends it if it is
/// finished; a row of an attempt already finished, or giving it another start, is skipped.
#[test]
fn alibaba_status_rows_of_one_attempt_apply_in_order_and_contradictions_are_skipped() {
    let alibaba = concat!(
        // ins_1: Running, Running again, then Terminated: one attempt 100 → 200.
        "ins_1,M1,j_1,1,Running,100,0,m_1,1,1,,,,\n",
        "ins_1,M1,j_1,1,Running,100,0,m_1,1,1,,,,\n",
        "ins_1,M1,j_1,1,Terminated,100,200,m_1,1,1,,,,\n",
        // Line 4: a second end (the fuzzing audit's duplicate seq_no); line 5: a Running
        // row after the end, its start 500 past the end.
        "ins_1,M1,j_1,1,Terminated,150,300,m_1,1,1,,,,\n",
        "ins_1,M1,j_1,1,Running,500,0,m_1,1,1,,,,\n",
        // ins_2: Running from 100, then a row starting it at 120.
        "ins_2,M1,j_1,1,Running,100,0,m_1,1,1,,,,\n",
        "ins_2,M1,j_1,1,Failed,120,130,m_1,1,1,,,,\n",
    );
    let (jobs, report) =
        read_bytes(alibaba.as_bytes(), TraceFormat::Alibaba2018BatchInstance).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (4, "attempt ended twice", Some("end_time")),
            (5, "attempt started after its end", Some("start_time")),
            (7, "attempt started twice", Some("start_time")),
        ]
    );
    assert_eq!(report.records_parsed, 4);
    assert_eq!(
        attempt_rows(&jobs),
        [
            (
                "M1/ins_1",
                "M1/ins_1#1",
                100.0,
                Some(200.0),
                AttemptOutcome::Succeeded
            ),
            (
                "M1/ins_2",
                "M1/ins_2#1",
                100.0,
                None,
                AttemptOutcome::Unfinished
            ),
        ]
    );
}

/// Google: an end before its start is skipped and the attempt stays running, as if that
/// end were lost, so the valid end after it ends it.
#[test]
fn a_google_end_after_a_skipped_one_still_ends_the_attempt() {
    let google = concat!(
        "5000000,,1,0,m1,1,u,0,0,0.1,0.1,0,0\n",
        "1000000,,1,0,m1,4,u,0,0,0.1,0.1,0,0\n",
        "7000000,,1,0,m2,1,u,0,0,0.1,0.1,0,0\n",
        "9000000,,1,0,m1,4,u,0,0,0.1,0.1,0,0\n",
    );
    let (jobs, report) =
        read_bytes(google.as_bytes(), TraceFormat::Google2011TaskEvents).expect("readable");
    // Line 3, a second SCHEDULE while the attempt runs, is skipped: the first stands.
    assert_eq!(
        skips_with_fields(&report),
        [
            (2, "attempt ends before it starts", Some("timestamp")),
            (3, "attempt started twice", Some("event type")),
        ]
    );
    assert_eq!(
        attempt_rows(&jobs),
        [("1/0", "1/0#1", 5.0, Some(9.0), AttemptOutcome::Succeeded)]
    );
}

/// Google: an end of a task whose attempt has ended, no SCHEDULE since (a second FINISH, a
/// kill after an eviction), is skipped as `end of a task already ended`, not as `end of a
/// task not scheduled` (which it was before, though the task had been scheduled); the first
/// end stands. An end after an end "after the trace" is one too: that attempt has ended,
/// if after the trace.
#[test]
fn a_google_end_of_a_task_already_ended_is_its_own_skip() {
    let google = concat!(
        "1000000,,1,0,m1,1,u,0,0,0.1,0.1,0,0\n",
        "5000000,,1,0,m1,4,u,0,0,0.1,0.1,0,0\n",
        "6000000,,1,0,m1,4,u,0,0,0.1,0.1,0,0\n",
        "6000000,,1,0,m1,5,u,0,0,0.1,0.1,0,0\n",
        "7000000,,1,1,m1,5,u,0,0,0.1,0.1,0,0\n",
        "8000000,,1,2,m1,1,u,0,0,0.1,0.1,0,0\n",
        "9223372036854775807,,1,2,m1,4,u,0,0,0.1,0.1,0,0\n",
        "9000000,,1,2,m1,3,u,0,0,0.1,0.1,0,0\n",
    );
    let (jobs, report) =
        read_bytes(google.as_bytes(), TraceFormat::Google2011TaskEvents).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "end of a task already ended", Some("event type")),
            (4, "end of a task already ended", Some("event type")),
            (5, "end of a task not scheduled", Some("event type")),
            (8, "end of a task already ended", Some("event type")),
        ]
    );
    assert_eq!(
        attempt_rows(&jobs),
        [
            ("1/0", "1/0#1", 1.0, Some(5.0), AttemptOutcome::Succeeded),
            ("1/2", "1/2#1", 8.0, None, AttemptOutcome::Unfinished),
        ]
    );
}

/// A time no trace can hold (`i64::MAX` ms, a Google SCHEDULE "after the trace") is
/// skipped with its line and field, rather than read and left to abort a replay.
#[test]
fn implausible_times_are_skipped_with_their_line_and_field() {
    let jhist = concat!(
        "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n",
        "{\"type\":\"MAP_ATTEMPT_STARTED\",\"event\":{\"e\":{\"taskid\":\"task_1_0001_m_000000\",",
        "\"taskType\":\"MAP\",\"attemptId\":\"attempt_1_0001_m_000000_0\",\"startTime\":0}}}\n",
        "{\"type\":\"MAP_ATTEMPT_FINISHED\",\"event\":{\"e\":{\"taskid\":\"task_1_0001_m_000000\",",
        "\"taskType\":\"MAP\",\"attemptId\":\"attempt_1_0001_m_000000_0\",",
        "\"finishTime\":9223372036854775807}}}\n",
    );
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(4, "implausible time", Some("finishTime"))]
    );
    assert_eq!(attempts(&jobs).next().map(|a| a.end_secs), Some(None));
    // Past `i64` too (it was a field of the wrong type).
    let past = jhist.replace("9223372036854775807", "18446744073709551615");
    let (_, report) = read_bytes(past.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(4, "implausible time", Some("finishTime"))]
    );

    let alibaba = "ins_1,M1,j_1,1,Terminated,100,9223372036854775807,m_1,1,1,,,,\n";
    let (_, report) =
        read_bytes(alibaba.as_bytes(), TraceFormat::Alibaba2018BatchInstance).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(1, "implausible time", Some("end_time"))]
    );

    // The end "after the trace" leaves the attempt unfinished, as the schema says; a
    // SCHEDULE then cannot be replayed, nor a time beyond 10^10 s.
    let google = concat!(
        "5000000,,1,0,m1,1,u,0,0,0.1,0.1,0,0\n",
        "9223372036854775807,,1,0,m1,4,u,0,0,0.1,0.1,0,0\n",
        "9223372036854775807,,1,1,m1,1,u,0,0,0.1,0.1,0,0\n",
        "90000000000000000,,1,2,m1,1,u,0,0,0.1,0.1,0,0\n",
    );
    let (jobs, report) =
        read_bytes(google.as_bytes(), TraceFormat::Google2011TaskEvents).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "scheduled after the trace", Some("timestamp")),
            (4, "implausible time", Some("timestamp")),
        ]
    );
    assert_eq!(
        attempt_rows(&jobs),
        [("1/0", "1/0#1", 5.0, None, AttemptOutcome::Unfinished)]
    );

    let spark = spark_job(&[spark_start(1, 0, u64::MAX)]);
    let (_, report) = read_bytes(spark.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(3, "implausible time", Some("Launch Time"))]
    );
    let rumen = concat!(
        "{\"jobID\": \"job_1\", \"mapTasks\": [{\"taskID\": \"t0\", \"taskType\": \"MAP\",\n",
        " \"attempts\": [{\"attemptID\": \"a0\", \"startTime\": 1000,\n",
        " \"finishTime\": 9223372036854775807, \"result\": \"SUCCESS\"}]}]}\n",
    );
    let (_, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    // At the line that writes the time, not the job's first.
    assert_eq!(
        skips_with_fields(&report),
        [(3, "implausible time", Some("finishTime"))]
    );
}

/// A negative attempt time is skipped with its line and field (before, a jhist or Hadoop 1
/// start of -1 made an attempt of 42 years, and a straggler of it), as a Google one was.
#[test]
fn negative_times_are_skipped_with_their_line_and_field() {
    let header = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n";
    let jhist = format!(
        "{header}{{\"type\":\"MAP_ATTEMPT_STARTED\",\"event\":{{\"e\":{{\"taskid\":\"task_1_0001_m_000000\",\
         \"taskType\":\"MAP\",\"attemptId\":\"attempt_1_0001_m_000000_0\",\"startTime\":-1}}}}}}\n"
    );
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(3, "negative time", Some("startTime"))]
    );
    assert_eq!(attempts(&jobs).count(), 0);

    let hadoop1 = concat!(
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" START_TIME=\"-1\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000001\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000001_0\" START_TIME=\"2000\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000001\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000001_0\" TASK_STATUS=\"SUCCESS\" FINISH_TIME=\"-5\" .\n",
    );
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (1, "negative time", Some("START_TIME")),
            (3, "negative time", Some("FINISH_TIME")),
        ]
    );
    assert_eq!(attempts(&jobs).count(), 1);

    // Alibaba: 0 is "not started" (its schema), below 0 is a damaged time.
    let alibaba = concat!(
        "ins_1,M1,j_1,1,Terminated,-100,200,m_1,1,1,,,,\n",
        "ins_2,M1,j_1,1,Terminated,100,-400,m_1,1,1,,,,\n",
        "ins_3,M1,j_1,1,Terminated,0,200,m_1,1,1,,,,\n",
    );
    let (_, report) =
        read_bytes(alibaba.as_bytes(), TraceFormat::Alibaba2018BatchInstance).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (1, "negative time", Some("start_time")),
            (2, "negative time", Some("end_time")),
            (3, "instance never started", Some("start_time")),
        ]
    );
}

/// A `.jhist` `submitTime` of the wrong type, negative or implausible skips its
/// `JOB_SUBMITTED` event, as such an attempt time does (before, the job was read without a
/// submit time and the event counted as parsed); one absent or `null` leaves it unknown.
#[test]
fn jhist_submit_times_that_cannot_be_read_are_skipped() {
    let header = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n";
    let submitted = |job: u32, submit: &str| {
        format!(
            "{{\"type\":\"JOB_SUBMITTED\",\"event\":{{\"e\":{{\"jobid\":\"job_1_000{job}\"{submit}}}}}}}\n"
        )
    };
    let jhist = [
        header.to_owned(),
        submitted(1, ",\"submitTime\":\"1000\""),
        submitted(2, ",\"submitTime\":1.5"),
        submitted(3, ",\"submitTime\":-1000"),
        submitted(4, ",\"submitTime\":9223372036854775807"),
        submitted(5, ",\"submitTime\":{\"long\":5000}"),
        submitted(6, ",\"submitTime\":null"),
        submitted(7, ""),
    ]
    .concat();
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "field of the wrong type", Some("submitTime")),
            (4, "field of the wrong type", Some("submitTime")),
            (5, "negative time", Some("submitTime")),
            (6, "implausible time", Some("submitTime")),
        ]
    );
    let submits: Vec<_> = jobs
        .iter()
        .map(|j| (j.id.as_str(), j.submit_secs))
        .collect();
    assert_eq!(
        submits,
        [
            ("job_1_0005", Some(5.0)),
            ("job_1_0006", None),
            ("job_1_0007", None)
        ]
    );
}

/// A `.jhist` `JOB_SUBMITTED` of a job already submitted keeps the first event's name and
/// submit time: one that restates them (as the application master of a later attempt
/// writes it), or says nothing of them, is parsed; one that gives another is skipped as
/// `contradicts the job's submission`, naming the field. A value the first event left
/// unknown is taken from a later one. Before, each later event replaced the job's name and
/// submit time, `None` for one it did not write, without a word.
#[test]
fn a_repeated_jhist_job_submitted_keeps_the_first_name_and_submit_time() {
    let header = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n";
    let event = |kind: &str, body: &str| {
        format!("{{\"type\":\"{kind}\",\"event\":{{\"e\":{{{body}}}}}}}\n")
    };
    let submitted = |job: u32, rest: &str| {
        event(
            "JOB_SUBMITTED",
            &format!("\"jobid\":\"job_1_000{job}\"{rest}"),
        )
    };
    let jhist = [
        header.to_owned(),
        submitted(1, ",\"jobName\":\"n\",\"submitTime\":1000"),
        submitted(1, ",\"jobName\":{\"string\":\"n\"},\"submitTime\":1000"),
        submitted(1, ""),
        submitted(1, ",\"jobName\":\"m\",\"submitTime\":1000"),
        submitted(1, ",\"jobName\":\"n\",\"submitTime\":2000"),
        event("JOB_FINISHED", "\"jobid\":\"job_1_0001\""),
        // Line 9 gives no submit time: line 10 does.
        submitted(2, ",\"jobName\":\"k\""),
        submitted(2, ",\"jobName\":\"k\",\"submitTime\":3000"),
        event("JOB_FINISHED", "\"jobid\":\"job_1_0002\""),
    ]
    .concat();
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (6, "contradicts the job's submission", Some("jobName")),
            (7, "contradicts the job's submission", Some("submitTime")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (11, 9));
    assert_eq!(
        submissions(&jobs),
        [
            ("job_1_0001", Some("n"), Some(1.0)),
            ("job_1_0002", Some("k"), Some(3.0)),
        ]
    );
}

/// The optional strings of a `.jhist` event (`jobName`, `trackerName`, `avataar`, `hostname`)
/// written as anything but a string or `null` skip their event, with its line and field,
/// before it changes anything (before, they were taken for absent without a word).
#[test]
fn jhist_optional_strings_of_the_wrong_type_are_skipped() {
    let header = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n";
    let event = |kind: &str, body: &str| {
        format!("{{\"type\":\"{kind}\",\"event\":{{\"e\":{{{body}}}}}}}\n")
    };
    let task = "\"taskid\":\"task_1_0001_m_000000\",\"taskType\":\"MAP\"";
    let attempt = |n: u32| format!("{task},\"attemptId\":\"attempt_1_0001_m_000000_{n}\"");
    let jhist = [
        header.to_owned(),
        event("JOB_SUBMITTED", "\"jobid\":\"job_1_0001\",\"jobName\":7"),
        event("TASK_STARTED", task),
        // Line 5: a tracker name that is a number; line 6: a valid start.
        event(
            "MAP_ATTEMPT_STARTED",
            &format!("{},\"startTime\":1000,\"trackerName\":5", attempt(0)),
        ),
        event(
            "MAP_ATTEMPT_STARTED",
            &format!(
                "{},\"startTime\":1000,\"avataar\":{{\"string\":\"VIRGIN\"}}",
                attempt(1)
            ),
        ),
        // Line 7: a host name that is an array: the end is skipped, the attempt runs on.
        event(
            "MAP_ATTEMPT_FINISHED",
            &format!("{},\"finishTime\":9000,\"hostname\":[\"h\"]", attempt(1)),
        ),
        event(
            "MAP_ATTEMPT_STARTED",
            &format!("{},\"startTime\":2000,\"avataar\":true", attempt(2)),
        ),
    ]
    .concat();
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "field of the wrong type", Some("jobName")),
            (5, "field of the wrong type", Some("trackerName")),
            (7, "field of the wrong type", Some("hostname")),
            (8, "field of the wrong type", Some("avataar")),
        ]
    );
    let attempts = &jobs[0].tasks[0].attempts;
    assert_eq!(attempts.len(), 1, "{attempts:?}");
    assert_eq!(attempts[0].outcome, AttemptOutcome::Unfinished);
    assert_eq!(attempts[0].speculative, Some(false));
}

/// Rumen writes `-1` for an unknown time; any other negative time is skipped as one, with
/// its line and field (before, every negative time was taken for unknown: a start of -5000
/// was replaced by the task's, a finish of -7000 left the attempt running, or was a
/// `missing field` for an attempt killed). The fuzzer's reproducer
/// `rumen-negative-times.json`.
#[test]
fn rumen_negative_times_other_than_unknown_are_skipped() {
    let rumen = concat!(
        "{\"jobID\": \"job_1\", \"submitTime\": 1000, \"mapTasks\": [{\"taskID\": \"t0\", ",
        "\"taskType\": \"MAP\", \"startTime\": 2000, \"attempts\": [\n",
        "{\"attemptID\": \"a0\", \"startTime\": -5000, \"finishTime\": 9000, \"result\": \"SUCCESS\"},\n",
        "{\"attemptID\": \"a1\", \"startTime\": 3000, \"finishTime\": -7000, \"result\": null},\n",
        "{\"attemptID\": \"a2\", \"startTime\": 3000, \"finishTime\": -7000, \"result\": \"KILLED\"},\n",
        "{\"attemptID\": \"a3\", \"startTime\": -1, \"finishTime\": -1, \"result\": null}]}]}\n",
        "{\"jobID\": \"job_2\",\n \"submitTime\": -5000}\n",
        "{\"jobID\": \"job_3\", \"submitTime\": -1}\n",
    );
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (2, "negative time", Some("startTime")),
            (3, "negative time", Some("finishTime")),
            (4, "negative time", Some("finishTime")),
            (7, "negative time", Some("submitTime")),
        ]
    );
    assert_eq!(report.records_parsed, 2, "jobs 1 and 3");
    // `-1`: the task's start, no end; no submit time.
    assert_eq!(
        attempt_rows(&jobs),
        [("t0", "a3", 2.0, None, AttemptOutcome::Unfinished)]
    );
    let submits: Vec<_> = jobs
        .iter()
        .map(|j| (j.id.as_str(), j.submit_secs))
        .collect();
    assert_eq!(submits, [("job_1", Some(1.0)), ("job_3", None)]);
}

/// A Hadoop 1 attempt record that neither starts nor ends its attempt is skipped, not counted
/// as parsed and lost (before, an empty `START_TIME` made the attempt disappear and a
/// `FINISH_TIME` without its `TASK_STATUS` left it running, both parsed); a negative
/// `SUBMIT_TIME` is skipped as the attempts' times are; a key written twice is skipped
/// (before, the last value stood without a word). The fuzzer's reproducers
/// `hadoop1-empty-start-negative-submit.log` and `hadoop1-end-without-status.log`.
#[test]
fn hadoop1_records_that_change_nothing_are_skipped_not_parsed() {
    let attempt = |n: u32, rest: &str| {
        format!(
            "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" \
             TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_{n}\" {rest} .\n"
        )
    };
    let hadoop1 = [
        "Job JOBID=\"job_1_0001\" JOBNAME=\"x\" SUBMIT_TIME=\"-1240335960685\" .\n".to_owned(),
        attempt(0, "START_TIME=\"\" TRACKER_NAME=\"tracker_h1:x\""),
        attempt(1, "START_TIME=\"2000\" START_TIME=\"1500\""),
        attempt(2, "START_TIME=\"2000\""),
        attempt(2, "FINISH_TIME=\"5000\" HOSTNAME=\"/r/h2\""),
        attempt(3, "TRACKER_NAME=\"tracker_h1:x\""),
        attempt(4, "START_TIME=\"3000\""),
        attempt(4, "TASK_STATUS=\"KILLED\" FINISH_TIME=\"\""),
        "Job JOBID=\"job_1_0001\" FINISH_TIME=\"\" .\n".to_owned(),
    ]
    .concat();
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (1, "negative time", Some("SUBMIT_TIME")),
            (2, "missing field", Some("START_TIME")),
            (3, "duplicate key", Some("START_TIME")),
            (5, "missing field", Some("TASK_STATUS")),
            (6, "missing field", Some("START_TIME")),
            (8, "missing field", Some("FINISH_TIME")),
            (9, "missing field", Some("FINISH_TIME")),
        ]
    );
    assert_eq!(report.records_parsed, 2, "lines 4 and 7");
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].submit_secs, None);
    assert_eq!(
        attempt_rows(&jobs),
        [
            (
                "task_1_0001_m_000000",
                "attempt_1_0001_m_000000_2",
                2.0,
                None,
                AttemptOutcome::Unfinished
            ),
            (
                "task_1_0001_m_000000",
                "attempt_1_0001_m_000000_4",
                3.0,
                None,
                AttemptOutcome::Unfinished
            ),
        ]
    );
}

/// A Hadoop 1 `Job` record that gives a job another `JOBNAME` or `SUBMIT_TIME` than an
/// earlier one keeps the first: the record is counted as a skip `contradicts the job's
/// submission` naming the field, and its other fields still apply (a `FINISH_TIME` closes
/// the job). One that restates them (as the JobTracker writes the job again after a
/// restart), or adds other fields, is parsed; a value the first record left unknown is
/// taken from a later one. Before, the later record's values replaced the first's without
/// a word.
#[test]
fn a_hadoop1_job_record_that_contradicts_the_first_keeps_the_first() {
    let hadoop1 = concat!(
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n",
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" LAUNCH_TIME=\"1500\" .\n",
        "Job JOBID=\"job_1_0001\" JOBNAME=\"m\" .\n",
        "Job JOBID=\"job_1_0001\" SUBMIT_TIME=\"2000\" FINISH_TIME=\"6000\" .\n",
        "Job JOBID=\"job_1_0002\" JOB_PRIORITY=\"NORMAL\" .\n",
        "Job JOBID=\"job_1_0002\" JOBNAME=\"k\" SUBMIT_TIME=\"3000\" .\n",
        "Job JOBID=\"job_1_0002\" FINISH_TIME=\"7000\" .\n",
    );
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "contradicts the job's submission", Some("JOBNAME")),
            (4, "contradicts the job's submission", Some("SUBMIT_TIME")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (7, 5));
    assert!(report.truncated.is_none(), "both jobs closed");
    assert_eq!(
        submissions(&jobs),
        [
            ("job_1_0001", Some("n"), Some(1.0)),
            ("job_1_0002", Some("k"), Some(3.0)),
        ]
    );
}

/// A Hadoop 1 `Job` record whose `SUBMIT_TIME` cannot be read (negative, implausible, not a
/// number) is counted as a skip naming it, and its other fields still apply, as for a
/// `SUBMIT_TIME` that contradicts an earlier one: its `FINISH_TIME` closes the job, which
/// no other record can, and its `JOBNAME` names it. Before, the whole record was skipped,
/// and the job was left open to the end of the input and reported as possibly cut.
#[test]
fn a_hadoop1_job_record_with_a_bad_submit_time_still_closes_its_job() {
    let hadoop1 = concat!(
        "Job JOBID=\"job_1_0001\" SUBMIT_TIME=\"1000\" .\n",
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"-5\" FINISH_TIME=\"6000\" .\n",
        "Job JOBID=\"job_1_0002\" JOBNAME=\"k\" SUBMIT_TIME=\"x\" FINISH_TIME=\"7000\" .\n",
    );
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (2, "negative time", Some("SUBMIT_TIME")),
            (3, "field of the wrong type", Some("SUBMIT_TIME")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (3, 1));
    assert!(report.truncated.is_none(), "both jobs closed");
    assert_eq!(
        submissions(&jobs),
        [
            ("job_1_0001", Some("n"), Some(1.0)),
            ("job_1_0002", Some("k"), None)
        ]
    );
}

/// A Spark record of a job handed out already (ended, none of its attempts running) opens
/// no second job of its id: a `SparkListenerJobStart` or `SparkListenerJobEnd` of it is
/// skipped as `record of a job already ended`, naming `Job ID`, and its tasks' events as
/// `stage of no open job` (the reader forgets a job's stages once it is handed out). The
/// end of a copy killed after the job's end, which Spark writes, still applies: the job is
/// open until none of its attempts runs. Before, the start opened a second job of the id.
#[test]
fn a_spark_job_start_after_the_job_ended_opens_no_second_job() {
    let mut log = spark_job(&[
        spark_start(1, 0, 1000),
        spark_start(2, 0, 1500),
        spark_end(1, 0, 1000, 2000, "Success"),
    ]);
    for event in [
        spark_end(2, 0, 1500, 2500, "TaskKilled"),
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}".to_owned(),
        spark_start(3, 1, 3000),
        spark_end(3, 1, 3000, 4000, "Success"),
        "{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":0}".to_owned(),
    ] {
        log.push_str(&event);
        log.push('\n');
    }
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (8, "record of a job already ended", Some("Job ID")),
            (9, "stage of no open job", Some("Stage ID")),
            (10, "stage of no open job", Some("Stage ID")),
            (11, "record of a job already ended", Some("Job ID")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (11, 7));
    assert_eq!(job_ids(&jobs), ["app-1/job 0"]);
    assert_eq!(
        attempt_rows(&jobs),
        [
            ("0.0:0", "1", 1.0, Some(2.0), AttemptOutcome::Succeeded),
            ("0.0:0", "2", 1.5, Some(2.5), AttemptOutcome::Killed),
        ]
    );
}

/// A Spark `SparkListenerJobEnd` of a job no `SparkListenerJobStart` opened (a log that
/// starts after it, or whose start was skipped) is skipped as `end of a job not started`,
/// naming `Job ID`. Before, it was counted as parsed and changed nothing.
#[test]
fn a_spark_end_of_a_job_never_started_is_skipped() {
    let mut log = spark_job(&[
        spark_start(1, 0, 1000),
        spark_end(1, 0, 1000, 2000, "Success"),
    ]);
    log.push_str("{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":7}\n");
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    let last = report.records_read;
    assert_eq!(
        skips_with_fields(&report),
        [(last, "end of a job not started", Some("Job ID"))]
    );
    assert_eq!(report.records_parsed, last - 1);
    assert_eq!(job_ids(&jobs), ["app-1/job 0"]);
}

/// A Spark task event of a stage of no open job (here of a job handed out already) is
/// skipped and leaves nothing behind: the stage attempt it names is not taken for the
/// stage's latest, which a later job's task event of stage attempt `-1` is filed under.
/// Before, the skipped event recorded its stage attempt (3), and the later job's task was
/// filed under stage attempt 3 rather than 0.
#[test]
fn a_spark_task_event_of_no_open_job_leaves_its_stage_attempt_unrecorded() {
    let job_start = |job: u64| {
        format!("{{\"Event\":\"SparkListenerJobStart\",\"Job ID\":{job},\"Stage IDs\":[0]}}")
    };
    let job_end = |job: u64| format!("{{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":{job}}}");
    let log = [
        "{\"Event\":\"SparkListenerApplicationStart\",\"App ID\":\"app-1\"}".to_owned(),
        job_start(0),
        spark_task(1, 0, 0, 0, 1000, None),
        spark_task(1, 0, 0, 0, 2000, Some("Success")),
        job_end(0),
        spark_task(2, 0, 3, 0, 3000, None),
        job_start(1),
        spark_task(3, 0, -1, 0, 4000, None),
        spark_task(3, 0, -1, 0, 5000, Some("Success")),
        job_end(1),
    ]
    .join("\n")
        + "\n";
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(6, "stage of no open job", Some("Stage ID"))]
    );
    let tasks: Vec<(&str, &str)> = (jobs.iter())
        .flat_map(|j| j.tasks.iter().map(|t| (j.id.as_str(), t.id.as_str())))
        .collect();
    assert_eq!(tasks, [("app-1/job 0", "0.0:0"), ("app-1/job 1", "0.0:0")]);
}

/// A `.jhist` record of a job handed out already (its `JOB_FINISHED` read, none of its
/// attempts running) opens no second job of its id: a `JOB_SUBMITTED`, a task's or an
/// attempt's event (a kill before launch too), a second `JOB_FINISHED` of it, each is
/// skipped as `record of a job already ended`, naming the field the job is read from.
/// Before, the `JOB_SUBMITTED` opened a second job of the id, which took the events after
/// it, and the kill before launch was skipped as `attempt killed before launch`.
#[test]
fn jhist_records_after_the_job_ended_open_no_second_job() {
    let header = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n";
    let event = |kind: &str, body: &str| {
        format!("{{\"type\":\"{kind}\",\"event\":{{\"e\":{{{body}}}}}}}\n")
    };
    let task = |n: u32| format!("\"taskid\":\"task_1_0001_m_00000{n}\",\"taskType\":\"MAP\"");
    let attempt = |kind: &str, n: u32, time: &str| {
        let body = format!(
            "{},\"attemptId\":\"attempt_1_0001_m_00000{n}_0\",{time}",
            task(n)
        );
        event(kind, &body)
    };
    let submitted = "\"jobid\":\"job_1_0001\",\"jobName\":\"n\",\"submitTime\":1000";
    let finished = "\"jobid\":\"job_1_0001\"";
    let jhist = [
        header.to_owned(),
        event("JOB_SUBMITTED", submitted),
        event("TASK_STARTED", &task(0)),
        attempt("MAP_ATTEMPT_STARTED", 0, "\"startTime\":1000"),
        attempt("MAP_ATTEMPT_FINISHED", 0, "\"finishTime\":2000"),
        event("JOB_FINISHED", finished),
        event("JOB_SUBMITTED", submitted),
        event("TASK_STARTED", &task(1)),
        attempt("MAP_ATTEMPT_STARTED", 1, "\"startTime\":3000"),
        attempt("MAP_ATTEMPT_FINISHED", 1, "\"finishTime\":4000"),
        attempt("MAP_ATTEMPT_KILLED", 0, "\"finishTime\":5000"),
        // A kill before launch (no start, `finishTime` 0) comes too late as well.
        attempt("MAP_ATTEMPT_KILLED", 2, "\"finishTime\":0"),
        event("JOB_FINISHED", finished),
    ]
    .concat();
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    let ended = "record of a job already ended";
    assert_eq!(
        skips_with_fields(&report),
        [
            (8, ended, Some("jobid")),
            (9, ended, Some("taskid")),
            (10, ended, Some("taskid")),
            (11, ended, Some("taskid")),
            (12, ended, Some("taskid")),
            (13, ended, Some("taskid")),
            (14, ended, Some("jobid")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (14, 7));
    assert_only_the_job_as_handed_out(&jobs);
}

/// A Hadoop 1 record of a job handed out already (its `Job` record with `FINISH_TIME` read,
/// none of its attempts running) opens no second job of its id: a `Job`, `Task` or attempt
/// record of it is skipped as `record of a job already ended`, naming the field the job is
/// read from (`TASK_ATTEMPT_ID` for an attempt record without `TASKID`), and its fields are
/// not applied. Before, the `Job` record opened a second job
/// of the id.
#[test]
fn hadoop1_records_after_the_job_ended_open_no_second_job() {
    let attempt = |n: u32, rest: &str| {
        format!(
            "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_00000{n}\" \
             TASK_ATTEMPT_ID=\"attempt_1_0001_m_00000{n}_0\" {rest} .\n"
        )
    };
    let task = |n: u32| format!("Task TASKID=\"task_1_0001_m_00000{n}\" TASK_TYPE=\"MAP\" .\n");
    let hadoop1 = [
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n".to_owned(),
        task(0),
        attempt(0, "START_TIME=\"1000\""),
        attempt(0, "TASK_STATUS=\"SUCCESS\" FINISH_TIME=\"2000\""),
        "Job JOBID=\"job_1_0001\" FINISH_TIME=\"3000\" JOB_STATUS=\"SUCCESS\" .\n".to_owned(),
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n".to_owned(),
        task(1),
        attempt(1, "START_TIME=\"4000\""),
        attempt(0, "TASK_STATUS=\"KILLED\" FINISH_TIME=\"5000\""),
        // Without `TASKID`: the job is read from the attempt's id, which the skip names.
        "MapAttempt TASK_ATTEMPT_ID=\"attempt_1_0001_m_000002_0\" START_TIME=\"5000\" .\n"
            .to_owned(),
        "Job JOBID=\"job_1_0001\" FINISH_TIME=\"6000\" JOB_STATUS=\"SUCCESS\" .\n".to_owned(),
    ]
    .concat();
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    let ended = "record of a job already ended";
    assert_eq!(
        skips_with_fields(&report),
        [
            (6, ended, Some("JOBID")),
            (7, ended, Some("TASKID")),
            (8, ended, Some("TASKID")),
            (9, ended, Some("TASKID")),
            (10, ended, Some("TASK_ATTEMPT_ID")),
            (11, ended, Some("JOBID")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (11, 5));
    assert!(report.truncated.is_none(), "the job closed");
    assert_only_the_job_as_handed_out(&jobs);
}

/// An event or task type that none of the format's is skipped as unknown, with its line and
/// field; before, a misspelt event was counted as parsed and dropped, and a misspelt task
/// type made a setup task of it. Events a format defines and the reader does not use are
/// still parsed.
#[test]
fn unknown_event_and_task_types_are_skipped_not_read_as_others() {
    let header = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n";
    let event = |kind: &str, task_type: &str| {
        format!(
            "{{\"type\":\"{kind}\",\"event\":{{\"e\":{{\"taskid\":\"task_1_0001_m_000000\",\
             \"taskType\":\"{task_type}\",\"attemptId\":\"attempt_1_0001_m_000000_0\",\
             \"startTime\":2000,\"finishTime\":5000}}}}}}\n"
        )
    };
    let jhist = [
        header.to_owned(),
        event("MAP_ATTEMPT_STARTED", "MPA"),
        event("MAP_ATTEMPT_STARTED", "MAP"),
        event("MAP_ATTEMPT_FINISHEX", "MAP"),
        event("TASK_UPDATED", "MAP"),
        event("TASK_STARTED", ""),
    ]
    .concat();
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "unknown task type", Some("taskType")),
            (5, "unknown event type", Some("type")),
            (7, "missing field", Some("taskType")),
        ]
    );
    assert_eq!(report.records_parsed, 4, "the header, lines 4 and 6");
    assert_eq!(
        attempt_rows(&jobs),
        [(
            "task_1_0001_m_000000",
            "attempt_1_0001_m_000000_0",
            2.0,
            None,
            AttemptOutcome::Unfinished
        )]
    );

    let end_of_type =
        |task_type: &str| spark_end(1, 0, 2000, 5000, "Success").replace("ResultTask", task_type);
    let spark = spark_job(&[
        spark_start(1, 0, 2000),
        "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\"}"
            .to_owned(),
        "{\"Event\":\"SparkListenerExecutorAdded\"}".to_owned(),
        spark_end(1, 0, 2000, 5000, "Success").replace("TaskEnd", "TaskEnX"),
        end_of_type("ResultTaks"),
        spark_end(1, 0, 2000, 5000, "Success").replace("\"Task Type\":\"ResultTask\",", ""),
        end_of_type("ShuffleMapTask"),
    ]);
    let (jobs, report) = read_bytes(spark.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (6, "unknown event type", Some("Event")),
            (7, "unknown task type", Some("Task Type")),
            (8, "missing field", Some("Task Type")),
        ]
    );
    assert_eq!(report.records_parsed, 7);
    assert_eq!(task_kinds(&jobs), [StageKind::Map]);

    let hadoop1 = concat!(
        "Task TASKID=\"task_1_0001_m_000000\" TASK_TYPE=\"MAPX\" START_TIME=\"2000\" .\n",
        "Task TASKID=\"task_1_0001_m_000001\" START_TIME=\"2000\" .\n",
        "Task TASKID=\"task_1_0001_m_000002\" TASK_TYPE=\"SETUP\" START_TIME=\"2000\" .\n",
    );
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (1, "unknown task type", Some("TASK_TYPE")),
            (2, "missing field", Some("TASK_TYPE")),
        ]
    );
    assert_eq!(task_kinds(&jobs), [StageKind::Other]);

    // Rumen: a task of an unknown type is skipped whole, as one record, at the line of its
    // type, whether or not it has attempts (a task without any left no trace before).
    let rumen = concat!(
        "{\"jobID\": \"job_1\", \"mapTasks\": [{\"taskID\": \"t0\",\n",
        " \"taskType\": \"MPA\",\n",
        " \"attempts\": [{\"attemptID\": \"a0\", \"startTime\": 1000},\n",
        " {\"attemptID\": \"a1\", \"startTime\": 1000}]},\n",
        " {\"taskID\": \"t1\", \"taskType\": \"MAPX\"}]}\n",
    );
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (2, "unknown task type", Some("taskType")),
            (5, "unknown task type", Some("taskType")),
        ]
    );
    assert_eq!(task_kinds(&jobs), []);
}

/// Rumen: a closer of the wrong kind (`}` closing `[`) ends the broken object there, as a
/// skipped record, and the next object is read (before, it swallowed every later job).
#[test]
fn a_stray_bracket_in_a_rumen_object_does_not_swallow_the_next_jobs() {
    let rumen = concat!(
        "{\"jobID\":\"job_1\",\"mapTasks\":[}\n",
        "{\"jobID\": \"job_2\", \"submitTime\": 0, \"mapTasks\": [{\"taskID\": \"t0\", ",
        "\"taskType\": \"MAP\", \"attempts\": [{\"attemptID\": \"a0\", \"startTime\": 1000, ",
        "\"finishTime\": 5000, \"result\": \"SUCCESS\", \"hostName\": \"/r/h1\"}]}]}\n",
        "{\"jobID\":\"job_3\",\"reduceTasks\":[{\"attempts\":[]]}\n",
        "{\"jobID\": \"job_4\"}\n",
    );
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    // Line 3 breaks at its `]` closing a `{`: the rest of it is passed over.
    assert_eq!(
        skips_with_fields(&report),
        [
            (1, "malformed JSON", Some("mapTasks")),
            (3, "malformed JSON", Some("attempts")),
        ]
    );
    assert!(report.truncated.is_none());
    let ids: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids, ["job_2", "job_4"]);
    assert_eq!(jobs[0].tasks[0].attempts[0].end_secs, Some(5.0));
}

/// A Rumen job as Jackson's pretty printer writes it (nine lines, the first its `{`), with
/// one map task of one successful attempt.
fn pretty_rumen_job(id: &str) -> String {
    format!(
        "{{\n  \"jobID\" : \"{id}\",\n  \"jobName\" : \"n\",\n  \"mapTasks\" : [ {{\n    \
         \"taskID\" : \"t_{id}\",\n    \"taskType\" : \"MAP\",\n    \"attempts\" : [ {{\n      \
         \"attemptID\" : \"a_{id}\", \"startTime\" : 1000, \"finishTime\" : 5000, \
         \"result\" : \"SUCCESS\"\n    }} ]\n  }} ]\n}}"
    )
}

fn job_ids(jobs: &[TraceJob]) -> Vec<&str> {
    jobs.iter().map(|j| j.id.as_str()).collect()
}

/// Rumen: a line that ends inside a string (a quote missing) breaks its object there: the
/// object is skipped as malformed on the line serde_json finds at fault, the lines left of
/// it are passed over without a skip each, and the next object is read, in each layout
/// Rumen files use (`} {` between objects, `}` and `{` on lines of their own, one object a
/// line). The input is not cut.
#[test]
fn a_rumen_string_cut_by_a_line_end_costs_only_its_object() {
    let jobs3 = [1, 2, 3].map(|n| pretty_rumen_job(&format!("job_{n}")));
    // job_2's `"jobName"`, its first quote dropped.
    let broken = jobs3[1].replacen("\"jobName\"", "jobName\"", 1);
    for separator in [" ", "\n", "\n "] {
        let text = format!("{}{separator}{broken}{separator}{}\n", jobs3[0], jobs3[2]);
        let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
        // Line 3 of job_2, which starts on job_1's last line or the line after it.
        let line = if separator == " " { 13 } else { 14 };
        assert_eq!(
            skips_with_fields(&report),
            [(line, "malformed JSON", None)],
            "{separator:?}"
        );
        assert_eq!((report.records_read, report.records_parsed), (3, 2));
        assert!(report.truncated.is_none(), "{:?}", report.truncated);
        assert_eq!(job_ids(&jobs), ["job_1", "job_3"]);
    }
    // One object a line: the value's closing quote dropped.
    let compact = concat!(
        "{\"jobID\":\"job_1\",\"mapTasks\":[]}\n",
        "{\"jobID\":\"job_2\",\"jobName\":\"n,\"mapTasks\":[]}\n",
        "{\"jobID\":\"job_3\",\"mapTasks\":[]}\n",
    );
    let (jobs, report) = read_bytes(compact.as_bytes(), RUMEN).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(2, "malformed JSON", Some("jobName"))]
    );
    assert_eq!(job_ids(&jobs), ["job_1", "job_3"]);
    // A string cut by the end of the input is a cut, not malformed JSON.
    let cut = format!("{}\n{}", jobs3[0], &jobs3[1][..30]);
    let (jobs, report) = read_bytes(cut.as_bytes(), RUMEN).expect("readable");
    assert_eq!(skipped_lines(&report), [(12, "truncated record")]);
    assert_eq!(report.truncated.as_ref().map(|t| t.line), Some(12));
    assert_eq!(job_ids(&jobs), ["job_1"]);
}

/// Rumen: an object that misses a closer is broken where the next object starts (a `{`
/// at the start of a line, or after its `}`, where no `{` can be in the object), and the
/// next object is read from there; an object written with its inner `{` at the start of
/// lines is not split.
#[test]
fn a_rumen_object_missing_a_closer_does_not_swallow_the_next_jobs() {
    let jobs3 = [1, 2, 3].map(|n| pretty_rumen_job(&format!("job_{n}")));
    // job_1's last `}` dropped, in each layout; then an attempt's `}` dropped in job_2.
    let open_end = jobs3[0].strip_suffix('}').expect("a closing brace");
    for separator in [" ", "\n", "\n "] {
        let text = format!("{open_end}{separator}{}\n{}\n", jobs3[1], jobs3[2]);
        let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
        // serde_json finds the end of job_1's bytes on line 10, its `} ]`.
        assert_eq!(
            skips_with_fields(&report),
            [(10, "malformed JSON", Some("mapTasks"))],
            "{separator:?}"
        );
        assert_eq!(job_ids(&jobs), ["job_2", "job_3"], "{separator:?}");
        assert!(report.truncated.is_none());
    }
    let inner = jobs3[1].replacen("    } ]", "     ]", 1);
    let text = format!("{} {inner} {}\n", jobs3[0], jobs3[2]);
    let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
    // The `]` closing the attempt's `{` (line 19), after its last member: broken there, the
    // rest passed over.
    assert_eq!(
        skips_with_fields(&report),
        [(19, "malformed JSON", Some("result"))]
    );
    assert_eq!(job_ids(&jobs), ["job_1", "job_3"]);
    // Valid JSON laid out otherwise: a `{` at the start of a line where one may stand.
    let unusual = "{\"jobID\": \"job_1\", \"mapTasks\": [\n{\"taskID\": \"t\", \"taskType\": \
                   \"MAP\", \"attempts\": []}\n], \"x\":\n{}}\n{\"jobID\": \"job_2\"}\n";
    let (jobs, report) = read_bytes(unusual.as_bytes(), RUMEN).expect("readable");
    assert_eq!(skipped_lines(&report), []);
    assert_eq!(job_ids(&jobs), ["job_1", "job_2"]);
}

/// Rumen: after a broken object, the next starts at a `{` after a `}` on the same line as
/// well as on the next (Jackson's compact layout writes every object on one line); a
/// broken object's `NaN` is replaced before it is judged, as a whole job's is; and in jq's
/// and Python's layout (objects in arrays on lines of their own, indented), a broken job
/// costs one skip, not one per line after it.
#[test]
fn a_rumen_object_broken_mid_line_costs_only_itself() {
    let compact = |id: &str| format!("{{\"jobID\":\"{id}\",\"mapTasks\":[]}}");
    let line = format!(
        "{} {{\"jobID\":\"job_bad\",\"mapTasks\":[{{\"taskID\":\"t\"}}}} {} {} {}\n",
        compact("job_1"),
        compact("job_3"),
        compact("job_4"),
        compact("job_5")
    );
    let (jobs, report) = read_bytes(line.as_bytes(), RUMEN).expect("readable");
    assert_eq!(job_ids(&jobs), ["job_1", "job_3", "job_4", "job_5"]);
    assert_eq!((report.records_read, report.records_skipped), (5, 1));
    assert_eq!(skipped_lines(&report), [(1, "malformed JSON")]);
    let text = format!(
        "{{\"jobID\":\"bad\",\"x\":[1}}}} {}\n{}\n",
        compact("job_2"),
        compact("job_3")
    );
    let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
    assert_eq!(job_ids(&jobs), ["job_2", "job_3"]);
    assert_eq!((report.records_read, report.records_skipped), (3, 1));
    // A quote missing in the second of four objects on one line.
    let line = format!(
        "{} {{\"jobID\":\"job_2\",\"jobName\":\"n,\"mapTasks\":[]}} {} {}\n",
        compact("job_1"),
        compact("job_3"),
        compact("job_4")
    );
    let (jobs, report) = read_bytes(line.as_bytes(), RUMEN).expect("readable");
    assert_eq!(job_ids(&jobs), ["job_1", "job_3", "job_4"]);
    assert_eq!(
        skips_with_fields(&report),
        [(1, "malformed JSON", Some("jobName"))]
    );
    assert!(report.truncated.is_none());

    // A `NaN` the reader takes, then a quote missing on the line after.
    let text = format!(
        "{{\"jobID\":\"j\",\n\"progress\":NaN,\n\"b\":\"abc\n{}\n",
        compact("job_2")
    );
    let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(3, "malformed JSON", Some("b"))]
    );
    assert_eq!(job_ids(&jobs), ["job_2"]);

    // jq's `--indent 2`: a quote missing in job_1, then job_2.
    let jq = |id: &str| {
        format!(
            "{{\n  \"jobID\": \"{id}\",\n  \"mapTasks\": [\n    {{\n      \"taskID\": \"t\",\n      \
             \"taskType\": \"MAP\",\n      \"attempts\": [\n        {{\n          \"attemptID\": \
             \"a_{id}\",\n          \"startTime\": 1000\n        }}\n      ]\n    }}\n  ]\n}}\n"
        )
    };
    let text = jq("job_1").replacen("\"taskID\"", "taskID\"", 1) + &jq("job_2");
    let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
    assert_eq!(skipped_lines(&report), [(5, "malformed JSON")]);
    assert_eq!(job_ids(&jobs), ["job_2"]);
}

/// Rumen: a quote missing whose quotes even out before the line's end (a later object's
/// escaped quote, a second quote missing) breaks only its object, as one that leaves the
/// line inside a string does, on the input's last line too (no line end); a `}` ending a
/// line broken inside a string lets a `{` indented on the next line start an object.
#[test]
fn a_rumen_quote_missing_costs_only_its_object_whatever_follows() {
    let cases: [(&str, &[&str], usize); 5] = [
        (
            "{\"jobID\":\"job_1\",\"n\":\"x} {\"jobID\":\"job_2\",\"n\":\"a \\\" c\"} {\"jobID\":\"job_3\"}\n",
            &["job_2", "job_3"],
            1,
        ),
        (
            "{\"jobID\":\"job_1\",\"n\":\"x} {\"jobID\":\"job_2\",\"n\":\"a}\"} {\"jobID\":\"job_3\"}\n",
            &["job_2", "job_3"],
            1,
        ),
        (
            "{\"jobID\":\"job_1\",\"n\":\"x} {\"jobID\":\"job_2\",\"n\":\"y} {\"jobID\":\"job_3\"}\n",
            &["job_3"],
            2,
        ),
        (
            "{\"jobID\":\"job_1\",\"n\":\"x} {\"jobID\":\"job_2\"} {\"jobID\":\"job_3\"}",
            &["job_2", "job_3"],
            1,
        ),
        (
            "{\"jobID\":\"job_1\",\"n\":\"x}\n   {\"jobID\":\"job_2\"}\n",
            &["job_2"],
            1,
        ),
    ];
    for (text, expected, skips) in cases {
        let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
        assert_eq!(job_ids(&jobs), expected, "{text}");
        assert_eq!(report.records_skipped, skips as u64, "{text}");
        assert!(
            skipped_lines(&report)
                .iter()
                .all(|(_, reason)| *reason == "malformed JSON"),
            "{text}: {:?}",
            skipped_lines(&report)
        );
        assert!(report.truncated.is_none(), "{text}");
    }
    // A valid object with `} {` in a string is one object.
    let text = "{\"jobID\":\"job_1\",\"n\":\"x} {y\"} {\"jobID\":\"job_2\"}\n";
    let (jobs, report) = read_bytes(text.as_bytes(), RUMEN).expect("readable");
    assert_eq!(job_ids(&jobs), ["job_1", "job_2"]);
    assert_eq!(report.records_skipped, 0);
}

/// Rumen: a line over the cap is counted even where it follows a broken object (it may
/// hold jobs of its own), and the rest of an object a line over the cap cuts is passed
/// over as a broken object's, not read as text outside any object.
#[test]
fn a_rumen_line_over_the_cap_is_counted_and_its_object_passed_over() {
    use std::io::Read;
    let long = || std::io::repeat(b'x').take(MAX_LINE_BYTES + 10);
    let job_2 = "{\"jobID\": \"job_2\"}\n";
    let input = std::io::Cursor::new("{\"jobID\":\"bad\",\"x\":\"abc\n")
        .chain(long())
        .chain(&b"\n"[..])
        .chain(job_2.as_bytes());
    let (jobs, report) = read_stream(input, RUMEN);
    assert_eq!(
        skipped_lines(&report),
        [(1, "malformed JSON"), (2, "line too long")]
    );
    assert_eq!(job_ids(&jobs), ["job_2"]);

    let job_1 = pretty_rumen_job("job_1");
    let input = std::io::Cursor::new(&job_1.as_bytes()[..40])
        .chain(long())
        .chain(&b"\n  \"jobName\" : \"n\"\n} {\"jobID\": \"job_2\"}\n"[..]);
    let (jobs, report) = read_stream(input, RUMEN);
    assert_eq!(skipped_lines(&report), [(1, "record too long")]);
    assert_eq!(job_ids(&jobs), ["job_2"]);

    // An object over the cap that misses a closer: the next starts at `} {` on its line.
    let half = || "a".repeat(40 << 20);
    let text = format!(
        "{{\"jobID\":\"job_1\",\"m\":[{{\"x\":\"{}\"}},\n{{\"y\":\"{}\"}} {{\"jobID\":\"job_2\"}} \
         {{\"jobID\":\"job_3\"}}\n",
        half(),
        half()
    );
    let (jobs, report) = read_stream(text.as_bytes(), RUMEN);
    assert_eq!(skipped_lines(&report), [(1, "record too long")]);
    assert_eq!(job_ids(&jobs), ["job_2", "job_3"]);
}

/// Rumen: malformed JSON is named on the line serde_json finds it, with the member it is
/// in, not the object's first line; the real 2-job trace with one character changed.
#[test]
fn rumen_malformed_json_names_its_line_and_field_in_a_real_trace() {
    let base = shared_traces();
    let path = base.join("hadoop-sls-gridmix-rumen/2jobs2min-rumen-jh.json");
    let text = std::fs::read_to_string(&path).expect("readable");
    let changed = |line: usize, from: &str, to: &str| -> String {
        let mut lines: Vec<&str> = text.split('\n').collect();
        let edited = lines[line - 1].replacen(from, to, 1);
        assert_ne!(edited, lines[line - 1]);
        lines[line - 1] = &edited;
        lines.join("\n")
    };
    let (whole, _) = read(&path, RUMEN);
    for (line, from, to, field) in [
        (
            2827,
            "\"outputBytes\" :",
            "\"outputBytes\"Z:",
            Some("outputBytes"),
        ),
        // A key without its first quote: between the members of the object that holds
        // it, which is named.
        (
            1409,
            "\"physicalMemoryUsage\"",
            "physicalMemoryUsage\"",
            Some("resourceUsageMetrics"),
        ),
    ] {
        let (jobs, report) = read_bytes(changed(line, from, to).as_bytes(), RUMEN).expect("read");
        assert_eq!(
            skips_with_fields(&report),
            [(line as u64, "malformed JSON", field)]
        );
        assert_eq!((report.records_read, report.records_parsed), (2, 1));
        assert!(report.truncated.is_none());
        // The other job is read whole.
        assert_eq!(jobs.len(), 1);
        assert!(whole.iter().any(|job| *job == jobs[0]));
    }
    // The 4-job trace, a quote dropped in the first job: the three others read.
    let path = base.join("hadoop-rumen-testdata/small-trace-test/dispatch-trace-output.json.gz");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut flate2::read::GzDecoder::new(std::fs::File::open(&path).expect("readable")),
        &mut text,
    )
    .expect("gzip");
    let broken = text.replacen("\"jobName\"", "jobName\"", 1);
    let (jobs, report) = read_bytes(broken.as_bytes(), RUMEN).expect("readable");
    assert_eq!(skipped_lines(&report), [(5, "malformed JSON")]);
    assert_eq!((report.records_read, jobs.len()), (4, 3));
    assert!(report.truncated.is_none());
}

/// Rumen: an attempt id read again in one job, in its task or another, is skipped and the
/// first stands, as in the other readers.
#[test]
fn a_rumen_attempt_id_read_again_is_skipped() {
    let attempt = |id: &str, finish: u64| {
        format!(
            "{{\"attemptID\": \"{id}\", \"startTime\": 1000, \"finishTime\": {finish}, \
             \"result\": \"SUCCESS\", \"hostName\": \"/r/h1\"}}"
        )
    };
    let rumen = format!(
        "{{\"jobID\": \"job_1\", \"submitTime\": 0, \"mapTasks\": [\
         {{\"taskID\": \"t0\", \"taskType\": \"MAP\", \"attempts\": [{}, {}]}}, \
         {{\"taskID\": \"t1\", \"taskType\": \"MAP\", \"attempts\": [{}, {}]}}]}}\n",
        attempt("a0", 5000),
        attempt("a0", 6000),
        attempt("a0", 7000),
        attempt("a1", 8000),
    );
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (1, "attempt started twice", Some("attemptID")),
            (1, "attempt id of another task", Some("attemptID")),
        ]
    );
    assert_eq!(
        attempt_rows(&jobs),
        [
            ("t0", "a0", 1.0, Some(5.0), AttemptOutcome::Succeeded),
            ("t1", "a1", 1.0, Some(8.0), AttemptOutcome::Succeeded),
        ]
    );
}

/// Rumen: a job object whose `jobID` a job read before has is skipped whole as `job read
/// twice`, on the line of its `jobID`, the first standing; a job whose first object was
/// skipped (here for a negative `submitTime`) is read from the next. Before, each object
/// gave a job, two jobs of one id.
#[test]
fn a_rumen_job_read_twice_is_skipped_the_first_standing() {
    let bad_submit = "{\"jobID\": \"job_3\", \"submitTime\": -5}";
    let rumen = [
        pretty_rumen_job("job_1"),
        pretty_rumen_job("job_2"),
        pretty_rumen_job("job_1").replace("\"n\"", "\"m\""),
        bad_submit.to_owned(),
        pretty_rumen_job("job_3"),
    ]
    .join("\n");
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (24, "job read twice", Some("jobID")),
            (34, "negative time", Some("submitTime")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (5, 3));
    assert_eq!(
        submissions(&jobs),
        [
            ("job_1", Some("n"), None),
            ("job_2", Some("n"), None),
            ("job_3", Some("n"), None),
        ]
    );
}

/// The cap on a line or a record held (64 MiB, `docs/trace-formats.md`).
const MAX_LINE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads `input` (streamed, never whole in memory) as `format`.
fn read_stream(input: impl std::io::Read, format: TraceFormat) -> (Vec<TraceJob>, ReadReport) {
    let mut jobs = Vec::new();
    let report = read_reader(
        std::io::BufReader::new(input),
        format,
        Path::new("<stream>"),
        |job| jobs.push(job),
    )
    .expect("readable");
    assert_eq!(
        report.records_read,
        report.records_parsed + report.records_skipped
    );
    (jobs, report)
}

/// A line longer than the cap is read to its end without being kept and skipped; the lines
/// after it are read. (Before, a 32 KB zstd file holding one line of 1 GB took 1 GB.)
#[test]
fn a_line_longer_than_the_cap_is_skipped_not_kept() {
    use std::io::Read;
    let log = spark_job(&[
        spark_start(1, 0, 2000),
        spark_end(1, 0, 2000, 5000, "Success"),
    ]);
    let long = std::io::repeat(b'x').take(MAX_LINE_BYTES + 1000);
    let (jobs, report) = read_stream(long.chain(&b"\n"[..]).chain(log.as_bytes()), SPARK);
    assert_eq!(skipped_lines(&report), [(1, "line too long")]);
    assert_eq!(report.records_parsed, 5);
    assert_eq!(attempts(&jobs).count(), 1);

    // A line of exactly the cap is kept (and is no JSON here).
    let at_cap = std::io::repeat(b'x').take(MAX_LINE_BYTES);
    let (_, report) = read_stream(at_cap.chain(&b"\n"[..]).chain(log.as_bytes()), SPARK);
    assert_eq!(skipped_lines(&report), [(1, "malformed JSON")]);
}

/// A Rumen object or a Hadoop 1 record longer than the cap, over lines each below it, is
/// skipped as `"record too long"` and the next one is read.
#[test]
fn a_record_longer_than_the_cap_is_skipped_not_kept() {
    use std::io::Read;
    // A string value of 65 lines of 1 MiB of `a` each.
    let lines_of_a = || {
        let line = [vec![b'a'; 1024 * 1024], b"\n".to_vec()].concat();
        std::io::Cursor::new(line.repeat(65))
    };
    // For Rumen, an array of 65 strings of 1 MiB, one a line (JSON strings hold no line
    // break).
    let strings_of_a = || {
        let line = [b"\"".to_vec(), vec![b'a'; 1024 * 1024], b"\",\n".to_vec()].concat();
        std::io::Cursor::new(line.repeat(65))
    };
    let next_job = "{\"jobID\": \"job_2\"}\n";
    let rumen = std::io::Cursor::new("{\"jobID\": \"job_1\", \"x\": [\n")
        .chain(strings_of_a())
        .chain(&b"\"\"]}\n"[..])
        .chain(next_job.as_bytes());
    let (jobs, report) = read_stream(rumen, RUMEN);
    assert_eq!(skipped_lines(&report), [(1, "record too long")]);
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].id, "job_2");
    // The same object missing its last `}`: the next starts at its `{` after the `]`.
    let job_3 = next_job.replace("job_2", "job_3");
    let rumen = std::io::Cursor::new("{\"jobID\": \"job_1\", \"x\": [\n")
        .chain(strings_of_a())
        .chain(&b"\"\"]\n"[..])
        .chain(next_job.as_bytes())
        .chain(job_3.as_bytes());
    let (jobs, report) = read_stream(rumen, RUMEN);
    assert_eq!(skipped_lines(&report), [(1, "record too long")]);
    assert_eq!(job_ids(&jobs), ["job_2", "job_3"]);

    let hadoop1 = std::io::Cursor::new("Job JOBID=\"job_1_0001\" JOBNAME=\"\n")
        .chain(lines_of_a())
        .chain(&b"\" .\nJob JOBID=\"job_1_0002\" JOBNAME=\"j\" .\n"[..]);
    let (jobs, report) = read_stream(hadoop1, HADOOP1);
    assert_eq!(skipped_lines(&report), [(1, "record too long")]);
    assert_eq!(report.records_read, 2);
    let ids: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
    assert_eq!(ids, ["job_1_0002"]);
}

/// A UTF-8 byte order mark at the start of a file is dropped: a `.jhist` is read (it was
/// refused), and the other formats keep their first record.
#[test]
fn a_byte_order_mark_at_the_start_is_dropped() {
    let with_bom = |text: &[u8]| [&b"\xef\xbb\xbf"[..], text].concat();
    let jhist = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n\
        {\"type\":\"JOB_SUBMITTED\",\"event\":{\"e\":{\"jobid\":\"job_1_0001\",\"submitTime\":1000}}}\n";
    let spark = spark_job(&[spark_start(1, 0, 2000)]);
    let hadoop1 = "Job JOBID=\"job_1_0001\" JOBNAME=\"x\" .\n";
    let google = "5000000,,1,0,m1,1,u,0,0,0.1,0.1,0,0\n";
    let alibaba = "ins_1,M1,j_1,1,Terminated,100,200,m_1,1,1,,,,\n";
    let rumen = "{\"jobID\": \"job_1\"}\n";
    for (text, format) in [
        (jhist, JHIST),
        (spark.as_str(), SPARK),
        (hadoop1, HADOOP1),
        (google, TraceFormat::Google2011TaskEvents),
        (alibaba, TraceFormat::Alibaba2018BatchInstance),
        (rumen, RUMEN),
    ] {
        let plain = read_bytes(text.as_bytes(), format).expect("readable");
        let bom = read_bytes(&with_bom(text.as_bytes()), format)
            .unwrap_or_else(|e| panic!("{format:?}: {e}"));
        assert_eq!(bom, plain, "{format:?}");
        assert_eq!(plain.1.records_skipped, 0, "{format:?}");
    }
}

/// A log whose lines end with a lone CR (classic Mac OS) reads as the same log with LF:
/// the Hadoop 1 sample read as 2 records and 0 jobs before.
#[test]
fn cr_only_line_ends_are_read_as_line_ends() {
    let base = shared_traces();
    let path = base.join("hadoop-rumen-testdata/small-trace-test/truncated-job-tracker-log");
    let text = std::fs::read(&path).expect("readable");
    assert!(!text.contains(&b'\r'));
    let cr_only: Vec<u8> = text
        .iter()
        .map(|&b| if b == b'\n' { b'\r' } else { b })
        .collect();
    assert_eq!(straggler_trace::detect_bytes(&cr_only), Some(HADOOP1));
    let lf = read_bytes(&text, HADOOP1).expect("readable");
    let cr = read_bytes(&cr_only, HADOOP1).expect("readable");
    assert_eq!(cr, lf);
    assert_eq!(cr.0.len(), 1);
    // CRLF ends are read as before.
    let crlf = String::from_utf8(text)
        .expect("UTF-8")
        .replace('\n', "\r\n");
    assert_eq!(read_bytes(crlf.as_bytes(), HADOOP1).expect("readable"), lf);
}

/// The skips of a rolling event log name their file and their line in it (they ran on
/// across files, named by the directory only).
#[test]
fn skips_in_a_rolling_log_name_their_file_and_line() {
    let fixture = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    let dir = std::env::temp_dir().join(format!(
        "stragglers-rolling-skip-{}/eventlog_v2_app-20260101000000-0001",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    for entry in std::fs::read_dir(&fixture).expect("the fixture") {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, dir.join(path.file_name().expect("a name"))).expect("copied");
    }
    // A third file, after the 10 lines of the first two, its first line behind a byte
    // order mark, its second line broken.
    let third = "events_3_app-20260101000000-0001";
    std::fs::write(
        dir.join(third),
        "\u{feff}{\"Event\":\"SparkListenerLogStart\"}\nnot json\n",
    )
    .expect("writable");
    let (_, report) = read(&dir, SPARK);
    std::fs::remove_dir_all(dir.parent().expect("a parent")).expect("removable");
    assert_eq!(report.records_read, 15);
    assert_eq!(report.records_skipped, 1);
    let skip = &report.skips[0];
    assert_eq!(
        (skip.file.as_deref(), skip.line, skip.reason.as_str()),
        (Some(third), 2, "malformed JSON")
    );
}

/// A `NaN`, `Infinity` or `-Infinity` where a JSON value should be (Python's `json` and
/// Jackson write them) is skipped on its line, naming its field, as a value of the wrong
/// type is; before, it was `malformed JSON`, with no field.
#[test]
fn nan_and_infinity_in_json_lines_are_skipped_naming_their_field() {
    // Lines 3, 4 and 5 start attempts at NaN, Infinity and -Infinity; line 6 starts one.
    let start = |task_id: u64, launch: &str| {
        spark_start(task_id, task_id, 1000).replace("\"Launch Time\":1000", launch)
    };
    let log = spark_job(&[
        start(1, "\"Launch Time\":NaN"),
        start(2, "\"Launch Time\":Infinity"),
        start(3, "\"Launch Time\": -Infinity "),
        spark_start(4, 4, 1000),
        // A non-number elsewhere than at the error, or a word that only starts like one,
        // is malformed JSON.
        "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"x\":NaNa}".to_owned(),
        "{\"Event\":\"SparkListenerTaskStart\",\"Stage ID\":0,\"x\":Nope}".to_owned(),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "NaN is not a JSON number", Some("Launch Time")),
            (4, "Infinity is not a JSON number", Some("Launch Time")),
            (5, "-Infinity is not a JSON number", Some("Launch Time")),
            (7, "malformed JSON", None),
            (8, "malformed JSON", None),
        ]
    );
    assert_eq!(report.records_read, 9);
    assert_eq!(attempts(&jobs).count(), 1);

    // The same in a `.jhist` event, in a field the reader does not use: the event is lost
    // all the same (serde_json reads none of it), and named.
    let jhist = concat!(
        "Avro-Json\n",
        "{\"type\":\"record\"}\n",
        "{\"type\":\"TASK_STARTED\",\"event\":{\"x\":{\"taskid\":\"task_1_2_m_3\",",
        "\"taskType\":\"MAP\",\"startTime\":5,\"splitLocations\":Infinity}}}\n",
    );
    let (_, report) = read_bytes(jhist.as_bytes(), TraceFormat::HadoopJhist).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(3, "Infinity is not a JSON number", Some("splitLocations"))]
    );
}

/// A key the reader reads written twice in one object of a Spark or `.jhist` line, or of a
/// Rumen job (serde_json refuses it: which value to take cannot be told), is skipped as
/// `duplicate key` naming that key, as a Hadoop 1 record's is; before, it was `field of the
/// wrong type` naming whatever key came before the second one (`Host`, `finishTime`).
#[test]
fn a_json_key_written_twice_is_a_duplicate_key_naming_it() {
    let log = spark_job(&[
        spark_start(1, 0, 1000).replace("\"Host\":\"h\"", "\"Host\":\"h\",\"Launch Time\":1500"),
        spark_start(2, 1, 1000),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(3, "duplicate key", Some("Launch Time"))]
    );
    assert_eq!(attempts(&jobs).count(), 1);

    let jhist = concat!(
        "Avro-Json\n",
        "{\"type\":\"record\"}\n",
        "{\"type\":\"TASK_STARTED\",\"event\":{\"x\":{\"taskid\":\"task_1_2_m_3\",",
        "\"taskType\":\"MAP\",\"startTime\":5}},\"type\":\"TASK_FINISHED\"}\n",
    );
    let (_, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(3, "duplicate key", Some("type"))]
    );

    // In a Rumen attempt, the attempt is lost; in the job's own fields, the job.
    let rumen = concat!(
        "{\n",
        "  \"jobID\" : \"job_1_0001\",\n",
        "  \"mapTasks\" : [ {\n",
        "    \"taskID\" : \"task_1_0001_m_000000\",\n",
        "    \"taskType\" : \"MAP\",\n",
        "    \"attempts\" : [ {\n",
        "      \"attemptID\" : \"attempt_1_0001_m_000000_0\",\n",
        "      \"startTime\" : 1500,\n",
        "      \"finishTime\" : 5000,\n",
        "      \"startTime\" : 1600,\n",
        "      \"result\" : \"SUCCESS\"\n",
        "    } ]\n",
        "  } ]\n",
        "}\n",
        "{\n",
        "  \"jobID\" : \"job_1_0002\",\n",
        "  \"submitTime\" : 1000,\n",
        "  \"jobID\" : \"job_1_0003\"\n",
        "}\n",
    );
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (10, "duplicate key", Some("startTime")),
            (18, "duplicate key", Some("jobID")),
        ]
    );
    assert_eq!(job_ids(&jobs), ["job_1_0001"]);
    assert_eq!(attempts(&jobs).count(), 0);
}

/// A key the reader reads written twice in one object of a `.jhist` event's body (a field,
/// or a count's `value` in its counters), or the event's class written twice in `event`, is
/// skipped as `duplicate key` naming it, on its line, as in a Spark line: the record is
/// lost, as to a value of the wrong type. Before, the reader's own visitor kept the last
/// value without a word. A key it does not read written twice is passed over, as serde_json
/// passes it over in a Spark line.
#[test]
fn a_jhist_body_key_written_twice_is_a_duplicate_key_naming_it() {
    let header = "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n";
    let event = |kind: &str, body: &str| {
        format!("{{\"type\":\"{kind}\",\"event\":{{\"e\":{{{body}}}}}}}\n")
    };
    let task = "\"taskid\":\"task_1_0001_m_000000\",\"taskType\":\"MAP\"";
    let attempt = |n: u32| format!("{task},\"attemptId\":\"attempt_1_0001_m_000000_{n}\"");
    let jhist = [
        header.to_owned(),
        // Line 3: a name written twice (the second an Avro union).
        event(
            "JOB_SUBMITTED",
            "\"jobid\":\"job_1_0001\",\"jobName\":\"a\",\"jobName\":{\"string\":\"b\"}",
        ),
        // Line 4: a key not read written twice: parsed.
        event(
            "JOB_SUBMITTED",
            "\"jobid\":\"job_1_0002\",\"userName\":\"u\",\"userName\":\"v\"",
        ),
        event("TASK_STARTED", task),
        // Line 6: a start time written twice; line 7, a valid start.
        event(
            "MAP_ATTEMPT_STARTED",
            &format!("{},\"startTime\":1000,\"startTime\":1500", attempt(0)),
        ),
        event(
            "MAP_ATTEMPT_STARTED",
            &format!("{},\"startTime\":1000", attempt(1)),
        ),
        // Line 8: splits written twice; line 9: the event's class written twice.
        event(
            "MAP_ATTEMPT_FINISHED",
            &format!(
                "{},\"finishTime\":9000,\"clockSplits\":[1],\"clockSplits\":[2]",
                attempt(1)
            ),
        ),
        format!(
            "{{\"type\":\"MAP_ATTEMPT_FINISHED\",\"event\":{{\"e\":{{{},\"finishTime\":9000}},\
             \"e\":{{{},\"finishTime\":8000}}}}}}\n",
            attempt(1),
            attempt(1)
        ),
        // Line 10: a count's value written twice, in a task's counters.
        event(
            "TASK_FINISHED",
            &format!(
                "{task},\"finishTime\":9000,\"counters\":{{\"name\":\"C\",\"groups\":[{{\"name\":\"g\",\
                 \"counts\":[{{\"name\":\"HDFS_BYTES_READ\",\"value\":5,\"value\":6}}]}}]}}"
            ),
        ),
    ]
    .concat();
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "duplicate key", Some("jobName")),
            (6, "duplicate key", Some("startTime")),
            (8, "duplicate key", Some("clockSplits")),
            (9, "duplicate key", Some("e")),
            (10, "duplicate key", Some("value")),
        ]
    );
    assert_eq!(report.records_parsed, 5, "header, schema, lines 4, 5 and 7");
    assert_eq!(job_ids(&jobs), ["job_1_0002", "job_1_0001"]);
    assert_eq!(
        attempt_rows(&jobs),
        [(
            "task_1_0001_m_000000",
            "attempt_1_0001_m_000000_1",
            1.0,
            None,
            AttemptOutcome::Unfinished
        )]
    );
}

/// A `.jhist` counter the task's input is read from (`HDFS_BYTES_READ` of a map) that is
/// negative or no integer skips its event, named, as a Spark `Bytes Read` of the wrong type
/// does; before, the size was taken for unknown without a word. The attempt's end skipped,
/// its task's `TASK_FINISHED` ends it (`recovered_ends`).
#[test]
fn a_jhist_input_counter_that_is_no_size_skips_its_event() {
    let counters = |value: &str| {
        format!(
            "\"counters\":{{\"name\":\"COUNTERS\",\"groups\":[{{\"name\":\"fs\",\"counts\":[\
             {{\"name\":\"HDFS_BYTES_READ\",\"displayName\":\"x\",\"value\":{value}}}]}}]}}"
        )
    };
    let event = |kind: &str, fields: &str| {
        format!(
            "{{\"type\":\"{kind}\",\"event\":{{\"e\":{{\"taskid\":\"task_1_0001_m_000000\",\
             \"taskType\":\"MAP\",{fields}}}}}}}\n"
        )
    };
    let jhist = |value: &str| {
        [
            "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n".to_owned(),
            event(
                "MAP_ATTEMPT_STARTED",
                "\"attemptId\":\"attempt_1_0001_m_000000_0\",\"startTime\":2000",
            ),
            event(
                "MAP_ATTEMPT_FINISHED",
                &format!(
                    "\"attemptId\":\"attempt_1_0001_m_000000_0\",\"finishTime\":5000,{}",
                    counters(value)
                ),
            ),
            event(
                "TASK_FINISHED",
                "\"successfulAttemptId\":\"attempt_1_0001_m_000000_0\",\"finishTime\":5000",
            ),
            "{\"type\":\"JOB_FINISHED\",\"event\":{\"e\":{\"jobid\":\"job_1_0001\"}}}\n".to_owned(),
        ]
        .concat()
    };
    let (jobs, report) = read_bytes(jhist("4096").as_bytes(), JHIST).expect("readable");
    assert_eq!(report.records_skipped, 0);
    assert_eq!(jobs[0].tasks[0].input_bytes, Some(4096));
    for (value, reason) in [
        ("-5", "negative size"),
        ("\"lots\"", "field of the wrong type"),
        ("1.5", "field of the wrong type"),
    ] {
        let (jobs, report) = read_bytes(jhist(value).as_bytes(), JHIST).expect("readable");
        assert_eq!(
            skips_with_fields(&report),
            [(4, reason, Some("HDFS_BYTES_READ"))],
            "{value}"
        );
        assert_eq!(jobs[0].tasks[0].input_bytes, None);
        assert_eq!(report.recovered_ends.len(), 1, "{value}");
        assert_eq!(
            attempt_rows(&jobs),
            [(
                "task_1_0001_m_000000",
                "attempt_1_0001_m_000000_0",
                2.0,
                Some(5.0),
                AttemptOutcome::Succeeded
            )]
        );
    }
}

/// The same in a Hadoop 1 log: a `COUNTERS` count the task's input is read from whose
/// value is no size skips its record (a successful attempt's end, or its task's), naming
/// the count; before, the size was taken for unknown without a word.
#[test]
fn a_hadoop1_input_counter_that_is_no_size_skips_its_record() {
    let log = |value: &str| {
        let counters = format!(
            "COUNTERS=\"{{(FileSystemCounters)(FileSystemCounters)\
             [(HDFS_BYTES_READ)(HDFS_BYTES_READ)({value})]}}\""
        );
        [
            "Job JOBID=\"job_1_0001\" JOBNAME=\"x\" SUBMIT_TIME=\"1000\" .\n".to_owned(),
            "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" \
             TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" START_TIME=\"2000\" .\n"
                .to_owned(),
            format!(
                "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" \
                 TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" TASK_STATUS=\"SUCCESS\" \
                 FINISH_TIME=\"5000\" {counters} .\n"
            ),
            format!(
                "Task TASKID=\"task_1_0001_m_000000\" TASK_TYPE=\"MAP\" TASK_STATUS=\"SUCCESS\" \
                 FINISH_TIME=\"5000\" {counters} .\n"
            ),
            "Job JOBID=\"job_1_0001\" FINISH_TIME=\"9000\" JOB_STATUS=\"SUCCESS\" .\n".to_owned(),
        ]
        .concat()
    };
    let (jobs, report) = read_bytes(log("4096").as_bytes(), HADOOP1).expect("readable");
    assert_eq!(report.records_skipped, 0);
    assert_eq!(jobs[0].tasks[0].input_bytes, Some(4096));
    for (value, reason) in [("-5", "negative size"), ("4O96", "field of the wrong type")] {
        let (jobs, report) = read_bytes(log(value).as_bytes(), HADOOP1).expect("readable");
        assert_eq!(
            skips_with_fields(&report),
            [
                (3, reason, Some("HDFS_BYTES_READ")),
                (4, reason, Some("HDFS_BYTES_READ")),
            ],
            "{value}"
        );
        assert_eq!(jobs[0].tasks[0].input_bytes, None);
        assert_eq!(
            attempt_rows(&jobs),
            [(
                "task_1_0001_m_000000",
                "attempt_1_0001_m_000000_0",
                2.0,
                None,
                AttemptOutcome::Unfinished
            )]
        );
    }
}

/// A Hadoop 1 key outside `JobHistory.Keys` (a misspelt `TASK_STATUX`, a fork's own key)
/// is counted with the first line it is on, and the record read as without it; the keys of
/// the enum the reader does not use (`LOCALITY`, `WORKFLOW_ID`, 0.19's `RESTART_COUNT`...)
/// are not.
#[test]
fn hadoop1_keys_outside_jobhistory_keys_are_counted_with_their_first_line() {
    let attempt = "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" \
                   TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\"";
    let log = format!(
        "Meta VERSION=\"1\" .\n\
         Job JOBID=\"job_1_0001\" JOBNAME=\"x\" SUBMIT_TIME=\"1000\" WORKFLOW_ID=\"\" \
         WORKFLOW_TAGS=\"\" VIEW_JOB=\"*\" JOB_QUEUE=\"default\" RESTART_COUNT=\"0\" .\n\
         Task TASKID=\"task_1_0001_m_000000\" TASK_TYPE=\"MAP\" START_TIME=\"1000\" \
         SPLITS=\"\" .\n\
         {attempt} START_TIME=\"1000\" TRACKER_NAME=\"tracker_h1:localhost/127.0.0.1:1\" \
         HTTP_PORT=\"50060\" LOCALITY=\"NODE_LOCAL\" AVATAAR=\"VIRGIN\" .\n\
         {attempt} TASK_STATUX=\"SUCCESS\" FINISH_TIME=\"5000\" HOSTNAME=\"/r/h1\" .\n\
         {attempt} TASK_STATUX=\"SUCCESS\" FINISH_TIME=\"5000\" MY_KEY=\"1\" .\n\
         Job JOBID=\"job_1_0001\" FINISH_TIME=\"6000\" JOB_STATUS=\"SUCCESS\" .\n"
    );
    let (jobs, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
    let unknown: Vec<(&str, u64, u64)> = report
        .unknown_keys
        .iter()
        .map(|(key, seen)| (key.as_str(), seen.records, seen.first_line))
        .collect();
    assert_eq!(unknown, [("MY_KEY", 1, 6), ("TASK_STATUX", 2, 5)]);
    assert_eq!(report.unknown_keys_seen, 3);
    // The ends without their `TASK_STATUS` are skipped, as the report says, and the
    // attempt stays running.
    assert_eq!((report.records_read, report.records_skipped), (7, 2));
    assert_eq!(
        skips_with_fields(&report),
        [
            (5, "missing field", Some("TASK_STATUS")),
            (6, "missing field", Some("TASK_STATUS")),
        ]
    );
    let rows = attempt_rows(&jobs);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].4, AttemptOutcome::Unfinished);

    // A damaged input of many distinct keys keeps the first 100, and counts them all.
    let mut log = String::from("Job JOBID=\"job_1_0001\" .\n");
    for i in 0..150u32 {
        let key: String = format!("{i:03}")
            .bytes()
            .map(|digit| char::from(b'A' + (digit - b'0')))
            .collect();
        log.push_str(&format!("Job JOBID=\"job_1_0001\" KEY_{key}=\"x\" .\n"));
    }
    let (_, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(report.unknown_keys.len(), ReadReport::MAX_UNKNOWN_KEYS_KEPT);
    assert_eq!(report.unknown_keys_seen, 150);
    assert_eq!(report.unknown_keys["KEY_AAA"].first_line, 2);
}

// Progress splits present but unusable: the attempt kept, and named in the report.

/// `(line, attempt, reason)` of each attempt with unusable splits kept by `report`.
fn unusable_splits(report: &ReadReport) -> Vec<(u64, &str, &str)> {
    report
        .unusable_splits
        .iter()
        .map(|u| (u.line, u.attempt.as_str(), u.reason.as_str()))
        .collect()
}

/// Whether each attempt of `jobs`, in order, has progress from its splits.
fn has_progress(jobs: &[TraceJob]) -> Vec<bool> {
    attempts(jobs).map(|a| !a.progress.is_empty()).collect()
}

/// A `.jhist` of one job whose map `i` has one attempt, started on line `3 + 2i` and ended
/// on line `4 + 2i` by an event whose `clockSplits` is `splits[i]` as written (no key for
/// `None`).
fn jhist_with_splits(splits: &[Option<&str>]) -> String {
    let mut jhist =
        String::from("Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n");
    for (i, splits) in splits.iter().enumerate() {
        let ids = format!(
            "\"taskid\":\"task_1_0001_m_{i:06}\",\"taskType\":\"MAP\",\
             \"attemptId\":\"attempt_1_0001_m_{i:06}_0\""
        );
        let splits = splits
            .map(|s| format!(",\"clockSplits\":{s}"))
            .unwrap_or_default();
        jhist.push_str(&format!(
            "{{\"type\":\"MAP_ATTEMPT_STARTED\",\"event\":{{\"e\":{{{ids},\"startTime\":1000}}}}}}\n\
             {{\"type\":\"MAP_ATTEMPT_FINISHED\",\"event\":{{\"e\":{{{ids},\"finishTime\":5000{splits}}}}}}}\n"
        ));
    }
    jhist
}

/// `.jhist`: an attempt whose `clockSplits` are present but unusable (a split not an
/// integer, a negative one, a sum that overflows, a value that is no array) is read, its
/// progress empty, and named in the report with its line and why; before, its splits were
/// dropped without a word. Splits absent, `null`, empty or all zero are no fault, nor are
/// valid ones (an Avro union included), nor a last run of -1 (Hadoop's intervals never
/// reached: before, reported as negative).
#[test]
fn jhist_splits_present_but_unusable_are_reported_not_dropped() {
    let jhist = jhist_with_splits(&[
        Some("[1000,2000]"),
        None,
        Some("[1000,1.5,1000]"),
        Some("[1000,-2]"),
        Some("[9223372036854775807,1]"),
        Some("\"1000,2000\""),
        Some("null"),
        Some("[]"),
        Some("[0,0]"),
        Some("{\"array\":[4000]}"),
        Some("[1000,-1]"),
        Some("[-1,-1]"),
        Some("[-1,1000]"),
    ]);
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    // Every event parsed: an attempt with unusable splits is no skip.
    assert_eq!((report.records_read, report.records_skipped), (28, 0));
    assert!(report.skip_reasons.is_empty());
    assert_eq!(
        unusable_splits(&report),
        [
            (8, "attempt_1_0001_m_000002_0", "clockSplits not integers"),
            (10, "attempt_1_0001_m_000003_0", "clockSplits negative"),
            (12, "attempt_1_0001_m_000004_0", "clockSplits sum overflows"),
            (14, "attempt_1_0001_m_000005_0", "clockSplits not an array"),
            (28, "attempt_1_0001_m_000012_0", "clockSplits negative"),
        ]
    );
    assert_eq!(report.unusable_splits_seen, 5);
    assert_eq!(attempts(&jobs).count(), 13, "every attempt kept");
    assert_eq!(
        has_progress(&jobs),
        [
            true, false, false, false, false, false, false, false, false, true, true, false, false
        ]
    );
    // Half reached at 1 s of a 4 s attempt, then at least half until its end.
    let half = attempts(&jobs).nth(10).expect("attempt 10");
    assert_eq!(half.progress, [(0.0, 0.0), (1.0, 0.5), (4.0, 0.5)]);
}

/// A Rumen job of one map task whose attempt `i` has `clockSplits` `splits[i]` as written
/// (a `hostName` line in its place for `None`). Lines: 1 the job's `{`, 6 the attempts'
/// list; attempt `i` is on lines `7 + 4i` (`attemptID`) to `9 + 4i` (`clockSplits`), the
/// line after it `},` or the end of the list.
fn rumen_with_splits(splits: &[Option<&str>]) -> String {
    let mut rumen = String::from(
        "{\n  \"jobID\" : \"job_1_0001\",\n  \"mapTasks\" : [ {\n    \"taskID\" : \
         \"task_1_0001_m_000000\",\n    \"taskType\" : \"MAP\",\n    \"attempts\" : [ {\n",
    );
    for (i, splits) in splits.iter().enumerate() {
        if i > 0 {
            rumen.push_str("    }, {\n");
        }
        let result = if i == 0 { "SUCCESS" } else { "KILLED" };
        let last = splits.map_or_else(
            || "\"hostName\" : \"/rack1/host1\"".to_owned(),
            |s| format!("\"clockSplits\" : {s}"),
        );
        rumen.push_str(&format!(
            "      \"attemptID\" : \"attempt_1_0001_m_000000_{i}\",\n      \"startTime\" : 1000, \
             \"finishTime\" : 5000, \"result\" : \"{result}\",\n      {last}\n"
        ));
    }
    rumen.push_str("    } ]\n  } ]\n}\n");
    rumen
}

/// Rumen: the same as in `.jhist`, each attempt named at the line of its `clockSplits`
/// (a value that is no array costs the attempt there, as any value of the wrong type).
#[test]
fn rumen_splits_present_but_unusable_are_reported_not_dropped() {
    let rumen = rumen_with_splits(&[
        Some("[ 1000, 2000 ]"),
        None,
        Some("[ 1000, 1.5, 1000 ]"),
        Some("[ 1000, -2 ]"),
        Some("[ 9223372036854775807, 1 ]"),
        Some("null"),
        Some("[ ]"),
        Some("[ 0, 0 ]"),
        Some("[ 1000, -1 ]"),
        Some("[ -1, -1 ]"),
        Some("[ -1, 1000 ]"),
    ]);
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!((report.records_read, report.records_skipped), (1, 0));
    assert_eq!(
        unusable_splits(&report),
        [
            (17, "attempt_1_0001_m_000000_2", "clockSplits not integers"),
            (21, "attempt_1_0001_m_000000_3", "clockSplits negative"),
            (25, "attempt_1_0001_m_000000_4", "clockSplits sum overflows"),
            (49, "attempt_1_0001_m_000000_10", "clockSplits negative"),
        ]
    );
    assert_eq!(report.unusable_splits_seen, 4);
    assert_eq!(
        has_progress(&jobs),
        [
            true, false, false, false, false, false, false, false, true, false, false
        ]
    );
}

/// A damaged input of many attempts with unusable splits keeps the first 100 with their
/// line, and counts them all.
#[test]
fn unusable_splits_are_kept_up_to_the_cap_and_all_counted() {
    let bad = vec![Some("[1.5]"); 150];
    let (jobs, report) = read_bytes(jhist_with_splits(&bad).as_bytes(), JHIST).expect("readable");
    assert_eq!(attempts(&jobs).count(), 150);
    assert_eq!(report.unusable_splits_seen, 150);
    assert_eq!(
        report.unusable_splits.len(),
        ReadReport::MAX_UNUSABLE_SPLITS_KEPT
    );
    assert_eq!(report.unusable_splits[0].line, 4);
    assert_eq!(report.unusable_splits[99].line, 4 + 2 * 99);
}

/// `clockSplits` longer than Hadoop writes (12 by default; the cap is 1,000) are reported
/// as `clockSplits too long` and give no progress, in `.jhist` and Rumen alike; 1,000 are
/// read as any others. Before, every split was kept (an array of 30 million in a 63 KB
/// gzip took gigabytes, one progress point per split held by the job).
#[test]
fn splits_longer_than_the_cap_are_reported_not_kept() {
    let splits = |n: usize| format!("[{}]", vec!["1"; n].join(","));
    let (at_cap, too_long) = (splits(1000), splits(1001));
    let jhist = jhist_with_splits(&[Some(&at_cap), Some(&too_long)]);
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!((report.records_read, report.records_skipped), (6, 0));
    assert_eq!(
        unusable_splits(&report),
        [(6, "attempt_1_0001_m_000001_0", "clockSplits too long")]
    );
    let points: Vec<usize> = attempts(&jobs).map(|a| a.progress.len()).collect();
    assert_eq!(points, [1002, 0], "(0, 0), one per split, and the end");

    let rumen = rumen_with_splits(&[Some(&at_cap), Some(&too_long)]);
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!((report.records_read, report.records_skipped), (1, 0));
    assert_eq!(
        unusable_splits(&report),
        [(13, "attempt_1_0001_m_000000_1", "clockSplits too long")]
    );
    let points: Vec<usize> = attempts(&jobs).map(|a| a.progress.len()).collect();
    assert_eq!(points, [1002, 0]);
}

/// A `.jhist` in Avro's binary encoding (Hadoop 3's default) is named for what it is and
/// refused as not supported, with what to do; read as a `.jhist` all the same, its header
/// is the error, saying the same. Before, its schema line made detection take it for a
/// JSON `.jhist`, whose reader then called it malformed.
#[test]
fn a_binary_jhist_is_unsupported_not_malformed() {
    let bytes =
        b"Avro-Binary\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n\x02\x00\x04";
    assert_eq!(straggler_trace::detect_bytes(bytes), None);
    let path = std::env::temp_dir().join(format!("stragglers-binary-{}.jhist", std::process::id()));
    std::fs::write(&path, bytes).expect("writable");
    let result = read_path(&path);
    std::fs::remove_file(&path).expect("removable");
    match result {
        Err(error @ TraceError::Unsupported { .. }) => {
            let text = error.to_string();
            assert!(text.contains("Avro-Binary"), "{text}");
            assert!(text.contains("jhist.format=json"), "{text}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    match read_bytes(bytes, JHIST) {
        Err(error @ TraceError::Malformed { .. }) => {
            assert!(error.to_string().contains("jhist.format=json"), "{error}");
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
}

/// A Spark attempt whose commit was denied (its sibling committed first) is killed, as
/// Spark 2.3 and later report it, also where Spark 2.2 and earlier wrote it failed: it lost
/// a race, and an original that lost to its copy is no failed original. Before, such an
/// original was failed, and its task dropped from the labels as having no original.
#[test]
fn spark_commit_denied_is_a_kill_whatever_the_version() {
    let denied = |task_id: u64, failed_flag: &str| {
        format!(
            "{{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Task Type\":\"ResultTask\",\
             \"Task End Reason\":{{\"Reason\":\"TaskCommitDenied\"}},\"Task Info\":{{\
             \"Task ID\":{task_id},\"Index\":{task_id},\"Launch Time\":0,\
             \"Finish Time\":30100{failed_flag}}}}}"
        )
    };
    let log = spark_job(&[
        spark_start(1, 1, 0),
        spark_start(2, 2, 0),
        denied(1, ",\"Failed\":true"),
        denied(2, ""),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(report.records_skipped, 0, "{report:?}");
    let outcomes: Vec<AttemptOutcome> = attempts(&jobs).map(|a| a.outcome).collect();
    assert_eq!(outcomes, [AttemptOutcome::Killed, AttemptOutcome::Killed]);
}

/// A `.jhist` kill of an attempt that never started, with a `finishTime` of 0 (Hadoop's
/// record of an attempt given up on before it had a container), is skipped for that reason,
/// not as an end without a start; one with a time is still the latter.
#[test]
fn jhist_attempts_killed_before_launch_are_named() {
    let kill = |attempt: u32, finish: u64| {
        format!(
            "{{\"type\":\"MAP_ATTEMPT_KILLED\",\"event\":{{\"e\":{{\"taskid\":\"task_1_0001_m_000000\",\
             \"taskType\":\"MAP\",\"attemptId\":\"attempt_1_0001_m_000000_{attempt}\",\
             \"finishTime\":{finish},\"hostname\":\"UNKNOWN\"}}}}}}\n"
        )
    };
    let mut jhist = jhist_with_splits(&[None]);
    jhist.push_str(&kill(1, 0));
    jhist.push_str(&kill(2, 7000));
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(attempts(&jobs).count(), 1);
    assert_eq!(report.skip_reasons["attempt killed before launch"], 1);
    assert_eq!(report.skip_reasons["attempt end without start"], 1);
}

/// A Spark task event: start (no `reason`) or end, of `Task ID` `tid`, of partition
/// `index` of stage `stage`, attempt `attempt` (as written: `-1` too).
fn spark_task(
    tid: u64,
    stage: u64,
    attempt: i64,
    index: u64,
    ms: u64,
    reason: Option<&str>,
) -> String {
    let ids =
        format!("\"Stage ID\":{stage},\"Stage Attempt ID\":{attempt},\"Task Type\":\"ResultTask\"");
    match reason {
        None => format!(
            "{{\"Event\":\"SparkListenerTaskStart\",{ids},\"Task Info\":{{\"Task ID\":{tid},\
             \"Index\":{index},\"Launch Time\":{ms},\"Host\":\"h\"}}}}"
        ),
        Some(reason) => format!(
            "{{\"Event\":\"SparkListenerTaskEnd\",{ids},\"Task End Reason\":{{\"Reason\":\
             \"{reason}\"}},\"Task Info\":{{\"Task ID\":{tid},\"Index\":{index},\
             \"Finish Time\":{ms}}}}}"
        ),
    }
}

/// An attempt's end goes where its start filed it, by `Task ID`: Spark 1 wrote a success
/// under its stage's latest attempt (SPARK-13054), a stage that two running jobs share
/// stays the earlier's, and a task Spark wrote under stage attempt `-1` (started after its
/// stage was cancelled) is read. Before, the first end was skipped as another task's, the
/// shared stage's end went to the later job, and the `-1` lines were skipped.
#[test]
fn spark_ends_follow_their_task_id() {
    let job_start = |job: u64, stages: &str| {
        format!("{{\"Event\":\"SparkListenerJobStart\",\"Job ID\":{job},\"Stage IDs\":{stages}}}")
    };
    let job_end = |job: u64| format!("{{\"Event\":\"SparkListenerJobEnd\",\"Job ID\":{job}}}");
    let outcomes = |lines: Vec<String>| {
        let log = lines.join("\n") + "\n";
        let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
        assert_eq!(report.records_skipped, 0, "{:?}", report.skip_reasons);
        jobs.iter()
            .flat_map(|j| {
                j.tasks.iter().flat_map(move |t| {
                    (t.attempts.iter()).map(move |a| (j.id.clone(), t.id.clone(), a.outcome))
                })
            })
            .collect::<Vec<_>>()
    };
    use AttemptOutcome::{Killed, Succeeded};
    // Task ID 1 started in stage attempt 1.0, ended under 1.1 after the resubmission.
    let resubmitted = outcomes(vec![
        job_start(0, "[1]"),
        spark_task(1, 1, 0, 0, 0, None),
        spark_task(2, 1, 1, 0, 5000, None),
        spark_task(1, 1, 1, 0, 8000, Some("Success")),
        spark_task(2, 1, 1, 0, 9000, Some("Success")),
        job_end(0),
    ]);
    assert_eq!(
        resubmitted,
        [
            ("job 0".into(), "1.0:0".into(), Succeeded),
            ("job 0".into(), "1.1:0".into(), Succeeded),
        ]
    );
    // Stage 0 of job 0, listed again by job 1 while job 0 runs.
    let shared = outcomes(vec![
        job_start(0, "[0, 1]"),
        spark_task(1, 0, 0, 0, 0, None),
        job_start(1, "[0, 2]"),
        spark_task(2, 0, 0, 1, 1000, None),
        spark_task(1, 0, 0, 0, 3000, Some("Success")),
        spark_task(2, 0, 0, 1, 3500, Some("Success")),
        job_end(0),
        spark_task(3, 2, 0, 0, 4000, None),
        spark_task(3, 2, 0, 0, 5000, Some("Success")),
        job_end(1),
    ]);
    assert_eq!(
        shared,
        [
            ("job 0".into(), "0.0:0".into(), Succeeded),
            ("job 0".into(), "0.0:1".into(), Succeeded),
            ("job 1".into(), "2.0:0".into(), Succeeded),
        ]
    );
    // Task ID 2 started after its stage was cancelled, under attempt -1.
    let cancelled = outcomes(vec![
        job_start(0, "[0]"),
        spark_task(1, 0, 0, 0, 0, None),
        job_end(0),
        spark_task(2, 0, -1, 1, 1000, None),
        spark_task(1, 0, 0, 0, 2000, Some("TaskKilled")),
        spark_task(2, 0, -1, 1, 2500, Some("TaskKilled")),
    ]);
    assert_eq!(
        cancelled,
        [
            ("job 0".into(), "0.0:0".into(), Killed),
            ("job 0".into(), "0.0:1".into(), Killed),
        ]
    );
}

/// A Spark task without an end yet takes its stage's task type from the stage's ends, those
/// started before the first end and after alike: a log cut (or `.inprogress`) leaves tasks
/// running, and a task of unknown kind drops out of the replay. Before, they stayed `Other`.
#[test]
fn spark_tasks_not_ended_take_their_stage_s_kind() {
    let log = [
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}".to_owned(),
        spark_task(1, 0, 0, 0, 0, None),
        spark_task(2, 0, 0, 1, 500, None),
        spark_task(1, 0, 0, 0, 2000, Some("Success")),
        spark_task(3, 0, 0, 2, 2500, None),
    ]
    .join("\n");
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(report.records_skipped, 0);
    assert_eq!(task_kinds(&jobs), [StageKind::Reduce; 3]);
}

/// A successful reduce of a log without progress splits takes its progress from its
/// phases' ends, a third each (Hadoop 1's `SHUFFLE_FINISHED` and `SORT_FINISHED`, Rumen's
/// `shuffleFinished` and `sortFinished`): launched at 0, shuffled by 87 s, sorted by 88 s,
/// done at 100 s. Before, its progress was linear, 0.87 at 87 s where Hadoop said 1/3.
#[test]
fn reduces_without_splits_progress_by_phase() {
    let thirds = [
        (0.0, 0.0),
        (87.0, 1.0 / 3.0),
        (88.0, 2.0 / 3.0),
        (100.0, 1.0),
    ];
    let hadoop1 = concat!(
        "Job JOBID=\"job_1_0001\" JOBNAME=\"j\" SUBMIT_TIME=\"0\" .\n",
        "ReduceAttempt TASK_TYPE=\"REDUCE\" TASKID=\"task_1_0001_r_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_r_000000_0\" START_TIME=\"1000\" ",
        "TRACKER_NAME=\"tracker_h:1\" .\n",
        "ReduceAttempt TASK_TYPE=\"REDUCE\" TASKID=\"task_1_0001_r_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_r_000000_0\" TASK_STATUS=\"SUCCESS\" ",
        "SHUFFLE_FINISHED=\"88000\" SORT_FINISHED=\"89000\" FINISH_TIME=\"101000\" ",
        "HOSTNAME=\"h\" .\n",
        "Job JOBID=\"job_1_0001\" FINISH_TIME=\"101000\" JOB_STATUS=\"SUCCESS\" .\n",
    );
    let (jobs, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(report.records_skipped, 0, "{:?}", report.skip_reasons);
    let progress: Vec<_> = attempts(&jobs).map(|a| a.progress.clone()).collect();
    assert_eq!(progress, [thirds.to_vec()]);
    let rumen = concat!(
        "{\"jobID\": \"job_1_0001\", \"reduceTasks\": [{\"taskID\": \"task_1_0001_r_000000\", ",
        "\"taskType\": \"REDUCE\", \"attempts\": [{\"attemptID\": \"attempt_1_0001_r_000000_0\", ",
        "\"startTime\": 1000, \"shuffleFinished\": 88000, \"sortFinished\": 89000, ",
        "\"finishTime\": 101000, \"result\": \"SUCCESS\"}, {\"attemptID\": ",
        "\"attempt_1_0001_r_000000_1\", \"startTime\": 1000, \"shuffleFinished\": -1, ",
        "\"sortFinished\": 89000, \"finishTime\": 101000, \"result\": \"KILLED\"}]}]}\n",
    );
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!(report.records_skipped, 0, "{:?}", report.skip_reasons);
    let progress: Vec<_> = attempts(&jobs).map(|a| a.progress.clone()).collect();
    assert_eq!(progress, [thirds.to_vec(), Vec::new()]);
}

/// Rumen: an attempt with no start and a `finishTime` of 0, killed (Hadoop's record of an
/// attempt given up on before it had a container, copied from the `.jhist`), is skipped for
/// that reason; before, it took its task's start and was skipped as ending before it.
#[test]
fn rumen_attempts_killed_before_launch_are_named() {
    let rumen = concat!(
        "{\"jobID\": \"job_1_0001\", \"mapTasks\": [{\"taskID\": \"task_1_0001_m_000000\", ",
        "\"taskType\": \"MAP\", \"startTime\": 1000, \"attempts\": [{\"attemptID\": ",
        "\"attempt_1_0001_m_000000_0\", \"startTime\": 1000, \"finishTime\": 5000, ",
        "\"result\": \"SUCCESS\"}, {\"attemptID\": \"attempt_1_0001_m_000000_1\", ",
        "\"startTime\": -1, \"finishTime\": 0, \"result\": \"KILLED\"}]}]}\n",
    );
    let (jobs, report) = read_bytes(rumen.as_bytes(), RUMEN).expect("readable");
    assert_eq!(attempts(&jobs).count(), 1);
    assert_eq!(report.skip_reasons["attempt killed before launch"], 1);
    assert_eq!(report.skip_reasons.len(), 1);
}

/// Spark: a negative time is `"negative time"`, as in the other readers (before, `"field of
/// the wrong type"`: the fields were read unsigned), and a number too large for a double
/// (`1e400`) is `"number out of range"`, naming its field (before, `"malformed JSON"`).
#[test]
fn spark_negative_and_out_of_range_times_say_what_they_are() {
    let job_start = "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}";
    let log = [
        job_start.to_owned(),
        spark_start(1, 0, 2000),
        spark_end(1, 0, 2000, 5000, "Success").replace("5000", "-5"),
        spark_end(1, 0, 2000, 5000, "Success").replace("5000", "1e400"),
        spark_start(2, 1, 2000).replace("2000", "-2000"),
        job_start.replace("\"Job ID\":0", "\"Job ID\":1,\"Submission Time\":-1"),
        spark_end(1, 0, 2000, 5000, "Success"),
    ]
    .join("\n")
        + "\n";
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "negative time", Some("Finish Time")),
            (4, "number out of range", Some("Finish Time")),
            (5, "negative time", Some("Launch Time")),
            (6, "negative time", Some("Submission Time")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (7, 3));
    // The later end of the attempt is read.
    assert_eq!(jobs[0].tasks[0].attempts[0].end_secs, Some(5.0));
}

/// A bad `Submission Time` (implausible, negative, of the wrong type) costs that field
/// alone: the job start is counted as a skip naming it on its line, as a `.jhist`
/// `JOB_SUBMITTED` is, and the job opens all the same, without a submission time, with its
/// name, stages and tasks. Before, the job was never opened, and its tasks were skipped as
/// `"stage of no open job"`.
#[test]
fn a_bad_spark_submission_time_costs_that_field_not_the_job() {
    let info = "\"Stage Infos\":[{\"Stage ID\":0,\"Stage Name\":\"count at x\"}]";
    for (value, reason) in [
        ("99999999999999", "implausible time"),
        ("-1", "negative time"),
        ("\"soon\"", "field of the wrong type"),
        ("1.5e3", "field of the wrong type"),
        ("{\"ms\":[1]}", "field of the wrong type"),
    ] {
        let log = spark_job(&[
            spark_start(1, 0, 2000),
            spark_end(1, 0, 2000, 5000, "Success"),
        ])
        .replacen(
            "\"Stage IDs\":[0]",
            &format!("\"Submission Time\":{value},\"Stage IDs\":[0],{info}"),
            1,
        );
        let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
        assert_eq!(
            skips_with_fields(&report),
            [(2, reason, Some("Submission Time"))],
            "{value}"
        );
        let counts = (report.records_read, report.records_parsed);
        assert_eq!(counts, (5, 4), "{value}");
        assert!(
            report.truncated.is_none(),
            "{value}: {:?}",
            report.truncated
        );
        assert_eq!(jobs.len(), 1, "{value}");
        assert_eq!(jobs[0].submit_secs, None, "{value}");
        assert_eq!(jobs[0].name.as_deref(), Some("count at x"), "{value}");
        let ends: Vec<_> = attempts(&jobs).map(|a| a.end_secs).collect();
        assert_eq!(ends, [Some(5.0)], "{value}");
    }

    // The real log of one job of 16 tasks: it reads as whole, but for the submission time.
    let base = shared_traces();
    let path = base.join("spark-core-test-events/app-20161115172038-0000");
    let (whole_jobs, whole) = read(&path, SPARK);
    let text = std::fs::read_to_string(&path).expect("readable");
    for (value, reason) in [
        ("99999999999999", "implausible time"),
        ("-1", "negative time"),
    ] {
        let bad = text.replacen(
            "\"Submission Time\":1479252043855",
            &format!("\"Submission Time\":{value}"),
            1,
        );
        let (jobs, report) = read_bytes(bad.as_bytes(), SPARK).expect("readable");
        assert_eq!(
            skips_with_fields(&report),
            [(13, reason, Some("Submission Time"))]
        );
        assert_eq!((report.records_read, report.records_skipped), (75, 1));
        assert_eq!(whole.records_skipped, 0);
        let mut expected = whole_jobs.clone();
        expected[0].submit_secs = None;
        assert_eq!(jobs, expected, "{value}");
        assert_eq!(jobs[0].tasks.len(), 16);
    }
}

/// A `SparkListenerJobStart` of a job already started keeps the first start's name and
/// submission time (and its speculation setting, the one the job started under): a start
/// that restates them, or says nothing of them, is parsed, and one that gives another is
/// skipped as `contradicts the job's submission`, naming the field, and changes nothing. A
/// value the first start left unknown is taken from a later one. Before, each later start
/// replaced the job's name and submission time without a word.
#[test]
fn a_repeated_spark_job_start_keeps_the_first_name_and_submission_time() {
    let start = |submit: u64, name: &str| {
        format!(
            "{{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Submission Time\":{submit},\
             \"Stage Infos\":[{{\"Stage ID\":0,\"Stage Name\":\"{name}\"}}]}}"
        )
    };
    let update = |switch: &str| {
        format!(
            "{{\"Event\":\"SparkListenerEnvironmentUpdate\",\
             \"Spark Properties\":{{\"spark.speculation\":\"{switch}\"}}}}"
        )
    };
    // Line 2 (`spark_job`'s start) gives neither: line 3 gives both.
    let log = spark_job(&[
        start(1000, "count at x"),
        start(1000, "count at x"),
        update("true"),
        start(2000, "count at x"),
        start(1000, "collect at y"),
        start(3000, "collect at y"),
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Stage IDs\":[0]}".to_owned(),
        spark_start(1, 0, 4000),
        spark_end(1, 0, 4000, 5000, "Success"),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (
                6,
                "contradicts the job's submission",
                Some("Submission Time")
            ),
            (7, "contradicts the job's submission", Some("Stage Name")),
            (8, "contradicts the job's submission", Some("Stage Name")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (12, 9));
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].name.as_deref(), Some("count at x"));
    assert_eq!(jobs[0].submit_secs, Some(1.0));
    assert_eq!(jobs[0].speculation, None, "the setting of the first start");
    assert_eq!(attempts(&jobs).count(), 1);
}

/// A time past the 64-bit integer range (which serde_json reads as a float) is an
/// implausible or negative time, as any integer is; `-0` (read as a float too) is 0, as
/// `Launch Time` 0 is; a float within the range (`1.5e3`) is of the wrong type: Spark
/// writes its times as integers. Before, the first two were `"field of the wrong type"`.
#[test]
fn spark_times_past_the_integer_range_or_minus_zero_are_times() {
    let end = |tid: u64, index: u64, finish: &str| {
        spark_end(tid, index, 1000, 5000, "Success")
            .replace("\"Finish Time\":5000", &format!("\"Finish Time\":{finish}"))
    };
    let log = spark_job(&[
        spark_start(1, 0, 1000),
        end(1, 0, "99999999999999999999"),
        end(1, 0, "-99999999999999999999"),
        end(1, 0, "1.5e3"),
        end(1, 0, "5000"),
        spark_start(2, 1, 0).replace("\"Launch Time\":0", "\"Launch Time\":-0"),
        end(2, 1, "-0").replace("\"Launch Time\":1000", "\"Launch Time\":-0"),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (4, "implausible time", Some("Finish Time")),
            (5, "negative time", Some("Finish Time")),
            (6, "field of the wrong type", Some("Finish Time")),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (10, 7));
    let times: Vec<_> = attempts(&jobs)
        .map(|a| (a.start_secs, a.end_secs))
        .collect();
    assert_eq!(times, [(1.0, Some(5.0)), (0.0, Some(0.0))]);
    // 0, not -0: nothing downstream sees a negative zero.
    let zero = &jobs[0].tasks[1].attempts[0];
    assert!(zero.start_secs.is_sign_positive());
    assert!(zero.end_secs.is_some_and(f64::is_sign_positive));
}

/// In a `.jhist` too, a time past the 64-bit integer range (which serde_json reads as a
/// float) is an implausible or negative time, `-0` is 0, and a float within the range
/// (`1.5e3`) is of the wrong type. Before, `-0` and the times past the range were all
/// `"field of the wrong type"`.
#[test]
fn jhist_times_past_the_integer_range_or_minus_zero_are_times() {
    let event = |kind: &str, field: &str, time: &str| {
        format!(
            "{{\"type\":\"MAP_ATTEMPT_{kind}\",\"event\":{{\"e\":{{\
             \"taskid\":\"task_1_0001_m_000000\",\"taskType\":\"MAP\",\
             \"attemptId\":\"attempt_1_0001_m_000000_0\",\"{field}\":{time}}}}}}}\n"
        )
    };
    let jhist = [
        "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n".to_owned(),
        event("STARTED", "startTime", "-0"),
        event("FINISHED", "finishTime", "99999999999999999999"),
        event("FINISHED", "finishTime", "-99999999999999999999"),
        event("FINISHED", "finishTime", "1.5e3"),
        event("FINISHED", "finishTime", "-0"),
    ]
    .concat();
    let (jobs, report) = read_bytes(jhist.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (4, "implausible time", Some("finishTime")),
            (5, "negative time", Some("finishTime")),
            (6, "field of the wrong type", Some("finishTime")),
        ]
    );
    let times: Vec<_> = attempts(&jobs)
        .map(|a| (a.start_secs, a.end_secs))
        .collect();
    assert_eq!(times, [(0.0, Some(0.0))]);
    let zero = attempts(&jobs).next().expect("one attempt");
    assert!(zero.start_secs.is_sign_positive());
    assert!(zero.end_secs.is_some_and(f64::is_sign_positive));
}

/// The note of a rolling log whose last event comes before its job's end names the file
/// of its line, as skips do: the line is that file's. An empty file after it changes
/// neither. Before, it named the directory with a line of a file in it.
#[test]
fn the_missing_job_end_of_a_rolling_log_names_its_file() {
    let dir = std::env::temp_dir().join(format!(
        "stragglers-rolling-end-{}/eventlog_v2_app-1",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let first = spark_job(&[spark_start(1, 0, 1000)]);
    let first = &first[..first
        .find("{\"Event\":\"SparkListenerJobEnd\"")
        .expect("an end")];
    let second = [
        spark_end(1, 0, 1000, 5000, "Success"),
        "not json".to_owned(),
        spark_start(2, 1, 1000),
    ]
    .join("\n")
        + "\n\n";
    for (name, text) in [
        ("events_1_app-1", first),
        ("events_2_app-1", second.as_str()),
        ("events_3_app-1", "\n"),
    ] {
        std::fs::write(dir.join(name), text).expect("writable");
    }
    let (jobs, report) = read(&dir, SPARK);
    std::fs::remove_dir_all(dir.parent().expect("a parent")).expect("removable");
    assert_eq!((report.records_read, report.records_skipped), (6, 1));
    let skip = &report.skips[0];
    assert_eq!(
        (skip.file.as_deref(), skip.line, skip.reason.as_str()),
        (Some("events_2_app-1"), 2, "malformed JSON")
    );
    let cut = report.truncated.expect("the missing end noted");
    assert_eq!((cut.file.as_deref(), cut.line), (Some("events_2_app-1"), 3));
    assert_eq!(
        cut.note,
        "the log ends before the end of job app-1/job 0 (no SparkListenerJobEnd, nor \
         SparkListenerApplicationEnd): it may be cut short, or written while the job ran"
    );
    assert_eq!(attempts(&jobs).count(), 2);
    // One file: no file named.
    let (_, report) = read_bytes(first.as_bytes(), SPARK).expect("readable");
    let cut = report.truncated.expect("the missing end noted");
    assert_eq!((cut.file, cut.line), (None, 3));
}

/// Hadoop 1: a record that the next one interrupts (a closing quote missing) is malformed,
/// named on the line of the value left open and its key, and the records after it are read;
/// `"truncated record"` is kept for a record the input ends inside.
#[test]
fn a_hadoop1_record_missing_a_quote_mid_file_is_malformed_not_truncated() {
    let log = concat!(
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n",
        "Task TASKID=\"task_1_0001_m_000000\" TASK_TYPE=\"MAP\" START_TIME=\"1000\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_0\" START_TIME=\"1000\" ",
        "TRACKER_NAME=\"tracker_h1:localhost/127.0.0.1:1\" HTTP_PORT=\"1 .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_1\" START_TIME=\"2000\" ",
        "TRACKER_NAME=\"tracker_h2:localhost/127.0.0.1:1\" .\n",
        "MapAttempt TASK_TYPE=\"MAP\" TASKID=\"task_1_0001_m_000000\" ",
        "TASK_ATTEMPT_ID=\"attempt_1_0001_m_000000_1\" TASK_STATUS=\"SUCCESS\" ",
        "FINISH_TIME=\"5000\" HOSTNAME=\"/r/h2\" .\n",
        "Job JOBID=\"job_1_0001\" FINISH_TIME=\"6000\" JOB_STATUS=\"SUCCESS\" .\n",
    );
    let (jobs, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(3, "malformed record", Some("HTTP_PORT"))]
    );
    assert!(report.truncated.is_none(), "{:?}", report.truncated);
    assert_eq!((report.records_read, report.records_parsed), (6, 5));
    let attempts = &jobs[0].tasks[0].attempts;
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0].end_secs, Some(5.0));

    // The quote missing on a value that takes the next key: that value's key is named,
    // on the line where it starts.
    let swallowed = log.replacen("JOBNAME=\"n\"", "JOBNAME=\"n\nx", 1);
    let (_, report) = read_bytes(swallowed.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report)[0],
        (1, "malformed record", Some("JOBNAME"))
    );

    // A value before the open quote that ends with a character of several bytes.
    let accented = log.replacen("HTTP_PORT=\"1 .", "HTTP_PORT=é\"1 .", 1);
    let (_, report) = read_bytes(accented.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(skips_with_fields(&report), [(3, "malformed record", None)]);

    // The input ends inside the record: cut, as before.
    let cut = &log[..log.rfind("MapAttempt").expect("the last attempt") + 30];
    let (_, report) = read_bytes(cut.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report).last(),
        Some(&(5, "truncated record", None))
    );
    assert_eq!(report.truncated.as_ref().map(|t| t.line), Some(5));
}

/// A log cut at a line end reads cleanly but for its jobs' missing ends: each format with
/// a job end notes the jobs without one (a cut: the log may be cut short, or written while
/// the job ran); the whole logs have no such note, nor do the formats without a job end.
#[test]
fn a_log_without_its_jobs_end_is_noted() {
    let base = shared_traces();
    let head = |path: &str, lines: usize| -> String {
        let text = std::fs::read_to_string(base.join(path)).expect("readable");
        text.lines()
            .take(lines)
            .map(|l| l.to_owned() + "\n")
            .collect()
    };
    let jhist = "hadoop-jhist/job_1329348432655_0001-10.jhist";
    let spark = "spark-core-test-events/local-1422981759269";
    for (path, format, end) in [
        (jhist, JHIST, "no JOB_FINISHED, JOB_FAILED or JOB_KILLED"),
        (
            spark,
            SPARK,
            "no SparkListenerJobEnd, nor SparkListenerApplicationEnd",
        ),
    ] {
        let (_, whole) = read(&base.join(path), format);
        assert!(whole.truncated.is_none(), "{path}: {:?}", whole.truncated);
        let (jobs, report) = read_bytes(head(path, 20).as_bytes(), format).expect("readable");
        assert_eq!(report.records_skipped, 0, "{path}");
        let cut = report.truncated.expect("the missing end noted");
        assert_eq!(cut.line, 20, "{path}");
        assert_eq!(
            cut.note,
            format!(
                "the log ends before the end of job {} ({end}): it may be cut short, or \
                 written while the job ran",
                jobs[0].id
            ),
            "{path}"
        );
    }
    // Hadoop 1: a job whose record with FINISH_TIME is missing.
    let hadoop1 = concat!(
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n",
        "Job JOBID=\"job_1_0002\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n",
        "Job JOBID=\"job_1_0001\" FINISH_TIME=\"6000\" JOB_STATUS=\"SUCCESS\" .\n",
    );
    let (_, report) = read_bytes(hadoop1.as_bytes(), HADOOP1).expect("readable");
    let cut = report.truncated.expect("the missing end noted");
    assert_eq!(cut.line, 3);
    assert!(
        cut.note
            .contains("end of job job_1_0002 (no Job record with FINISH_TIME)")
    );
    // Formats without a job end: no note.
    let google = "0,,3418309,0,,0,user,3,9,0.125,0.07446,0.0004244,0\n";
    let (_, report) =
        read_bytes(google.as_bytes(), TraceFormat::Google2011TaskEvents).expect("readable");
    assert!(report.truncated.is_none());
}

/// A Spark `SparkListenerTaskEnd`'s `Launch Time` is checked once its `SparkListenerTaskStart`
/// was seen too: negative or implausible, the end is skipped as the start would be; another
/// time than the start's (Spark writes the same `TaskInfo` in both: a damaged record) is
/// skipped as `"contradicts the task start"`, the start standing and the attempt left
/// running as if its end were lost. Before, the three read as the clean log, without a
/// word (line 19 of `application_1538416563558_0014`, the end of `Task ID` 1).
#[test]
fn a_spark_task_end_s_launch_time_is_checked_against_its_start() {
    let dir = shared_traces();
    let path = dir.join("spark-core-test-events/removed-in-2019/application_1538416563558_0014");
    let text = std::fs::read_to_string(&path).expect("readable");
    let (clean_jobs, clean) = read_bytes(text.as_bytes(), SPARK).expect("readable");
    assert_eq!(clean.records_skipped, 0);
    let launch = "\"Launch Time\":1538440977816";
    let line_19 = text.lines().nth(18).expect("line 19");
    assert!(line_19.contains("SparkListenerTaskEnd") && line_19.contains(launch));
    // The skips, and the end and outcome of `Task ID` 1.
    let end_of_task_1 = |report: &ReadReport, jobs: &[TraceJob]| {
        let attempt = attempts(jobs).find(|a| a.id == "1").expect("Task ID 1");
        let skips: Vec<(u64, String, Option<String>)> = (report.skips.iter())
            .map(|s| (s.line, s.reason.clone(), s.field.clone()))
            .collect();
        (skips, attempt.end_secs, attempt.outcome)
    };
    for (value, reason) in [
        ("-5", "negative time"),
        ("99999999999999999", "implausible time"),
        // 77 s before the start's.
        ("1538440900816", "contradicts the task start"),
    ] {
        let damaged_19 = line_19.replace(launch, &format!("\"Launch Time\":{value}"));
        let damaged = text.replacen(line_19, &damaged_19, 1);
        let (jobs, report) = read_bytes(damaged.as_bytes(), SPARK).expect("readable");
        assert_eq!(
            end_of_task_1(&report, &jobs),
            (
                vec![(19, reason.to_owned(), Some("Launch Time".to_owned()))],
                None,
                AttemptOutcome::Unfinished
            ),
            "{value}"
        );
        assert_eq!(report.records_read, clean.records_read);
    }
    let (skips, end, outcome) = end_of_task_1(&clean, &clean_jobs);
    assert_eq!((skips.len(), outcome), (0, AttemptOutcome::Succeeded));
    assert!(end.is_some());
}

/// The other fields of a Spark end's (or a repeated start's) `Task Info` that its start
/// gave (`Index`, `Attempt`, `Executor ID`, `Host`, `Speculative`) are compared with the
/// start's too: another value skips the record as `"contradicts the task start"` naming
/// the field; a field absent from either is not compared. Before, the end went where its
/// start filed it and the field was dropped (the start's host and flag kept), and a
/// repeated start at the same launch time was parsed whatever else it said.
#[test]
fn spark_task_info_that_contradicts_the_start_is_skipped() {
    let info = "\"Attempt\":0,\"Executor ID\":\"1\",\"Host\":\"h\",\"Speculative\":false";
    let start = spark_start(1, 0, 2000).replace("\"Host\":\"h\"", info);
    let end = spark_end(1, 0, 2000, 5000, "Success")
        .replace("\"Finish Time\"", &format!("{info},\"Finish Time\""));
    for (field, from, to) in [
        ("Index", "\"Index\":0", "\"Index\":3"),
        ("Attempt", "\"Attempt\":0", "\"Attempt\":1"),
        (
            "Executor ID",
            "\"Executor ID\":\"1\"",
            "\"Executor ID\":\"2\"",
        ),
        ("Host", "\"Host\":\"h\"", "\"Host\":\"g\""),
        (
            "Speculative",
            "\"Speculative\":false",
            "\"Speculative\":true",
        ),
    ] {
        // Line 4: the end; line 5: the start again at its launch time; line 6: a good end.
        let log = spark_job(&[
            start.clone(),
            end.replace(from, to),
            start.replace(from, to),
            end.clone(),
        ]);
        let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
        assert_eq!(
            skips_with_fields(&report),
            [
                (4, "contradicts the task start", Some(field)),
                // A start of another index is one of another task, as before.
                if field == "Index" {
                    (5, "attempt id of another task", Some("Task ID"))
                } else {
                    (5, "contradicts the task start", Some(field))
                },
            ],
            "{field}"
        );
        assert_eq!(
            attempt_rows(&jobs),
            [("0.0:0", "1", 2.0, Some(5.0), AttemptOutcome::Succeeded)]
        );
        let attempt = &jobs[0].tasks[0].attempts[0];
        assert_eq!(
            (attempt.host.as_deref(), attempt.speculative),
            (Some("h"), Some(false))
        );
        // The same record without the field reads.
        let pattern = format!(",{to}");
        let without = spark_job(&[start.clone(), end.replace(from, to).replace(&pattern, "")]);
        let (_, report) = read_bytes(without.as_bytes(), SPARK).expect("readable");
        let expected = if field == "Index" { 1 } else { 0 };
        assert_eq!(report.records_skipped, expected, "{field} absent");
    }
    // A `Resubmitted` end of another launch time is skipped too, and revokes nothing.
    let log = spark_job(&[
        start.clone(),
        end.clone(),
        end.replace("Success", "Resubmitted")
            .replace("2000", "1000"),
    ]);
    let (jobs, report) = read_bytes(log.as_bytes(), SPARK).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(5, "contradicts the task start", Some("Launch Time"))]
    );
    assert!(!jobs[0].tasks[0].attempts[0].revoked);
}

/// A `.jhist` whose line 2 is not its Avro schema (a JSON object of type `record`) is
/// `Malformed`, naming line 2 and the schema: deleted, so that line 2 is the first event,
/// or some other JSON. Before, any JSON passed for the schema, and the Sleep job with its
/// schema line deleted read without a word, its `AM_STARTED` event taken for the schema.
#[test]
fn a_jhist_without_its_schema_line_is_malformed() {
    let dir = shared_traces();
    let path = dir.join(
        "hadoop-jhist/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-\
         SUCCEEDED-default.jhist",
    );
    let text = std::fs::read_to_string(&path).expect("readable");
    let (_, clean) = read_bytes(text.as_bytes(), JHIST).expect("readable");
    assert_eq!((clean.records_read, clean.records_skipped), (55, 0));
    let mut lines: Vec<&str> = text.lines().collect();
    lines.remove(1);
    let no_schema = lines.join("\n") + "\n";
    let event = "{\"type\":\"TASK_STARTED\",\"event\":{}}";
    for (second_line, says) in [
        (None, "line 2 is an event (AM_STARTED)"),
        (Some(event), "line 2 is an event (TASK_STARTED)"),
        (Some("{\"event\":{}}"), "line 2 is an event (of no type)"),
        (Some("{}"), "a JSON object of type `record`"),
        (
            Some("[{\"type\":\"record\"}]"),
            "a JSON object of type `record`",
        ),
        (
            Some("{\"type\":\"enum\"}"),
            "a JSON object of type `record`",
        ),
    ] {
        let input = match second_line {
            None => no_schema.clone(),
            Some(line) => format!("Avro-Json\n{line}\n"),
        };
        match read_bytes(input.as_bytes(), JHIST) {
            Err(TraceError::Malformed {
                line,
                field,
                reason,
                ..
            }) => {
                assert_eq!((line, field.as_str()), (2, "schema"), "{second_line:?}");
                assert!(reason.contains(says), "{second_line:?}: {reason}");
                // One line, its words one space apart (a string continued without `\`
                // kept a line break and the next line's indent).
                assert!(
                    !reason.contains('\n') && !reason.contains("  "),
                    "{second_line:?}: {reason:?}"
                );
            }
            other => panic!("{second_line:?}: expected Malformed, got {other:?}"),
        }
    }
}

/// A `.jhist` attempt whose own end record is damaged (skipped) is ended by its task's
/// `TASK_FINISHED`, succeeded at its `finishTime` (Hadoop's `TaskImpl` writes the
/// successful attempt's), and noted in `ReadReport::recovered_ends`: by `successfulAttemptId`
/// where the event has it (Hadoop 2.1 on, the TeraGen job), else the task's one attempt
/// still running when none has succeeded (the Sleep job). Before, the task had no
/// succeeded attempt and dropped out of the labels. A `TASK_FINISHED` that contradicts the
/// attempt's recorded end is skipped, naming the field.
#[test]
fn a_jhist_attempt_without_its_end_is_ended_by_its_task_s_end() {
    let dir = shared_traces();
    let sleep = dir.join(
        "hadoop-jhist/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-\
         SUCCEEDED-default.jhist",
    );
    let teragen = dir.join(
        "hadoop-jhist/job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-\
         SUCCEEDED-default-1416424779349.jhist",
    );
    // `text` with `from` replaced by `to` on line `no` (which must hold it).
    let damage = |text: &str, no: usize, from: &str, to: &str| {
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        assert!(lines[no - 1].contains(from), "line {no}");
        lines[no - 1] = lines[no - 1].replacen(from, to, 1);
        lines.join("\n") + "\n"
    };
    for (path, attempt_line, task_line, attempt) in [
        (&sleep, 26, 29, "attempt_1329348432655_0001_m_000005_0"),
        (&teragen, 21, 23, "attempt_1416424547277_0002_m_000000_0"),
    ] {
        let text = std::fs::read_to_string(path).expect("readable");
        let (clean_jobs, clean) = read_bytes(text.as_bytes(), JHIST).expect("readable");
        assert!(clean.recovered_ends.is_empty() && clean.records_skipped == 0);
        let clean_attempt = attempts(&clean_jobs)
            .find(|a| a.id == attempt)
            .expect("there");
        let end = clean_attempt.end_secs.expect("ended");
        let finish = format!("\"finishTime\":{}", (end * 1000.0).round() as i64);
        let damaged = damage(&text, attempt_line, &finish, "\"finishTime\":\"oops\"");
        let (jobs, report) = read_bytes(damaged.as_bytes(), JHIST).expect("readable");
        assert_eq!(
            skips_with_fields(&report),
            [(
                attempt_line as u64,
                "field of the wrong type",
                Some("finishTime")
            )]
        );
        assert_eq!(report.recovered_ends_seen, 1);
        let recovered = &report.recovered_ends[0];
        assert_eq!(
            (recovered.line, recovered.attempt.as_str()),
            (task_line as u64, attempt)
        );
        let read = attempts(&jobs).find(|a| a.id == attempt).expect("there");
        assert_eq!(
            (read.outcome, read.end_secs, read.start_secs),
            (
                AttemptOutcome::Succeeded,
                Some(end),
                clean_attempt.start_secs
            )
        );
        assert!(
            read.progress.is_empty(),
            "no clockSplits: its end record is lost"
        );
        // The task's finish time contradicting the attempt's recorded end.
        let later = format!("\"finishTime\":{}", (end * 1000.0).round() as i64 + 1);
        let contradicting = damage(&text, task_line, &finish, &later);
        let (_, report) = read_bytes(contradicting.as_bytes(), JHIST).expect("readable");
        let expected = match path == &teragen {
            true => vec![(
                task_line as u64,
                "contradicts the attempt's end",
                Some("finishTime"),
            )],
            // Without `successfulAttemptId`, a task's end is no attempt's.
            false => vec![],
        };
        assert_eq!(skips_with_fields(&report), expected);
        assert!(report.recovered_ends.is_empty());
    }
    // A `successfulAttemptId` of another task's attempt.
    let text = std::fs::read_to_string(&teragen).expect("readable");
    let other = damage(
        &text,
        23,
        "\"successfulAttemptId\":{\"string\":\"attempt_1416424547277_0002_m_000000_0\"}",
        "\"successfulAttemptId\":{\"string\":\"attempt_1416424547277_0002_m_000001_0\"}",
    );
    let (_, report) = read_bytes(other.as_bytes(), JHIST).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(
            23,
            "attempt id of another task",
            Some("successfulAttemptId")
        )]
    );
}

/// Without `successfulAttemptId`, the attempt a `TASK_FINISHED` ends is the task's one
/// still running, and only if it still runs at its job's end event (never at the end of
/// the input): a copy taken for it (the original's start absent) that is killed after the
/// task's end stays killed, and nothing is recovered; with two running, none is taken. None
/// is taken either where the original may be unknown: a task with an attempt record
/// skipped that names none of its attempts seen starting, or a copy flagged `SPECULATIVE`
/// without a known original.
#[test]
fn a_jhist_task_end_without_its_attempt_id_ends_no_copy() {
    let started = |n: u32, start: u32, avataar: &str| {
        format!(
            "{{\"type\":\"MAP_ATTEMPT_STARTED\",\"event\":{{\"x\":{{\"taskid\":\
             \"task_1_0001_m_000000\",\"taskType\":\"MAP\",\"attemptId\":\
             \"attempt_1_0001_m_000000_{n}\",\"startTime\":{start},\"avataar\":\"{avataar}\"}}}}}}"
        )
    };
    let ended = |n: u32, kind: &str, finish: &str| {
        format!(
            "{{\"type\":\"MAP_ATTEMPT_{kind}\",\"event\":{{\"x\":{{\"taskid\":\
             \"task_1_0001_m_000000\",\"taskType\":\"MAP\",\"attemptId\":\
             \"attempt_1_0001_m_000000_{n}\",\"finishTime\":{finish}}}}}}}"
        )
    };
    let task_finished = "{\"type\":\"TASK_FINISHED\",\"event\":{\"x\":{\"taskid\":\
        \"task_1_0001_m_000000\",\"taskType\":\"MAP\",\"finishTime\":9000}}}";
    let job_finished = "{\"type\":\"JOB_FINISHED\",\"event\":{\"x\":{\"jobid\":\"job_1_0001\"}}}";
    let log = |events: &[String]| {
        let mut text = String::from("Avro-Json\n{\"type\":\"record\"}\n");
        for event in events {
            text.push_str(event);
            text.push('\n');
        }
        text
    };
    // The log of `events`, read.
    let read = |events: &[String]| read_bytes(log(events).as_bytes(), JHIST).expect("readable");
    let outcomes = |jobs: &[TraceJob]| -> Vec<(String, AttemptOutcome, Option<f64>)> {
        attempts(jobs)
            .map(|a| (a.id.clone(), a.outcome, a.end_secs))
            .collect()
    };
    let id = |n: u32| format!("attempt_1_0001_m_000000_{n}");
    // Hadoop 0.23 and 2.0 write no `avataar`.
    let unflagged = |event: String| event.replace(",\"avataar\":\"VIRGIN\"", "");
    use AttemptOutcome::{Failed, Killed, Succeeded, Unfinished};
    // The original's start (line 3) damaged: the copy (line 4) is the one running at the
    // task's end, and is killed after it. (Not taken at the task's end: the original's
    // start skipped, and its end without a start, say the task's attempts are not all
    // known, and the copy is flagged without a known original.)
    let (jobs, report) = read(&[
        started(0, 1000, "VIRGIN").replace("1000", "\"x\""),
        started(1, 5000, "SPECULATIVE"),
        ended(0, "FINISHED", "9000"),
        task_finished.to_owned(),
        ended(1, "KILLED", "9100"),
        job_finished.to_owned(),
    ]);
    assert_eq!(outcomes(&jobs), [(id(1), Killed, Some(9.1))]);
    assert_eq!(report.recovered_ends_seen, 0);
    // The same, the log cut after the task's end (before the copy's kill): the copy stays
    // running, not succeeded at the task's end.
    let (jobs, report) = read(&[
        started(0, 1000, "VIRGIN").replace("1000", "\"x\""),
        started(1, 5000, "SPECULATIVE"),
        ended(0, "FINISHED", "9000"),
        task_finished.to_owned(),
    ]);
    assert_eq!(outcomes(&jobs), [(id(1), Unfinished, None)]);
    assert_eq!(report.recovered_ends_seen, 0);
    // The same, the copy's kill damaged and the job ended: the copy stays running.
    let (jobs, report) = read(&[
        started(0, 1000, "VIRGIN").replace("1000", "\"x\""),
        started(1, 5000, "SPECULATIVE"),
        ended(0, "FINISHED", "9000"),
        task_finished.to_owned(),
        ended(1, "KILLED", "\"x\""),
        job_finished.to_owned(),
    ]);
    assert_eq!(outcomes(&jobs), [(id(1), Unfinished, None)]);
    assert_eq!(report.recovered_ends_seen, 0);
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "field of the wrong type", Some("startTime")),
            (5, "attempt end without start", Some("attemptId")),
            (7, "field of the wrong type", Some("finishTime")),
        ]
    );
    // Unflagged (Hadoop 0.23, 2.0), the original's start damaged and its end absent: the
    // skipped start alone says the task's attempts are not all known.
    let (jobs, report) = read(&[
        unflagged(started(0, 1000, "VIRGIN").replace("1000", "\"x\"")),
        unflagged(started(1, 5000, "VIRGIN")),
        task_finished.to_owned(),
        ended(1, "KILLED", "\"x\""),
        job_finished.to_owned(),
    ]);
    assert_eq!(outcomes(&jobs), [(id(1), Unfinished, None)]);
    assert_eq!(report.recovered_ends_seen, 0);
    // Flagged, the original's records unreadable (no task to note them on): the copy,
    // flagged without a known original, is not taken.
    let (jobs, report) = read(&[
        "{\"type\":\"MAP_ATTEMPT_STARTED\",".to_owned(),
        started(1, 5000, "SPECULATIVE"),
        "{\"type\":\"MAP_ATTEMPT_FINISHED\",".to_owned(),
        task_finished.to_owned(),
        ended(1, "KILLED", "\"x\""),
        job_finished.to_owned(),
    ]);
    assert_eq!(outcomes(&jobs), [(id(1), Unfinished, None)]);
    assert_eq!(report.recovered_ends_seen, 0);
    // Unflagged, the original's records absent: the copy is taken at the task's end, and
    // its kill after it stands at the job's end; cut before its kill, it stays running.
    let events = [
        unflagged(started(1, 5000, "VIRGIN")),
        task_finished.to_owned(),
        ended(1, "KILLED", "9100"),
        job_finished.to_owned(),
    ];
    let (jobs, report) = read_bytes(log(&events).as_bytes(), JHIST).expect("readable");
    assert_eq!(outcomes(&jobs), [(id(1), Killed, Some(9.1))]);
    assert_eq!(report.recovered_ends_seen, 0);
    let (jobs, report) = read_bytes(log(&events[..2]).as_bytes(), JHIST).expect("readable");
    assert_eq!(outcomes(&jobs), [(id(1), Unfinished, None)]);
    assert_eq!(report.recovered_ends_seen, 0);
    // A copy flagged beside its known original, failed: the copy, its end damaged, is
    // the task's success.
    let (jobs, report) = read(&[
        started(0, 1000, "VIRGIN"),
        started(1, 2000, "SPECULATIVE"),
        ended(0, "FAILED", "4000"),
        ended(1, "FINISHED", "\"x\""),
        task_finished.to_owned(),
        job_finished.to_owned(),
    ]);
    assert_eq!(
        outcomes(&jobs),
        [(id(0), Failed, Some(4.0)), (id(1), Succeeded, Some(9.0))]
    );
    assert_eq!(report.recovered_ends_seen, 1);
    // The original's end damaged, its copy running: neither is taken.
    let (jobs, report) = read(&[
        started(0, 1000, "VIRGIN"),
        started(1, 5000, "SPECULATIVE"),
        ended(0, "FINISHED", "\"x\""),
        task_finished.to_owned(),
        job_finished.to_owned(),
    ]);
    assert_eq!(
        outcomes(&jobs),
        [(id(0), Unfinished, None), (id(1), Unfinished, None)]
    );
    assert_eq!(report.recovered_ends_seen, 0);
    // The original's end damaged, no copy: it is ended at the job's end, noted on the line
    // of the task's end.
    let (jobs, report) = read(&[
        started(0, 1000, "VIRGIN"),
        ended(0, "FINISHED", "\"x\""),
        task_finished.to_owned(),
        job_finished.to_owned(),
    ]);
    assert_eq!(outcomes(&jobs), [(id(0), Succeeded, Some(9.0))]);
    assert_eq!(
        (report.recovered_ends[0].line, report.recovered_ends_seen),
        (5, 1)
    );
    // The same beside a copy killed before launch (no run, not a lost attempt).
    let (jobs, report) = read(&[
        started(0, 1000, "VIRGIN"),
        ended(1, "KILLED", "0"),
        ended(0, "FINISHED", "\"x\""),
        task_finished.to_owned(),
        job_finished.to_owned(),
    ]);
    assert_eq!(outcomes(&jobs), [(id(0), Succeeded, Some(9.0))]);
    assert_eq!(report.recovered_ends_seen, 1);
    // The input cut after the task's end: the job never ends, and nothing is recovered.
    let (jobs, report) = read(&[
        started(0, 1000, "VIRGIN"),
        ended(0, "FINISHED", "\"x\""),
        task_finished.to_owned(),
    ]);
    assert_eq!(outcomes(&jobs), [(id(0), Unfinished, None)]);
    assert_eq!(report.recovered_ends_seen, 0);
}

/// Hadoop's defaults, both switches on, under the names Hadoop 1 reads.
fn hadoop1_defaults() -> SpeculationSetting {
    SpeculationSetting::hadoop(
        SpeculationSwitch::hadoop1("mapred.map.tasks.speculative.execution", None),
        SpeculationSwitch::hadoop1("mapred.reduce.tasks.speculative.execution", None),
    )
}

/// The two Hadoop 1 histories of `counters-format-test-logs` and their `_conf.xml`: each
/// configuration names, in its file name, the job id the Hadoop 1 reader gives its
/// history's job, and, read as Hadoop 1 reads it and setting no speculation key (its one
/// property is `mapred.child.java.opts`), gives Hadoop's defaults under the names Hadoop 1
/// reads; its property is a record parsed.
#[test]
fn a_hadoop_1_conf_xml_names_its_historys_job_and_gives_the_defaults() {
    let traces = shared_traces();
    let dir = traces.join("hadoop-rumen-testdata/small-trace-test/counters-format-test-logs");
    let prefix = "megacluster.megacorp.com_1265616107882_job_201002080801_";
    for (serial, date) in [("40864", "20100210"), ("50510", "20100208")] {
        let history = dir.join(format!("{prefix}{serial}_job_name-DAILY%2F{date}%5D.gz"));
        let (jobs, _) = read_path(&history).expect("the history reads");
        let conf_path = dir.join(format!("{prefix}{serial}_conf.xml"));
        let (conf, report) = read_job_conf(&conf_path, HadoopVersion::Hadoop1).expect("readable");
        let ids: Vec<&str> = jobs.iter().map(|job| job.id.as_str()).collect();
        assert_eq!(ids, [conf.job.as_str()]);
        assert_eq!(jobs[0].speculation, None);
        assert_eq!(conf.speculation, hadoop1_defaults());
        assert_eq!(report.format, TraceFormat::HadoopConf);
        assert_eq!(
            (
                report.records_read,
                report.records_parsed,
                report.records_skipped
            ),
            (1, 1, 0)
        );
    }
}

/// The Yahoo! sample embeds each job's configuration after a `!!FILE=` line naming it: each
/// is read, its one property (`mapred.child.java.opts`) parsed, and gives its job, in
/// `ReadReport::confs` with the line of its `!!FILE=` line (lines 1, 122, 126 and 162, by
/// `grep -n`), Hadoop's defaults, read as Hadoop 1 reads them. The reader gives no job a
/// setting itself (job 0002's configuration follows its history).
#[test]
fn the_yahoo_sample_gives_each_embedded_configuration_with_its_job_and_line() {
    let base = shared_traces();
    let path = base.join("hadoop-rumen-testdata/small-trace-test/sample-job-tracker-logs.gz");
    let (jobs, report) = read_path(&path).expect("readable");
    let confs: Vec<(u64, &str)> = (report.confs.iter())
        .map(|c| (c.line, c.conf.job.as_str()))
        .collect();
    assert_eq!(
        confs,
        [
            (1, "job_200904211745_0001"),
            (122, "job_200904211745_0002"),
            (126, "job_200904211745_0003"),
            (162, "job_200904211745_0004"),
        ]
    );
    let defaults = hadoop1_defaults();
    for conf in &report.confs {
        assert_eq!(conf.conf.speculation, defaults, "{conf:?}");
        assert_eq!(conf.file, None);
    }
    assert!(jobs.iter().all(|job| job.speculation.is_none()));
}

/// A Rumen-concatenated Hadoop 1 log with configurations embedded: one read (each property
/// a record on its line of the log, the one without a value skipped), one malformed (one
/// record skipped on the line of its fault, naming the element, the log read on), one whose
/// name holds no job id, and one the input ends inside (cut). Records: the `!!FILE=` lines
/// 1, 6, 9, 13 and 15, the properties on lines 3 and 4, the history records on 7 and 8, and
/// the three configurations that cannot be read: 12, 4 of them skipped.
#[test]
fn a_hadoop1_log_reads_its_embedded_configurations_as_conf_xml_files() {
    let log = concat!(
        "!!FILE=host_1_job_1_0001_conf.xml!!\n",
        "<?xml version=\"1.0\"?><configuration>\n",
        "<property><name>mapred.map.tasks.speculative.execution</name><value>false</value>",
        "</property>\n",
        "<property><name>novalue</name></property>\n",
        "</configuration>\n",
        "!!FILE=host_1_job_1_0001_user_name!!\n",
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n",
        "Job JOBID=\"job_1_0001\" FINISH_TIME=\"6000\" JOB_STATUS=\"SUCCESS\" .\n",
        "!!FILE=host_1_job_1_0002_conf.xml!!\n",
        "<configuration>\n",
        "<property><name>a</name><value>1 &nbsp; 2</value></property>\n",
        "</configuration>\n",
        "!!FILE=other_conf.xml!!\n",
        "<configuration/>\n",
        "!!FILE=host_1_job_1_0003_conf.xml!!\n",
        "<configuration>\n",
        "<property><name>a</name>\n",
    );
    let (jobs, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (4, "property without a value", Some("novalue")),
            (11, "malformed job configuration", Some("<value>")),
            (13, "embedded job configuration without a job id", None),
            (15, "truncated record", None),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (12, 8));
    assert_eq!(report.truncated.as_ref().map(|cut| cut.line), Some(15));
    assert_eq!(report.confs.len(), 1);
    let conf = &report.confs[0];
    assert_eq!((conf.line, conf.conf.job.as_str()), (1, "job_1_0001"));
    assert_eq!(conf.conf.speculation.map.enabled, Some(false));
    assert_eq!(
        conf.conf.speculation.map.key,
        "mapred.map.tasks.speculative.execution"
    );
    // The job is read, and given no setting by the reader.
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].speculation, None);

    // A line of a configuration that is not UTF-8: the configuration is skipped on it,
    // field `text`; XML that no `!!FILE=` line names (after a history record, which ends
    // the configuration before it) has no job.
    let log = b"!!FILE=h_1_job_1_0001_conf.xml!!\n<configuration>\n\
        <property><name>\xff</name><value>1</value></property>\n</configuration>\n\
        Job JOBID=\"job_1_0001\" SUBMIT_TIME=\"1000\" .\n\
        <?xml version=\"1.0\"?><configuration/>\n\
        Job JOBID=\"job_1_0001\" FINISH_TIME=\"6000\" .\n";
    let (jobs, report) = read_bytes(log, HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [
            (3, "malformed job configuration", Some("text")),
            (6, "embedded job configuration without a job id", None),
        ]
    );
    assert_eq!((report.records_read, report.records_parsed), (5, 3));
    assert!(report.truncated.is_none());
    assert!(report.confs.is_empty());
    assert_eq!(jobs.len(), 1);
}

/// A `!!FILE=` line names a configuration when its name ends in `_conf.xml` and the next
/// line that is not blank opens a tag: a history file whose job's name holds `_conf.xml`
/// (`load_conf.xml_files`), or ends with it, is no configuration, and the log has no skip.
/// XML without a `<configuration>` is malformed on its `!!FILE=` line.
#[test]
fn a_file_line_names_a_configuration_when_xml_follows_it() {
    let history = concat!(
        "Meta VERSION=\"1\" .\n",
        "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n",
    );
    for name in [
        "host_1_job_1_0001_u_load_conf.xml_files",
        "host_1_job_1_0001_u_x_conf.xml",
    ] {
        let log = format!("!!FILE={name}!!\n{history}");
        let (jobs, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
        assert_eq!(skips_with_fields(&report), [], "{name}");
        assert_eq!(
            (report.records_read, report.records_parsed),
            (3, 3),
            "{name}"
        );
        assert!(report.confs.is_empty(), "{name}");
        assert_eq!(jobs.len(), 1, "{name}");
    }
    // Blank lines before the XML; then XML without a root.
    let log = format!(
        "!!FILE=host_1_job_1_0001_conf.xml!!\n\n\n<configuration/>\n\
         !!FILE=host_1_job_1_0002_conf.xml!!\n\n<?xml version=\"1.0\"?>\n{history}"
    );
    let (_, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(5, "malformed job configuration", Some("document"))]
    );
    assert_eq!((report.records_read, report.records_parsed), (5, 4));
    let confs: Vec<(u64, &str)> = (report.confs.iter())
        .map(|c| (c.line, c.conf.job.as_str()))
        .collect();
    assert_eq!(confs, [(1, "job_1_0001")]);
}

/// The input ending inside an embedded configuration's XML notes the input as cut there,
/// whatever the configuration is skipped for: one that no `!!FILE=` line names, one over
/// the cap.
#[test]
fn the_input_ending_inside_an_embedded_configuration_is_a_cut() {
    use std::io::Read;
    let log = concat!(
        "Job JOBID=\"job_1_0001\" SUBMIT_TIME=\"1000\" FINISH_TIME=\"6000\" .\n",
        "<?xml version=\"1.0\"?><configuration>\n",
        "<property><name>a</name>\n",
    );
    let (_, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skipped_lines(&report),
        [(2, "embedded job configuration without a job id")]
    );
    assert_eq!(report.truncated.as_ref().map(|cut| cut.line), Some(2));
    // Closed before the end: no cut.
    let closed = format!("{log}</configuration>\n");
    let (_, report) = read_bytes(closed.as_bytes(), HADOOP1).expect("readable");
    assert!(report.truncated.is_none());

    let long = std::io::repeat(b'a').take(65 * 1024 * 1024);
    let input = std::io::Cursor::new("!!FILE=host_1_job_1_0001_conf.xml!!\n<configuration>\n")
        .chain(long)
        .chain(&b"\n"[..]);
    let (_, report) = read_stream(input, HADOOP1);
    assert_eq!(skipped_lines(&report), [(1, "record too long")]);
    let cut = report.truncated.as_ref().expect("cut");
    assert_eq!(
        (cut.line, cut.note.as_str()),
        (
            1,
            "the input ends inside the job configuration that starts on line 1"
        )
    );
}

/// An embedded configuration ends on the line that closes its root: a stray line after
/// `</configuration>` costs itself alone (`not a history record`), and a history record
/// over the cap after it is `line too long` on its own line, the configuration read
/// either way. A `</configuration>` in a comment or a CDATA section closes nothing, nor
/// does a `/>` in an attribute value.
#[test]
fn an_embedded_configuration_ends_on_the_line_that_closes_its_root() {
    use std::io::Read;
    let conf = concat!(
        "!!FILE=host_1_job_1_0001_conf.xml!!\n",
        "<?xml version=\"1.0\"?><configuration>\n",
        "<property><name>mapred.map.tasks.speculative.execution</name><value>false</value>",
        "</property>\n",
        "</configuration>\n",
    );
    let job = "Job JOBID=\"job_1_0001\" JOBNAME=\"n\" SUBMIT_TIME=\"1000\" .\n";
    let log = format!("{conf}garbage line\n{job}");
    let (jobs, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(5, "not a history record", None)]
    );
    assert_eq!((report.records_read, report.records_parsed), (4, 3));
    assert_eq!(report.confs.len(), 1);
    assert_eq!(report.confs[0].conf.speculation.map.enabled, Some(false));
    assert_eq!(jobs.len(), 1);

    // A record of 65 MiB on one line after the configuration.
    let long = std::io::repeat(b'a').take(65 * 1024 * 1024);
    let input = std::io::Cursor::new(conf)
        .chain(&b"Job JOBID=\"job_1_0001\" JOBNAME=\""[..])
        .chain(long)
        .chain(&b"\" .\n"[..])
        .chain(job.as_bytes());
    let (jobs, report) = read_stream(input, HADOOP1);
    assert_eq!(skipped_lines(&report), [(5, "line too long")]);
    assert_eq!((report.records_read, report.records_parsed), (4, 3));
    assert_eq!(report.confs.len(), 1);
    assert_eq!(report.confs[0].conf.speculation.map.enabled, Some(false));
    assert_eq!(jobs.len(), 1);

    // What closes no root: the root goes on to its own end tag, on line 5.
    let log = concat!(
        "!!FILE=host_1_job_1_0001_conf.xml!!\n",
        "<configuration y='/>'><!-- </configuration> -->\n",
        "<property><name>a</name>\n",
        "<value><![CDATA[</configuration>]]></value></property>\n",
        "</configuration>\n",
        "garbage line\n",
    );
    let (_, report) = read_bytes(log.as_bytes(), HADOOP1).expect("readable");
    assert_eq!(
        skips_with_fields(&report),
        [(6, "not a history record", None)]
    );
    assert_eq!((report.records_read, report.records_parsed), (3, 2));
    assert_eq!(report.confs.len(), 1);
}
