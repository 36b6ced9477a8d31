//! A conformance kit for [`Detector`] implementations: runs a detector through fixed
//! scenarios and checks the properties every detector of this workspace promises.
//!
//! A third-party detector (a scheduler's own rule, an estimator learnt from history) is
//! handed to [`Conformance::new`] as a constructor taking the [`Parallelism`] to use, and
//! [`Conformance::run`] returns the first broken property as a [`ConformanceFailure`].
//!
//! # Scenarios
//!
//! - an empty snapshot without stages or nodes, and one with stages and nodes but no rows;
//! - one task;
//! - three identical tasks at progress 0.1 (`0.1 + 0.1 + 0.1 = 0.30000000000000004` in
//!   binary64, so a naive mean lies one ulp above every task), and 10 000 identical tasks
//!   on 10 nodes (three chunks of a parallel scan);
//! - identical tasks within each of three stages, every node running the same mix;
//! - zero progress everywhere, with varied start times and input sizes, and zero progress
//!   on identical tasks;
//! - every attempt started at the snapshot's instant (no progress rate defined);
//! - a very long run (`now = 1e7` s, every start in the first thousand seconds), with
//!   varied and with identical tasks;
//! - three generated snapshots of [`GENERATED_ROWS`] rows over 4 stages and 50 nodes. In
//!   the first, progress is drawn row by row: uniform, repeated decimal values (0.1, 0.3,
//!   1/3...), a few slow rows, and two levels `c - 0.2` and `c + 0.2` in turn within each
//!   stage; start times are spread over the run, some exactly at `now`. In the second,
//!   every stage holds only its two levels, started together, so that half of the
//!   rows sit exactly at Default's threshold (gap 0.2) and at LATE's (alpha 1) up to
//!   rounding; in the third, three levels `c - 0.2, c, c + 0.2`, so that a third of the
//!   rows sit at Default's threshold and a third at the stage mean (gap 0, alpha 0). Rounding is where a parallel sum split
//!   differently from the sequential one would show. A fourth is drawn as the first, then
//!   every seventh row made a speculative copy of the task of the row before it. The data
//!   come from a fixed SplitMix64 stream, so the scenarios are the same on every machine.
//!
//! # Checks, on every scenario
//!
//! - the detector does not panic (neither its constructor nor its scan);
//! - flagged rows are strictly increasing and below the snapshot's length, slow nodes are
//!   below its node count;
//! - a second scan of the same snapshot, with no observation in between, gives the same
//!   findings, and so does a scan after [`Detector::reset`];
//! - the detector built with [`Parallelism::Parallel`] gives exactly the findings of the one
//!   built with [`Parallelism::Sequential`];
//! - only with [`Conformance::peer_relative`]: no attempt is flagged in the scenarios where
//!   every attempt is identical to the other attempts of its stage in every column and
//!   every node runs the same mix of attempts. This is an expectation for detectors that
//!   judge an attempt against its peers (Default, LATE, Hierarchical): an attempt like all
//!   the others is not behind them. A detector with an absolute rule ("slower than 1 MB/s")
//!   may legitimately flag identical attempts and should not opt in.
//!
//! Once, before the scenarios: [`Detector::name`] is non-empty, lower case and without
//! whitespace.
//!
//! Only with [`Conformance::forgets_finished_stages`], once after the scenarios: a stage
//! index starts afresh after [`Observation::StageFinished`]. The detector observes a
//! stage's history (its job submitted at 0 s, 200 tasks of 640 MB on 10 nodes, each
//! reported at half its 10 s run, then succeeded), then the stage's end; the index then
//! goes to another job's stage (the job submitted at 90 s, 20 attempts of new tasks of
//! 64 MB started at 100 s, reported every 3 s at steady rates, so that at
//! 200 s one in four is at progress 0.05 and the others at 0.5); at 200 s the detector must
//! flag what a new one that observed only the new stage's reports flags. This is an expectation for detectors
//! that learn per stage only (Spark's, Hadoop's, the DoS-index, Garraghan's); a node-level
//! detector keeps what it learnt of the nodes (DSB, eSplash) and should not opt in.
//!
//! Findings carry row indices and node identifiers only, so they cannot hold a NaN; what
//! the checks above cannot see (whether the flagged rows are the right ones) is for the
//! detector's own hand-worked tests.
//!
//! ```
//! use straggler_detect::conformance::Conformance;
//! use straggler_detect::{LateDetector, LateParams};
//!
//! Conformance::new(|parallelism| {
//!     let params = LateParams { parallelism, ..LateParams::default() };
//!     LateDetector::new(params.check().expect("valid parameters"))
//! })
//! .peer_relative()
//! .run()?;
//! # Ok::<(), straggler_detect::conformance::ConformanceFailure>(())
//! ```

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use straggler_model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, JobId, ModelError, NodeId, Observation,
    ProgressReport, Snapshot, SnapshotRow, Stage, StageId, TaskId, TaskKind,
};

