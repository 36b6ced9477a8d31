//! `cargo xtask bench scans [--json PATH] [--only NAMES] [--numpy]`: the cost of one scan per running task, for
//! every detector of `DetectorSpec::all()`, on 10^3 to 10^6 running tasks of 10^2 to 10^4
//! nodes (one size with as many nodes as tasks, where a scan's work per node shows), beside
//! a floor: a plain pass that only reads the snapshot columns that detector
//! reads, measured in the same run. The JSON is
//! `{"threads", "pinned", "scans": [{"detector", "tasks", "nodes", "ns_per_task",
//! "floor_ns_per_task"}]}`.
//! The floor's pass has four forms, which differ only in how many accumulators sum a
//! column of `f64`, and the one that runs fastest in a short calibration is timed
//! (`fastest_floor`): a loop's speed depends on where it falls in the binary, and a floor
//! is the least a plain pass costs.
//! For Hierarchical, which sums its rows by node, a second floor is measured too
//! (`"floor_and_scatter_ns_per_task"`): the floor's pass followed by the one update of a
//! node's sum per row that such a sum needs (`sums[node] += progress`, in row order) and
//! one read of each node's sum, the least that grouping rows whose nodes are mixed costs
//! with one sum for every node (with far more nodes than rows, Hierarchical numbers the
//! nodes its rows name instead, and can cost less than this).
//!
//! The snapshot is the kit's `conformance::straggling_stage`: one stage of maps at `now` =
//! 3000 s: progress = elapsed x 1/600 per second x a +-10% jitter (capped at 0.999), starts
//! uniform over the last 600 s; on one node in 20 and for 1% of the other rows, stragglers
//! five times slower, started over the last 2400 s; inputs 64 MB +-10%. Before
//! timing, each detector observes what a long stage would have shown it: nine finished
//! tasks per running one (so that Spark's 90% gate is open and Hadoop's estimators have
//! means), ending evenly from 600 s to `now` (so that DSB's last 60 s window holds some),
//! each with one progress report half a usual duration before its end, and 25 progress
//! reports of every running attempt, 3 s apart up to `now` (those after its start;
//! Hadoop's simple exponential estimator needs 24), all in time order. Only scans are
//! timed.
//!
//! rayon's threads run one on each core ([`pin_pool`]; `--unpinned` leaves them to the
//! OS, `"pinned": false` in the JSON), and the calling thread, which runs the scans of
//! fewer rows and the floors, where the OS puts it.
//!
//! Each figure is the median over [`RUNS`] runs, a run being as many scans as fill
//! [`RUN_NANOS`] (at least one); the runs of a detector, of its floor and of its
//! floor and scatter take turns, so that a drift of the machine's speed moves them
//! together (`median_runs`). Detectors run with their default
//! parameters (`Parallelism::Auto`: rayon's pool from 262 144 rows); the floor is one
//! thread with eight accumulators.
//!
//! With `--numpy`, Default, LATE and Hierarchical are also timed against numpy
//! (`"numpy_ns_per_task"` and `"numpy_grouped_ns_per_task"`):
//! `crates/straggler-detect/benches/numpy_scans.py --serve` runs in a child process on the
//! same snapshot, whose columns are written for it under `target/bench-scans-numpy/`, and
//! two numpy versions of the scan ([`numpy_scans`]) take their turns in each round beside
//! the Rust scan and its floor: one written for this snapshot only (one stage, no row
//! started at `now`), the fastest numpy version of these rules, and one grouped by stage
//! as for any snapshot, which computes what the Rust scan computes. A multiple of numpy is
//! then measured in the same seconds, as a ratio to a floor is.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use anyhow::{Context, bail};
use serde_json::json;
use stragglers::detect::conformance::{
    STAGE_NOW_SECS, STAGE_USUAL_SECS, SplitMix64, straggling_stage,
};
use stragglers::detect::{Detector, Findings};
use stragglers::model::{
    AttemptEnd, AttemptId, AttemptRole, AttemptStatus, NodeId, Observation, ProgressReport,
    Snapshot, StageId, TaskId,
};
use stragglers::sim::DetectorSpec;

use crate::bench;

/// Sizes measured: running tasks and nodes.
const SIZES: [(usize, u32); 6] = [
    (1_000, 10_000),
    (1_000, 100),
    (10_000, 100),
    (10_000, 10_000),
    (100_000, 1_000),
    (1_000_000, 10_000),
];

