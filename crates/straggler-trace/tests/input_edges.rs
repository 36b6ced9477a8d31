//! Inputs at the edges of what a path or a byte stream can be: a pipe or a device in place
//! of a file (refused up front, since an input is read twice), zstd streams with skippable
//! frames (passed over wherever a frame may start), and Rumen objects whose bad values are
//! named by their line and field (and cost only the attempt or task they are in).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use straggler_trace::{
    ReadReport, TraceError, TraceFormat, TraceJob, detect_format, read_bytes, read_path,
};

fn fixtures() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/traces"
    ))
    .to_owned()
}

/// A fresh directory of this test process for files a test writes, removed by the test.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "straggler-input-edges-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// `(line, field, reason)` of each skip kept in `report`.
fn skips(report: &ReadReport) -> Vec<(u64, Option<&str>, &str)> {
    report
        .skips
        .iter()
        .map(|skip| (skip.line, skip.field.as_deref(), skip.reason.as_str()))
        .collect()
}

/// What a read gave, to compare two reads of the same content: the report's counts and
/// skips, and each job's id with its tasks' ids and attempts' ids.
fn summary(jobs: &[TraceJob], report: &ReadReport) -> String {
    let jobs: Vec<_> = jobs
        .iter()
        .map(|job| {
            let tasks: Vec<_> = job
                .tasks
                .iter()
                .map(|task| {
                    let attempts: Vec<_> = task.attempts.iter().map(|a| a.id.as_str()).collect();
                    format!("{}{attempts:?}", task.id)
                })
                .collect();
            format!("{}{tasks:?}", job.id)
        })
        .collect();
    format!(
        "read {} parsed {} skipped {} truncated {:?} skips {:?} jobs {jobs:?}",
        report.records_read,
        report.records_parsed,
        report.records_skipped,
        report.truncated,
        skips(report)
    )
}

// ---------------------------------------------------------------------------------------
// A pipe or a device in place of a file.

fn assert_not_a_file(result: Result<impl std::fmt::Debug, TraceError>, path: &Path, kind: &str) {
    match result {
        Err(error @ TraceError::NotAFile { .. }) => {
            let message = error.to_string();
            assert!(
                message.starts_with(&path.display().to_string()),
                "{message}"
            );
            assert!(message.contains(kind), "{message}");
            assert!(message.contains("write it to a file first"), "{message}");
        }
        other => panic!("{}: expected NotAFile, got {other:?}", path.display()),
    }
}

#[test]
fn a_pipe_is_refused_before_anything_of_it_is_read() {
    let dir = scratch_dir("fifo");
    let fifo = dir.join("events.fifo");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo (coreutils) runs");
    assert!(status.success(), "mkfifo {}", fifo.display());
    // A writer, as a shell's `cat log | ...` would be: it waits for a reader, then writes
    // the log. The refusal must come without opening the pipe (which would wait for the
    // writer, or take its bytes).
    let log = std::fs::read(fixtures().join("spark-small.json")).expect("the fixture");
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new()
            .write(true)
            .open(&writer_path)
            .expect("the pipe opens for writing");
        // The reader may stop early (EPIPE): that is not this test's concern.
        let _ = pipe.write_all(&log);
    });
    // What the CLI does with every input: detect, then read.
    assert_not_a_file(detect_format(&fifo), &fifo, "a pipe");
    assert_not_a_file(read_path(&fifo), &fifo, "a pipe");
    // Let the writer go: open the pipe once, read it whole, as the refusal asks.
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::fs::File::open(&fifo).expect("the pipe opens"),
        &mut bytes,
    )
    .expect("the pipe reads");
    writer.join().expect("the writer ends");
    assert!(
        !bytes.is_empty(),
        "the writer's bytes were all left in the pipe"
    );
    std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
}

#[test]
fn a_device_is_refused_too() {
    let null = Path::new("/dev/null");
    if !null.exists() {
        // Not a Unix system: no device path to try.
        eprintln!("SKIPPED: no /dev/null on this system");
        return;
    }
    assert_not_a_file(detect_format(null), null, "a character device");
    assert_not_a_file(read_path(null), null, "a character device");
}