use crate::{Detector, Findings, Parallelism};

/// Rows of the generated scenario: five of the chunks a parallel scan of few groups sums
/// separately (4,032 rows each, the last 3,872: `scan::chunk_len`).
pub const GENERATED_ROWS: usize = 20_000;

/// Runs a detector through the kit's scenarios; see the [module docs](self).
pub struct Conformance<F> {
    make: F,
    peer_relative: bool,
    forgets_finished_stages: bool,
}

impl<F> fmt::Debug for Conformance<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Conformance")
            .field("peer_relative", &self.peer_relative)
            .field("forgets_finished_stages", &self.forgets_finished_stages)
            .finish()
    }
}

impl<F, D> Conformance<F>
where
    F: Fn(Parallelism) -> D,
    D: Detector,
{
    /// A kit for the detectors `make` builds. The kit calls `make` with
    /// [`Parallelism::Sequential`] and [`Parallelism::Parallel`], so the detector's scans
    /// must honour the value given.
    pub fn new(make: F) -> Self {
        Conformance {
            make,
            peer_relative: false,
            forgets_finished_stages: false,
        }
    }

    /// Also expects that attempts identical to all their peers are never flagged (see the
    /// [module docs](self)). True of Default, LATE and Hierarchical.
    pub fn peer_relative(mut self) -> Self {
        self.peer_relative = true;
        self
    }

    /// Also expects that after [`Observation::StageFinished`] the stage's index starts
    /// afresh (see the [module docs](self)). True of the detectors that learn per stage
    /// only: Spark's, Hadoop's, the DoS-index, Garraghan's.
    pub fn forgets_finished_stages(mut self) -> Self {
        self.forgets_finished_stages = true;
        self
    }

    /// Runs every scenario and returns the first failure.
    pub fn run(&self) -> Result<(), ConformanceFailure> {
        let detector = self.build(Parallelism::Sequential, "name")?;
        let name = detector.name();
        if name.is_empty() || name.chars().any(|c| c.is_uppercase() || c.is_whitespace()) {
            return Err(ConformanceFailure {
                detector: name.to_owned(),
                scenario: "name",
                check: "the name is non-empty, lower case and without whitespace",
                detail: format!("name is {name:?}"),
            });
        }
        for scenario in scenarios() {
            self.run_scenario(&scenario)?;
        }
        if self.forgets_finished_stages {
            self.check_reused_stage()?;
        }
        Ok(())
    }

    /// A detector that observed a finished stage flags, at its index given to another
    /// stage, what a new detector flags.
    fn check_reused_stage(&self) -> Result<(), ConformanceFailure> {
        const SCENARIO: &str = "a finished stage's index given to another stage";
        let (history, after, snapshot) = reused_stage();
        let mut fresh = self.build(Parallelism::Sequential, SCENARIO)?;
        let mut taught = self.build(Parallelism::Sequential, SCENARIO)?;
        let fail = |check: &'static str, detail: String| ConformanceFailure {
            detector: sequential_name(&self.make),
            scenario: SCENARIO,
            check,
            detail,
        };
        catch_unwind(AssertUnwindSafe(|| {
            history.iter().for_each(|o| taught.observe(o));
            after.iter().for_each(|o| taught.observe(o));
            after.iter().for_each(|o| fresh.observe(o));
        }))
        .map_err(|payload| fail("observing does not panic", panic_message(&payload)))?;
        let expected = scan(&mut fresh, &snapshot).map_err(|m| fail(NO_PANIC, m))?;
        let got = scan(&mut taught, &snapshot).map_err(|m| fail(NO_PANIC, m))?;
        if got != expected {
            return Err(fail(
                "after StageFinished the index flags what a new detector flags",
                format!(
                    "a new detector flagged rows {:?}, the one that learnt the finished \
                     stage rows {:?}",
                    Preview(expected.rows()),
                    Preview(got.rows())
                ),
            ));
        }
        Ok(())
    }

    fn build(
        &self,
        parallelism: Parallelism,
        scenario: &'static str,
    ) -> Result<D, ConformanceFailure> {
        catch_unwind(AssertUnwindSafe(|| (self.make)(parallelism))).map_err(|payload| {
            ConformanceFailure {
                detector: String::from("?"),
                scenario,
                check: "the constructor does not panic",
                detail: panic_message(&payload),
            }
        })
    }

    fn run_scenario(&self, scenario: &Scenario) -> Result<(), ConformanceFailure> {
        let snapshot = &scenario.snapshot;
        let mut sequential = self.build(Parallelism::Sequential, scenario.name)?;
        let fail = |check: &'static str, detail: String| ConformanceFailure {
            detector: sequential_name(&self.make),
            scenario: scenario.name,
            check,
            detail,
        };
        let first = scan(&mut sequential, snapshot).map_err(|m| fail(NO_PANIC, m))?;
        if let Some(detail) = out_of_range(&first, snapshot) {
            return Err(fail(
                "rows strictly increasing and in range, slow nodes in range",
                detail,
            ));
        }
        let second = scan(&mut sequential, snapshot).map_err(|m| fail(NO_PANIC, m))?;
        if second != first {
            return Err(fail(
                "a second scan gives the same findings",
                differ(("the first scan", &first), ("the second", &second)),
            ));
        }
        sequential.reset();
        let after_reset = scan(&mut sequential, snapshot).map_err(|m| fail(NO_PANIC, m))?;
        if after_reset != first {
            return Err(fail(
                "a scan after reset gives the same findings",
                differ(
                    ("the first scan", &first),
                    ("the scan after reset", &after_reset),
                ),
            ));
        }
        let mut parallel = self.build(Parallelism::Parallel, scenario.name)?;
        let parallel = scan(&mut parallel, snapshot).map_err(|m| fail(NO_PANIC, m))?;
        if parallel != first {
            return Err(fail(
                "a parallel scan gives the findings of a sequential one",
                differ(
                    ("the detector built with Parallelism::Sequential", &first),
                    ("the one built with Parallelism::Parallel", &parallel),
                ),
            ));
        }
        if self.peer_relative && scenario.peers_identical && !first.rows().is_empty() {
            return Err(fail(
                "attempts identical to all their peers are not flagged",
                format!("flagged rows {:?}", Preview(first.rows())),
            ));
        }
        Ok(())
    }
}