/// The snapshot's instant and a task's usual duration.
const NOW_SECS: f64 = STAGE_NOW_SECS;
const USUAL_SECS: f64 = STAGE_USUAL_SECS;
/// Runs per figure (the median is reported).
const RUNS: usize = 7;
/// Runs of each form of the floor before the fastest is chosen ([`fastest_floor`]).
const CALIBRATION_RUNS: usize = 3;
/// The length of one run.
const RUN_NANOS: f64 = 20e6;
/// Finished tasks observed per running task.
const FINISHED_PER_RUNNING: usize = 9;
/// Progress reports of each running attempt before the scan.
const READINGS: usize = 25;
/// Time between two reports.
const HEARTBEAT_SECS: f64 = 3.0;

/// A column of the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Attempt,
    Task,
    Stage,
    Node,
    Role,
    Start,
    Progress,
    Input,
}

use Column::*;

/// The columns each detector's scan reads (from its source); every column for a detector
/// not listed.
fn columns(detector: &str) -> &'static [Column] {
    match detector {
        "default" => &[Stage, Progress],
        "late" => &[Stage, Progress, Start],
        "hierarchical" => &[Stage, Progress, Start, Node, Input],
        "hadoop1" => &[Task, Stage, Role, Start, Progress],
        "hadoop-legacy" | "hadoop-exp-smoothed" | "hadoop-simple-exp" => {
            &[Attempt, Task, Stage, Role, Start, Progress]
        }
        "spark" | "spark-legacy" => &[Task, Stage, Role, Start, Progress, Input],
        "late-zaharia" => &[Task, Stage, Node, Role, Start, Progress],
        "garraghan" | "garraghan-offline" | "garraghan-online" => &[Stage, Start, Progress],
        "dos-index" | "dos-index-10" => &[Stage, Role, Start, Input],
        "dsb" | "dsb-top3" => &[Node, Role],
        "oracle" => &[Task, Role, Start],
        _ => &[Attempt, Task, Stage, Node, Role, Start, Progress, Input],
    }
}

/// The floor's pass, the given columns summed and nothing else, in four forms that differ
/// only in the number of lanes (4, 8, 12 or 16 accumulators) of the `f64` columns' loop
/// (the `u32` columns' loop is one fold in every form), of which the bench times the
/// fastest ([`fastest_floor`]). How fast such a loop runs depends on where it falls in the
/// binary: each column's loop is a function of its own (inlined, Default's floor took 0.20
/// or 0.25 ns per row across two builds that changed only other code), and even so two
/// builds of one form that changed only the scans gave Default's floor 0.23 to 0.27 and
/// 0.28 to 0.33 ns per row (10^4 and 10^5 tasks), run in turn; four copies of one form,
/// as long as each other, fell alike. Forms of different lengths fall differently.
const FLOOR_COPIES: [fn(&Snapshot, &[Column]) -> f64; 4] = [
    floor_copy::<4>,
    floor_copy::<8>,
    floor_copy::<12>,
    floor_copy::<16>,
];

/// The floor's pass with `LANES` accumulators per column.
fn floor_copy<const LANES: usize>(snapshot: &Snapshot, columns: &[Column]) -> f64 {
    #[inline(never)]
    fn sum_f64<const LANES: usize>(values: &[f64]) -> f64 {
        let mut lanes = [0.0f64; LANES];
        let chunks = values.chunks_exact(LANES);
        let rest: f64 = chunks.remainder().iter().sum();
        for chunk in chunks {
            for (lane, v) in lanes.iter_mut().zip(chunk) {
                *lane += v;
            }
        }
        lanes.iter().sum::<f64>() + rest
    }
    #[inline(never)]
    fn sum_u32<const LANES: usize>(values: impl ExactSizeIterator<Item = u32> + Clone) -> f64 {
        values.fold(0u64, |s, v| s.wrapping_add(u64::from(v))) as f64
    }
    columns
        .iter()
        .map(|column| match column {
            Attempt => sum_u32::<LANES>(snapshot.attempts().iter().map(|a| a.0)),
            Task => sum_u32::<LANES>(snapshot.tasks().iter().map(|t| t.0)),
            Stage => sum_u32::<LANES>(snapshot.stage_indices().iter().copied()),
            Node => sum_u32::<LANES>(snapshot.node_indices().iter().copied()),
            Role => sum_u32::<LANES>(
                snapshot
                    .roles()
                    .iter()
                    .map(|r| u32::from(*r == AttemptRole::Speculative)),
            ),
            Start => sum_f64::<LANES>(snapshot.start_secs()),
            Progress => sum_f64::<LANES>(snapshot.progress()),
            Input => sum_f64::<LANES>(snapshot.input_bytes()),
        })
        .sum()
}