#[test]
fn a_regular_file_and_a_directory_still_read() {
    assert_eq!(
        detect_format(&fixtures().join("spark-small.json")).expect("a file"),
        TraceFormat::SparkEventLog
    );
    let rolling = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    assert_eq!(
        detect_format(&rolling).expect("a directory"),
        TraceFormat::SparkEventLog
    );
    read_path(&rolling).expect("a rolling event log reads");
}

// ---------------------------------------------------------------------------------------
// zstd skippable frames.

/// A skippable frame of `magic_low` (0..=15: magic 0x184D2A50 + it) holding `payload`.
fn skippable_frame(magic_low: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = (0x184D_2A50u32 + u32::from(magic_low))
        .to_le_bytes()
        .to_vec();
    frame.extend_from_slice(&u32::try_from(payload.len()).expect("small").to_le_bytes());
    frame.extend_from_slice(payload);
    frame
}

/// `text` as one zstd frame.
fn zstd_frame(text: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(text, ruzstd::encoding::CompressionLevel::Fastest)
}

/// The Spark fixture, its first `at` lines and the rest.
fn spark_log_split(at: usize) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let log = std::fs::read(fixtures().join("spark-small.json")).expect("the fixture");
    let cut = log
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(at - 1)
        .map(|(i, _)| i + 1)
        .expect("enough lines");
    let (head, tail) = (log[..cut].to_vec(), log[cut..].to_vec());
    (log, head, tail)
}

/// Reads `bytes` as the CLI does, from a file: its format detected, then read.
fn read_as_file(test: &str, bytes: &[u8]) -> (TraceFormat, Vec<TraceJob>, ReadReport) {
    let dir = scratch_dir(test);
    let path = dir.join("events.zst");
    std::fs::write(&path, bytes).expect("the file is written");
    let format = detect_format(&path).expect("the format is detected");
    let (jobs, report) = read_path(&path).expect("the file reads");
    std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
    (format, jobs, report)
}

#[test]
fn a_skippable_frame_between_zstd_frames_is_passed_over() {
    let (log, head, tail) = spark_log_split(4);
    let (plain_jobs, plain) = read_bytes(&log, TraceFormat::SparkEventLog).expect("plain");
    let expected = summary(&plain_jobs, &plain);
    assert_eq!(plain.records_skipped, 0, "{expected}");
    assert!(plain.truncated.is_none(), "{expected}");

    let mut bytes = zstd_frame(&head);
    bytes.extend(skippable_frame(0, b"abcd"));
    bytes.extend(zstd_frame(&tail));
    let (jobs, report) = read_bytes(&bytes, TraceFormat::SparkEventLog).expect("zstd");
    assert_eq!(summary(&jobs, &report), expected);

    // Several in a row, of other magic numbers, one empty, and one at the very end.
    let mut bytes = zstd_frame(&head);
    bytes.extend(skippable_frame(15, &[0; 300]));
    bytes.extend(skippable_frame(7, b""));
    bytes.extend(zstd_frame(&tail));
    bytes.extend(skippable_frame(1, b"seek table"));
    let (format, jobs, report) = read_as_file("between", &bytes);
    assert_eq!(format, TraceFormat::SparkEventLog);
    assert_eq!(summary(&jobs, &report), expected);
}

#[test]
fn a_stream_that_starts_with_a_skippable_frame_is_zstd() {
    let (log, head, tail) = spark_log_split(4);
    let (plain_jobs, plain) = read_bytes(&log, TraceFormat::SparkEventLog).expect("plain");
    let expected = summary(&plain_jobs, &plain);

    // As `pzstd` writes: each frame after a skippable frame of 4 bytes, its size.
    let mut bytes = Vec::new();
    for frame in [zstd_frame(&head), zstd_frame(&tail)] {
        let size = u32::try_from(frame.len()).expect("small").to_le_bytes();
        bytes.extend(skippable_frame(0, &size));
        bytes.extend(frame);
    }
    let (format, jobs, report) = read_as_file("start", &bytes);
    assert_eq!(format, TraceFormat::SparkEventLog);
    assert_eq!(summary(&jobs, &report), expected);

    // The fixture `zstd -19` wrote, after a skippable frame too large for the first
    // buffer: detection cannot see past it, and guesses zstd, rightly.
    let zst = std::fs::read(fixtures().join("spark-small.json.zst")).expect("the fixture");
    let mut bytes = skippable_frame(2, &vec![0; 300 * 1024]);
    bytes.extend(zst);
    let (format, jobs, report) = read_as_file("start-large", &bytes);
    assert_eq!(format, TraceFormat::SparkEventLog);
    assert_eq!(summary(&jobs, &report), expected);
}