/// Runs the universal checks (everything but the peer-relative expectation) on the
/// detectors `make` builds; a shorthand for `Conformance::new(make).run()`.
pub fn check_detector<D: Detector>(
    make: impl Fn(Parallelism) -> D,
) -> Result<(), ConformanceFailure> {
    Conformance::new(make).run()
}

/// The first property a detector broke, with the scenario it broke it in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConformanceFailure {
    /// The detector's name (`"?"` when its constructor panicked).
    pub detector: String,
    /// The scenario, as listed in the [module docs](self).
    pub scenario: &'static str,
    /// The property broken.
    pub check: &'static str,
    /// What was seen.
    pub detail: String,
}

impl fmt::Display for ConformanceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "detector {:?} fails \"{}\" in scenario \"{}\": {}",
            self.detector, self.check, self.scenario, self.detail
        )
    }
}

impl std::error::Error for ConformanceFailure {}

const NO_PANIC: &str = "the scan does not panic";

fn sequential_name<D: Detector>(make: &impl Fn(Parallelism) -> D) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        make(Parallelism::Sequential).name().to_owned()
    }))
    .unwrap_or_else(|_| String::from("?"))
}

fn scan<D: Detector>(detector: &mut D, snapshot: &Snapshot) -> Result<Findings, String> {
    let mut findings = Findings::default();
    catch_unwind(AssertUnwindSafe(|| detector.scan(snapshot, &mut findings)))
        .map_err(|payload| panic_message(&payload))?;
    Ok(findings)
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    let message = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| String::from("non-string payload"));
    format!("panicked: {message}")
}

