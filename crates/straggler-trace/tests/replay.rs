//! The speculation recorded in real logs of `../shared/traces`, judged against hand counts,
//! and detectors replayed over them.
//!
//! The hand counts were made without this crate: reading the raw records (Spark: the 5
//! `SparkListenerTask{Start,End}` events printed one per line; Hadoop 1: a 60-line Python
//! script that parses the `Key="value"` records, groups attempts by `TASKID`, marks as the
//! copy the later-numbered of a KILLED and a SUCCESS attempt that overlap in time or whose
//! KILLED one is numbered after the SUCCESS, and applies the
//! median x 1.5 rule per job and task type), and spot-checked by hand on single tasks.

use std::path::{Path, PathBuf};

use straggler_detect::{DefaultDetector, LateDetector};
use straggler_trace::{
    ReplayConfig, ReplayMetrics, TraceJob, TruthConfig, judge, label, read_path, recorded, replay,
    table3,
};

fn traces() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces")
}

/// The jobs of a log whose only skipped records are the `expected_skips` reasons.
fn read(relative: &str, expected_skips: &[(&str, u64)]) -> Vec<TraceJob> {
    let path = traces().join(relative);
    let (jobs, report) = read_path(&path).unwrap_or_else(|e| panic!("{e}"));
    let skips: Vec<(&str, u64)> = report
        .skip_reasons
        .iter()
        .map(|(reason, n)| (reason.as_str(), *n))
        .collect();
    assert_eq!(skips, expected_skips);
    jobs
}

/// The Yahoo! sample skips no record: each job's configuration XML it embeds is read, its
/// one property parsed.
const YAHOO_SKIPS: &[(&str, u64)] = &[];

/// Within a millionth, relative: times are epoch seconds in binary64, about 2e-7 s apart at
/// 2009-2021 dates, and sums of their differences carry that error.
fn close(got: Option<f64>, expected: f64, what: &str) {
    let got = got.unwrap_or_else(|| panic!("{what} undefined"));
    assert!(
        (got - expected).abs() <= 1e-6 * expected.abs().max(1.0),
        "{what}: {got} != {expected}"
    );
}

/// Spark `application_1628109047826_1317105`: one job, one stage, tasks 0-3 launched at
/// .885, .903, .904, .904 (epoch 1628638073) and ended at 076.119, 076.550, 079.028,
/// 137.677: durations 2.234, 2.647, 5.124 and 63.773 s. Median (2.647 + 5.124) / 2 =
/// 3.8855, x 1.5 = 5.82825: task 3 is the only straggler. Task 3's speculative attempt
/// (Task ID 4) was launched at 084.499 and killed at 137.700 when the original won.
///
/// Recorded: TP 1, FP 0, FN 0; detection at 84.499 - 73.885 = 10.614 s after the job's
/// first launch, the original launched at 0.019: latency (10.614 - 0.019) / 3.8855 =
/// 2.72681; remaining at detection 0.019 + 63.773 - 10.614 = 53.178 >= 3.8855, not fake.
/// One unsuccessful copy, wasted 137.700 - 84.499 = 53.201 s.
#[test]
fn spark_recorded_speculation_against_a_hand_count() {
    let jobs = read(
        "spark-core-test-events/application_1628109047826_1317105",
        &[],
    );
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].tasks.len(), 4);
    let labels = label(&jobs, TruthConfig::default()).unwrap();
    assert_eq!(labels.tasks.len(), 4);
    assert_eq!(labels.stragglers(), 1);
    let recorded = recorded(&jobs, &labels);
    let metrics = judge(&labels, &recorded.detections).unwrap();
    assert_eq!(
        (
            metrics.true_positives,
            metrics.false_positives,
            metrics.false_negatives,
            metrics.fake_positives
        ),
        (1, 0, 0, 0)
    );
    let judged = ReplayMetrics::new(&metrics, 0, Some(&recorded.total));
    close(judged.metrics.precision, 1.0, "precision");
    close(judged.metrics.recall, 1.0, "recall");
    close(
        judged.metrics.detection_latency,
        (10.614 - 0.019) / 3.8855,
        "detection latency",
    );
    assert_eq!(judged.metrics.undetected_time, None);
    let copies = judged.copies.expect("the recorded speculation's copies");
    assert_eq!(
        (
            copies.speculative_copies,
            copies.successful_copies,
            copies.unsuccessful_copies
        ),
        (1, 0, 1)
    );
    close(Some(copies.wasted_container_secs), 53.201, "wasted");
}