#[test]
fn a_cut_skippable_frame_is_a_cut_not_a_panic() {
    let (log, head, _) = spark_log_split(4);
    let mut bytes = zstd_frame(&head);
    // Says 100 bytes, holds 10.
    let mut frame = skippable_frame(0, &[0; 100]);
    frame.truncate(8 + 10);
    bytes.extend(frame);
    let (_, report) = read_bytes(&bytes, TraceFormat::SparkEventLog).expect("zstd");
    let truncated = report.truncated.as_ref().expect("the cut is noted");
    assert_eq!(truncated.line, 5, "{truncated:?}");
    assert!(
        truncated.note.contains("skippable frame"),
        "{}",
        truncated.note
    );
    // The 4 lines before the cut are read.
    let lines = log.iter().filter(|&&b| b == b'\n').count() as u64;
    assert!(report.records_read == 4 && lines > 4, "{report:?}");
}

// ---------------------------------------------------------------------------------------
// Rumen skips: their line and field.

/// A Rumen job as Rumen writes it (`"key" : value`, one key a line), of one map task with
/// two attempts; `first_start` is the first attempt's `startTime` as written, and
/// `second_finish` the second's `finishTime`. Lines: 1 the job's `{`, 4 `submitTime`, 6
/// the task's `{`, 10 its `inputBytes`, 11 the first attempt's `{`, 14 its `startTime`,
/// 17 the second attempt's `{`, 19 its `startTime`, 20 its `finishTime`; 25 lines.
fn rumen_job(first_start: &str, second_finish: &str) -> String {
    format!(
        r#"{{
  "jobID" : "job_1_0001",
  "jobName" : "sort",
  "submitTime" : 1000,
  "priority" : "NORMAL",
  "mapTasks" : [ {{
    "taskID" : "task_1_0001_m_000000",
    "taskType" : "MAP",
    "startTime" : 1000,
    "inputBytes" : -1,
    "attempts" : [ {{
      "attemptID" : "attempt_1_0001_m_000000_0",
      "hostName" : "/rack1/host1",
      "startTime" : {first_start},
      "finishTime" : 5000,
      "result" : "SUCCESS"
    }}, {{
      "attemptID" : "attempt_1_0001_m_000000_1",
      "startTime" : 2000,
      "finishTime" : {second_finish},
      "result" : "KILLED"
    }} ]
  }} ],
  "reduceTasks" : [ ]
}}
"#
    )
}

fn read_rumen(text: &str) -> (Vec<TraceJob>, ReadReport) {
    read_bytes(text.as_bytes(), TraceFormat::Rumen).expect("Rumen reads")
}