/// What breaks the findings' contract ([`Findings::check`]), if anything.
fn out_of_range(findings: &Findings, snapshot: &Snapshot) -> Option<String> {
    match findings.check("", snapshot) {
        Ok(()) => None,
        Err(crate::DetectError::BadFindings { problem, .. }) => Some(problem),
        Err(other) => Some(other.to_string()),
    }
}

/// What two scans found, each named by what it is (`"the sequential detector"`), so that
/// the message says which two the check compared.
fn differ((one, expected): (&str, &Findings), (other, got): (&str, &Findings)) -> String {
    format!(
        "{one} flagged rows {:?} and nodes {:?}, {other} rows {:?} and nodes {:?}",
        Preview(expected.rows()),
        Preview(expected.slow_nodes()),
        Preview(got.rows()),
        Preview(got.slow_nodes()),
    )
}

/// At most the first ten items of a slice, and how many there are.
struct Preview<'a, T>(&'a [T]);

impl<T: fmt::Debug> fmt::Debug for Preview<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = &self.0[..self.0.len().min(10)];
        write!(f, "{shown:?}")?;
        if self.0.len() > shown.len() {
            write!(f, " (first 10 of {})", self.0.len())?;
        }
        Ok(())
    }
}

/// The observations until the stage's end and after, and the snapshot, of
/// [`Conformance::forgets_finished_stages`]'s check (see the [module docs](self)).
fn reused_stage() -> (Vec<Observation>, Vec<Observation>, Snapshot) {
    const HISTORY: u32 = 200;
    const NODES: u32 = 10;
    let mut history = vec![Observation::JobSubmitted {
        job: JobId(0),
        time_secs: 0.0,
    }];
    for task in 0..HISTORY {
        let (attempt, node) = (AttemptId(task), NodeId(task % NODES));
        history.push(Observation::Progress(ProgressReport {
            attempt,
            task: TaskId(task),
            stage: StageId(0),
            node,
            time_secs: 5.0,
            progress: 0.5,
        }));
    }
    for task in 0..HISTORY {
        history.push(Observation::AttemptEnded(AttemptEnd {
            attempt: AttemptId(task),
            task: TaskId(task),
            stage: StageId(0),
            node: NodeId(task % NODES),
            role: AttemptRole::Original,
            start_secs: 0.0,
            end_secs: 10.0,
            status: AttemptStatus::Succeeded,
            input_bytes: 640_000_000,
        }));
    }
    history.push(Observation::StageFinished {
        stage: StageId(0),
        time_secs: 10.0,
    });
    let stages = vec![Stage {
        job: JobId(1),
        kind: TaskKind::Map,
    }];
    let mut snapshot = Snapshot::new(200.0, NODES, stages).expect("valid snapshot");
    let rows: Vec<SnapshotRow> = (0..20)
        .map(|i| SnapshotRow {
            attempt: AttemptId(HISTORY + i),
            task: TaskId(HISTORY + i),
            stage: StageId(0),
            node: NodeId(i % NODES),
            role: AttemptRole::Original,
            start_secs: 100.0,
            progress: if i % 4 == 0 { 0.05 } else { 0.5 },
            input_bytes: 64e6,
        })
        .collect();
    let mut after = vec![Observation::JobSubmitted {
        job: JobId(1),
        time_secs: 90.0,
    }];
    // Every 3 s from 101 s to 200 s (34 reports each, more than Hadoop's 24 skipped).
    for k in 0..34 {
        let time_secs = 200.0 - f64::from(33 - k) * 3.0;
        for row in &rows {
            after.push(Observation::Progress(ProgressReport {
                attempt: row.attempt,
                task: row.task,
                stage: row.stage,
                node: row.node,
                time_secs,
                progress: row.progress * (time_secs - 100.0) / 100.0,
            }));
        }
    }
    for row in rows {
        snapshot.push(row).expect("valid row");
    }
    (history, after, snapshot)
}