/// The Yahoo! sample `sample-job-tracker-logs.gz` (Hadoop 1): 4 jobs, 210 tasks of which 7
/// setup or cleanup, 203 maps and reduces, all completed; 283 attempts, 69 KILLED: 37 of
/// them overlap a SUCCESS attempt of the same task, and the other 32 are numbered after
/// one (launched before the JobTracker heard of the success). The 69 copies (the
/// later-numbered of each pair) are all in job 0004: 7 succeeded, 62 killed, their running
/// times summing to 2273.496 s. 4 maps were re-run after their original failed. Against
/// 1.5 x the median of the job's maps (or reduces) that ran once: 22 stragglers; 18 of
/// them got a copy at or after their original's launch (TP), 51 tasks that were not
/// stragglers got one (FP), 4 stragglers none (FN); 16 of the 18 copies came when the
/// original's remaining time was already below the median (fake). Counted among the
/// siblings, the re-runs lowered job 0004's median map time, and one task more (its
/// `m_000002`, 46.371 s, now 1.484 times the median) was a straggler with a copy.
#[test]
fn hadoop1_recorded_speculation_against_a_hand_count() {
    let jobs = read(
        "hadoop-rumen-testdata/small-trace-test/sample-job-tracker-logs.gz",
        YAHOO_SKIPS,
    );
    assert_eq!(jobs.len(), 4);
    assert_eq!(jobs.iter().map(|j| j.tasks.len()).sum::<usize>(), 210);
    let labels = label(&jobs, TruthConfig::default()).unwrap();
    assert_eq!(labels.tasks.len(), 203);
    assert_eq!(labels.unlabelled["setup or cleanup task"], 7);
    assert_eq!(labels.stragglers(), 22);
    assert_eq!(labels.tasks.iter().filter(|t| t.rerun).count(), 4);
    let recorded = recorded(&jobs, &labels);
    assert_eq!(recorded.total.speculative_copies, 69);
    assert_eq!(recorded.total.successful_copies, 7);
    assert_eq!(recorded.total.unsuccessful_copies, 62);
    close(
        Some(recorded.total.wasted_container_secs),
        2273.496,
        "wasted",
    );
    let metrics = judge(&labels, &recorded.detections).unwrap();
    assert_eq!(
        (
            metrics.true_positives,
            metrics.false_positives,
            metrics.false_negatives,
            metrics.fake_positives
        ),
        (18, 51, 4, 16)
    );
    close(metrics.precision_raw, 18.0 / 69.0, "precision raw");
    close(metrics.precision, 2.0 / 69.0, "precision");
    close(metrics.recall, 18.0 / 22.0, "recall");
    close(
        metrics.detection_latency,
        1.324_476_088,
        "detection latency",
    );
    close(metrics.undetected_time, 2.792_709_073, "undetected time");

    let table = table3(&jobs, &recorded);
    assert_eq!(table.rows.len(), 4);
    assert_eq!(table.per_copy.n, 1, "only job 0004 has copies");
    assert_eq!(table.per_copy.r, None);
}

/// Replayed detectors on the Yahoo! sample: every labelled task gets a record, detections
/// fall within their task's run, and the same replay twice gives the same detections.
#[test]
fn detectors_replay_over_a_real_log_deterministically() {
    let jobs = read(
        "hadoop-rumen-testdata/small-trace-test/sample-job-tracker-logs.gz",
        YAHOO_SKIPS,
    );
    let labels = label(&jobs, TruthConfig::default()).unwrap();
    let config = ReplayConfig::default();
    let first = replay(&jobs, &labels, &mut DefaultDetector::default(), config).unwrap();
    let again = replay(&jobs, &labels, &mut DefaultDetector::default(), config).unwrap();
    assert_eq!(first, again);
    assert_eq!(first.detections.len(), labels.tasks.len());
    assert!(first.scans > 0);
    for (task, detection) in labels.tasks.iter().zip(&first.detections) {
        if let Some(at) = detection {
            assert!(*at >= task.start_secs && *at <= task.start_secs + task.exec_secs);
        }
    }
    let late = replay(&jobs, &labels, &mut LateDetector::default(), config).unwrap();
    let metrics = judge(&labels, &late.detections).unwrap();
    assert_eq!(metrics.tasks, 203);
    assert!(metrics.true_positives + metrics.false_positives > 0);
}