#[test]
fn a_rumen_value_of_the_wrong_type_costs_its_attempt_named_by_line_and_field() {
    let (jobs, report) = read_rumen(&rumen_job("1500", "3000"));
    assert_eq!((report.records_parsed, report.records_skipped), (1, 0));
    assert_eq!(jobs[0].tasks[0].attempts.len(), 2);

    // The first attempt's startTime, a float: that attempt is skipped, on its line, and
    // the job keeps the other.
    let (jobs, report) = read_rumen(&rumen_job("1.5e3", "3000"));
    assert_eq!(
        skips(&report),
        [(14, Some("startTime"), "field of the wrong type")]
    );
    assert_eq!((report.records_parsed, report.records_skipped), (1, 1));
    assert_eq!(jobs.len(), 1);
    let attempts: Vec<_> = jobs[0].tasks[0].attempts.iter().map(|a| &a.id).collect();
    assert_eq!(attempts, ["attempt_1_0001_m_000000_1"]);

    // A task's own field of the wrong type costs the task (one record), named.
    let text =
        rumen_job("1500", "3000").replace(r#""inputBytes" : -1"#, r#""inputBytes" : "lots""#);
    let (jobs, report) = read_rumen(&text);
    assert_eq!(
        skips(&report),
        [(10, Some("inputBytes"), "field of the wrong type")]
    );
    assert_eq!((report.records_parsed, report.records_skipped), (1, 1));
    assert!(jobs[0].tasks.is_empty());

    // A job's own field costs the job, named on its line.
    let text =
        rumen_job("1500", "3000").replace(r#""submitTime" : 1000"#, r#""submitTime" : "soon""#);
    let (jobs, report) = read_rumen(&text);
    assert_eq!(
        skips(&report),
        [(4, Some("submitTime"), "field of the wrong type")]
    );
    assert!(jobs.is_empty());
}

#[test]
fn a_rumen_attempt_skip_names_its_line_and_field() {
    // The second attempt ends before it starts: its finishTime, line 20.
    let (jobs, report) = read_rumen(&rumen_job("1500", "1500"));
    assert_eq!(
        skips(&report),
        [(20, Some("finishTime"), "attempt ends before it starts")]
    );
    assert_eq!(jobs[0].tasks[0].attempts.len(), 1);
    // Two jobs back to back: the lines are the second job's, counted from the file's start.
    let text = rumen_job("1500", "3000") + &rumen_job("1500", "1500");
    let (_, report) = read_rumen(&text);
    assert_eq!(
        skips(&report),
        [(25 + 20, Some("finishTime"), "attempt ends before it starts")]
    );
    // When the field is not written, the attempt's line.
    let text = rumen_job("1500", "3000").replace("      \"finishTime\" : 3000,\n", "");
    let (_, report) = read_rumen(&text);
    assert_eq!(skips(&report), [(17, Some("finishTime"), "missing field")]);
}

#[test]
fn a_rumen_key_of_any_spacing_is_named() {
    // The same fault, keys written `"key":value`, `"key" :value` and over two lines.
    for (key_sep, line) in [(":", 14), (" :", 14), ("\n:", 15)] {
        let text = rumen_job("1500", "3000").replace(
            "\"startTime\" : 1500",
            &format!("\"startTime\"{key_sep}true"),
        );
        let (_, report) = read_rumen(&text);
        assert_eq!(
            skips(&report),
            [(line, Some("startTime"), "field of the wrong type")],
            "{key_sep:?}"
        );
    }
}

#[test]
fn the_reviewed_rumen_repro_names_line_19_and_start_time() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces/hadoop-sls-gridmix-rumen/2jobs2min-rumen-jh.json"
    ));
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("SKIPPED: {} is absent", path.display());
        return;
    };
    let (plain_jobs, plain) = read_rumen(&text);
    // The review's `sed '19s/"startTime" : 1371222061163/"startTime" : 1.5e12/'`.
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let changed = lines[18].replace(r#""startTime" : 1371222061163"#, r#""startTime" : 1.5e12"#);
    assert_ne!(
        changed, lines[18],
        "line 19 holds the startTime the review changed"
    );
    lines[18] = &changed;
    let (jobs, report) = read_rumen(&lines.concat());
    assert_eq!(
        skips(&report),
        [(19, Some("startTime"), "field of the wrong type")]
    );
    // One attempt (or its task) lost, both jobs kept, every record accounted for.
    assert_eq!(jobs.len(), plain_jobs.len());
    assert_eq!(report.records_read, plain.records_read + 1);
    let attempts = |jobs: &[TraceJob]| -> usize {
        jobs.iter()
            .flat_map(|job| &job.tasks)
            .map(|task| task.attempts.len())
            .sum()
    };
    assert_eq!(attempts(&jobs) + 1, attempts(&plain_jobs));
}