/// A snapshot and whether every attempt in it is identical to all its peers.
struct Scenario {
    name: &'static str,
    snapshot: Snapshot,
    peers_identical: bool,
}

/// One row in compact form: stage, node, start (s), progress, input (bytes).
pub type Row = (u32, u32, f64, f64, f64);

/// A snapshot at `now_secs` of `node_count` nodes running `stage_count` stages (stage 0
/// the maps of job 0, stage 1 its reduces, stage 2 the maps of job 1...), with one original
/// attempt per row, attempt and task ids numbered from 0 in row order. For tests and
/// benchmarks of detectors; an invalid row gives the snapshot's error.
pub fn build_snapshot(
    now_secs: f64,
    node_count: u32,
    stage_count: u32,
    rows: impl IntoIterator<Item = Row>,
) -> Result<Snapshot, ModelError> {
    let stages = (0..stage_count)
        .map(|s| Stage {
            job: JobId(s / 2),
            kind: if s % 2 == 0 {
                TaskKind::Map
            } else {
                TaskKind::Reduce
            },
        })
        .collect();
    let mut snapshot = Snapshot::new(now_secs, node_count, stages)?;
    for (i, (stage, node, start_secs, progress, input_bytes)) in rows.into_iter().enumerate() {
        snapshot.push(SnapshotRow {
            attempt: AttemptId(i as u32),
            task: TaskId(i as u32),
            stage: StageId(stage),
            node: NodeId(node),
            role: AttemptRole::Original,
            start_secs,
            progress,
            input_bytes,
        })?;
    }
    Ok(snapshot)
}

/// The instant of a [`straggling_stage`] snapshot, seconds.
pub const STAGE_NOW_SECS: f64 = 3000.0;
/// The usual duration of a [`straggling_stage`] map, seconds.
pub const STAGE_USUAL_SECS: f64 = 600.0;

/// A snapshot for benchmarks of detectors: `tasks` running maps of one stage on `nodes`
/// nodes at [`STAGE_NOW_SECS`]. Each row's node is uniform; a row runs at `1/600` of its
/// work per second times a +-10% jitter, started uniformly over the last 600 s, its
/// progress capped at 0.999; the rows of one node in 20 (`node % 20 == 0`) and 1% of the
/// others are stragglers, five times slower, started over the last 2400 s; inputs are
/// 64 MB +-10%. The data come from a SplitMix64 stream seeded by `seed`. `nodes` must be
/// at least 1.
pub fn straggling_stage(tasks: usize, nodes: u32, seed: u64) -> Result<Snapshot, ModelError> {
    let mut rng = SplitMix64(seed);
    let rows = (0..tasks).map(move |_| {
        let node = rng.below(nodes);
        let slow = node.is_multiple_of(20) || rng.below(100) == 0;
        let (slowdown, max_age) = if slow {
            (5.0, 4.0 * STAGE_USUAL_SECS)
        } else {
            (1.0, STAGE_USUAL_SECS)
        };
        let start_secs = STAGE_NOW_SECS - rng.unit() * max_age;
        let rate = (0.9 + 0.2 * rng.unit()) / STAGE_USUAL_SECS / slowdown;
        let progress = ((STAGE_NOW_SECS - start_secs) * rate).min(0.999);
        (
            0,
            node,
            start_secs,
            progress,
            64e6 * (0.9 + 0.2 * rng.unit()),
        )
    });
    build_snapshot(STAGE_NOW_SECS, nodes, 1, rows)
}

/// [`build_snapshot`] on the kit's own rows, which are valid.
fn build(
    now_secs: f64,
    node_count: u32,
    stage_count: u32,
    rows: impl IntoIterator<Item = Row>,
) -> Snapshot {
    build_snapshot(now_secs, node_count, stage_count, rows).expect("the kit's rows are valid")
}