/// Of [`FLOOR_COPIES`], the form that ran fastest over `columns` of `snapshot`: each form
/// runs [`CALIBRATION_RUNS`] runs in turn with the others, and the least time of each is
/// compared.
fn fastest_floor(snapshot: &Snapshot, columns: &[Column]) -> fn(&Snapshot, &[Column]) -> f64 {
    let tasks = snapshot.len();
    let mut best = [f64::INFINITY; FLOOR_COPIES.len()];
    for _ in 0..CALIBRATION_RUNS {
        for (copy, best) in FLOOR_COPIES.iter().zip(&mut best) {
            let mut pass = || {
                black_box(copy(black_box(snapshot), columns));
            };
            let calls = calls_per_run(run_once(tasks, 1, &mut pass) * tasks as f64);
            *best = best.min(run_once(tasks, calls, pass));
        }
    }
    let fastest = (0..best.len()).min_by(|&a, &b| best[a].total_cmp(&best[b]));
    FLOOR_COPIES[fastest.unwrap_or(0)]
}

/// Whether a detector sums its rows by node, so that its floor and scatter are measured.
fn sums_by_node(detector: &str) -> bool {
    detector == "hierarchical"
}

/// Adds each row's progress to its node's sum, row by row, into `sums` (cleared to one sum
/// per node), and returns the sums' total: the scatter of [`sums_by_node`]'s second floor.
/// The total is added in eight lanes, as the floor's pass adds: one chain of additions
/// (`sums.iter().sum()`) waits on each addition in turn, and took as long as the scatter
/// itself with as many nodes as rows.
#[inline(never)]
fn node_scatter(snapshot: &Snapshot, sums: &mut Vec<f64>) -> f64 {
    sums.clear();
    sums.resize(snapshot.node_count() as usize, 0.0);
    for (&node, &progress) in snapshot.node_indices().iter().zip(snapshot.progress()) {
        sums[node as usize] += progress;
    }
    let mut lanes = [0.0; 8];
    for eight in sums.chunks(8) {
        for (lane, &sum) in lanes.iter_mut().zip(eight) {
            *lane += sum;
        }
    }
    lanes.iter().sum()
}

/// `tasks` running maps of one job on `nodes` nodes; see the module docs.
fn snapshot(tasks: usize, nodes: u32) -> anyhow::Result<Snapshot> {
    Ok(straggling_stage(
        tasks,
        nodes,
        0x5ca1_ab1e_0000_0000 ^ tasks as u64,
    )?)
}