/// The figures docs/replay.md's walkthrough of the Yahoo! sample gives beyond the tables
/// the command prints, computed from the log as the walkthrough describes them.
#[test]
fn the_yahoo_walkthroughs_figures() {
    use straggler_model::AttemptRole;
    use straggler_trace::{AttemptOutcome, StageKind};
    let jobs = read(
        "hadoop-rumen-testdata/small-trace-test/sample-job-tracker-logs.gz",
        YAHOO_SKIPS,
    );
    let labels = label(&jobs, TruthConfig::default()).unwrap();
    let recorded = recorded(&jobs, &labels);
    // "The other 32 [copies] ... were launched 0.008 to 50.1 s after it [their task's
    // successful attempt] ended."
    let mut late_gaps = Vec::new();
    // Each labelled task's first success's end, seconds since its job's first launch.
    let mut success_end = vec![None; labels.tasks.len()];
    for (j, job) in jobs.iter().enumerate() {
        for (t, task) in job.tasks.iter().enumerate() {
            if task.kind == StageKind::Other {
                continue;
            }
            let Some(first_success) = task
                .attempts
                .iter()
                .filter(|a| a.outcome == AttemptOutcome::Succeeded)
                .filter_map(|a| a.end_secs)
                .min_by(f64::total_cmp)
            else {
                continue;
            };
            if let Some(i) = labels.index[j][t] {
                success_end[i] = Some(first_success - labels.job_origin_secs[j]);
            }
            for (attempt, role) in task.attempts.iter().zip(&labels.roles[j][t]) {
                if *role == AttemptRole::Speculative && attempt.start_secs > first_success {
                    late_gaps.push(attempt.start_secs - first_success);
                }
            }
        }
    }
    late_gaps.sort_by(f64::total_cmp);
    assert_eq!(late_gaps.len(), 32);
    assert_eq!(format!("{:.3}", late_gaps[0]), "0.008");
    assert_eq!(format!("{:.1}", late_gaps[31]), "50.1");
    // "31 of the 51 got only a copy launched after they had ended, and so did one
    // straggler, task_200904211745_0004_m_000080, 3.2 s after its success."
    let mut fp_after_end = 0;
    let mut stragglers_after_end = Vec::new();
    for (i, task) in labels.tasks.iter().enumerate() {
        if let (Some(detected), Some(end)) = (recorded.detections[i], success_end[i])
            && detected > end
        {
            if task.straggler {
                let id = &jobs[task.job].tasks[task.task].id;
                stragglers_after_end.push(format!("{id} {:.1}", detected - end));
            } else {
                fp_after_end += 1;
            }
        }
    }
    assert_eq!(fp_after_end, 31);
    assert_eq!(
        stragglers_after_end,
        ["task_200904211745_0004_m_000080 3.2"]
    );
    // "The 49 successful reduces spent 0.78 to 0.90 of their run in the shuffle (median
    // 0.87)": up to the report of progress 1/3, Hadoop 1's SHUFFLE_FINISHED (progress
    // times are since the attempt's launch).
    let mut shares: Vec<f64> = jobs
        .iter()
        .flat_map(|job| &job.tasks)
        .filter(|task| task.kind == StageKind::Reduce)
        .flat_map(|task| &task.attempts)
        .filter(|a| a.outcome == AttemptOutcome::Succeeded)
        .map(|a| {
            let (shuffled, _) = a.progress.iter().find(|(_, p)| *p == 1.0 / 3.0).unwrap();
            shuffled / (a.end_secs.unwrap() - a.start_secs)
        })
        .collect();
    shares.sort_by(f64::total_cmp);
    let two = |v: f64| format!("{v:.2}");
    assert_eq!(
        (
            shares.len(),
            two(shares[0]),
            two(shares[48]),
            two(shares[24])
        ),
        (49, "0.78".into(), "0.90".into(), "0.87".into())
    );
    // "The engine's first copy is dated 56.0 s after the submission" (job 0004's).
    let job = &jobs[3];
    let first_copy = job
        .tasks
        .iter()
        .zip(&labels.roles[3])
        .flat_map(|(task, roles)| task.attempts.iter().zip(roles))
        .filter(|(_, role)| **role == AttemptRole::Speculative)
        .map(|(a, _)| a.start_secs)
        .min_by(f64::total_cmp)
        .unwrap();
    assert_eq!(job.id, "job_200904211745_0004");
    assert_eq!(
        format!("{:.1}", first_copy - job.submit_secs.unwrap()),
        "56.0"
    );
}