/// `count` copies of one attempt, spread round-robin over `node_count` nodes.
fn identical(now: f64, node_count: u32, count: u32, row: (f64, f64, f64)) -> Snapshot {
    let (start, progress, input) = row;
    build(
        now,
        node_count,
        1,
        (0..count).map(|i| (0, i % node_count, start, progress, input)),
    )
}

fn scenarios() -> Vec<Scenario> {
    const MB: f64 = 1e6;
    let scenario = |name, snapshot, peers_identical| Scenario {
        name,
        snapshot,
        peers_identical,
    };
    let mut rng = SplitMix64(0x5eed_0f57_a66e_2500);
    let varied_zero_progress: Vec<Row> = (0..1000)
        .map(|i| {
            (
                i % 2,
                i % 7,
                rng.unit() * 100.0,
                0.0,
                (1.0 + rng.unit()) * 64.0 * MB,
            )
        })
        .collect();
    let started_now: Vec<Row> = (0..1000)
        .map(|i| (i % 2, i % 7, 100.0, rng.unit(), 64.0 * MB))
        .collect();
    let long_run: Vec<Row> = (0..1000)
        .map(|i| (i % 2, i % 7, rng.unit() * 1e3, rng.unit(), 64.0 * MB))
        .collect();
    // Three stages with different attempts; every node runs 15 attempts of each stage in
    // the same order (one chunk, so every node's sums are the same floating-point sums).
    let per_stage = [
        (0.1, 20.0, 64.0 * MB),
        (0.7, 35.0, 128.0 * MB),
        (1.0 / 3.0, 0.0, MB),
    ];
    let within_stages = (0..3u32).flat_map(|stage| {
        let (progress, start, input) = per_stage[stage as usize];
        (0..60).map(move |i| (stage, i % 4, start, progress, input))
    });
    vec![
        scenario(
            "empty snapshot without stages or nodes",
            build(0.0, 0, 0, []),
            true,
        ),
        scenario("empty snapshot", build(100.0, 8, 2, []), true),
        scenario(
            "one task",
            build(100.0, 4, 2, [(1, 3, 40.0, 0.25, 64.0 * MB)]),
            true,
        ),
        scenario(
            "three identical tasks",
            identical(100.0, 3, 3, (40.0, 0.1, 64.0 * MB)),
            true,
        ),
        scenario(
            "10 000 identical tasks on 10 nodes",
            identical(100.0, 10, 10_000, (40.0, 0.7, 64.0 * MB)),
            true,
        ),
        scenario(
            "identical tasks within each of three stages",
            build(100.0, 4, 3, within_stages),
            true,
        ),
        scenario(
            "zero progress",
            build(100.0, 7, 2, varied_zero_progress),
            false,
        ),
        scenario(
            "zero progress on identical tasks",
            identical(100.0, 5, 500, (0.0, 0.0, 64.0 * MB)),
            true,
        ),
        scenario(
            "every attempt started now",
            build(100.0, 7, 2, started_now),
            false,
        ),
        scenario("very long run", build(1e7, 7, 2, long_run), false),
        scenario(
            "very long run, identical tasks",
            identical(1e7, 7, 700, (0.0, 0.3, 64.0 * MB)),
            true,
        ),
        scenario("generated", generated(&mut rng, Mix::Mixed), false),
        scenario(
            "generated, two levels per stage",
            generated(&mut rng, Mix::TwoLevels),
            false,
        ),
        scenario(
            "generated, three levels per stage",
            generated(&mut rng, Mix::ThreeLevels),
            false,
        ),
        scenario(
            "generated, with copies",
            with_copies(&generated(&mut rng, Mix::Mixed)),
            false,
        ),
    ]
}