/// Feeds `detector` the history of a long stage; see the module docs.
fn warm_up(detector: &mut dyn Detector, snapshot: &Snapshot) {
    let running = snapshot.len();
    let finished = running * FINISHED_PER_RUNNING;
    // Ends spread evenly from one usual duration to `now`, so that DSB's last window holds
    // some; each finished task has one report half a usual duration before its end.
    let span = NOW_SECS - USUAL_SECS;
    let end_secs = |k: usize| USUAL_SECS + span * (k + 1) as f64 / finished as f64;
    let report_secs = |k: usize| end_secs(k) - 0.5 * USUAL_SECS;
    let mut rng = SplitMix64(0x0f1e_15ed);
    // Nodes that are slow in the snapshot (every 20th) were slow for the finished tasks
    // too, so that the node-level detectors (eSplash, DSB) have a weak node to find.
    let node_count = snapshot.node_count().max(1);
    let durations: Vec<f64> = (0..finished)
        .map(|k| {
            let node = (running + k) as u32 % node_count;
            let slowdown = if node.is_multiple_of(20) { 5.0 } else { 1.0 };
            slowdown * USUAL_SECS * (0.9 + 0.2 * rng.unit())
        })
        .collect();
    // Finished task k runs on node `id % node_count`, id = running + k.
    let finished_task = |k: usize| {
        let id = (running + k) as u32;
        (AttemptId(id), TaskId(id), NodeId(id % node_count))
    };
    // Reports and ends of finished tasks, each stream in increasing time, merged in time
    // order up to `until` (inclusive).
    let (mut next_report, mut next_end) = (0, 0);
    let mut history_until = |detector: &mut dyn Detector, until: f64| loop {
        let report = (next_report < finished).then(|| report_secs(next_report));
        let end = (next_end < finished).then(|| end_secs(next_end));
        match (report, end) {
            (Some(r), end) if r <= until && end.is_none_or(|e| r < e) => {
                let k = next_report;
                let (attempt, task, node) = finished_task(k);
                let elapsed = durations[k] - 0.5 * USUAL_SECS;
                detector.observe(&Observation::Progress(ProgressReport {
                    attempt,
                    task,
                    stage: StageId(0),
                    node,
                    time_secs: r,
                    progress: (elapsed / durations[k]).clamp(0.0, 1.0),
                }));
                next_report += 1;
            }
            (_, Some(e)) if e <= until => {
                let k = next_end;
                let (attempt, task, node) = finished_task(k);
                detector.observe(&Observation::AttemptEnded(AttemptEnd {
                    attempt,
                    task,
                    stage: StageId(0),
                    node,
                    role: AttemptRole::Original,
                    start_secs: e - durations[k],
                    end_secs: e,
                    status: AttemptStatus::Succeeded,
                    input_bytes: 64_000_000,
                }));
                next_end += 1;
            }
            _ => break,
        }
    };
    // The running attempts' last readings, a heartbeat apart (Hadoop's simple exponential
    // estimator needs 24 before it estimates), each on the attempt's own straight line,
    // with the finished tasks' history up to each reading.
    for reading in 0..READINGS {
        let when = NOW_SECS - HEARTBEAT_SECS * (READINGS - 1 - reading) as f64;
        history_until(detector, when);
        for row in 0..running {
            let Some(r) = snapshot.row(row).filter(|r| r.start_secs < when) else {
                continue;
            };
            let share = (when - r.start_secs) / (NOW_SECS - r.start_secs);
            detector.observe(&Observation::Progress(ProgressReport {
                attempt: r.attempt,
                task: r.task,
                stage: r.stage,
                node: r.node,
                time_secs: when,
                progress: r.progress * share,
            }));
        }
    }
    history_until(detector, NOW_SECS);
}

