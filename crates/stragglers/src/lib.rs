//! **stragglers** tells how good a straggler detector really is.
//!
//! Big-data engines (Hadoop, Spark, Tez) relaunch slow tasks as speculative copies; whether
//! that helps depends on *detecting* the right tasks early. This crate gathers the
//! workspace's parts, each usable on its own:
//!
//! - [`model`]: tasks, attempts, nodes, runs, and the columnar [`Snapshot`](model::Snapshot)
//!   detectors scan;
//! - [`detect`]: the [`Detector`](detect::Detector) trait, the detectors of the seed
//!   papers (Default, LATE and Hierarchical; eSplash, DSB, Garraghan et al., the
//!   DoS-index) and of the engines (Hadoop 1 and 2, Spark, LATE as Zaharia published it),
//!   an oracle, and the [conformance kit](detect::conformance) a detector of one's own
//!   runs through (`docs/writing-a-detector.md` says how to write one);
//! - [`truth`]: ground truth, the usual execution time as a quantile of homogeneous runs;
//! - [`metrics`]: Precision, Recall, Detection Latency, Undetected Time, Fake Positive and
//!   the efficiency metrics, with confidence intervals over repetitions;
//! - [`energy`]: the power and slowdown model and the first-order predictor of the seed
//!   paper's Section 4;
//! - [`sim`]: the cluster simulator and the paper's evaluation;
//! - [`trace`]: real Hadoop and Spark logs, their stragglers, the speculation that ran and
//!   detectors replayed over them.
//!
//! The evaluation of the seed paper (Phan et al., TOMPECS 2019, Tables 5 and 6) in a few
//! lines, with a smaller number of repetitions:
//!
//! ```
//! use stragglers::sim::{Evaluation, report};
//!
//! let mut evaluation = Evaluation::paper();
//! evaluation.config_mut().repetitions = 2;
//! evaluation.config_mut().baseline_runs = 3;
//! evaluation.config_mut().scenarios.truncate(1);
//! let results = evaluation.run()?;
//! let c1_default = results.cell("table6", "C1", "x100", "default").expect("cell ran");
//! assert!(c1_default.metrics["recall"].mean.is_some());
//! println!("{}", report::text(&results));
//! # Ok::<(), stragglers::sim::SimError>(())
//! ```
//!
//! # Scoring a scheduler of one's own
//!
//! Without the simulator: a [`Run`](model::Run) built from a scheduler's own records (four
//! maps on two nodes; map 1's original killed when its copy won, map 2's original lost and
//! run again), its stragglers labelled against baseline runs or against their siblings,
//! its detection metrics, energy and predicted overheads, and a detector run over a
//! [`Snapshot`](model::Snapshot) of one's own. `docs/formulas.md` works the same run by
//! hand.
//!
//! ```
//! use stragglers::detect::{DefaultDetector, DefaultParams, Detector, Findings};
//! use stragglers::energy::{FirstOrderInputs, PowerModel, run_energy_joules};
//! use stragglers::metrics::{detection_metrics, efficiency_metrics, task_records_of_run};
//! use stragglers::model::*;
//! use stragglers::truth::{SiblingReference, StragglerRule, UsualTimes, sibling_usual_times_of_run};
//! use AttemptStatus::{Failed, Killed, Succeeded};
//!
//! // The scheduler's records: (task, node, copy?, start, end, status, progress at the end).
//! type Record = (u32, u32, bool, f64, f64, AttemptStatus, f64);
//! let records: [Record; 6] = [
//!     (0, 0, false, 0.0, 10.0, Succeeded, 1.0),
//!     (1, 0, false, 0.0, 15.0, Killed, 0.5), // its copy won: 15 / 0.5 = 30 s estimated
//!     (2, 0, false, 0.0, 3.0, Failed, 0.2),  // lost, run again as a new original
//!     (3, 1, false, 0.0, 11.0, Succeeded, 1.0),
//!     (2, 1, false, 4.0, 24.0, Succeeded, 1.0),
//!     (1, 1, true, 5.0, 15.0, Succeeded, 1.0),
//! ];
//! // Ids are indices: tasks[i].id == TaskId(i), attempts[i].id == AttemptId(i).
//! let run_of = |records: &[Record], detections: Vec<Detection>| -> Result<Run, ModelError> {
//!     let key = |index| TaskKey { job: JobId(0), kind: TaskKind::Map, index };
//!     let task = |i| Task { id: TaskId(i), key: key(i), stage: StageId(0), input_bytes: 64 << 20 };
//!     let attempt = |i: usize, &(task, node, copy, start, end, status, progress): &Record| {
//!         let role = if copy { AttemptRole::Speculative } else { AttemptRole::Original };
//!         Attempt::started(AttemptId(i as u32), TaskId(task), NodeId(node), role, start)
//!             .ended(end, status, progress)
//!     };
//!     let mut run = Run {
//!         nodes: vec![Node::new(NodeId(0), 4, 2, 8), Node::new(NodeId(1), 4, 2, 8)],
//!         stages: vec![Stage { job: JobId(0), kind: TaskKind::Map }],
//!         tasks: (0..4).map(task).collect(),
//!         attempts: records.iter().enumerate().map(|(i, r)| attempt(i, r)).collect(),
//!         detections,
//!         end_secs: records.iter().map(|r| r.4).fold(0.0, f64::max),
//!         ..Run::default()
//!     };
//!     run.load = run.load_from_attempts()?; // what the energy is computed from
//!     Ok(run)
//! };
//! let detected = |task, attempt, time_secs| Detection {
//!     task: TaskId(task),
//!     attempt: AttemptId(attempt),
//!     time_secs,
//! };
//! let detections = vec![detected(0, 0, 4.0), detected(1, 1, 5.0), detected(2, 4, 20.0)];
//! let run = run_of(&records, detections)?;
//!
//! // Ground truth from three homogeneous runs of the job: every map usually takes 10 s.
//! let baselines = [9.0, 10.0, 11.0]
//!     .map(|secs| (0..4).map(|t| (t, t % 2, false, 0.0, secs, Succeeded, 1.0)).collect::<Vec<_>>())
//!     .iter()
//!     .map(|records| run_of(records, Vec::new()))
//!     .collect::<Result<Vec<Run>, _>>()?;
//! let usual = UsualTimes::from_runs(&baselines, 0.5)?.of_run(&run)?;
//! assert_eq!(usual, [10.0; 4]);
//! let rule = StragglerRule::default().check()?; // more than 1.2 times the usual time
//! let records = task_records_of_run(&run, &usual, |exec, usual| rule.is_straggler(exec, usual))?;
//! let metrics = detection_metrics(&records)?;
//! // Maps 1 (30 s) and 2 (20 s) are stragglers, both detected; map 0's detection is false;
//! // map 2's, at 20 s with 4 s left of a 10 s usual time, is a fake positive.
//! let counts = (metrics.true_positives, metrics.false_positives, metrics.fake_positives);
//! assert_eq!(counts, (2, 1, 1));
//! assert_eq!(metrics.recall, Some(1.0));
//! assert_eq!(metrics.precision_raw, Some(2.0 / 3.0));
//! assert_eq!(metrics.precision, Some(1.0 / 3.0)); // the fake counted false
//! assert_eq!(metrics.detection_latency, Some((0.5 + 1.6) / 2.0));
//! assert_eq!(metrics.undetected_time, None); // no straggler went undetected
//!
//! // Ground truth without baselines: the median of the stage, leaving the re-run map out
//! // of the reference (its time is the re-run's); 1.5 times it, as seeds 002 and 004.
//! let siblings = sibling_usual_times_of_run(&run, SiblingReference::Median, false)?;
//! assert_eq!(siblings, [11.0; 4]); // the median of 10, 11 and 30
//! let rule = StragglerRule { factor: 1.5 }.check()?;
//! let records = task_records_of_run(&run, &siblings, |exec, usual| rule.is_straggler(exec, usual))?;
//! assert_eq!(detection_metrics(&records)?.true_positives, 2); // 30 and 20 > 16.5
//!
//! // Efficiency and energy: 65 + 17 n W with n tasks on a node's 4 cores, 0 W idle.
//! let efficiency = efficiency_metrics(&run)?;
//! assert_eq!((efficiency.container_secs, efficiency.successful_copies), (69.0, 1));
//! assert_eq!(run_energy_joules(&run, &PowerModel::default())?, 3708.0);
//! let stragglers = metrics.true_positives + metrics.false_negatives;
//! let prediction = FirstOrderInputs::from_metrics(
//!     stragglers as f64 / metrics.tasks as f64,
//!     metrics.precision_raw,
//!     metrics.recall,
//!     metrics.detection_latency,
//!     metrics.undetected_time,
//! )?
//! .predict()?;
//! assert!((prediction.time_per_task - 1.525).abs() < 1e-12);
//!
//! // A detector over the scheduler's own snapshot at 6 s: map 2's re-run (attempt 4),
//! // at 0.1, trails the stage's mean progress 0.3625 by more than 0.2.
//! let mut snapshot = Snapshot::new(6.0, 2, run.stages.clone())?;
//! for (attempt, task, node, start_secs, progress) in
//!     [(0, 0, 0, 0.0, 0.6), (1, 1, 0, 0.0, 0.2), (3, 3, 1, 0.0, 0.55), (4, 2, 1, 4.0, 0.1)]
//! {
//!     snapshot.push(SnapshotRow {
//!         attempt: AttemptId(attempt),
//!         task: TaskId(task),
//!         stage: StageId(0),
//!         node: NodeId(node),
//!         role: AttemptRole::Original,
//!         start_secs,
//!         progress,
//!         input_bytes: 64.0 * 1024.0 * 1024.0,
//!     })?;
//! }
//! let mut detector = DefaultDetector::new(DefaultParams::default().check()?);
//! let mut findings = Findings::default();
//! detector.scan(&snapshot, &mut findings);
//! findings.check(detector.name(), &snapshot)?;
//! let flagged: Vec<Detection> = findings
//!     .rows()
//!     .iter()
//!     .filter_map(|&row| snapshot.row(row as usize))
//!     .map(|row| Detection { task: row.task, attempt: row.attempt, time_secs: snapshot.now_secs() })
//!     .collect();
//! assert_eq!(flagged, [detected(2, 4, 6.0)]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

pub use straggler_detect as detect;
pub use straggler_energy as energy;
pub use straggler_metrics as metrics;
pub use straggler_model as model;
pub use straggler_sim as sim;
pub use straggler_trace as trace;
pub use straggler_truth as truth;

/// The names most programs need.
pub mod prelude {
    pub use straggler_detect::{
        DefaultDetector, Detector, Findings, GroupSums, Hierarchical, HierarchicalParams,
        LateDetector, Parallelism, SlowNodeRule,
    };
    pub use straggler_model::{
        AttemptId, AttemptRole, AttemptStatus, NodeId, Observation, Run, Snapshot, SnapshotRow,
        StageId, TaskId,
    };
    pub use straggler_sim::{DetectorSpec, EvalConfig, Evaluation, Scenario, SimConfig, simulate};
}