/// `snapshot` with every seventh row made a speculative copy of the task of the row
/// before it (as an engine lists a task's original and its copy).
fn with_copies(snapshot: &Snapshot) -> Snapshot {
    let mut copied = Snapshot::new(
        snapshot.now_secs(),
        snapshot.node_count(),
        snapshot.stages().to_vec(),
    )
    .expect("the snapshot's own instant");
    let mut previous_task = None;
    for index in 0..snapshot.len() {
        let mut row = snapshot.row(index).expect("a row of the snapshot");
        if let Some(task) = previous_task.filter(|_| index % 7 == 6) {
            row.task = task;
            row.role = AttemptRole::Speculative;
        }
        previous_task = Some(row.task);
        copied.push(row).expect("a row of a valid snapshot");
    }
    copied
}

/// How the generated scenarios draw progress scores.
#[derive(Debug, Clone, Copy)]
enum Mix {
    /// Row by row: uniform, repeated decimals, the two levels, slow.
    Mixed,
    /// The levels `c - 0.2, c + 0.2` in turn within each stage `c`.
    TwoLevels,
    /// The levels `c - 0.2, c, c + 0.2` in turn within each stage `c`.
    ThreeLevels,
}

/// A generated scenario of [`GENERATED_ROWS`] rows: see the module docs.
fn generated(rng: &mut SplitMix64, mix: Mix) -> Snapshot {
    const NOW: f64 = 3600.0;
    const STAGES: u32 = 4;
    const NODES: u32 = 50;
    const PALETTE: [f64; 8] = [0.0, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0 / 3.0, 1.0];
    // The centre `c` of each stage. With two levels in turn the stage mean is `c` and the
    // population SD 0.2 (up to rounding), so the rows at `c - 0.2` sit at Default's
    // threshold (gap 0.2) and, sharing one start time, at LATE's (alpha 1). With three
    // levels the rows at `c` sit at the mean (gap 0, alpha 0), those at `c - 0.2` still at
    // Default's threshold.
    const CENTRES: [f64; STAGES as usize] = [0.5, 0.3, 0.7, 0.45];
    let mut turn = [0usize; STAGES as usize];
    let rows: Vec<Row> = (0..GENERATED_ROWS)
        .map(|_| {
            let stage = rng.below(STAGES);
            let node = rng.below(NODES);
            let centre = CENTRES[stage as usize];
            let mut level = |levels: &[f64]| {
                let turn = &mut turn[stage as usize];
                *turn = (*turn + 1) % levels.len();
                levels[*turn]
            };
            let (progress, levelled) = match (mix, rng.below(10)) {
                (Mix::TwoLevels, _) => (level(&[centre - 0.2, centre + 0.2]), true),
                (Mix::ThreeLevels, _) => (level(&[centre - 0.2, centre, centre + 0.2]), true),
                (Mix::Mixed, 0..=3) => (rng.unit(), false),
                (Mix::Mixed, 4 | 5) => (PALETTE[rng.below(PALETTE.len() as u32) as usize], false),
                (Mix::Mixed, 6..=8) => (level(&[centre - 0.2, centre + 0.2]), true),
                (Mix::Mixed, _) => (rng.unit() * 0.05, false),
            };
            let start = if levelled {
                NOW / 2.0
            } else {
                match rng.below(10) {
                    0 => NOW,
                    1 | 2 => NOW - 60.0 * f64::from(rng.below(30)),
                    _ => rng.unit() * NOW,
                }
            };
            let input = if rng.below(2) == 0 {
                64e6
            } else {
                1e6 + rng.unit() * 255e6
            };
            (stage, node, start, progress, input)
        })
        .collect();
    build(NOW, NODES, STAGES, rows)
}

/// A detector that flags every row of every snapshot: the wrapped detector of a test of a
/// wrapper such as [`Hierarchical`](crate::Hierarchical), whose own rule then shows in
/// every row it keeps, or the busiest detector an engine can be given.
#[derive(Debug, Clone, Copy, Default)]
pub struct FlagAll;

impl Detector for FlagAll {
    fn name(&self) -> &str {
        "flag-all"
    }
    fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
        findings.rows_mut().extend(0..snapshot.len() as u32);
    }
}

/// Sebastiano Vigna's SplitMix64: a tiny deterministic generator, the same on every
/// platform. The kit builds its snapshots with it; tests and benchmarks of detectors can
/// use it to expand a seed into many rows.
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`, a multiple of 2^-53.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift.
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}