/// Nanoseconds per task of one run of `work` over `tasks` tasks: as many calls as fill
/// [`RUN_NANOS`], given the cost of one call.
fn run_once(tasks: usize, calls: usize, mut work: impl FnMut()) -> f64 {
    let started = Instant::now();
    for _ in 0..calls {
        work();
    }
    started.elapsed().as_nanos() as f64 / (calls * tasks) as f64
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

/// How many calls of a work whose one call took `nanos` fill a run.
fn calls_per_run(nanos: f64) -> usize {
    ((RUN_NANOS / nanos.max(1.0)).ceil() as usize).max(1)
}

/// A work timed by [`median_runs`]: given a number of calls, makes them and returns the
/// nanoseconds per task they took.
type Work<'a> = &'a mut dyn FnMut(usize) -> anyhow::Result<f64>;

/// A [`Work`] of calls made here, timed by [`run_once`].
fn timed(tasks: usize, mut call: impl FnMut()) -> impl FnMut(usize) -> anyhow::Result<f64> {
    move |calls| Ok(run_once(tasks, calls, &mut call))
}

/// The median ns per task of each of `works` over [`RUNS`] rounds, each round one run of
/// each work in turn (a run being as many calls as fill [`RUN_NANOS`]), after one call
/// that is not timed.
///
/// Rounds of every work in turn, rather than all the runs of one work and then the next:
/// on a virtual machine whose speed drifts for seconds at a time, a figure and its floor
/// are then measured in the same seconds, and their ratio holds where the figures move.
/// The untimed call wakes rayon's pool after a floor's run on one thread, in which the
/// second core went idle (without it, the parallel scans after a floor were up to 1.5
/// times slower than in a row: Hierarchical at 10^6 tasks, 4.4 against 3.0 ns).
fn median_runs(tasks: usize, works: &mut [Work<'_>]) -> anyhow::Result<Vec<f64>> {
    let calls = works
        .iter_mut()
        .map(|work| Ok(calls_per_run(work(1)? * tasks as f64)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut runs = vec![Vec::with_capacity(RUNS); works.len()];
    for _ in 0..RUNS {
        for ((work, &calls), runs) in works.iter_mut().zip(&calls).zip(&mut runs) {
            work(1)?;
            runs.push(work(calls)?);
        }
    }
    Ok(runs.into_iter().map(median).collect())
}

/// What [`measure`] measured for one detector at one size, in ns per task (medians).
struct Figures {
    scan: f64,
    floor: f64,
    /// The floor and scatter, for a detector that sums by node ([`sums_by_node`]).
    scatter: Option<f64>,
    /// numpy's versions of the scan, one-stage and grouped, with `--numpy`
    /// ([`numpy_scans`]).
    numpy: Option<[f64; 2]>,
}

/// The median ns per task of the detector, of its floor, for a detector that sums by node
/// of its floor and scatter, and with `numpy` of numpy's versions of the scan if it has
/// them.
fn measure(
    spec: &DetectorSpec,
    snapshot: &Snapshot,
    numpy: Option<&mut Numpy>,
) -> anyhow::Result<Figures> {
    let tasks = snapshot.len();
    let cols = columns(spec.name());
    let mut detector = spec.make();
    detector.reset();
    warm_up(detector.as_mut(), snapshot);
    let mut findings = Findings::default();
    let mut scan = timed(tasks, || {
        findings.clear();
        detector.scan(black_box(snapshot), &mut findings);
        black_box(findings.rows().len());
    });
    let floor = fastest_floor(snapshot, cols);
    let mut floor_pass = timed(tasks, || {
        black_box(floor(black_box(snapshot), cols));
    });
    let mut sums = Vec::new();
    let mut scatter = timed(tasks, || {
        black_box(floor(black_box(snapshot), cols));
        black_box(node_scatter(black_box(snapshot), &mut sums));
    });
    let by_node = sums_by_node(spec.name());
    let mut works: Vec<Work<'_>> = vec![&mut scan, &mut floor_pass];
    if by_node {
        works.push(&mut scatter);
    }
    // The numpy scans share the script, each borrowing it for its runs.
    let script = (numpy.zip(numpy_scans(spec.name())))
        .map(|(numpy, names)| (std::cell::RefCell::new(numpy), names));
    let mut numpy_works = script.as_ref().map(|(script, names)| {
        names.map(|name| move |calls| script.borrow_mut().ns_per_task(name, calls, tasks))
    });
    for work in numpy_works.iter_mut().flatten() {
        works.push(work);
    }
    // In the order pushed: scan, floor, then the optional ones.
    let mut medians = median_runs(tasks, &mut works)?.into_iter();
    let mut next = || medians.next().context("a median per work");
    let (scan, floor) = (next()?, next()?);
    let scatter = by_node.then(&mut next).transpose()?;
    let numpy = match script {
        Some(_) => Some([next()?, next()?]),
        None => None,
    };
    Ok(Figures {
        scan,
        floor,
        scatter,
        numpy,
    })
}

/// The numpy scans (`numpy_scans.py`'s `SCANS`) that `--numpy` times beside a detector, if
/// it has them: the version written for one stage, as leanly as numpy allows (the bench's
/// snapshot is one stage, no row started at `now`), and the one grouped by stage with
/// `np.bincount`, which computes what the Rust scan computes for any snapshot.
fn numpy_scans(detector: &str) -> Option<[&'static str; 2]> {
    match detector {
        "default" => Some(["default-1stage", "default"]),
        "late" => Some(["late-1stage", "late"]),
        "hierarchical" => Some(["hierarchical-1stage", "hierarchical"]),
        _ => None,
    }
}

/// `numpy_scans.py --serve` in a child process (see the module docs), and the directory
/// where the snapshots' columns are written for it.
struct Numpy {
    child: Child,
    /// Taken (closed) only on drop.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    dir: PathBuf,
}

impl Numpy {
    /// Starts the script, `python3` from the `PATH`.
    fn start() -> anyhow::Result<Numpy> {
        let root = crate::workspace_root();
        let script = root.join("crates/straggler-detect/benches/numpy_scans.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg("--serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("--numpy: starting python3 (it needs python3 with numpy on the PATH)")?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("--numpy: python3's standard input and output were not piped");
        };
        let dir = root.join("target/bench-scans-numpy");
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        Ok(Numpy {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            dir,
        })
    }

    /// Sends one command and returns the answer's line. If the script has ended (numpy
    /// missing, say), the error says so; the script's own error is on standard error.
    fn ask(&mut self, command: &str) -> anyhow::Result<String> {
        let mut answer = String::new();
        let sent = match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{command}").and_then(|()| stdin.flush()),
            None => Ok(()),
        };
        if sent.is_err() || self.stdout.read_line(&mut answer)? == 0 {
            let status = self.child.wait()?;
            bail!(
                "--numpy: numpy_scans.py ended ({status}) before answering {command:?}; its \
                 error is above (without numpy: pip install numpy)"
            );
        }
        Ok(answer.trim().to_owned())
    }

    /// Writes `snapshot`'s columns for the script and has it read them.
    fn load(&mut self, snapshot: &Snapshot) -> anyhow::Result<()> {
        let write = |name: &str, bytes: Vec<u8>| {
            let path = self.dir.join(name);
            std::fs::write(&path, bytes).with_context(|| format!("writing {}", path.display()))
        };
        let u32s = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let f64s = |v: &[f64]| v.iter().flat_map(|x| x.to_le_bytes()).collect();
        write("stage.u32", u32s(snapshot.stage_indices()))?;
        write("node.u32", u32s(snapshot.node_indices()))?;
        write("progress.f64", f64s(snapshot.progress()))?;
        write("start.f64", f64s(snapshot.start_secs()))?;
        write("input.f64", f64s(snapshot.input_bytes()))?;
        // The directory last: the script takes the rest of the line, spaces and all.
        let command = format!(
            "load {} {} {}",
            snapshot.len(),
            snapshot.node_count(),
            self.dir.display()
        );
        match self.ask(&command)?.as_str() {
            "ok" => Ok(()),
            other => bail!("--numpy: numpy_scans.py answered {other:?} to {command:?}"),
        }
    }

    /// The ns per task of `calls` calls of the numpy scan `name` over the loaded snapshot
    /// of `tasks` tasks.
    fn ns_per_task(&mut self, name: &str, calls: usize, tasks: usize) -> anyhow::Result<f64> {
        let command = format!("time {name} {calls}");
        let answer = self.ask(&command)?;
        let secs: f64 = answer
            .parse()
            .with_context(|| format!("--numpy: {answer:?}, the answer to {command:?}"))?;
        Ok(secs * 1e9 / (calls * tasks) as f64)
    }
}

impl Drop for Numpy {
    /// Closes the script's input, which ends its loop, and waits for it.
    fn drop(&mut self) {
        drop(self.stdin.take());
        // The measurements are done; an exit status here would change none of them.
        let _ = self.child.wait();
    }
}

/// Measures every detector (or those named in `only`) at every size, prints a table and
/// optionally writes the JSON.
pub fn run(
    json_path: Option<&Path>,
    only: Option<&[&str]>,
    numpy: bool,
    pinned: bool,
) -> anyhow::Result<()> {
    if cfg!(debug_assertions) {
        eprintln!("warning: a debug build; `cargo xtask` builds in release");
    }
    let mut specs = DetectorSpec::all();
    if let Some(only) = only {
        if let Some(unknown) = only.iter().find(|n| specs.iter().all(|s| s.name() != **n)) {
            anyhow::bail!(
                "bench scans: no detector {unknown:?} (`stragglers detectors` lists them)"
            );
        }
        specs.retain(|s| only.contains(&s.name()));
    }
    let mut numpy = match numpy && specs.iter().any(|s| numpy_scans(s.name()).is_some()) {
        true => Some(Numpy::start()?),
        false => None,
    };
    let threads = if pinned {
        pin_pool()?
    } else {
        rayon::current_num_threads()
    };
    let placed = if pinned {
        "one on each core"
    } else {
        "placed by the OS"
    };
    println!("{threads} threads, {placed}; ns per running task, median of {RUNS} runs");
    print!(
        "{:<20} {:>9} {:>7} {:>10} {:>10} {:>7} {:>15}",
        "detector", "tasks", "nodes", "scan", "floor", "ratio", "floor+scatter"
    );
    println!(
        "{}",
        if numpy.is_some() {
            "  numpy 1-stage        x  numpy grouped        x"
        } else {
            ""
        }
    );
    let mut scans = Vec::new();
    for (tasks, nodes) in SIZES {
        let snapshot = snapshot(tasks, nodes)
            .with_context(|| format!("building a snapshot of {tasks} tasks"))?;
        if let Some(numpy) = &mut numpy {
            numpy.load(&snapshot)?;
        }
        for spec in &specs {
            let figures = measure(spec, &snapshot, numpy.as_mut())?;
            print!(
                "{:<20} {:>9} {:>7} {:>10.2} {:>10.2} {:>7.2} {:>15}",
                spec.name(),
                tasks,
                nodes,
                figures.scan,
                figures.floor,
                figures.scan / figures.floor,
                figures
                    .scatter
                    .map_or("-".to_owned(), |ns| format!("{ns:.2}")),
            );
            match figures.numpy {
                Some([one, grouped]) => println!(
                    " {one:>14.2} {:>8.2} {grouped:>14.2} {:>8.2}",
                    one / figures.scan,
                    grouped / figures.scan
                ),
                None if numpy.is_some() => {
                    println!(" {:>14} {:>8} {:>14} {:>8}", "-", "-", "-", "-")
                }
                None => println!(),
            }
            let mut row = json!({
                "detector": spec.name(),
                "tasks": tasks,
                "nodes": nodes,
                "ns_per_task": figures.scan,
                "floor_ns_per_task": figures.floor,
            });
            if let Some(ns) = figures.scatter {
                row["floor_and_scatter_ns_per_task"] = json!(ns);
            }
            if let (Some([one, grouped]), Some([one_name, grouped_name])) =
                (figures.numpy, numpy_scans(spec.name()))
            {
                row["numpy_ns_per_task"] = json!(one);
                row["numpy_scan"] = json!(one_name);
                row["numpy_grouped_ns_per_task"] = json!(grouped);
                row["numpy_grouped_scan"] = json!(grouped_name);
            }
            scans.push(row);
        }
    }
    if let Some(path) = json_path {
        let figures = json!({ "threads": threads, "pinned": pinned, "scans": scans });
        bench::write_json(path, &figures)?;
    }
    Ok(())
}

/// Puts each thread of rayon's pool on a core of its own, thread `i` on the `i`-th of the
/// cores this process may run on (modulo their number), and returns how many threads the
/// pool has. Left to the OS, the two threads of a 2-core machine often shared one core in
/// the parallel scans of 10^6 rows (a thread woken goes to its waker's core, and a pass
/// ends before the load balancer moves it), and which of the two ways a run found
/// depended on the process: at 10^6, LATE took 0.57 to 0.72 ns per task in five runs
/// unpinned and 0.33 to 0.47 in five pinned, Hierarchical 2.01 to 2.42 and 1.14 to 1.27,
/// the two kinds of run in turn (2026-11-27, `docs/scan-measurements.md`).
fn pin_pool() -> anyhow::Result<usize> {
    let cores = core_affinity::get_core_ids()
        .filter(|cores| !cores.is_empty())
        .context(
            "bench scans: the cores this process may run on are unknown; --unpinned runs without",
        )?;
    let placed = rayon::broadcast(|thread| {
        core_affinity::set_for_current(cores[thread.index() % cores.len()])
    });
    if let Some(thread) = placed.iter().position(|&done| !done) {
        bail!(
            "bench scans: thread {thread} of rayon's pool could not be put on core {}; \
             --unpinned runs without",
            cores[thread % cores.len()].id
        );
    }
    Ok(placed.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_thread_of_the_pool_is_put_on_one_core() {
        let threads = pin_pool().expect("this machine lets a process choose its cores");
        let cores = core_affinity::get_core_ids().expect("the cores").len();
        let allowed = rayon::broadcast(|_| core_affinity::get_core_ids().expect("the cores"));
        assert_eq!(allowed.len(), threads);
        for (thread, allowed) in allowed.iter().enumerate() {
            let ids: Vec<usize> = allowed.iter().map(|core| core.id).collect();
            assert_eq!(ids.len(), 1, "thread {thread} may run on {ids:?}");
        }
        if threads <= cores {
            let mut ids: Vec<usize> = allowed.iter().map(|a| a[0].id).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), threads, "two threads share a core");
        }
    }

    #[test]
    fn floor_reads_the_columns_it_is_given() {
        let snapshot = snapshot(10, 3).expect("valid");
        let progress: f64 = snapshot.progress().iter().sum();
        let stages: f64 = 0.0;
        let tasks: f64 = (0..10).map(f64::from).sum();
        // Every copy, and the one the calibration picks.
        let chosen = fastest_floor(&snapshot, &[Progress]);
        for floor in FLOOR_COPIES.into_iter().chain([chosen]) {
            approx_eq(floor(&snapshot, &[Progress]), progress);
            approx_eq(floor(&snapshot, &[Stage]), stages);
            approx_eq(floor(&snapshot, &[Task, Progress]), tasks + progress);
        }
    }

    #[test]
    fn the_scatter_adds_each_row_to_its_node() {
        let snapshot = snapshot(1000, 7).expect("valid");
        let mut sums = vec![5.0; 2];
        let total = node_scatter(&snapshot, &mut sums);
        assert_eq!(sums.len(), 7);
        for (node, &sum) in sums.iter().enumerate() {
            let expected: f64 = (0..snapshot.len())
                .filter(|&r| snapshot.node_indices()[r] as usize == node)
                .map(|r| snapshot.progress()[r])
                .sum();
            approx_eq(sum, expected);
        }
        approx_eq(total, snapshot.progress().iter().sum());
    }

    fn approx_eq(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-9 * b.abs().max(1.0), "{a} != {b}");
    }

    #[test]
    fn the_warm_up_leaves_every_detector_work_to_do() {
        // After the warm-up, the stage's slow rows are flagged by the detectors that
        // judge running attempts at all: their scans are not measured on an empty rule.
        let snapshot = snapshot(2_000, 40).expect("valid");
        let mut quiet = Vec::new();
        for spec in DetectorSpec::all() {
            let mut detector = spec.make();
            warm_up(detector.as_mut(), &snapshot);
            let mut findings = Findings::default();
            detector.scan(&snapshot, &mut findings);
            if findings.rows().is_empty() {
                quiet.push(spec.name().to_owned());
            }
        }
        // No straggler of these snapshots takes ten times its share of time per byte
        // (at most 2400 s against a mean near 600 s): dos-index-10 has nobody to flag, but
        // its scan does the work of dos-index's. DSB ranks nodes on the tasks that ended in
        // its last 60 s window, which the warm-up fills: it blacklists and flags.
        assert_eq!(quiet, ["dos-index-10"]);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn rounds_take_turns_and_give_each_work_its_median() {
        // Two works that log their calls and answer 10, 20, 30, ... (the first, untimed
        // call included): each is asked for one call, then in every round for one
        // untimed call and a run of the calls its first answer fills.
        let log = std::cell::RefCell::new(Vec::new());
        let work = |id: usize, per_task: f64| {
            let (log, mut answer) = (&log, 0.0);
            move |calls: usize| {
                log.borrow_mut().push((id, calls));
                answer += per_task;
                Ok(answer)
            }
        };
        let (mut a, mut b) = (work(0, 10.0), work(1, 1e9));
        let tasks = 1000;
        let medians = median_runs(tasks, &mut [&mut a, &mut b]).expect("no work fails");
        let calls_a = calls_per_run(10.0 * tasks as f64);
        let mut expected = vec![(0, 1), (1, 1)];
        for _ in 0..RUNS {
            expected.extend([(0, 1), (0, calls_a), (1, 1), (1, 1)]);
        }
        assert_eq!(*log.borrow(), expected);
        // Runs answer 30, 50, ... 10 (2 RUNS + 1): the median is the middle one's.
        let middle = (2 * (RUNS / 2) + 3) as f64;
        assert_eq!(medians, [10.0 * middle, 1e9 * middle]);
    }

    #[test]
    fn a_failing_work_fails_the_measure() {
        let mut fails = |_calls: usize| -> anyhow::Result<f64> { bail!("python3 is gone") };
        let mut fine = timed(10, || {});
        let error = median_runs(10, &mut [&mut fine, &mut fails]).expect_err("a work failed");
        assert_eq!(error.to_string(), "python3 is gone");
    }

    #[test]
    fn numpy_times_only_detectors_that_exist() {
        let specs = DetectorSpec::all();
        let timed: Vec<&str> = specs
            .iter()
            .map(|s| s.name())
            .filter(|n| numpy_scans(n).is_some())
            .collect();
        assert_eq!(timed, ["default", "hierarchical", "late"]);
    }
}
