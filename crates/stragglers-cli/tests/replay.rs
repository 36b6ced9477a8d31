//! Runs `stragglers replay` on real logs of `../shared/traces` as a user would.

mod common;

use common::{TempDir, stragglers};
use std::path::{Path, PathBuf};
use std::process::Command;

fn trace(relative: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/traces")
        .join(relative);
    path.to_string_lossy().into_owned()
}

/// `stragglers replay ARGS --json -`, which must succeed: its standard error and the JSON
/// it wrote.
fn replay_json(args: &[&str]) -> (String, serde_json::Value) {
    let mut all = vec!["replay"];
    all.extend(args);
    all.extend(["--json", "-"]);
    let output = stragglers(&all);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let value = serde_json::from_slice(&output.stdout).expect("JSON on standard output");
    (stderr, value)
}

const YAHOO: &str = "hadoop-rumen-testdata/small-trace-test/sample-job-tracker-logs.gz";
/// The Yahoo! log's job 0002, cut inside a record on line 58, its configuration embedded
/// after its history (lines 107 to 110).
const TRUNCATED: &str = "hadoop-rumen-testdata/small-trace-test/truncated-job-tracker-log";
const SPARK: &str = "spark-core-test-events/application_1628109047826_1317105";

#[test]
fn replay_prints_the_tables_and_writes_the_schema() {
    let dir = TempDir::new("replay-test");
    let json_path = dir.join("replay.json");
    let output = stragglers(&[
        "replay",
        &trace(YAHOO),
        &trace(SPARK),
        "--detectors",
        "recorded,default,late",
        "--json",
        json_path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("Per job"), "{stdout}");
    assert!(stdout.contains("job_200904211745_0004"), "{stdout}");
    assert!(stdout.contains("Table 3"), "{stdout}");
    assert!(
        stderr.contains("7 tasks not labelled: setup or cleanup task"),
        "{stderr}"
    );

    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(value["schema"], "stragglers.replay/4");
    let inputs = value["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 2);
    assert_eq!(inputs[0]["format"], "hadoop1");
    assert_eq!(inputs[1]["format"], "spark");
    for input in inputs {
        assert_eq!(
            input["records_read"].as_u64(),
            Some(
                input["records_parsed"].as_u64().unwrap()
                    + input["records_skipped"].as_u64().unwrap()
            )
        );
        assert!(input["skip_reasons"].is_object());
    }
    // 4 Yahoo! jobs and 1 Spark job; 203 + 4 labelled tasks, 22 + 1 stragglers (hand
    // counts in crates/straggler-trace/tests/replay.rs).
    assert_eq!(value["jobs"], 5);
    // Without --scan-interval, each job at its engine's: the Hadoop 1 jobs every 3 s, the
    // Spark one every 0.1 s (its application sets no spark.speculation.interval).
    assert_eq!(value["scan_interval_secs"], serde_json::Value::Null);
    let intervals: Vec<serde_json::Value> = (value["per_job"].as_array().unwrap().iter())
        .map(|job| job["scan_interval"].clone())
        .collect();
    let hadoop = serde_json::json!({"secs": 3.0, "source": "default", "value": null});
    let spark = serde_json::json!({"secs": 0.1, "source": "default", "value": null});
    assert_eq!(
        intervals,
        [&hadoop, &hadoop, &hadoop, &hadoop, &spark].map(Clone::clone)
    );
    assert!(
        stderr.contains(
            "note: each job is scanned at its engine's interval (--scan-interval sets one for \
             all jobs): 1 job every 0.1 s (Spark's default spark.speculation.interval), 4 jobs \
             every 3 s (Hadoop's: tasks report progress every 3 s)\n"
        ),
        "{stderr}"
    );
    assert_eq!(value["tasks"], 210 + 4);
    assert_eq!(value["stragglers"], 22 + 1);
    let detectors = value["detectors"].as_array().unwrap();
    let names: Vec<&str> = detectors
        .iter()
        .map(|d| d["detector"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["recorded", "default", "late"]);
    // Each replayed detector with its parameters; none for the recorded speculation.
    assert_eq!(detectors[0]["params"], serde_json::Value::Null);
    assert!(
        (detectors[0]["description"].as_str().unwrap())
            .starts_with("the speculation the log records")
    );
    assert!(
        (detectors[2]["description"].as_str().unwrap())
            .starts_with("progress rate below the stage's mean")
    );
    assert_eq!(detectors[1]["params"]["gap"], 0.2);
    assert_eq!(detectors[2]["params"]["alpha"], 1.0);
    let recorded = &detectors[0]["metrics"];
    // Both logs together: TP 18 + 1, FP 51 + 0, FN 4 + 0; copies 69 + 1, successful 7 + 0.
    assert_eq!(recorded["true_positives"].as_u64(), Some(19));
    assert_eq!(recorded["false_positives"].as_u64(), Some(51));
    assert_eq!(recorded["speculative_copies"].as_u64(), Some(70));
    assert_eq!(recorded["successful_copies"].as_u64(), Some(7));
    assert_eq!(recorded["recall"].as_f64(), Some(19.0 / 23.0));
    for detector in detectors {
        let metrics = detector["metrics"].as_object().unwrap();
        for name in [
            "precision",
            "precision_raw",
            "recall",
            "detection_latency",
            "undetected_time",
            "fake_positive",
        ] {
            assert!(metrics.contains_key(name), "{name} missing");
        }
    }
}

#[test]
fn replay_writes_counts_as_integers_and_rates_as_floats() {
    // The Yahoo! log of docs/replay.md's worked replay: 203 labelled tasks, 22 stragglers;
    // the engine sent 69 copies (7 successful, 62 not) to 18 of them and 51 other tasks,
    // 16 of the 18 fakes (4 of them won by a copy); Default detected 63 tasks, 19 of them
    // stragglers, no fake.
    let dir = TempDir::new("counts-test");
    let json_path = dir.join("replay.json");
    let output = stragglers(&[
        "replay",
        &trace(YAHOO),
        "--detectors",
        "recorded,default",
        "--json",
        json_path.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let metrics = |detector: usize| value["detectors"][detector]["metrics"].clone();
    let (recorded, default) = (metrics(0), metrics(1));
    // Counts as integers (`203`, never `203.0`).
    let counts = |m: &serde_json::Value, names: &[&str]| -> Vec<Option<u64>> {
        names.iter().map(|name| m[*name].as_u64()).collect()
    };
    let names = [
        "tasks",
        "stragglers",
        "detected",
        "true_positives",
        "false_positives",
        "false_negatives",
        "fake_positives",
        "fake_positives_won_by_copy",
    ];
    let expected = |counts: [u64; 8]| counts.map(Some).to_vec();
    assert_eq!(
        counts(&recorded, &names),
        expected([203, 22, 69, 18, 51, 4, 16, 4])
    );
    assert_eq!(
        counts(&default, &names),
        expected([203, 22, 63, 19, 44, 3, 0, 0])
    );
    let copies = [
        "speculative_copies",
        "successful_copies",
        "unsuccessful_copies",
    ];
    assert_eq!(counts(&recorded, &copies), [Some(69), Some(7), Some(62)]);
    // A replayed detector has no copies of its own: no key.
    assert_eq!(counts(&default, &copies), [None, None, None]);
    // Rates and seconds stay floats: recall 18 / 22 and 19 / 22, 2273.5 container-seconds
    // wasted.
    for (m, hits) in [(&recorded, 18.0), (&default, 19.0)] {
        assert!(m["recall"].is_f64(), "{m}");
        assert_eq!(m["recall"].as_f64(), Some(hits / 22.0));
        assert!(m["tasks"].is_u64(), "{m}");
    }
    assert!(recorded["wasted_container_secs"].is_f64(), "{recorded}");
    // Elsewhere too: per job, the table's n, the truth's counts.
    assert_eq!(value["per_job"][3]["tasks"].as_u64(), Some(180));
    assert_eq!(
        value["per_job"][3]["copies"]["speculative_copies"].as_u64(),
        Some(69)
    );
    assert_eq!(value["table3"]["per_task"]["n"].as_u64(), Some(3));
    assert_eq!(value["labelled_tasks"].as_u64(), Some(203));
}

#[test]
fn replay_notes_tasks_re_run_after_a_failure_and_those_labelled_among_themselves() {
    // Five tasks of this log were re-run after a failed original; the two of its stage 9.0
    // are all that stage labels, so they are labelled against each other.
    let log = "spark-core-test-events/removed-in-2019/application_1538416563558_0014";
    let output = stragglers(&["replay", &trace(log)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "note: 5 labelled tasks were re-run after an original attempt failed: labelled \
             against the usual time of the siblings that ran once, not part of it; 2 of them \
             in stages where every labelled task was re-run, labelled against each other"
        ),
        "{stderr}"
    );
}

/// The note on tasks shorter than the scan interval counts them against their own job's;
/// where `--scan-interval` is longer than a Spark job's own, it says that Spark's is shorter.
/// Durations checked in Python over the log's `SparkListenerTaskEnd`s (`Finish Time` of
/// each task's success less the `Launch Time` of its last attempt launched before that
/// which did not fail: the 5 tasks re-run after an `ExecutorLostFailure` are timed by
/// their re-run): of its 27 labelled tasks, 10 ran under 0.1 s and 21 under 3 s.
#[test]
fn the_note_on_tasks_shorter_than_the_scan_interval_counts_each_against_its_jobs() {
    let hint = "(without --scan-interval, each Spark job is scanned as its application \
                checks, every 0.1 s by default)";
    let spark = "spark-core-test-events/removed-in-2019/application_1538416563558_0014";
    for (log, args, note, hinted) in [
        (
            spark,
            &[][..],
            "10 of 27 labelled tasks ran shorter than the scan interval (0.1 s)",
            false,
        ),
        (
            spark,
            &["--scan-interval", "3"][..],
            "21 of 27 labelled tasks ran shorter than the scan interval (3 s)",
            true,
        ),
        (
            YAHOO,
            &[][..],
            "1 of 203 labelled tasks ran shorter than the scan interval (3 s)",
            false,
        ),
    ] {
        let path = trace(log);
        let mut all = vec!["replay", &path, "--detectors", "default"];
        all.extend_from_slice(args);
        let output = stragglers(&all);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(stderr.contains(note), "{log} {args:?}: {stderr}");
        assert_eq!(stderr.contains(hint), hinted, "{log} {args:?}: {stderr}");
    }
}

/// `--scan-interval` applies to every job, whatever its engine: the JSON says so per job
/// and gives the interval at its top.
#[test]
fn an_explicit_scan_interval_overrides_each_jobs_own() {
    let output = stragglers(&[
        "replay",
        &trace(YAHOO),
        &trace(SPARK),
        "--detectors",
        "default",
        "--scan-interval",
        "0.5",
        "--json",
        "-",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("only JSON");
    assert_eq!(value["scan_interval_secs"], 0.5);
    let per_job = value["per_job"].as_array().unwrap();
    assert_eq!(per_job.len(), 5);
    for job in per_job {
        assert_eq!(
            job["scan_interval"],
            serde_json::json!({"secs": 0.5, "source": "given", "value": null}),
            "{job}"
        );
    }
    assert!(!stderr.contains("engine's interval"), "{stderr}");
}

#[test]
fn replay_fails_under_strict_when_a_record_was_skipped() {
    // The cut Yahoo! log has a record cut short on line 58, skipped: a note, and exit
    // status 0, unless --strict asks for every record.
    let output = stragglers(&["replay", &trace(TRUNCATED)]);
    assert!(output.status.success());
    let output = stragglers(&["replay", &trace(TRUNCATED), "--strict"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "--strict: the results rest on part of the inputs: 1 record skipped, 1 input \
             truncated"
        ),
        "{stderr}"
    );
    // The tables were printed first.
    assert!(String::from_utf8_lossy(&output.stdout).contains("Detectors: 3 stragglers"));
    // The whole Yahoo! log skips nothing: --strict passes.
    let output = stragglers(&["replay", &trace(YAHOO), "--strict"]);
    assert!(output.status.success());
}

#[test]
fn replay_writes_its_json_to_standard_output_in_place_of_the_tables() {
    let output = stragglers(&["replay", &trace(YAHOO), "--json", "-"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("only JSON");
    assert_eq!(value["schema"], "stragglers.replay/4");
    assert_eq!(value["stragglers"], 22);
}

#[test]
fn replay_refuses_bad_arguments_with_a_reason() {
    let output = stragglers(&["replay", &trace(SPARK), "--detectors", "oracle"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the oracle runs only in `stragglers eval`"),
        "{stderr}"
    );

    let output = stragglers(&["replay", &trace(SPARK), "--factor", "0.5"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("factor"), "{stderr}");

    let output = stragglers(&["replay", "/nonexistent/log"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/nonexistent/log"), "{stderr}");
}

#[test]
fn replay_notes_a_truncated_log_on_stderr_and_goes_on() {
    let output = stragglers(&[
        "replay",
        &trace("hadoop-rumen-testdata/small-trace-test/truncated-job-tracker-log"),
        "--detectors",
        "recorded,default",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("truncated"), "{stderr}");
    assert!(stderr.contains("truncated-job-tracker-log:58"), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("default"), "{stdout}");
}

/// `stragglers replay LOG --detectors default ARGS --json` (the JSON next to the log):
/// its stderr, after checking that it succeeded, and the JSON it wrote.
fn replay_default(log: &std::path::Path, args: &[&str]) -> (String, serde_json::Value) {
    let json_path = log.with_extension("replay.json");
    let (log, json) = (log.to_string_lossy(), json_path.to_string_lossy());
    let mut all = vec!["replay", &log, "--detectors", "default"];
    all.extend_from_slice(args);
    all.extend(["--json", &json]);
    let output = stragglers(&all);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    let json = std::fs::read_to_string(&json_path).expect("replay writes its JSON");
    let value = serde_json::from_str(&json).expect("replay's JSON parses");
    (stderr, value)
}

#[test]
fn replay_notes_a_job_it_does_not_replay_and_lists_it_in_the_json() {
    // Two Google jobs of three tasks, scheduled at 1 s: job 22's end by 7 s, job 11's
    // last at 10^6 s, 10^9 scans every 1 ms, more than the bound: 11 is not replayed, 22 is.
    let dir = TempDir::new("skip-test");
    let mut rows = Vec::new();
    for (job, ends) in [
        (11, [1_000_000_000_000u64, 5_000_000, 6_000_000]),
        (22, [5_000_000, 6_000_000, 7_000_000]),
    ] {
        for (task, end) in ends.into_iter().enumerate() {
            let machine = 100 + task;
            rows.push((
                0,
                format!("0,,{job},{task},,0,user_a,2,9,0.0625,0.0318,0.0001,0"),
            ));
            rows.push((
                1_000_000,
                format!("1000000,,{job},{task},{machine},1,user_a,2,9,0.0625,0.0318,0.0001,0"),
            ));
            rows.push((
                end,
                format!("{end},,{job},{task},{machine},4,user_a,2,9,0.0625,0.0318,0.0001,0"),
            ));
        }
    }
    rows.sort_by_key(|(time, _)| *time);
    let log = dir.join("task_events.csv");
    let text: Vec<String> = rows.into_iter().map(|(_, row)| row).collect();
    std::fs::write(&log, text.join("\n") + "\n").unwrap();
    let (stderr, value) = replay_default(&log, &["--scan-interval", "0.001"]);
    assert!(
        stderr.contains("note: job 11 not replayed") && !stderr.contains("job 22 not replayed"),
        "{stderr}"
    );
    let skipped = value["skipped_jobs"].as_array().expect("a list");
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert_eq!(skipped[0]["job"], "11");
    assert_eq!(skipped[0]["span_secs"], 999_999.0);
    // 999,999 s at 1 ms: 999,999,000 scans, an integer.
    assert_eq!(skipped[0]["scans"].as_u64(), Some(999_999_000));
    assert_eq!(skipped[0]["max_scans"], 10_000_000);
    assert_eq!(value["max_scans_per_job"], 10_000_000);
    // At the default 3 s, job 11 takes 333,333 scans: within the default bound, over one
    // of 1,000 given on the command line.
    let (stderr, value) = replay_default(&log, &["--max-scans-per-job", "1000"]);
    assert!(
        stderr.contains(
            "note: job 11 not replayed: it runs 999999.0 s after its first launch, 333333 \
             scans every 3 s, more than 1000;"
        ),
        "{stderr}"
    );
    assert_eq!(value["skipped_jobs"][0]["max_scans"], 1000);
}

#[test]
fn replay_notes_attempts_with_unusable_splits_and_lists_them_in_the_json() {
    // One Rumen job of three maps, one attempt each; the second attempt's `clockSplits` (on
    // line 7) holds a float: the attempt is replayed without progress from its splits.
    let dir = TempDir::new("splits-test");
    let attempt = |task: u32, splits: &str| {
        format!(
            "{{\"taskID\": \"task_1_0001_m_00000{task}\", \"taskType\": \"MAP\", \"attempts\": [\n\
             {{\"attemptID\": \"attempt_1_0001_m_00000{task}_0\", \"startTime\": 1000, \
             \"finishTime\": 5000, \"result\": \"SUCCESS\",\n\"clockSplits\": {splits}}}]}}"
        )
    };
    let text = format!(
        "{{\"jobID\": \"job_1_0001\", \"submitTime\": 0, \"mapTasks\": [\n{},\n{},\n{}]}}\n",
        attempt(0, "[1000, 3000]"),
        attempt(1, "[1000, 1.5]"),
        attempt(2, "[2000, 2000]"),
    );
    let log = dir.join("job.json");
    std::fs::write(&log, text).unwrap();
    let (stderr, value) = replay_default(&log, &[]);
    let path = log.display();
    assert!(
        stderr.contains(&format!(
            "note: {path}:7: clockSplits not integers, attempt `attempt_1_0001_m_000001_0`"
        )),
        "{stderr}"
    );
    let input = &value["inputs"][0];
    assert_eq!(input["records_skipped"], 0);
    assert_eq!(input["unusable_splits_seen"], 1);
    let unusable = input["unusable_splits"].as_array().expect("a list");
    assert_eq!(unusable.len(), 1, "{unusable:?}");
    assert_eq!(unusable[0]["line"], 7);
    assert_eq!(unusable[0]["attempt"], "attempt_1_0001_m_000001_0");
    assert_eq!(unusable[0]["reason"], "clockSplits not integers");
}

#[test]
fn replay_leaves_out_files_that_are_no_log_only_when_asked() {
    // A Hadoop 1 history directory holds each job's configuration XML beside its log.
    let conf = "hadoop-rumen-testdata/small-trace-test/sample-conf.file.xml";
    let output = stragglers(&["replay", &trace(YAHOO), &trace(conf)]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("1 of 2 inputs cannot be read"), "{stderr}");
    assert!(stderr.contains("--skip-other-files"), "{stderr}");

    let dir = TempDir::new("left-out");
    let json_path = dir.join("replay.json");
    let output = stragglers(&[
        "replay",
        &trace(YAHOO),
        &trace(conf),
        "--skip-other-files",
        "--json",
        json_path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("note: left out"), "{stderr}");
    assert!(stderr.contains("sample-conf.file.xml"), "{stderr}");
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_eq!(value["inputs"].as_array().unwrap().len(), 1);
    let left_out = value["left_out"].as_array().unwrap();
    assert_eq!(left_out.len(), 1);
    assert!(
        left_out[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("sample-conf.file.xml")
    );
    let reason = left_out[0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("a Hadoop job configuration XML is no log"),
        "{reason}"
    );
    assert_eq!(value["stragglers"], 22);

    // A log that cannot be read, or opened, still stops it, and the error does not point
    // to the flag; no input at all is an error.
    let lz4 = dir.join("app-1.lz4");
    std::fs::write(&lz4, b"LZ4Block\x10\x00\x00").unwrap();
    for other in [lz4.to_str().unwrap(), "/nonexistent/log"] {
        let output = stragglers(&["replay", &trace(YAHOO), other, "--skip-other-files"]);
        assert!(!output.status.success(), "{other}");
        let output = stragglers(&["replay", &trace(YAHOO), other]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("--skip-other-files"), "{stderr}");
    }
    let output = stragglers(&["replay", &trace(conf), "--skip-other-files"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let named = format!("{}: no log this command reads", trace(conf));
    assert!(stderr.contains(&named), "{stderr}");
}

#[test]
fn replay_reads_the_files_under_a_directory_and_leaves_out_those_that_are_no_log() {
    // A history directory: a log and its job's configuration XML, a log in a
    // subdirectory, a Spark rolling event log directory (one input), and a link to a
    // directory, which is not followed.
    let dir = TempDir::new("dir");
    let history = dir.join("history");
    std::fs::create_dir_all(history.join("2009/04")).unwrap();
    let conf = "hadoop-rumen-testdata/small-trace-test/sample-conf.file.xml";
    std::fs::copy(trace(YAHOO), history.join("2009/04/yahoo.gz")).unwrap();
    std::fs::copy(trace(conf), history.join("2009/04/yahoo_conf.xml")).unwrap();
    std::fs::copy(trace(SPARK), history.join("spark-app")).unwrap();
    let rolling = history.join("eventlog_v2_app-1");
    std::fs::create_dir_all(&rolling).unwrap();
    std::fs::copy(trace(SPARK), rolling.join("events_1_app-1")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&history, history.join("loop")).unwrap();

    let json_path = dir.join("replay.json");
    let output = stragglers(&[
        "replay",
        history.to_str().unwrap(),
        "--json",
        json_path.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("yahoo_conf.xml: a Hadoop job configuration XML"),
        "{stderr}"
    );
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let inputs: Vec<String> = value["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|input| input["path"].as_str().unwrap().to_owned())
        .collect();
    let expected = [
        history.join("2009/04/yahoo.gz"),
        history.join("eventlog_v2_app-1"),
        history.join("spark-app"),
    ];
    let expected: Vec<String> = expected.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(inputs, expected);
    let left_out: Vec<&str> = value["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["reason"].as_str().unwrap())
        .collect();
    #[cfg(unix)]
    assert_eq!(left_out.len(), 2, "{left_out:?}");
    #[cfg(unix)]
    assert!(
        left_out.contains(&"a link to a directory (not followed)"),
        "{left_out:?}"
    );

    // A file that a directory reaches again, named besides or through a link, is read
    // once, where it comes first; named twice, it is read twice.
    #[cfg(unix)]
    {
        let twice = dir.join("twice");
        std::fs::create_dir_all(&twice).unwrap();
        std::fs::copy(trace(SPARK), twice.join("a-spark")).unwrap();
        std::os::unix::fs::symlink(twice.join("a-spark"), twice.join("b-link")).unwrap();
        let file = twice.join("a-spark");
        let output = stragglers(&[
            "replay",
            twice.to_str().unwrap(),
            file.to_str().unwrap(),
            "--json",
            json_path.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
        assert_eq!(value["inputs"].as_array().unwrap().len(), 1, "{stderr}");
        let same = format!("the same file as {}", file.display());
        let reasons: Vec<&str> = value["left_out"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["reason"].as_str().unwrap())
            .collect();
        assert_eq!(reasons, [same.as_str(), same.as_str()], "{stderr}");
        assert!(!stderr.contains("more than once"), "{stderr}");
        // Named twice, it is read twice, before or after the directory that holds it;
        // a hard link to it is the same file.
        std::fs::hard_link(twice.join("a-spark"), twice.join("c-hard")).unwrap();
        let (dir_arg, file_arg) = (twice.to_str().unwrap(), file.to_str().unwrap());
        for args in [[file_arg, file_arg, dir_arg], [dir_arg, file_arg, file_arg]] {
            let mut command = vec!["replay"];
            command.extend(args);
            command.extend(["--json", json_path.to_str().unwrap()]);
            let output = stragglers(&command);
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "{stderr}");
            assert!(stderr.contains("more than once"), "{stderr}");
            let value: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
            assert_eq!(
                value["inputs"].as_array().unwrap().len(),
                2,
                "{args:?}: {stderr}"
            );
            assert_eq!(
                value["left_out"].as_array().unwrap().len(),
                3,
                "{args:?}: {stderr}"
            );
            // Its jobs are replayed and counted once, the copies listed.
            let once = value["jobs"].as_u64().unwrap();
            let repeated = value["repeated_jobs"].as_array().unwrap();
            assert_eq!(repeated.len() as u64, once, "{args:?}: {stderr}");
            assert_eq!(repeated[0]["inputs"], serde_json::json!([0, 1]), "{args:?}");
        }
    }

    // A directory without a file says so; one file in all, no log, is named as such.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let output = stragglers(&["replay", empty.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no file to read in"), "{stderr}");
    let conf_only = dir.join("conf-only");
    std::fs::create_dir_all(&conf_only).unwrap();
    std::fs::copy(trace(conf), conf_only.join("job_conf.xml")).unwrap();
    let output = stragglers(&[
        "replay",
        empty.to_str().unwrap(),
        conf_only.to_str().unwrap(),
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the only file in"), "{stderr}");
}

#[test]
fn replay_takes_detector_as_detectors_and_refuses_no_scans() {
    let output = stragglers(&["replay", &trace(SPARK), "--detector", "default"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("\ndefault "), "{stdout}");

    let output = stragglers(&["replay", &trace(SPARK), "--max-scans-per-job", "0"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--max-scans-per-job"), "{stderr}");
}

#[test]
fn replay_names_the_file_of_a_rolling_log_that_ends_before_its_job() {
    // A rolling event log whose second file lacks the job's and the application's end.
    let dir = TempDir::new("roll");
    let rolling = dir.join("eventlog_v2_app-1");
    std::fs::create_dir_all(&rolling).unwrap();
    let text = std::fs::read_to_string(trace(SPARK)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let kept: Vec<&str> = lines[20..]
        .iter()
        .copied()
        .filter(|l| !l.contains("SparkListenerJobEnd") && !l.contains("ApplicationEnd"))
        .collect();
    std::fs::write(
        rolling.join("events_1_app-1"),
        lines[..20].join("\n") + "\n",
    )
    .unwrap();
    std::fs::write(rolling.join("events_2_app-1"), kept.join("\n") + "\n").unwrap();
    let output = stragglers(&["replay", rolling.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let expected = format!(
        "{}/events_2_app-1:{}: truncated: the log ends before the end of job",
        rolling.display(),
        kept.len()
    );
    assert!(stderr.contains(&expected), "{stderr}");
}

/// The shared Spark logs: one application (application_1628109047826_1317105) of the 17
/// with a job replayed sets `spark.speculation` true, the 16 others leave it unset (checked
/// with grep over their `SparkListenerEnvironmentUpdate`s); the notes say so, and the JSON
/// gives each job's setting.
#[test]
fn replay_notes_the_spark_applications_that_ran_with_speculation_off() {
    let (stderr, value) = replay_json(&[&trace("spark-core-test-events")]);
    assert!(
        stderr.contains(
            "note: 16 of 17 Spark applications (40 jobs, 88 stragglers) ran with \
             spark.speculation off (16 unset: Spark's default false): `recorded` launched no \
             copy there by configuration, not by missing; its recall counts their stragglers \
             as missed; first: app-20161115172038-0000\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "note: 1 Spark application ran with spark.speculation on and sets its parameters: \
             application_1628109047826_1317105 (spark.speculation.min.threshold=30s, \
             spark.speculation.multiplier=4, spark.speculation.quantile=0.9); the `spark` \
             detector runs Spark 4's defaults (quantile 0.9, multiplier 3) and `spark-legacy` \
             0.75 and 1.5 unless they are set; `--detectors 'spark(min_task_runtime_secs = \
             30.0, multiplier = 4.0, quantile = 0.9)'` replays the first one's over Spark \
             4's other rules (its efficiency check, the upper median)\n"
        ),
        "{stderr}"
    );
    let per_job = value["per_job"].as_array().unwrap();
    let setting = |job: &str| {
        let row = per_job.iter().find(|r| r["job"] == job).expect(job);
        row["speculation"].clone()
    };
    // Spark's one switch, for map (shuffle-map) and reduce (result) stages alike.
    let on = serde_json::json!({"enabled": true, "source": "set", "key": "spark.speculation",
        "value": "true"});
    assert_eq!(
        setting("application_1628109047826_1317105/job 0"),
        serde_json::json!({"map": on, "reduce": on, "parameters": {
            "spark.speculation.min.threshold": "30s", "spark.speculation.multiplier": "4",
            "spark.speculation.quantile": "0.9"}})
    );
    let unset = serde_json::json!({"enabled": false, "source": "default",
        "key": "spark.speculation", "value": null});
    assert_eq!(
        setting("app-20161115172038-0000/job 0"),
        serde_json::json!({"map": unset, "reduce": unset, "parameters": {}})
    );
}

/// The Rumen jobs of `2jobs2min-rumen-jh.json` set `mapreduce.map.speculative` and
/// `mapreduce.reduce.speculative` to `"false"` in their `jobProperties` (checked with grep,
/// lines 4710 and 4785, 9815 and 9890), and hold 96 maps each, no reduce: the note counts
/// both jobs off for maps and for reduces, and their 14 stragglers (11 and 3, the `Per
/// job` table of this replay), all maps, as left without a copy by configuration; the
/// JSON gives each switch with its key.
#[test]
fn replay_notes_the_rumen_jobs_that_ran_with_speculation_off() {
    let (stderr, value) =
        replay_json(&[&trace("hadoop-sls-gridmix-rumen/2jobs2min-rumen-jh.json")]);
    assert!(
        stderr.contains(
            "note: 2 of 2 Hadoop jobs read from Rumen ran with speculation set off in \
             jobProperties, for maps in 2 and for reduces in 2 (14 stragglers among the tasks \
             whose speculation was off): `recorded` launched no copy of them by \
             configuration, not by missing; its recall counts those stragglers as missed; \
             first: job_1369942127770_1205\n"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("not known"), "{stderr}");
    // Their other parameters are Hadoop 1's, none a parameter of a hadoop-* detector.
    assert!(
        stderr.contains(
            "note: 2 Hadoop jobs read from Rumen set parameters of speculation in \
             jobProperties, which the hadoop-* detectors (hadoop1, hadoop-legacy, \
             hadoop-exp-smoothed, hadoop-simple-exp) do not take: replayed, they run with \
             their presets; first: job_1369942127770_1205 \
             (mapreduce.job.speculative.slownodethreshold=1.0, \
             mapreduce.job.speculative.slowtaskthreshold=1.0, \
             mapreduce.job.speculative.speculativecap=0.1)\n"
        ),
        "{stderr}"
    );
    assert_eq!(value["schema"], "stragglers.replay/4");
    assert_eq!(value["stragglers"], 14);
    let per_job = value["per_job"].as_array().unwrap();
    assert_eq!(per_job.len(), 2);
    let off = |key: &str| serde_json::json!({"enabled": false, "source": "set", "key": key, "value": "false"});
    for row in per_job {
        assert_eq!(
            row["speculation"],
            serde_json::json!({
                "map": off("mapreduce.map.speculative"),
                "reduce": off("mapreduce.reduce.speculative"),
                "parameters": {
                    "mapreduce.job.speculative.slownodethreshold": "1.0",
                    "mapreduce.job.speculative.slowtaskthreshold": "1.0",
                    "mapreduce.job.speculative.speculativecap": "0.1"}}),
            "{}",
            row["job"]
        );
    }
    // The recorded speculation launched no copy, and its recall counts the 14 as missed.
    let recorded = &value["detectors"][0];
    assert_eq!(recorded["detector"], "recorded");
    assert_eq!(recorded["metrics"]["recall"], 0.0);
    assert_eq!(recorded["metrics"]["speculative_copies"], 0);
}

/// Rumen job `job_1_000<n>` of one map run from 1 s to 5 s, then `properties` (`,
/// "jobProperties": {...}`, or nothing) before its closing brace, and a line end.
fn rumen_job(n: u32, properties: &str) -> String {
    format!(
        "{{\"jobID\": \"job_1_000{n}\", \"submitTime\": 0, \"mapTasks\": [{{\"taskID\": \
         \"task_1_000{n}_m_000000\", \"taskType\": \"MAP\", \"attempts\": [{{\"attemptID\": \
         \"attempt_1_000{n}_m_000000_0\", \"startTime\": 1000, \"finishTime\": 5000, \
         \"result\": \"SUCCESS\"}}]}}]{properties}}}\n"
    )
}

/// A Rumen job whose switch Hadoop reads in a way the log cannot tell (a variable) is a
/// skip naming the property and a note; one without `jobProperties` says nothing, noted
/// too; one whose reduce switch alone is off is counted for reduces only.
#[test]
fn replay_notes_rumen_jobs_whose_speculation_setting_is_not_known() {
    let dir = TempDir::new("rumen-unknown");
    // Three jobs of one map each; job 2's property on line 5 of the file.
    let text = rumen_job(1, "")
        + &rumen_job(
            2,
            ",\n\"jobProperties\": {\n\"mapreduce.job.queuename\": \"default\",\n\"mapreduce.map.speculative\": \"${spec}\"}",
        )
        + &rumen_job(
            3,
            ", \"jobProperties\": {\"mapreduce.reduce.speculative\": \"FALSE\"}",
        );
    let log = dir.join("jobs.json");
    std::fs::write(&log, text).unwrap();
    let (stderr, value) = replay_default(&log, &[]);
    for note in [
        format!(
            "note: {}:5: skipped: unexpanded variable, field `mapreduce.map.speculative`\n",
            log.display()
        ),
        "note: 1 Hadoop job read from Rumen sets map or reduce speculation to what cannot be \
         read as Hadoop reads it (a variable, a value that is no string, or both names of a \
         switch set otherwise): whether `recorded` could launch copies there is not known; \
         first: job_1_0002 (mapreduce.map.speculative=`${spec}`)\n"
            .to_owned(),
        "note: 1 Hadoop job read from Rumen gives no jobProperties: whether `recorded` could \
         launch copies there is not known; first: job_1_0001\n"
            .to_owned(),
        "note: 1 of 3 Hadoop jobs read from Rumen ran with speculation set off in \
         jobProperties, for reduces in 1 (0 stragglers among the tasks whose speculation was \
         off): `recorded` launched no copy of them by configuration, not by missing; its \
         recall counts those stragglers as missed; first: job_1_0003\n"
            .to_owned(),
    ] {
        assert!(stderr.contains(&note), "{note}\n{stderr}");
    }
    let input = &value["inputs"][0];
    assert_eq!(input["records_read"], 4);
    assert_eq!(input["skip_reasons"]["unexpanded variable"], 1);
    let per_job = value["per_job"].as_array().unwrap();
    assert_eq!(per_job[0]["speculation"], serde_json::Value::Null);
    assert_eq!(
        per_job[1]["speculation"]["map"],
        serde_json::json!({"enabled": null, "source": "unreadable",
            "key": "mapreduce.map.speculative", "value": "${spec}"})
    );
    assert_eq!(
        per_job[1]["speculation"]["reduce"],
        serde_json::json!({"enabled": true, "source": "default",
            "key": "mapreduce.reduce.speculative", "value": null})
    );
    assert_eq!(per_job[2]["speculation"]["reduce"]["enabled"], false);
}

/// A Rumen job that sets Hadoop 2's caps of speculation in its `jobProperties`
/// (`fixtures/traces/rumen-speculation-caps.json`: no shared trace sets them) is named in
/// a note with the `hadoop-legacy` detector tuned with them, which `--detectors` replays as
/// written; a parameter with no counterpart is named, not mapped; a job that sets its
/// switches alone (under both names) is not named.
#[test]
fn replay_notes_rumen_jobs_that_tune_speculation_and_the_detector_that_takes_their_caps() {
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/traces/rumen-speculation-caps.json");
    let (stderr, _) = replay_json(&[log.to_str().unwrap(), "--detectors", "default"]);
    let detector = "hadoop-legacy(copies_per_running_task = 0.2, min_allowed_copies = 20.0)";
    let note = format!(
        "note: 1 Hadoop job read from Rumen sets parameters of speculation in jobProperties, \
         which the hadoop-* detectors (hadoop1, hadoop-legacy, hadoop-exp-smoothed, \
         hadoop-simple-exp) do not take: replayed, they run with their presets; first: \
         job_1_0002 \
         (mapreduce.job.speculative.minimum-allowed-tasks=20, \
         mapreduce.job.speculative.retry-after-speculate=15000, \
         mapreduce.job.speculative.speculative-cap-running-tasks=0.2); `--detectors \
         '{detector}'` replays the first one's caps\n"
    );
    assert!(stderr.contains(&note), "{note}\n{stderr}");
    assert_eq!(stderr.matches("parameters of speculation").count(), 1);
    // The detector the note gives runs as written.
    let (_, value) = replay_json(&[log.to_str().unwrap(), "--detectors", detector]);
    let row = &value["detectors"][0];
    assert_eq!(
        row["detector"],
        "hadoop-legacy(copies_per_running_task=0.2,min_allowed_copies=20.0)"
    );
    assert_eq!(row["params"]["min_allowed_copies"], 20.0);
    assert_eq!(row["params"]["copies_per_running_task"], 0.2);
}

/// A Spark log without a `SparkListenerEnvironmentUpdate` says nothing of speculation, and
/// one whose `spark.speculation` Spark cannot read is a skip naming the field: neither is
/// taken for speculation off.
#[test]
fn replay_notes_spark_applications_whose_speculation_setting_is_not_known() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces/spark-small.json");
    let text = std::fs::read_to_string(fixture).unwrap();
    let dir = TempDir::new("unknown-spec");
    std::fs::write(dir.join("a-no-update.json"), &text).unwrap();
    // The same application under another id, its properties (line 2) setting `yes`.
    let mut lines: Vec<String> = text
        .replace("app-20260101000000-0001", "app-20260101000000-0002")
        .lines()
        .map(str::to_owned)
        .collect();
    lines.insert(
        1,
        r#"{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"spark.speculation":"yes"}}"#
            .to_owned(),
    );
    let unreadable = dir.join("b-unreadable.json");
    std::fs::write(&unreadable, lines.join("\n") + "\n").unwrap();
    let output = stragglers(&["replay", dir.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for note in [
        format!(
            "note: {}:2: skipped: not a boolean, field `spark.speculation`\n",
            unreadable.display()
        ),
        "note: 1 Spark application (1 job) set spark.speculation to what Spark cannot read as \
         a boolean: whether `recorded` could launch copies there is not known; first: \
         app-20260101000000-0002 (`yes`)\n"
            .to_owned(),
        "note: 1 Spark application (1 job) gives no spark.speculation (no \
         SparkListenerEnvironmentUpdate with Spark Properties): whether `recorded` could \
         launch copies there is not known; first: app-20260101000000-0001\n"
            .to_owned(),
    ] {
        assert!(stderr.contains(&note), "{note}\n{stderr}");
    }
    assert!(!stderr.contains("speculation off"), "{stderr}");
}

/// A Spark application that sets `spark.speculation.interval` is scanned at it; one that
/// sets what Spark cannot read as a positive time is scanned at Spark's default, named in a
/// note with its input, value and why, and fails `--strict`. Its update is no skip: with
/// `--scan-interval`, which overrides both, or with no detector replayed, nothing uses the
/// value, and `--strict` passes.
#[test]
fn a_spark_application_is_scanned_at_its_own_speculation_interval() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/traces/spark-small.json");
    let text = std::fs::read_to_string(fixture).unwrap();
    let dir = TempDir::new("interval");
    // The fixture's application under ids 2 and 3, its properties (line 2) setting an
    // interval of 250 ms, and one Spark cannot read.
    for (name, app, interval) in [("a.json", "2", "250ms"), ("b.json", "3", "0.5s")] {
        let mut lines: Vec<String> = text
            .replace(
                "app-20260101000000-0001",
                &format!("app-20260101000000-000{app}"),
            )
            .lines()
            .map(str::to_owned)
            .collect();
        lines.insert(
            1,
            format!(
                r#"{{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{{"spark.speculation.interval":"{interval}"}}}}"#
            ),
        );
        std::fs::write(dir.join(name), lines.join("\n") + "\n").unwrap();
    }
    // `stragglers replay DIR ARGS --strict --json -`: whether it succeeded, its standard
    // error, each job's interval, and the records skipped over the inputs.
    let replay = |args: &[&str]| {
        let mut all = vec!["replay", dir.to_str().unwrap()];
        all.extend_from_slice(args);
        all.extend(["--strict", "--json", "-"]);
        let output = stragglers(&all);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        let intervals: Vec<serde_json::Value> = (value["per_job"].as_array().unwrap().iter())
            .map(|job| job["scan_interval"].clone())
            .collect();
        let skipped: Vec<u64> = (value["inputs"].as_array().unwrap().iter())
            .map(|input| input["records_skipped"].as_u64().unwrap())
            .collect();
        assert_eq!(skipped, [0, 0], "the updates are parsed\n{stderr}");
        assert!(!stderr.contains("skipped"), "{stderr}");
        (output.status.success(), stderr, intervals)
    };
    let (success, stderr, intervals) = replay(&["--detectors", "default"]);
    assert_eq!(
        intervals,
        [
            serde_json::json!({"secs": 0.25, "source": "set", "value": "250ms"}),
            serde_json::json!({"secs": 0.1, "source": "unreadable", "value": "0.5s"}),
        ]
    );
    for note in [
        "note: each job is scanned at its engine's interval (--scan-interval sets one for all \
         jobs): 1 job every 0.1 s (Spark's default: the application's \
         spark.speculation.interval is unreadable), 1 job every 0.25 s (the application's \
         spark.speculation.interval)\n"
            .to_owned(),
        format!(
            "note: 1 Spark application (1 job) sets spark.speculation.interval to what Spark \
             cannot read as a positive time: scanned at Spark's default 0.1 s instead; first: \
             app-20260101000000-0003 in {}:2 (`0.5s`: not a time)\n",
            dir.join("b.json").display()
        ),
        "--strict: the results rest on part of the inputs: 1 job scanned at Spark's default \
         interval in place of a spark.speculation.interval Spark cannot read\n"
            .to_owned(),
    ] {
        assert!(stderr.contains(&note), "{note}\n{stderr}");
    }
    assert!(!success, "{stderr}");

    // Given an interval for every job, or replaying no detector, the value is not used.
    let given = serde_json::json!({"secs": 2.0, "source": "given", "value": null});
    for (args, scanned_at) in [
        (
            &["--detectors", "default", "--scan-interval", "2"][..],
            Some(given),
        ),
        (&["--detectors", "recorded"][..], None),
    ] {
        let (success, stderr, intervals) = replay(args);
        assert!(success, "{args:?}: {stderr}");
        if let Some(given) = scanned_at {
            assert_eq!(intervals, [given.clone(), given], "{args:?}");
        }
        assert!(
            !stderr.contains("spark.speculation.interval"),
            "{args:?}: {stderr}"
        );
    }
}

const HADOOP1_PAIR: &str = "hadoop-rumen-testdata/small-trace-test/counters-format-test-logs";

/// Hadoop's defaults, both switches on, under the names Hadoop 1 reads, as the JSON
/// writes them.
fn hadoop1_defaults() -> serde_json::Value {
    let default = |key: &str| serde_json::json!({"enabled": true, "source": "default", "key": key, "value": null});
    serde_json::json!({"map": default("mapred.map.tasks.speculative.execution"),
        "reduce": default("mapred.reduce.tasks.speculative.execution"), "parameters": {}})
}

/// The two Hadoop 1 histories of `counters-format-test-logs` beside their `_conf.xml`,
/// which set no speculation key (one property each, `mapred.child.java.opts`): each job is
/// given Hadoop's defaults, both switches on, under the names Hadoop 1 reads; each
/// configuration is an input of its own, its property counted.
#[test]
fn replay_gives_a_hadoop_1_job_the_setting_of_its_conf_xml() {
    let (stderr, value) = replay_json(&[&trace(HADOOP1_PAIR)]);
    assert!(!stderr.contains("not used"), "{stderr}");
    let expected = hadoop1_defaults();
    let per_job = value["per_job"].as_array().unwrap();
    let ids: Vec<&str> = per_job.iter().map(|j| j["job"].as_str().unwrap()).collect();
    assert_eq!(ids, ["job_201002080801_40864", "job_201002080801_50510"]);
    for job in per_job {
        assert_eq!(job["speculation"], expected, "{job}");
    }
    let confs: Vec<(&str, u64, u64)> = (value["inputs"].as_array().unwrap().iter())
        .filter(|input| input["format"] == "hadoop-conf")
        .map(|input| {
            let path = input["path"].as_str().unwrap();
            let read = input["records_read"].as_u64().unwrap();
            (
                path.rsplit('/').next().unwrap(),
                read,
                input["records_parsed"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        confs,
        [
            (
                "megacluster.megacorp.com_1265616107882_job_201002080801_40864_conf.xml",
                1,
                1
            ),
            (
                "megacluster.megacorp.com_1265616107882_job_201002080801_50510_conf.xml",
                1,
                1
            )
        ]
    );
}

/// A temporary directory holding the TeraGen `.jhist` (job_1416424547277_0002, 2 maps)
/// and the files `files` (name, text).
fn jhist_with(test: &str, files: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new(test);
    let jhist = "job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-\
                 default-1416424779349.jhist";
    std::fs::copy(trace(&format!("hadoop-jhist/{jhist}")), dir.join(jhist))
        .expect("the .jhist copied");
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("the file written");
    }
    dir
}

/// A `.jhist` beside its `job_<id>_conf.xml` that sets `mapreduce.map.speculative` to
/// false (its name written with a character reference, its value in CDATA, after a
/// comment) and a cap: the job's setting in the JSON, and the notes on speculation off
/// for maps and on the parameter.
#[test]
fn replay_gives_a_jhist_job_the_setting_of_its_conf_xml() {
    let conf = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- <property> -->\n\
        <configuration>\n<property><name>mapreduce.map&#46;speculative</name>\
        <value><![CDATA[false]]></value><final>false</final><source>job.xml</source>\
        </property>\n<property><name>mapreduce.job.speculative.speculative-cap-running-tasks\
        </name><value>0.2</value></property>\n</configuration>\n";
    let dir = jhist_with("jhist-conf", &[("job_1416424547277_0002_conf.xml", conf)]);
    let (stderr, value) = replay_json(&[dir.to_str().unwrap()]);
    assert!(
        stderr.contains(
            "note: 1 of 1 Hadoop job whose configuration was read (Rumen's jobProperties, a \
             _conf.xml, or one a Hadoop 1 log embeds) ran with speculation set off in the \
             configuration, for maps in 1 (0 stragglers among the tasks whose speculation was \
             off)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "first: job_1416424547277_0002 \
             (mapreduce.job.speculative.speculative-cap-running-tasks=0.2)"
        ),
        "{stderr}"
    );
    assert_eq!(
        value["per_job"][0]["speculation"],
        serde_json::json!({
            "map": {"enabled": false, "source": "set", "key": "mapreduce.map.speculative",
                "value": "false"},
            "reduce": {"enabled": true, "source": "default",
                "key": "mapreduce.reduce.speculative", "value": null},
            "parameters": {"mapreduce.job.speculative.speculative-cap-running-tasks": "0.2"}})
    );
    assert_eq!(value["inputs"][1]["format"], "hadoop-conf");
    assert_eq!(value["inputs"][1]["records_parsed"], 2);
}

/// A configuration whose job no input holds is said in a note, its job's id with it; the
/// `.jhist`'s job keeps its setting unknown.
#[test]
fn replay_notes_a_conf_xml_whose_job_is_not_read() {
    let conf = "<configuration><property><name>mapreduce.map.speculative</name>\
                <value>false</value></property></configuration>";
    let dir = jhist_with("conf-alone", &[("job_1_0002_conf.xml", conf)]);
    let (stderr, value) = replay_json(&[dir.to_str().unwrap()]);
    let note = format!(
        "note: {}: the configuration of job_1_0002, a job no other input holds: not used\n",
        dir.join("job_1_0002_conf.xml").display()
    );
    assert!(stderr.contains(&note), "{stderr}");
    assert_eq!(value["per_job"][0]["speculation"], serde_json::Value::Null);
    assert!(!stderr.contains("speculation set off"), "{stderr}");
}

/// A malformed configuration stops the command with an error naming its file, its line
/// and what is wrong.
#[test]
fn replay_refuses_a_malformed_conf_xml_naming_its_line() {
    let conf = "<configuration>\n<property><name>a</name>\n<value>1 &nbsp; 2</value>\
                </property>\n</configuration>\n";
    let dir = jhist_with(
        "conf-malformed",
        &[("job_1416424547277_0002_conf.xml", conf)],
    );
    let output = stragglers(&["replay", dir.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let error = format!(
        "{}:3: field <value>: unknown reference &nbsp;",
        dir.join("job_1416424547277_0002_conf.xml").display()
    );
    assert!(stderr.contains(&error), "{stderr}");
    // One whose text is no XML at all is read as the configuration its name says, and
    // refused at its line, not left out as a file of no known format.
    let dir = jhist_with(
        "conf-garbage",
        &[("job_1416424547277_0002_conf.xml", "\nhello\n")],
    );
    let output = stragglers(&["replay", dir.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let error = format!(
        "{}:2: field document: text before <configuration>",
        dir.join("job_1416424547277_0002_conf.xml").display()
    );
    assert!(stderr.contains(&error), "{stderr}");
}

/// Two configurations of one job (Hadoop 2's name and Hadoop 1's): the first, in the order
/// of the paths, gives the setting; the second is said in a note and not used, the note
/// naming the first and saying how the second's setting differs.
#[test]
fn replay_uses_the_first_conf_xml_of_a_job_and_notes_the_other() {
    let off = "<configuration><property><name>mapreduce.map.speculative</name>\
               <value>false</value></property></configuration>";
    let on = "<configuration><property><name>mapred.map.tasks.speculative.execution</name>\
              <value>true</value></property></configuration>";
    // `host_...` sorts before `job_...`: it is the first.
    let first = "host_1416424547277_job_1416424547277_0002_conf.xml";
    let second = "job_1416424547277_0002_conf.xml";
    let dir = jhist_with("conf-twice", &[(first, off), (second, on)]);
    let (stderr, value) = replay_json(&[dir.to_str().unwrap()]);
    let note = format!(
        "note: {}: the speculation setting of job_1416424547277_0002 is known already, from \
         {}: this one not used, and differs: maps on \
         (mapred.map.tasks.speculative.execution=true) where that one is off \
         (mapreduce.map.speculative=false)\n",
        dir.join(second).display(),
        dir.join(first).display()
    );
    assert!(stderr.contains(&note), "{stderr}");
    assert_eq!(value["per_job"][0]["speculation"]["map"]["enabled"], false);
}

/// The Yahoo! log named twice: its jobs are replayed from the first, and each configuration
/// the second embeds is said in a note, as the second of its job, giving the same setting
/// as the first's (lines 1, 122, 126 and 162 of each).
#[test]
fn replay_notes_a_second_embedded_configuration_that_gives_the_same_setting() {
    let yahoo = trace(YAHOO);
    let (stderr, _) = replay_json(&[&yahoo, &yahoo]);
    for (line, job) in [(1, "0001"), (122, "0002"), (126, "0003"), (162, "0004")] {
        let note = format!(
            "note: {yahoo}:{line}: the speculation setting of job_200904211745_{job} is known \
             already, from {yahoo}:{line}: this one not used, and gives the same setting\n"
        );
        assert!(stderr.contains(&note), "{stderr}");
    }
}

/// Each job of the Yahoo! log is given the configuration the log embeds for it (its one
/// property `mapred.child.java.opts`, which sets no switch): Hadoop's defaults under the
/// names Hadoop 1 reads, as a `_conf.xml` beside its history would give; job 0002's
/// follows its history. No record is
/// skipped and no configuration is left unused.
#[test]
fn replay_gives_each_yahoo_job_the_configuration_its_log_embeds() {
    let (stderr, value) = replay_json(&[&trace(YAHOO)]);
    assert!(!stderr.contains("not used"), "{stderr}");
    assert!(!stderr.contains("skipped"), "{stderr}");
    let expected = hadoop1_defaults();
    let per_job = value["per_job"].as_array().unwrap();
    assert_eq!(per_job.len(), 4);
    for job in per_job {
        assert_eq!(job["speculation"], expected, "{job}");
    }
    assert_eq!(value["inputs"][0]["records_read"], 1021);
    assert_eq!(value["inputs"][0]["records_skipped"], 0);
}

/// The cut Yahoo! log (`TRUNCATED`) written to a temporary file with `edit` applied: its
/// directory, and its path.
fn truncated_with(test: &str, edit: impl Fn(&str) -> String) -> (TempDir, PathBuf) {
    let dir = TempDir::new(test);
    let text = std::fs::read_to_string(trace(TRUNCATED)).expect("the log");
    let path = dir.join("job-tracker-log");
    std::fs::write(&path, edit(&text)).expect("the log written");
    (dir, path)
}

/// An embedded configuration whose XML is malformed (an unknown reference on line 109) is
/// one record skipped on the line of its fault, naming the element, and the rest of the log
/// is read: the job keeps its setting unknown.
#[test]
fn replay_skips_a_malformed_embedded_configuration_and_reads_the_rest_of_its_log() {
    let (_dir, path) = truncated_with("embedded-malformed", |text| {
        text.replacen("<value>-server", "<value>&nbsp;-server", 1)
    });
    let (stderr, value) = replay_json(&[path.to_str().unwrap()]);
    let note = format!(
        "note: {}:109: skipped: malformed job configuration, field `<value>`\n",
        path.display()
    );
    assert!(stderr.contains(&note), "{stderr}");
    assert_eq!(value["inputs"][0]["records_skipped"], 2);
    assert_eq!(value["per_job"][0]["job"], "job_200904211745_0002");
    assert_eq!(value["per_job"][0]["speculation"], serde_json::Value::Null);
    assert_eq!(value["stragglers"], 3);
}

/// A Hadoop 1 job whose embedded configuration sets Hadoop 0.21's name of the cap alone:
/// the note on parameters says why no cap is taken (Hadoop 1 reads none), as it says for a
/// Rumen job, and names all three places a configuration is read from.
#[test]
fn replay_says_why_a_hadoop_1_jobs_old_cap_is_taken_for_no_cap() {
    let (_dir, path) = truncated_with("embedded-old-cap", |text| {
        text.replacen(
            "<name>mapred.child.java.opts</name><value>-server",
            "<name>mapred.speculative.execution.speculativeCap</name><value>0.2</value>\
             </property><property><name>a</name><value>-server",
            1,
        )
    });
    let (stderr, _) = replay_json(&[path.to_str().unwrap()]);
    let note = "note: 1 Hadoop job whose configuration was read (Rumen's jobProperties, a \
        _conf.xml, or one a Hadoop 1 log embeds) sets parameters of speculation in the \
        configuration, which the hadoop-* detectors (hadoop1, hadoop-legacy, \
        hadoop-exp-smoothed, hadoop-simple-exp) do not take: replayed, they run with their \
        presets; first: job_200904211745_0002 \
        (mapred.speculative.execution.speculativeCap=0.2); \
        mapred.speculative.execution.speculativeCap is taken for no cap: Hadoop 1 ran the \
        job, and its speculator has no cap (this is Hadoop 0.21's name of its own \
        speculator's cap, which Hadoop 2 maps onto \
        mapreduce.job.speculative.speculative-cap-running-tasks)\n";
    assert!(stderr.contains(note), "{stderr}");
}

/// An embedded configuration whose job the inputs do not hold is said in a note naming the
/// log, its line and the job, as a `_conf.xml` would be.
#[test]
fn replay_notes_an_embedded_configuration_whose_job_is_not_read() {
    let (_dir, path) = truncated_with("embedded-alone", |text| {
        text.replacen(
            "job_200904211745_0002_conf.xml",
            "job_200904211745_0009_conf.xml",
            1,
        )
    });
    let (stderr, value) = replay_json(&[path.to_str().unwrap()]);
    let note = format!(
        "note: {}:107: the configuration of job_200904211745_0009 embedded here, a job no \
         input holds: not used\n",
        path.display()
    );
    assert!(stderr.contains(&note), "{stderr}");
    assert_eq!(value["per_job"][0]["speculation"], serde_json::Value::Null);
}

/// A Hadoop 1 history's `_conf.xml` is read as Hadoop 1 loads it: the Hadoop 2 name of a
/// switch is a property Hadoop 1 does not read (kept among the parameters), its Hadoop 1
/// name the switch, and `FALSE` Hadoop 1's default, true (skipped as `not a boolean`).
#[test]
fn replay_reads_a_hadoop_1_jobs_conf_xml_as_hadoop_1_does() {
    let dir = TempDir::new("h1-conf");
    let source = Path::new(&trace(HADOOP1_PAIR)).to_owned();
    let history = "megacluster.megacorp.com_1265616107882_job_201002080801_40864_job_name-\
                   DAILY%2F20100210%5D.gz";
    std::fs::copy(source.join(history), dir.join(history)).expect("the history copied");
    let conf = "<configuration>\n\
        <property><name>mapreduce.map.speculative</name><value>false</value></property>\n\
        <property><name>mapred.reduce.tasks.speculative.execution</name><value>FALSE</value>\
        </property>\n</configuration>\n";
    let name = "megacluster.megacorp.com_1265616107882_job_201002080801_40864_conf.xml";
    std::fs::write(dir.join(name), conf).expect("the configuration written");
    let (stderr, value) = replay_json(&[dir.to_str().unwrap()]);
    assert_eq!(
        value["per_job"][0]["speculation"],
        serde_json::json!({
            "map": {"enabled": true, "source": "default",
                "key": "mapred.map.tasks.speculative.execution", "value": null},
            "reduce": {"enabled": true, "source": "unreadable",
                "key": "mapred.reduce.tasks.speculative.execution", "value": "FALSE"},
            "parameters": {"mapreduce.map.speculative": "false"}})
    );
    let skip = format!("{}:3: skipped: not a boolean", dir.join(name).display());
    assert!(stderr.contains(&skip), "{stderr}");
}

/// A `.jhist` job's `_conf.xml` that sets both names of the map switch otherwise is read as
/// Hadoop 2 loads it: the later one stands (the file's order, which Rumen's
/// `jobProperties` lose), the earlier skipped.
#[test]
fn replay_reads_both_names_of_a_switch_in_a_conf_xml_in_their_order() {
    let conf = "<configuration>\n\
        <property><name>mapreduce.map.speculative</name><value>true</value></property>\n\
        <property><name>mapred.map.tasks.speculative.execution</name><value>false</value>\
        </property>\n</configuration>\n";
    let dir = jhist_with("conf-order", &[("job_1416424547277_0002_conf.xml", conf)]);
    let (stderr, value) = replay_json(&[dir.to_str().unwrap()]);
    assert_eq!(
        value["per_job"][0]["speculation"]["map"],
        serde_json::json!({"enabled": false, "source": "set",
            "key": "mapred.map.tasks.speculative.execution", "value": "false"})
    );
    let skip = format!(
        "{}:2: skipped: overridden by its other name, field `mapreduce.map.speculative`",
        dir.join("job_1416424547277_0002_conf.xml").display()
    );
    assert!(stderr.contains(&skip), "{stderr}");
}

/// A `.jhist` job's `_conf.xml` that sets Hadoop 0.21's name of the running-tasks cap: Hadoop
/// 2 loads it into `speculative-cap-running-tasks`, so the note gives `hadoop-legacy` tuned
/// with it, and says how it was taken.
#[test]
fn replay_takes_hadoop_0_21s_cap_for_hadoop_2s_in_a_jhist_jobs_conf_xml() {
    let conf = "<configuration>\n<property><name>mapred.speculative.execution.speculativeCap\
        </name><value>0.2</value></property>\n</configuration>\n";
    let dir = jhist_with("conf-old-cap", &[("job_1416424547277_0002_conf.xml", conf)]);
    let (stderr, _) = replay_json(&[dir.to_str().unwrap()]);
    assert!(
        stderr.contains(
            "first: job_1416424547277_0002 (mapred.speculative.execution.speculativeCap=0.2); \
             `--detectors 'hadoop-legacy(copies_per_running_task = 0.2)'` replays the first \
             one's caps (mapred.speculative.execution.speculativeCap taken for \
             mapreduce.job.speculative.speculative-cap-running-tasks, as Hadoop 2's \
             deprecation table maps it"
        ),
        "{stderr}"
    );
}

/// `stragglers replay ARGS` with standard output and standard error into one file, as a
/// terminal shows them (`2>&1`): its exit status and what it printed, in order.
fn replay_as_a_terminal_shows_it(test: &str, args: &[&str]) -> (bool, String) {
    let path = std::env::temp_dir().join(format!(
        "stragglers-replay-{test}-{}.txt",
        std::process::id()
    ));
    let file = std::fs::File::create(&path).expect("a file for the output");
    let status = Command::new(env!("CARGO_BIN_EXE_stragglers"))
        .arg("replay")
        .args(args)
        .stdout(file.try_clone().expect("a second handle of the file"))
        .stderr(file)
        .status()
        .expect("the binary runs");
    let text = std::fs::read_to_string(&path).expect("the output, UTF-8");
    std::fs::remove_file(&path).ok();
    (status.success(), text)
}

/// The notes come under the tables whose figures they explain, as docs/replay.md shows
/// them (they came before the `Inputs` table, scrolled away by the tables of a large log);
/// with `--strict`, the error comes last, after them.
#[test]
fn replay_prints_its_notes_after_the_tables() {
    let (ok, text) =
        replay_as_a_terminal_shows_it("notes-order", &[&trace(YAHOO), "--detectors", "default"]);
    assert!(ok, "{text}");
    let table3 = text.find("\nTable 3 (Phan et al.)").expect("Table 3");
    let first_note = text.find("note: ").expect("a note");
    assert!(table3 < first_note, "{text}");
    assert!(
        text.ends_with(
            "note: 1 of 203 labelled tasks ran shorter than the scan interval (3 s): a replayed \
             detector sees each at most once, or not at all; a shorter --scan-interval shows \
             them\n"
        ),
        "{text}"
    );

    let (ok, text) =
        replay_as_a_terminal_shows_it("notes-order-strict", &[&trace(TRUNCATED), "--strict"]);
    assert!(!ok, "{text}");
    let table3 = text.find("\nTable 3 (Phan et al.)").expect("Table 3");
    let skipped = text.find("note: ").expect("the skip's note");
    let error = text.find("error: --strict").expect("the error");
    assert!(table3 < skipped && skipped < error, "{text}");
}

/// Rumen jobs without `jobProperties` read beside a log whose jobs get their configuration
/// otherwise (the Yahoo! log embeds its jobs'): the note says they are read from Rumen and
/// give none, not that they are jobs "whose configuration was read (Rumen's
/// jobProperties, a _conf.xml, ...)" that give none, as it did.
#[test]
fn replay_notes_rumen_jobs_without_job_properties_beside_other_configurations() {
    let folded = "hadoop-rumen-testdata/small-trace-test/folder-input-trace.json.gz";
    let (stderr, _) = replay_json(&[&trace(YAHOO), &trace(folded)]);
    assert!(
        stderr.contains(
            "note: 59 Hadoop jobs read from Rumen give no jobProperties: whether `recorded` \
             could launch copies there is not known; first: job_200910281128_10000\n"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("log embeds) give"), "{stderr}");
}

/// Logs that hold no job (Spark applications that ran none) are counted in the `Inputs`
/// table and appear in no table after it: a note says so, naming the first (nothing did;
/// docs/replay.md quoted "3 hold no job" from no output).
#[test]
fn replay_notes_the_logs_that_hold_no_job() {
    let (stderr, value) = replay_json(&[&trace("spark-core-test-events")]);
    assert!(
        stderr.contains(&format!(
            "note: 3 of 21 logs hold no job: their records are counted in the Inputs table, \
             and none of them is a task to label or replay; first: {}\n",
            trace("spark-core-test-events/application_1555004656427_0144")
        )),
        "{stderr}"
    );
    // The three, by the JSON: the inputs no job comes from but the one whose only job
    // repeats another input's.
    let inputs = value["inputs"].as_array().unwrap().len();
    let with_jobs: std::collections::BTreeSet<u64> = (value["per_job"].as_array().unwrap())
        .iter()
        .map(|job| job["input"].as_u64().unwrap())
        .collect();
    assert_eq!(inputs - with_jobs.len(), 3 + 1);
    let (stderr, _) = replay_json(&[&trace(YAHOO), &trace(SPARK)]);
    assert!(!stderr.contains("no job"), "{stderr}");
}

/// Per byte of input, a task with a small input has a small usual time: a note counts the
/// tasks over ten times theirs and names the largest, where Undetected Time reaches
/// thousands of usual times (1.763 by duration on the same log).
#[test]
fn replay_per_byte_names_the_tasks_whose_small_input_makes_their_ratio_large() {
    let log = trace("hadoop-rumen-testdata/small-trace-test/folder-input-trace.json.gz");
    let per_byte = stragglers(&[
        "replay",
        &log,
        "--detectors",
        "default",
        "--normalise-by-input",
    ]);
    let stderr = String::from_utf8_lossy(&per_byte.stderr);
    assert!(per_byte.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "note: per byte of input, 5 labelled tasks took more than 10 times their usual \
             time, up to 237049.9 times (task_200910281128_10014_m_000003 of \
             job_200910281128_10014, 302 bytes of input): a task's usual time is its input \
             times its stage's time per byte, so a small input, which still pays its launch, \
             gives a small usual time and a large ratio, in latency and undetected time too\n"
        ),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&per_byte.stdout);
    assert!(stdout.contains("9121.55"), "{stdout}");
    let by_duration = stragglers(&["replay", &log, "--detectors", "default"]);
    let stderr = String::from_utf8_lossy(&by_duration.stderr);
    assert!(by_duration.status.success(), "{stderr}");
    assert!(!stderr.contains("per byte of input"), "{stderr}");
    assert!(String::from_utf8_lossy(&by_duration.stdout).contains("1.763"));
}
