//! The scale engine: many jobs on many nodes with the straggler causes of
//! [`causes`](crate::causes), from a [`ScenarioSpec`]. It gives a [`Summary`] (and, on
//! request, the whole [`Run`] for small runs).
//!
//! Event-driven with a priority queue: time jumps to the next attempt completion, job
//! arrival, node condition change, heartbeat or scan. Attempts on a node all progress at
//! the node's rate, so each node keeps a *work clock* `V(t) = integral of rate dt`; an
//! attempt started at clock `V0` with work `w` finishes when `V = V0 + w`. A change on a
//! node (an attempt starts or ends, an episode, a drift step) only brings that node's
//! clock up to date and pushes its next completion into the queue: an event costs
//! `O(containers of the node + log(nodes))`, not `O(running attempts)`.
//!
//! Memory is flat: per task one 16-byte record (a flag byte, the indices of its running
//! original and copy and its execution time), from the first task of the oldest job still
//! running (at most as many again before it) to the last of the latest arrived
//! ([`TaskTable`]); running attempts live in one
//! dense array (an ending attempt's place goes to the last one), each container slot
//! naming its entry, so a scan reads the running attempts only, from contiguous memory;
//! per-task factors are stateless hashes (no storage). Only the rare tasks that lost an
//! original to a node failure keep more: the nodes those originals ran on, in a small map,
//! while the task may still get a copy ([`Fleet::lost_original_nodes`]).
//!
//! Differences from [`simulate`](crate::simulate) (the paper's engine, kept unchanged for
//! the golden evaluation): regular tasks are placed on free containers in a round-robin
//! order of the nodes rather than node by node; copies take free containers only (the
//! `x100` policy) and never a node that ran an attempt of the task, neither its running
//! original's nor that of an earlier original lost to a node failure (Spark's rule; the
//! paper engine's placement checks every attempt too); detection in a job starts `lag_secs`
//! after its arrival. The detector observes what the paper engine gives it (every ended
//! attempt; at every heartbeat a progress report of every running attempt), and also
//! [`Observation::StageFinished`] when a job's maps, then its reduces, have all finished: a
//! job takes a pair of stage indices when it arrives and gives it back when it finishes, so
//! that a snapshot lists the stages of the running jobs (a few hundred), not of every job
//! of a day (51,200), and a detector can forget what it learnt of a finished stage. The
//! nodes the detector reports slow are kept from what its
//! [`SlowNodeRule`](straggler_detect::SlowNodeRule) says until its next scan.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use straggler_detect::{Detector, Findings};
use straggler_model::{
    Attempt, AttemptEnd, AttemptId, AttemptRole, AttemptStatus, Detection, JobId, LoadTimeline,
    Node, NodeId, Observation, ProgressReport, Run, Snapshot, SnapshotRow, Stage, StageId, Task,
    TaskId, TaskKey, TaskKind,
};

use crate::causes::{Change, NodeConditions, TaskDraw};
use crate::fleet_queue::CompletionQueue;
use crate::rng::{Stream, label};
use crate::scenario::ScenarioSpec;
use crate::{Noise, SimError};

const EMPTY: u32 = u32::MAX;
const DONE: u8 = 1;
const DETECTED: u8 = 2;
const COPIED: u8 = 4;
const RERUN: u8 = 8;
const STARTED: u8 = 16;
/// The task has an entry in `Fleet::lost_original_nodes`.
const LOST_ORIGINALS: u8 = 32;
/// How far the engine has got, given to the progress callback at every heartbeat.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Simulated time.
    pub now_secs: f64,
    /// Tasks finished.
    pub tasks_done: u64,
    /// Tasks in all.
    pub tasks_total: u64,
}

/// Options of [`simulate_scenario`].
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Keep every task, attempt, detection and load change in a [`Run`] (small runs only).
    pub record: bool,
    /// Called at every heartbeat.
    pub progress: Option<&'a mut dyn FnMut(Progress)>,
}

impl std::fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("record", &self.record)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// What a run of a scenario gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// The scenario's name.
    pub scenario: String,
    /// The detector's name (`"none"` without one).
    pub detector: String,
    /// The seed.
    pub seed: u64,
    /// Nodes.
    pub nodes: u32,
    /// Jobs.
    pub jobs: u32,
    /// Tasks.
    pub tasks: u64,
    /// Attempts launched (originals, re-runs and copies).
    pub attempts: u64,
    /// Time from the start to the end of the last task.
    pub makespan_secs: f64,
    /// Mean time from a job's arrival to its last task's end.
    pub mean_job_secs: f64,
    /// The straggler rule's factor, the scenario's [`ScenarioSpec::straggler_factor`].
    pub straggler_factor: f64,
    /// Tasks slower than `straggler_factor` times the median of their stage (original's
    /// time; a killed original's time estimated from its progress).
    pub stragglers: u64,
    /// Tasks that the skew or the root-cause mix slowed: drawn a cause whose factors slow
    /// the task's first original attempt, `every_attempt * original_only > 1`
    /// ([`TaskDraw::slows`]). A cause drawn with a factor of exactly 1 (a skew `factor`
    /// of 1, a mix at a `min_factor` of 1) leaves the task as fast as without it and is
    /// not counted. Counted when the task first starts, so a task lost to a failure and
    /// run again counts once.
    pub injected_stragglers: u64,
    /// Tasks detected.
    pub detections: u64,
    /// Tasks detected that are stragglers.
    pub true_detections: u64,
    /// Copies launched.
    pub copies: u64,
    /// Copies that finished first.
    pub successful_copies: u64,
    /// Attempts lost to node failures.
    pub failed_attempts: u64,
    /// Energy of all nodes until the makespan, joules.
    pub energy_joules: f64,
}

/// A summary and, if asked, the whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioOutcome {
    /// The figures.
    pub summary: Summary,
    /// Every task, attempt and detection (with [`RunOptions::record`]). Its `load` counts
    /// the attempts on each node, as a [`Run`]'s does: not the background tasks of
    /// `causes.episodes`, which share the node's cores, nor a node's time down. So the
    /// energy [`straggler_energy::run_energy_joules`] computes from it leaves out what those
    /// change, which [`Summary::energy_joules`] counts: take that figure for a scenario
    /// with either.
    pub run: Option<Run>,
}

/// Runs `spec` with `seed` and an optional detector. Same arguments, same outcome.
pub fn simulate_scenario(
    spec: &ScenarioSpec,
    seed: u64,
    detector: Option<&mut dyn Detector>,
    options: RunOptions<'_>,
) -> Result<ScenarioOutcome, SimError> {
    spec.check()?;
    let mut fleet = Fleet::new(spec, seed, options.record)?;
    let mut detector = detector;
    if let Some(d) = detector.as_deref_mut() {
        d.reset();
        let rule = d.slow_node_rule();
        fleet.observing = true;
        fleet.keep_copies_off_slow = rule.keeps_copies_off();
        fleet.keep_tasks_off_slow = rule.keeps_tasks_off();
    }
    let name = detector
        .as_deref()
        .map_or_else(|| "none".to_owned(), |d| d.name().to_owned());
    fleet.run(detector, options.progress)?;
    Ok(fleet.finish(name))
}

/// What an event reads and writes of a node, in one cache line (a day's 12,000 nodes do
/// not fit a core's cache, so each line an event touches is a likely miss): the node's
/// hardware is in `Fleet::machines`, its work clock at the last heartbeat in
/// `Fleet::heartbeat_clock`, and its condition mirrors `Fleet::conditions`.
#[derive(Debug)]
#[repr(align(64))]
struct NodeRt {
    clock: f64,
    clock_secs: f64,
    rate: f64,
    /// Speed factor (a weak node's drift), as in `NodeConditions::speed`.
    speed: f64,
    energy_joules: f64,
    containers: u32,
    used: u32,
    first_slot: u32,
    /// Index in `Fleet::rate_tables` and `Fleet::power_tables`: nodes of the same shape
    /// share a table.
    shape: u32,
    /// Background tasks, as in `NodeConditions::background`.
    background: u32,
    /// Whether it is down, as in `NodeConditions::down`.
    down: bool,
    dirty: bool,
    /// Reported slow by the detector at its last scan.
    slow: bool,
}

/// A container slot: the attempt in it and the work clock at which that attempt finishes,
/// side by side (what an event on the node reads of its slots is one or two cache lines).
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Infinite when the slot is free.
    finish: f64,
    /// Index in `Fleet::live`, `EMPTY` when free.
    live: u32,
}

impl Slot {
    const FREE: Slot = Slot {
        finish: f64::INFINITY,
        live: EMPTY,
    };
}

/// A task's state: 13 bytes of data in 16.
#[derive(Debug, Clone, Copy)]
struct TaskRt {
    /// `DONE`, `DETECTED`, ... bits.
    flags: u8,
    /// Index in `Fleet::live` of its running original, `EMPTY` if none.
    original: u32,
    /// Index in `Fleet::live` of its running copy, `EMPTY` if none.
    copy: u32,
    /// Its execution time for the straggler label (set when it ends).
    exec_secs: f32,
}

impl Default for TaskRt {
    fn default() -> Self {
        TaskRt {
            flags: 0,
            original: EMPTY,
            copy: EMPTY,
            exec_secs: 0.0,
        }
    }
}

/// The [`TaskRt`] of the tasks from `base` on, indexed by task id: the tasks of the jobs
/// that arrived, less those below the first task of the oldest job still running (jobs
/// number their tasks in the order they arrive), so that a day's memory follows the jobs
/// running, not every task of the day. A task below `base` is done, in a job done, and
/// never looked at again.
#[derive(Debug, Default)]
struct TaskTable {
    base: usize,
    rows: Vec<TaskRt>,
}

impl TaskTable {
    /// Adds the tasks up to `end` (excluded), each not started.
    fn extend_to(&mut self, end: usize) {
        if end > self.base + self.rows.len() {
            self.rows.resize(end - self.base, TaskRt::default());
        }
    }

    /// Forgets the tasks below `first`, once they are as many as the tasks kept: each task
    /// is moved at most once for each task forgotten, and the table holds at most twice
    /// the tasks from `first` on.
    fn forget_below(&mut self, first: usize) {
        let dead = first.saturating_sub(self.base).min(self.rows.len());
        if dead > 0 && dead >= self.rows.len() - dead {
            self.rows.drain(..dead);
            self.base += dead;
        }
    }

    /// The tasks from `from` to `to` (excluded).
    fn range(&self, from: usize, to: usize) -> &[TaskRt] {
        &self.rows[from - self.base..to - self.base]
    }
}

impl std::ops::Index<usize> for TaskTable {
    type Output = TaskRt;
    fn index(&self, task: usize) -> &TaskRt {
        &self.rows[task - self.base]
    }
}

impl std::ops::IndexMut<usize> for TaskTable {
    fn index_mut(&mut self, task: usize) -> &mut TaskRt {
        &mut self.rows[task - self.base]
    }
}

#[derive(Debug, Clone, Copy)]
struct Live {
    task: u32,
    job: u32,
    node: u32,
    id: u32,
    role: AttemptRole,
    start_secs: f64,
    clock_start: f64,
    work: f64,
    input_bytes: f64,
    /// Its container slot.
    slot: u32,
}

#[derive(Debug, Clone)]
struct JobRt {
    first_task: u32,
    maps: u32,
    reduces: u32,
    arrival_secs: f64,
    next_map: u32,
    next_reduce: u32,
    maps_done: u32,
    done: u32,
    reduces_released: bool,
    queued: bool,
    /// Its stages in snapshots and observations are `2 * stage_pair` (maps) and
    /// `2 * stage_pair + 1` (reduces); see [`Fleet::stage_of`].
    stage_pair: u32,
}

impl JobRt {
    fn tasks(&self) -> u32 {
        self.maps + self.reduces
    }
    fn finished(&self) -> bool {
        self.done == self.tasks()
    }
    fn launchable(&self) -> bool {
        self.next_map < self.maps || (self.reduces_released && self.next_reduce < self.reduces)
    }
}

#[derive(Debug, Default)]
struct Recorder {
    tasks: Vec<Task>,
    attempts: Vec<Attempt>,
    detections: Vec<Detection>,
    load: Vec<LoadTimeline>,
}

#[derive(Debug, Default)]
struct Counters {
    tasks_done: u64,
    attempts: u64,
    stragglers: u64,
    injected: u64,
    detections: u64,
    true_detections: u64,
    copies: u64,
    successful_copies: u64,
    failed: u64,
    job_secs_sum: f64,
}

#[derive(Debug)]
struct Fleet<'a> {
    spec: &'a ScenarioSpec,
    seed: u64,
    nodes: Vec<NodeRt>,
    /// Each node's hardware.
    machines: Vec<Node>,
    /// Each node's work clock at the last heartbeat (what progress reports show).
    heartbeat_clock: Vec<f64>,
    /// Every node's container slots, a node's side by side.
    slots: Vec<Slot>,
    /// Reused list of the container slots whose attempts finish at one event.
    finishing: Vec<u32>,
    /// The running attempts, densely, in a deterministic order: a start appends, an end
    /// moves the last entry into the ended one's place (and renames it in `slots`,
    /// `original` and `copy`). A scan reads them front to back, from contiguous memory.
    live: Vec<Live>,
    /// Per task, everything in one place (an event on a task reads one cache line).
    tasks: TaskTable,
    jobs: Vec<JobRt>,
    next_arrival: usize,
    /// The oldest job that arrived and may still run (every job before it is done).
    oldest_running: usize,
    active: Vec<u32>,
    launchable: VecDeque<u32>,
    requeued: VecDeque<u32>,
    free_slots: VecDeque<u32>,
    completions: CompletionQueue,
    /// Nodes whose rate and next completion must be recomputed before time moves.
    dirty: Vec<u32>,
    /// Rate of a node of each shape with 0, 1, 2, ... running tasks.
    rate_tables: Vec<Vec<f64>>,
    /// Power of a node of each shape with 0, 1, 2, ... running tasks.
    power_tables: Vec<Vec<f64>>,
    conditions: NodeConditions,
    noise: Stream,
    now: f64,
    last_heartbeat: f64,
    counters: Counters,
    record: Option<Recorder>,
    /// The snapshot scanned, kept between scans; its stages are those of the running jobs
    /// and of finished ones whose indices no job has taken since ([`Fleet::stage_of`]).
    snapshot: Snapshot,
    /// Stage pairs of finished jobs, for the next jobs to arrive: smallest first.
    free_pairs: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
    snapshot_rows: Vec<u32>,
    scratch: Vec<f32>,
    findings: Findings,
    /// Ended attempts and finished stages not yet handed to the detector (with one only):
    /// they are handed over, in the order they happened, before the next progress reports
    /// or scan.
    observations: Vec<Observation>,
    /// Whether a detector observes the run.
    observing: bool,
    /// What the nodes the detector reported slow are kept from: its
    /// [`SlowNodeRule`](straggler_detect::SlowNodeRule).
    keep_copies_off_slow: bool,
    keep_tasks_off_slow: bool,
    /// Entries of `free_slots` set aside because their node is slow and the work being
    /// placed may not go there; put back in front, in order, when that may change.
    parked: Vec<u32>,
    /// Entries of `free_slots` passed over by a copy because their node ran an attempt of
    /// its task; put back in front, in order, once the copy is placed or not.
    passed_over: Vec<u32>,
    /// For each task that lost an original to a node failure and has no copy yet (flag
    /// `LOST_ORIGINALS`), the nodes those originals ran on, each once: a copy must avoid
    /// them as well as its running original's node. A task runs one copy at most, so
    /// before its copy its attempts are its originals, the running one and the lost
    /// ones; once copied or done, it needs its entry no more and the entry goes. Failures
    /// are rare and reruns few: a map of a few entries costs less than a field in every
    /// task's 16-byte record.
    lost_original_nodes: std::collections::BTreeMap<u32, Vec<u32>>,
}

impl<'a> Fleet<'a> {
    fn new(spec: &'a ScenarioSpec, seed: u64, record: bool) -> Result<Self, SimError> {
        let c = &spec.cluster;
        let mut layout = Stream::new(seed, &[label("layout")]);
        let active = spec.active_cores()?;
        let placement = layout.permutation(active.len());
        let conditions = NodeConditions::new(&spec.causes, c.nodes, seed);
        let mut nodes = Vec::with_capacity(c.nodes as usize);
        let mut machines = Vec::with_capacity(c.nodes as usize);
        let mut first_slot = 0u32;
        for i in 0..c.nodes {
            let containers = spec.causes.containers_of(i, c.nodes, c.containers);
            let cores = placement
                .get(i as usize)
                .and_then(|&p| active.get(p))
                .copied()
                .unwrap_or(c.cores);
            let node = Node::new(NodeId(i), c.cores, c.threads_per_core, containers)
                .with_active_cores(cores);
            let i = i as usize;
            nodes.push(NodeRt {
                clock: 0.0,
                clock_secs: 0.0,
                rate: 0.0,
                speed: conditions.speed[i],
                energy_joules: 0.0,
                containers,
                used: 0,
                first_slot,
                shape: 0,
                background: conditions.background[i],
                down: conditions.down[i],
                dirty: false,
                slow: false,
            });
            machines.push(node);
            first_slot += containers;
        }
        // Free containers, round-robin over the nodes in a seeded order: the first wave
        // spreads over the cluster.
        let order = layout.permutation(nodes.len());
        let max_containers = nodes.iter().map(|n| n.containers).max().unwrap_or(0);
        let mut free_slots = VecDeque::with_capacity(first_slot as usize);
        for round in 0..max_containers {
            for &n in &order {
                if round < nodes[n].containers {
                    free_slots.push_back(n as u32);
                }
            }
        }
        let (rate_tables, power_tables) = shape_tables(spec, &machines, &mut nodes);
        let jobs = make_jobs(spec, seed);
        let mut record = record.then(Recorder::default);
        if let Some(r) = record.as_mut() {
            r.load = vec![LoadTimeline::default(); nodes.len()];
            for (j, job) in jobs.iter().enumerate() {
                for t in 0..job.tasks() {
                    let (kind, index) = match t < job.maps {
                        true => (TaskKind::Map, t),
                        false => (TaskKind::Reduce, t - job.maps),
                    };
                    let id = job.first_task + t;
                    r.tasks.push(Task {
                        id: TaskId(id),
                        key: TaskKey {
                            job: JobId(j as u32),
                            kind,
                            index,
                        },
                        stage: recorded_stage(j as u32, kind),
                        input_bytes: input_bytes(
                            spec,
                            kind,
                            &spec.causes.task_draw(seed, u64::from(id)),
                        ),
                    });
                }
            }
        }
        Ok(Fleet {
            spec,
            seed,
            slots: vec![Slot::FREE; first_slot as usize],
            finishing: Vec::new(),
            live: Vec::new(),
            tasks: TaskTable::default(),
            conditions,
            heartbeat_clock: vec![0.0; nodes.len()],
            nodes,
            machines,
            jobs,
            next_arrival: 0,
            oldest_running: 0,
            active: Vec::new(),
            launchable: VecDeque::new(),
            requeued: VecDeque::new(),
            free_slots,
            completions: CompletionQueue::new(c.nodes as usize),
            dirty: Vec::new(),
            rate_tables,
            power_tables,
            noise: Stream::new(seed, &[label("noise")]),
            now: 0.0,
            last_heartbeat: 0.0,
            counters: Counters::default(),
            record,
            snapshot: Snapshot::new(0.0, c.nodes, Vec::new())?,
            free_pairs: std::collections::BinaryHeap::new(),
            snapshot_rows: Vec::new(),
            scratch: Vec::new(),
            findings: Findings::default(),
            observations: Vec::new(),
            observing: false,
            keep_copies_off_slow: false,
            keep_tasks_off_slow: false,
            parked: Vec::new(),
            passed_over: Vec::new(),
            lost_original_nodes: std::collections::BTreeMap::new(),
        })
    }

    fn run(
        &mut self,
        mut detector: Option<&mut dyn Detector>,
        mut progress: Option<&mut dyn FnMut(Progress)>,
    ) -> Result<(), SimError> {
        let s = self.spec.speculation;
        let total = self.spec.task_count();
        let (mut heartbeats, mut scans) = (1u64, 1u64);
        while self.counters.tasks_done < total {
            let next_heartbeat = heartbeats as f64 * s.heartbeat_secs;
            let next_scan = match detector.is_some() {
                true => scans as f64 * s.scan_interval_secs,
                false => f64::INFINITY,
            };
            let next_arrival = self
                .jobs
                .get(self.next_arrival)
                .map_or(f64::INFINITY, |j| j.arrival_secs);
            let next_change = self.conditions.next_secs().unwrap_or(f64::INFINITY);
            let next_completion = self.next_completion().unwrap_or(f64::INFINITY);
            let next = next_heartbeat
                .min(next_scan)
                .min(next_arrival)
                .min(next_change)
                .min(next_completion);
            if next > self.spec.time_limit_secs {
                return Err(SimError::DidNotFinish {
                    limit_secs: self.spec.time_limit_secs,
                    done: self.counters.tasks_done as usize,
                    total: total as usize,
                });
            }
            self.now = next.max(self.now);
            self.complete_due();
            while let Some((n, change)) = self.conditions.pop_due(self.now) {
                self.change_node(n as usize, change);
            }
            while self
                .jobs
                .get(self.next_arrival)
                .is_some_and(|j| j.arrival_secs <= self.now)
            {
                self.arrive(self.next_arrival as u32)?;
                self.next_arrival += 1;
            }
            if next == next_heartbeat {
                heartbeats += 1;
                self.heartbeat(detector.as_deref_mut());
                if let Some(p) = progress.as_deref_mut() {
                    p(Progress {
                        now_secs: self.now,
                        tasks_done: self.counters.tasks_done,
                        tasks_total: total,
                    });
                }
            }
            self.fill();
            if next == next_scan {
                scans += 1;
                if let Some(d) = detector.as_deref_mut() {
                    self.scan(d)?;
                }
            }
            #[cfg(test)]
            self.assert_links();
        }
        // Every task is done, so no task keeps the nodes of its lost originals.
        debug_assert!(
            self.lost_original_nodes.is_empty(),
            "{:?}",
            self.lost_original_nodes
        );
        Ok(())
    }

    /// The unit tests' check, after every event, that the running attempts, the slots,
    /// the tasks and the nodes name each other (entries move as attempts end).
    #[cfg(test)]
    fn assert_links(&self) {
        for (l, live) in self.live.iter().enumerate() {
            let slot = self.slots[live.slot as usize];
            assert_eq!(slot.live, l as u32, "slot of entry {l}");
            assert_eq!(slot.finish, live.clock_start + live.work);
            let first = self.nodes[live.node as usize].first_slot;
            assert!(
                (first..first + self.nodes[live.node as usize].containers).contains(&live.slot)
            );
            let task = self.tasks[live.task as usize];
            match live.role {
                AttemptRole::Original => assert_eq!(task.original, l as u32),
                AttemptRole::Speculative => assert_eq!(task.copy, l as u32),
            }
            assert_eq!(task.flags & DONE, 0, "a running attempt of a finished task");
        }
        for (n, node) in self.nodes.iter().enumerate() {
            let first = node.first_slot as usize;
            let slots = &self.slots[first..first + node.containers as usize];
            let occupied = slots.iter().filter(|s| s.live != EMPTY).count();
            assert_eq!(occupied, node.used as usize, "node {n}");
            assert!(
                slots
                    .iter()
                    .all(|s| (s.live == EMPTY) == (s.finish == f64::INFINITY))
            );
            // Every free container of an up node has its entry in `free_slots` or among
            // the parked ones (stale entries, of containers taken since, may be there too).
            if !node.down {
                let entries = self
                    .free_slots
                    .iter()
                    .chain(&self.parked)
                    .filter(|&&e| e == n as u32)
                    .count();
                let free = (node.containers - node.used) as usize;
                assert!(entries >= free, "node {n}: {entries} entries, {free} free");
            }
        }
        let occupied = self.slots.iter().filter(|s| s.live != EMPTY).count();
        assert_eq!(occupied, self.live.len());
        // The lost originals' nodes are kept for, and only for, the tasks still waiting
        // for a copy that lost one.
        for (&task, nodes) in &self.lost_original_nodes {
            let flags = self.tasks[task as usize].flags;
            assert_eq!(flags & (LOST_ORIGINALS | COPIED | DONE), LOST_ORIGINALS);
            assert!(!nodes.is_empty());
        }
    }

    /// The time of the first completion, once every changed node is up to date.
    fn next_completion(&mut self) -> Option<f64> {
        while let Some(n) = self.dirty.pop() {
            self.update(n as usize);
        }
        self.completions.peek().map(|(time, _)| time)
    }

    /// Brings node `n`'s work clock and energy up to `now` under its current condition.
    fn touch(&mut self, n: usize) {
        let now = self.now;
        let node = &mut self.nodes[n];
        let dt = now - node.clock_secs;
        if dt > 0.0 {
            node.clock += node.rate * dt;
            if !node.down {
                let running = node.used + node.background;
                let watts = match self.power_tables[node.shape as usize].get(running as usize) {
                    Some(&watts) => watts,
                    None => self.spec.power.power_watts(&self.machines[n], running),
                };
                node.energy_joules += watts * dt;
            }
        }
        node.clock_secs = now;
    }

    /// Marks node `n` changed: its rate and next completion are recomputed before time
    /// moves on (several changes at one instant cost one update). Call after [`Self::touch`].
    fn refresh(&mut self, n: usize) {
        let node = &mut self.nodes[n];
        if !node.dirty {
            node.dirty = true;
            self.dirty.push(n as u32);
        }
    }

    /// Recomputes node `n`'s rate and its next completion in the queue.
    fn update(&mut self, n: usize) {
        let node = &mut self.nodes[n];
        node.dirty = false;
        let running = node.used + node.background;
        let rate = match self.rate_tables[node.shape as usize].get(running as usize) {
            Some(&rate) => rate,
            None => self.spec.slowdown.rate(&self.machines[n], running),
        };
        node.rate = rate * node.speed;
        if node.used == 0 || node.rate <= 0.0 {
            self.completions.set(n as u32, None);
            return;
        }
        let first = node.first_slot as usize;
        let finish = self.slots[first..first + node.containers as usize]
            .iter()
            .fold(f64::INFINITY, |a, b| a.min(b.finish));
        let time = finish
            .is_finite()
            .then(|| self.now + ((finish - node.clock) / node.rate).max(0.0));
        self.completions.set(n as u32, time);
    }

    /// Completes the attempts that are done at `now`, on every node whose completion is due,
    /// in attempt order: on a tie between an original and its copy, on whichever nodes, the
    /// original (the older attempt) wins, as in the paper's engine.
    ///
    /// Every due node is read before any attempt ends: an end kills its siblings, and a
    /// killed sibling's node keeps its queue entry until the next update, so reading that
    /// node after the kill would take the entry for the completion of another of its
    /// attempts, not done yet.
    fn complete_due(&mut self) {
        let mut finished = std::mem::take(&mut self.finishing);
        finished.clear();
        while let Some((time, n)) = self.completions.peek() {
            if time > self.now {
                break;
            }
            self.completions.set(n, None);
            self.finished_on(n as usize, &mut finished);
        }
        finished.sort_unstable_by_key(|&s| self.live[self.slots[s as usize].live as usize].id);
        // Entries move as attempts end: each is found again through its slot, which an
        // earlier success in this loop may have emptied (a killed sibling). No attempt
        // starts meanwhile, so a slot is not taken again.
        for &s in &finished {
            let l = self.slots[s as usize].live;
            if l != EMPTY {
                self.succeed(l);
            }
        }
        self.finishing = finished;
    }

    /// Adds to `finished` the slots of node `n` whose attempts are done at `now`: at least
    /// the one whose completion defined the event, and any other within rounding.
    fn finished_on(&mut self, n: usize, finished: &mut Vec<u32>) {
        self.touch(n);
        let node = &self.nodes[n];
        let first = node.first_slot as usize;
        let end = first + node.containers as usize;
        let clock = node.clock;
        let slack = 1e-9 * clock.abs().max(1.0);
        let mut due: Option<(f64, usize)> = None;
        let before = finished.len();
        for s in first..end {
            let finish = self.slots[s].finish;
            if finish == f64::INFINITY {
                continue;
            }
            if finish <= clock + slack {
                finished.push(s as u32);
            }
            if due.is_none_or(|(f, _)| finish < f) {
                due = Some((finish, s));
            }
        }
        if finished.len() == before
            && let Some((_, s)) = due
        {
            finished.push(s as u32);
        }
        self.refresh(n);
    }

    fn succeed(&mut self, l: u32) {
        let live = self.live[l as usize];
        let task = live.task as usize;
        if self.tasks[task].flags & DONE != 0 {
            return;
        }
        self.end_attempt(l, AttemptStatus::Succeeded);
        self.tasks[task].flags |= DONE;
        self.forget_lost_original_nodes(live.task);
        match live.role {
            AttemptRole::Original => {
                self.tasks[task].original = EMPTY;
                self.tasks[task].exec_secs = (self.now - live.start_secs) as f32;
                let sibling = self.tasks[task].copy;
                if sibling != EMPTY {
                    self.tasks[task].copy = EMPTY;
                    self.end_attempt(sibling, AttemptStatus::Killed);
                }
            }
            AttemptRole::Speculative => {
                self.tasks[task].copy = EMPTY;
                self.counters.successful_copies += 1;
                let sibling = self.tasks[task].original;
                if sibling != EMPTY {
                    self.tasks[task].original = EMPTY;
                    let killed = self.live[sibling as usize];
                    let progress = self.end_attempt(sibling, AttemptStatus::Killed);
                    // The paper's estimate of a killed original's time (Table 7's note).
                    self.tasks[task].exec_secs =
                        ((self.now - killed.start_secs) / progress.max(1e-4)) as f32;
                }
            }
        }
        self.counters.tasks_done += 1;
        let job = &mut self.jobs[live.job as usize];
        job.done += 1;
        if live.task - job.first_task < job.maps {
            job.maps_done += 1;
            // Once done, a map never runs again (no map output is lost with its node), so
            // the maps finish once.
            let maps_finished = job.maps_done == job.maps;
            if !job.reduces_released && job.maps_done >= reduces_needed(self.spec, job) {
                job.reduces_released = true;
                self.queue_job(live.job);
            }
            if maps_finished {
                self.stage_finished(live.job, TaskKind::Map);
            }
        }
        if self.jobs[live.job as usize].finished() {
            self.job_finished(live.job);
        }
    }

    /// Ends attempt `l` with `status`; returns the progress (work fraction) it reached.
    /// The last running attempt takes entry `l`: read what is needed of `l` before.
    fn end_attempt(&mut self, l: u32, status: AttemptStatus) -> f64 {
        let live = self.live[l as usize];
        let n = live.node as usize;
        self.touch(n);
        let done = match status {
            AttemptStatus::Succeeded => 1.0,
            _ => ((self.nodes[n].clock - live.clock_start) / live.work).clamp(0.0, 1.0),
        };
        if self.observing {
            let stage = self.stage_of(live.job, self.kind_of(live.task, live.job));
            self.observations
                .push(Observation::AttemptEnded(AttemptEnd {
                    attempt: AttemptId(live.id),
                    task: TaskId(live.task),
                    stage,
                    node: NodeId(live.node),
                    role: live.role,
                    start_secs: live.start_secs,
                    end_secs: self.now,
                    status,
                    // Computed as a `u64` (`input_bytes`), so exact.
                    input_bytes: live.input_bytes as u64,
                }));
        }
        let node = &mut self.nodes[n];
        self.slots[live.slot as usize] = Slot::FREE;
        node.used -= 1;
        if !node.down {
            self.free_slots.push_back(n as u32);
        }
        self.live.swap_remove(l as usize);
        if let Some(&moved) = self.live.get(l as usize) {
            self.slots[moved.slot as usize].live = l;
            match moved.role {
                AttemptRole::Original => self.tasks[moved.task as usize].original = l,
                AttemptRole::Speculative => self.tasks[moved.task as usize].copy = l,
            }
        }
        if let Some(r) = self.record.as_mut() {
            if let Some(a) = r.attempts.get_mut(live.id as usize) {
                *a = a.clone().ended(self.now, status, done);
            }
            r.load[n].record(self.now, node.used);
        }
        self.refresh(n);
        done
    }

    /// Starts an attempt of `task` on node `n`; `draw` is the task's
    /// [`task_draw`](crate::causes::Causes::task_draw), which the caller has made.
    fn start_attempt(
        &mut self,
        task: u32,
        job: u32,
        n: usize,
        role: AttemptRole,
        (work, draw): (f64, &TaskDraw),
    ) -> u32 {
        self.touch(n);
        let id = self.counters.attempts as u32;
        self.counters.attempts += 1;
        let kind = self.kind_of(task, job);
        let live = Live {
            task,
            job,
            node: n as u32,
            id,
            role,
            start_secs: self.now,
            clock_start: self.nodes[n].clock,
            work,
            input_bytes: input_bytes(self.spec, kind, draw) as f64,
            slot: EMPTY,
        };
        let l = self.live.len() as u32;
        self.live.push(live);
        let node = &mut self.nodes[n];
        let first = node.first_slot as usize;
        let end = first + node.containers as usize;
        if let Some(slot) = (first..end).find(|&s| self.slots[s].live == EMPTY) {
            self.slots[slot] = Slot {
                finish: live.clock_start + live.work,
                live: l,
            };
            self.live[l as usize].slot = slot as u32;
        }
        node.used += 1;
        if let Some(r) = self.record.as_mut() {
            r.attempts.push(Attempt::started(
                AttemptId(id),
                TaskId(task),
                NodeId(n as u32),
                role,
                self.now,
            ));
            r.load[n].record(self.now, node.used);
        }
        self.refresh(n);
        l
    }

    fn queue_job(&mut self, job: u32) {
        let j = &mut self.jobs[job as usize];
        if !j.queued && j.launchable() {
            j.queued = true;
            self.launchable.push_back(job);
        }
    }

    /// Job `job` arrives: it takes the first free stage pair, or a new one.
    fn arrive(&mut self, job: u32) -> Result<(), SimError> {
        let pair = match self.free_pairs.pop() {
            Some(std::cmp::Reverse(pair)) => pair,
            None => self.snapshot.stages().len() as u32 / 2,
        };
        self.jobs[job as usize].stage_pair = pair;
        for kind in [TaskKind::Map, TaskKind::Reduce] {
            let (id, stage) = (
                self.stage_of(job, kind),
                Stage {
                    job: JobId(job),
                    kind,
                },
            );
            if id.index() < self.snapshot.stages().len() {
                self.snapshot.set_stage(id, stage)?;
            } else {
                self.snapshot.push_stage(stage);
            }
        }
        if self.observing {
            self.observations.push(Observation::JobSubmitted {
                job: JobId(job),
                time_secs: self.now,
            });
        }
        let j = &mut self.jobs[job as usize];
        j.reduces_released = j.maps_done >= reduces_needed(self.spec, j);
        let end = (j.first_task + j.tasks()) as usize;
        // The jobs before the oldest still running are done: their tasks can go (at an
        // arrival, when no event is under way that could read them).
        while self.oldest_running < job as usize && self.jobs[self.oldest_running].finished() {
            self.oldest_running += 1;
        }
        let first_running = self.jobs[self.oldest_running].first_task;
        self.tasks.forget_below(first_running as usize);
        self.tasks.extend_to(end);
        self.active.push(job);
        self.queue_job(job);
        Ok(())
    }

    /// The next regular task to launch: re-runs first, then the oldest job's next task.
    fn next_regular(&mut self) -> Option<(u32, u32)> {
        if let Some(task) = self.requeued.pop_front() {
            return Some((task, self.job_of(task)));
        }
        while let Some(&job) = self.launchable.front() {
            let j = &mut self.jobs[job as usize];
            let task = if j.next_map < j.maps {
                j.next_map += 1;
                Some(j.first_task + j.next_map - 1)
            } else if j.reduces_released && j.next_reduce < j.reduces {
                j.next_reduce += 1;
                Some(j.first_task + j.maps + j.next_reduce - 1)
            } else {
                None
            };
            if !j.launchable() {
                j.queued = false;
                self.launchable.pop_front();
            }
            if let Some(task) = task {
                return Some((task, job));
            }
        }
        None
    }

    /// The stage of `job`'s tasks of `kind` in snapshots and observations: an index of its
    /// stage pair, which a job takes when it arrives and gives back when it finishes
    /// (after an [`Observation::StageFinished`] for each), so that snapshots hold the
    /// stages of the running jobs, not of every job of the day. The recorded [`Run`]
    /// numbers stages by job instead ([`recorded_stage`]).
    fn stage_of(&self, job: u32, kind: TaskKind) -> StageId {
        let pair = self.jobs[job as usize].stage_pair;
        StageId(2 * pair + u32::from(kind == TaskKind::Reduce))
    }

    /// Whether `task` of `job` is a map or a reduce.
    fn kind_of(&self, task: u32, job: u32) -> TaskKind {
        let j = &self.jobs[job as usize];
        match task - j.first_task < j.maps {
            true => TaskKind::Map,
            false => TaskKind::Reduce,
        }
    }

    fn job_of(&self, task: u32) -> u32 {
        let after = self.jobs.partition_point(|j| j.first_task <= task);
        after.saturating_sub(1) as u32
    }

    /// A free container on an up node for a regular task, or for a copy of `copy_of`'s
    /// task (`None` when there is none), skipping, if the detector's rule keeps that work
    /// off them, the nodes it reported slow, and for a copy, the nodes that ran an attempt
    /// of its task: its original's and those of its lost originals
    /// ([`Fleet::lost_original_nodes`]).
    fn take_slot(&mut self, copy_of: Option<&Live>) -> Option<usize> {
        let Some(original) = copy_of else {
            return self.take_slot_avoiding(self.keep_tasks_off_slow, |_| false);
        };
        let task = original.task;
        // Cloned, as the search borrows the whole engine: a few nodes, and only for a task
        // that lost an original.
        let lost = match self.tasks[task as usize].flags & LOST_ORIGINALS {
            0 => Vec::new(),
            _ => self
                .lost_original_nodes
                .get(&task)
                .cloned()
                .unwrap_or_default(),
        };
        self.take_slot_avoiding(self.keep_copies_off_slow, |n| {
            n == original.node || lost.contains(&n)
        })
    }

    /// [`Fleet::take_slot`]'s search: the first entry of `free_slots` that names a free
    /// container of an up node that `avoid` accepts (and, with `skip_slow`, not reported
    /// slow). The entries of avoided nodes met on the way are put back in front, in the
    /// order they were, each a free container; those of slow nodes are parked
    /// ([`Fleet::unpark`] puts them back). Generic over `avoid`: a regular task's search,
    /// which avoids no node, compiles without the check.
    #[inline(always)]
    fn take_slot_avoiding(
        &mut self,
        skip_slow: bool,
        avoid: impl Fn(u32) -> bool,
    ) -> Option<usize> {
        let found = loop {
            let Some(n) = self.free_slots.pop_front() else {
                break None;
            };
            let node = &self.nodes[n as usize];
            if node.down || node.used >= node.containers {
                continue; // a stale entry
            }
            if skip_slow && node.slow {
                self.parked.push(n);
                continue;
            }
            if avoid(n) {
                self.passed_over.push(n);
                continue;
            }
            break Some(n as usize);
        };
        while let Some(n) = self.passed_over.pop() {
            self.free_slots.push_front(n);
        }
        found
    }

    /// Forgets the nodes of `task`'s lost originals, if it has any: it is copied or done.
    fn forget_lost_original_nodes(&mut self, task: u32) {
        let flags = &mut self.tasks[task as usize].flags;
        if *flags & LOST_ORIGINALS != 0 {
            *flags &= !LOST_ORIGINALS;
            self.lost_original_nodes.remove(&task);
        }
    }

    /// Puts the parked entries back in front of `free_slots`, in the order they were
    /// taken: once the slow nodes change, or once the copies of a scan are placed when
    /// regular tasks may use slow nodes.
    fn unpark(&mut self) {
        while let Some(n) = self.parked.pop() {
            self.free_slots.push_front(n);
        }
    }

    fn fill(&mut self) {
        while !self.requeued.is_empty() || !self.launchable.is_empty() {
            let Some(n) = self.take_slot(None) else {
                return;
            };
            let Some((task, job)) = self.next_regular() else {
                self.free_slots.push_front(n as u32);
                return;
            };
            let t = task as usize;
            let draw = self.spec.causes.task_draw(self.seed, u64::from(task));
            let mut work =
                self.base_work(task, job) * work_factor(&self.spec.noise, &mut self.noise);
            work *= draw.every_attempt;
            if self.tasks[t].flags & RERUN == 0 {
                work *= draw.original_only;
            }
            if self.tasks[t].flags & STARTED == 0 {
                self.tasks[t].flags |= STARTED;
                if draw.slows() {
                    self.counters.injected += 1;
                }
            }
            let l = self.start_attempt(task, job, n, AttemptRole::Original, (work, &draw));
            self.tasks[t].original = l;
        }
    }

    fn base_work(&self, task: u32, job: u32) -> f64 {
        let j = &self.jobs[job as usize];
        match task - j.first_task < j.maps {
            true => self.spec.jobs.map_work_secs,
            false => self.spec.jobs.reduce_work_secs,
        }
    }

    fn change_node(&mut self, n: usize, change: Change) {
        self.touch(n);
        self.conditions.apply(n as u32, change, self.now);
        let node = &mut self.nodes[n];
        let was_down = node.down;
        node.down = self.conditions.down[n];
        node.background = self.conditions.background[n];
        node.speed = self.conditions.speed[n];
        // A failure that starts or ends while another covers the node changes nothing.
        match change {
            Change::Down if !was_down => {
                let first = self.nodes[n].first_slot as usize;
                let count = self.nodes[n].containers as usize;
                for s in first..first + count {
                    let l = self.slots[s].live;
                    if l == EMPTY {
                        continue;
                    }
                    let live = self.live[l as usize];
                    let task = live.task as usize;
                    let progress = self.end_attempt(l, AttemptStatus::Failed);
                    self.counters.failed += 1;
                    match live.role {
                        AttemptRole::Original => {
                            self.tasks[task].original = EMPTY;
                            self.tasks[task].exec_secs =
                                ((self.now - live.start_secs) / progress.max(1e-4)) as f32;
                            if self.tasks[task].copy == EMPTY {
                                self.tasks[task].flags |= RERUN;
                                self.requeued.push_back(live.task);
                            }
                            // A copy to come must keep off this node too.
                            if self.tasks[task].flags & COPIED == 0 {
                                self.tasks[task].flags |= LOST_ORIGINALS;
                                let nodes = self.lost_original_nodes.entry(live.task).or_default();
                                if !nodes.contains(&live.node) {
                                    nodes.push(live.node);
                                }
                            }
                        }
                        AttemptRole::Speculative => {
                            self.tasks[task].copy = EMPTY;
                            // Its original was lost earlier: the task must run again.
                            if self.tasks[task].original == EMPTY {
                                self.tasks[task].flags |= RERUN;
                                self.requeued.push_back(live.task);
                            }
                        }
                    }
                }
            }
            Change::Up if was_down && !self.nodes[n].down => {
                for _ in 0..self.nodes[n].containers {
                    self.free_slots.push_back(n as u32);
                }
            }
            _ => {}
        }
        self.refresh(n);
    }

    /// Every node reports: its work clock now is what the progress of its attempts shows
    /// until the next heartbeat. The detector, if any, observes the attempts ended since
    /// it last observed, then a progress report of every running attempt.
    fn heartbeat<D: Detector + ?Sized>(&mut self, detector: Option<&mut D>) {
        self.last_heartbeat = self.now;
        for (clock, node) in self.heartbeat_clock.iter_mut().zip(&self.nodes) {
            *clock = node.clock + node.rate * (self.now - node.clock_secs);
        }
        let Some(detector) = detector else {
            return;
        };
        self.observe_ended(detector);
        for live in &self.live {
            detector.observe(&Observation::Progress(ProgressReport {
                attempt: AttemptId(live.id),
                task: TaskId(live.task),
                stage: self.stage_of(live.job, self.kind_of(live.task, live.job)),
                node: NodeId(live.node),
                time_secs: self.now,
                progress: self.reported_progress(live),
            }));
        }
    }

    /// Hands the detector the attempts ended and stages finished since it last observed,
    /// in the order they happened.
    fn observe_ended<D: Detector + ?Sized>(&mut self, detector: &mut D) {
        for observation in self.observations.drain(..) {
            detector.observe(&observation);
        }
    }

    /// The progress score `live` showed at the last heartbeat: the fraction of its work
    /// done by then, through the reduce phases' score for a reduce when the scenario has
    /// them.
    fn reported_progress(&self, live: &Live) -> f64 {
        let n = live.node as usize;
        let done = ((self.heartbeat_clock[n] - live.clock_start) / live.work).clamp(0.0, 1.0);
        match (
            self.kind_of(live.task, live.job),
            self.spec.causes.reduce_phases,
        ) {
            (TaskKind::Reduce, Some(phases)) => phases.score(done),
            _ => done,
        }
    }

    /// Runs the detector over the attempts that have reported, in jobs past the lag, and
    /// launches copies of detected originals, longest estimated time left first. The
    /// snapshot's stages are the pairs of indices the jobs hold ([`Fleet::stage_of`]), as
    /// in the observations, so that a detector's history of a stage stays its.
    fn scan(&mut self, detector: &mut dyn Detector) -> Result<(), SimError> {
        self.observe_ended(detector);
        let lag = self.spec.speculation.lag_secs;
        self.active.retain(|&j| !self.jobs[j as usize].finished());
        self.snapshot.clear(self.now)?;
        for &j in &self.active {
            let job = &self.jobs[j as usize];
            let maps = job.maps - job.next_map;
            let reduces = job.reduces - job.next_reduce;
            self.snapshot
                .set_pending(self.stage_of(j, TaskKind::Map), maps)?;
            self.snapshot
                .set_pending(self.stage_of(j, TaskKind::Reduce), reduces)?;
        }
        // Tasks lost to a failure wait too, to run again.
        for &task in &self.requeued {
            let job = self.job_of(task);
            let stage = self.stage_of(job, self.kind_of(task, job));
            let waiting = self.snapshot.pending(stage) + 1;
            self.snapshot.set_pending(stage, waiting)?;
        }
        self.snapshot_rows.clear();
        for (l, live) in self.live.iter().enumerate() {
            let job = &self.jobs[live.job as usize];
            // No running attempt belongs to a finished task: the end of a task's first
            // attempt ends its sibling at once. So the task's record is not read here.
            debug_assert!(self.tasks[live.task as usize].flags & DONE == 0);
            if live.start_secs >= self.last_heartbeat || self.now - job.arrival_secs <= lag {
                continue;
            }
            self.snapshot.push(SnapshotRow {
                attempt: AttemptId(live.id),
                task: TaskId(live.task),
                stage: self.stage_of(live.job, self.kind_of(live.task, live.job)),
                node: NodeId(live.node),
                role: live.role,
                start_secs: live.start_secs,
                progress: self.reported_progress(live),
                input_bytes: live.input_bytes,
            })?;
            self.snapshot_rows.push(l as u32);
        }
        self.findings.clear();
        detector.scan(&self.snapshot, &mut self.findings);
        self.findings.check(detector.name(), &self.snapshot)?;
        // The nodes slow from now on are those of this scan: entries parked for the last
        // scan's go back first.
        self.unpark();
        for node in &mut self.nodes {
            node.slow = false;
        }
        for slow in self.findings.slow_nodes() {
            if let Some(node) = self.nodes.get_mut(slow.index()) {
                node.slow = true;
            }
        }
        // Containers of nodes no longer slow go to waiting regular tasks before copies
        // (`fill` appends to `live`: the entries of the snapshot's rows stay).
        self.fill();
        // (estimated time left, attempt id, entry): ties go to the older attempt.
        let mut flagged: Vec<(f64, u32, u32)> = Vec::new();
        for &row in self.findings.rows() {
            let Some(&l) = self.snapshot_rows.get(row as usize) else {
                continue;
            };
            let Some(r) = self.snapshot.row(row as usize) else {
                continue;
            };
            if r.role != AttemptRole::Original {
                continue;
            }
            let task = r.task.index();
            if self.tasks[task].flags & DETECTED == 0 {
                self.tasks[task].flags |= DETECTED;
                self.counters.detections += 1;
                if let Some(rec) = self.record.as_mut() {
                    rec.detections.push(Detection {
                        task: r.task,
                        attempt: r.attempt,
                        time_secs: self.now,
                    });
                }
            }
            if self.tasks[task].flags & COPIED == 0 {
                let left = (self.now - r.start_secs) * (1.0 - r.progress) / r.progress.max(1e-4);
                flagged.push((left, r.attempt.0, l));
            }
        }
        flagged.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, _, l) in flagged {
            let original = self.live[l as usize];
            let Some(n) = self.take_slot(Some(&original)) else {
                // Room only on nodes that ran an attempt of this task, if anywhere: the
                // next candidate's attempts may have run elsewhere.
                if self.free_slots.is_empty() {
                    break;
                }
                continue;
            };
            let task = original.task;
            let draw = self.spec.causes.task_draw(self.seed, u64::from(task));
            let work = self.base_work(task, original.job)
                * work_factor(&self.spec.noise, &mut self.noise)
                * draw.every_attempt;
            debug_assert!(
                self.requeued.is_empty() && self.launchable.is_empty(),
                "a copy starts while a regular task waits"
            );
            let c = self.start_attempt(
                task,
                original.job,
                n,
                AttemptRole::Speculative,
                (work, &draw),
            );
            self.tasks[task as usize].copy = c;
            self.tasks[task as usize].flags |= COPIED;
            self.forget_lost_original_nodes(task);
            self.counters.copies += 1;
        }
        if !self.keep_tasks_off_slow {
            // Regular tasks may use the slow nodes' containers that copies could not.
            self.unpark();
        }
        Ok(())
    }

    /// Tells the detector, if any, that `job`'s stage of `kind` finished.
    fn stage_finished(&mut self, job: u32, kind: TaskKind) {
        if self.observing {
            self.observations.push(Observation::StageFinished {
                stage: self.stage_of(job, kind),
                time_secs: self.now,
            });
        }
    }

    /// Labels the stragglers of a finished job against the median of each stage, and
    /// gives its stage pair back (its maps finished earlier, its reduces now).
    fn job_finished(&mut self, job: u32) {
        self.stage_finished(job, TaskKind::Reduce);
        let pair = self.jobs[job as usize].stage_pair;
        self.free_pairs.push(std::cmp::Reverse(pair));
        let j = &self.jobs[job as usize];
        self.counters.job_secs_sum += self.now - j.arrival_secs;
        let ranges = [
            (j.first_task, j.first_task + j.maps),
            (j.first_task + j.maps, j.first_task + j.tasks()),
        ];
        for (from, to) in ranges {
            if from == to {
                continue;
            }
            let times = self
                .tasks
                .range(from as usize, to as usize)
                .iter()
                .map(|t| t.exec_secs);
            self.scratch.clear();
            self.scratch.extend(times);
            let Some(median) = median(&mut self.scratch) else {
                continue;
            };
            let bar = self.spec.straggler_factor * median;
            for t in from..to {
                if f64::from(self.tasks[t as usize].exec_secs) > bar {
                    self.counters.stragglers += 1;
                    if self.tasks[t as usize].flags & DETECTED != 0 {
                        self.counters.true_detections += 1;
                    }
                }
            }
        }
    }

    fn finish(mut self, detector: String) -> ScenarioOutcome {
        for n in 0..self.nodes.len() {
            self.touch(n);
        }
        let c = &self.counters;
        let summary = Summary {
            scenario: self.spec.name.clone(),
            detector,
            seed: self.seed,
            nodes: self.spec.cluster.nodes,
            jobs: self.spec.jobs.count,
            tasks: self.spec.task_count(),
            attempts: c.attempts,
            makespan_secs: self.now,
            mean_job_secs: c.job_secs_sum / f64::from(self.spec.jobs.count.max(1)),
            straggler_factor: self.spec.straggler_factor,
            stragglers: c.stragglers,
            injected_stragglers: c.injected,
            detections: c.detections,
            true_detections: c.true_detections,
            copies: c.copies,
            successful_copies: c.successful_copies,
            failed_attempts: c.failed,
            energy_joules: self.nodes.iter().map(|n| n.energy_joules).sum(),
        };
        let run = self.record.take().map(|r| Run {
            nodes: self.machines.clone(),
            stages: (0..self.jobs.len() as u32)
                .flat_map(|j| {
                    [TaskKind::Map, TaskKind::Reduce].map(|kind| Stage {
                        job: JobId(j),
                        kind,
                    })
                })
                .collect(),
            tasks: r.tasks,
            attempts: r.attempts,
            detections: r.detections,
            load: r.load,
            end_secs: self.now,
        });
        ScenarioOutcome { summary, run }
    }
}

/// The stage of `job`'s tasks of `kind` in the recorded [`Run`], whose stages are every
/// job's maps and reduces in job order.
fn recorded_stage(job: u32, kind: TaskKind) -> StageId {
    StageId(2 * job + u32::from(kind == TaskKind::Reduce))
}

/// One table of rates and one of power per node shape (cores, threads, containers); sets
/// each node's shape. A table covers up to twice the containers (background tasks
/// included); beyond, the models are asked again.
fn shape_tables(
    spec: &ScenarioSpec,
    machines: &[Node],
    nodes: &mut [NodeRt],
) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let mut shapes: Vec<Node> = Vec::new();
    let (mut rates, mut powers) = (Vec::new(), Vec::new());
    for (n, machine) in nodes.iter_mut().zip(machines) {
        let same = |s: &Node| {
            s.active_cores == machine.active_cores
                && s.threads_per_core == machine.threads_per_core
                && s.containers == machine.containers
        };
        let shape = match shapes.iter().position(same) {
            Some(shape) => shape,
            None => {
                shapes.push(*machine);
                let running = 0..=2 * machine.containers;
                rates.push(
                    running
                        .clone()
                        .map(|r| spec.slowdown.rate(machine, r))
                        .collect(),
                );
                powers.push(
                    running
                        .map(|r| spec.power.power_watts(machine, r))
                        .collect(),
                );
                shapes.len() - 1
            }
        };
        n.shape = shape as u32;
    }
    (rates, powers)
}

/// The median of `values` (mean of the two middle values for an even count); reorders.
fn median(values: &mut [f32]) -> Option<f64> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let (_, &mut upper, _) = values.select_nth_unstable_by(n / 2, f32::total_cmp);
    if n % 2 == 1 {
        return Some(f64::from(upper));
    }
    let lower = values[..n / 2]
        .iter()
        .copied()
        .fold(f32::NEG_INFINITY, f32::max);
    Some((f64::from(lower) + f64::from(upper)) / 2.0)
}

fn reduces_needed(spec: &ScenarioSpec, job: &JobRt) -> u32 {
    (spec.jobs.reduce_slowstart * f64::from(job.maps)).ceil() as u32
}

fn input_bytes(spec: &ScenarioSpec, kind: TaskKind, draw: &TaskDraw) -> u64 {
    let base = match kind {
        TaskKind::Map => spec.jobs.map_input_bytes,
        TaskKind::Reduce => spec.jobs.reduce_input_bytes,
    };
    (base as f64 * draw.every_attempt) as u64
}

/// One draw of the per-attempt work factor, as the paper engine's.
fn work_factor(noise: &Noise, stream: &mut Stream) -> f64 {
    let lognormal = (noise.sigma * stream.normal()).exp();
    let outlier = if stream.uniform() < noise.outlier_probability {
        noise.outlier_min + (noise.outlier_max - noise.outlier_min) * stream.uniform()
    } else {
        let _ = stream.uniform();
        1.0
    };
    lognormal * outlier
}

/// The jobs: sizes apportioned from log-normal weights so that the totals are exact
/// (every job at least one map), arrivals evenly spread over the window.
fn make_jobs(spec: &ScenarioSpec, seed: u64) -> Vec<JobRt> {
    let j = &spec.jobs;
    let count = j.count as usize;
    let mut sizes = Stream::new(seed, &[label("job-sizes")]);
    let weights: Vec<f64> = (0..count)
        .map(|_| (j.size_sigma * sizes.normal()).exp())
        .collect();
    let maps = apportion(&weights, u64::from(j.maps - 1) * count as u64);
    let reduces = apportion(&weights, u64::from(j.reduces) * count as u64);
    let mut first_task = 0u32;
    (0..count)
        .map(|i| {
            let job = JobRt {
                first_task,
                maps: maps[i] + 1,
                reduces: reduces[i],
                arrival_secs: j.arrival_window_secs * i as f64 / count as f64,
                next_map: 0,
                next_reduce: 0,
                maps_done: 0,
                done: 0,
                reduces_released: false,
                queued: false,
                stage_pair: 0,
            };
            first_task += job.tasks();
            job
        })
        .collect()
}

/// Splits `total` in proportion to `weights` by largest remainder (ties: lower index).
fn apportion(weights: &[f64], total: u64) -> Vec<u32> {
    let sum: f64 = weights.iter().sum();
    if weights.is_empty() || sum <= 0.0 {
        return vec![0; weights.len()];
    }
    let exact: Vec<f64> = weights.iter().map(|w| w / sum * total as f64).collect();
    let mut counts: Vec<u32> = exact.iter().map(|e| e.floor() as u32).collect();
    let assigned: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &i in order
        .iter()
        .cycle()
        .take(total.saturating_sub(assigned) as usize)
    {
        counts[i] += 1;
    }
    counts
}

#[cfg(test)]
mod tests {
    use straggler_detect::conformance::FlagAll;

    use super::*;

    #[test]
    fn apportion_is_exact_and_proportional() {
        assert_eq!(apportion(&[1.0, 1.0, 2.0], 8), [2, 2, 4]);
        assert_eq!(apportion(&[1.0, 1.0, 1.0], 10), [4, 3, 3]);
        assert_eq!(apportion(&[], 5), Vec::<u32>::new());
    }

    #[test]
    fn running_attempts_slots_and_tasks_stay_linked_through_copies_kills_and_failures() {
        // eSplash: levels of 32 to 4 containers, an episode and a node failure; `run`
        // checks the links after every event (`assert_links`).
        let spec = ScenarioSpec::esplash();
        // Every attempt flagged: every task gets a copy, so originals, copies and kills move
        // entries of the running array in every way.
        let outcome = simulate_scenario(&spec, 3, Some(&mut FlagAll), RunOptions::default())
            .expect("the run finishes");
        let s = outcome.summary;
        assert!(s.failed_attempts > 0, "{s:?}");
        assert!(s.copies > 0 && s.successful_copies > 0, "{s:?}");
        assert!(
            s.successful_copies < s.copies,
            "some copies are killed: {s:?}"
        );
    }

    #[test]
    fn the_task_table_forgets_a_prefix_once_it_is_half_the_table() {
        let mut table = TaskTable::default();
        table.extend_to(10);
        table[7].exec_secs = 7.0;
        // 4 dead of 10: kept.
        table.forget_below(4);
        assert_eq!((table.base, table.rows.len()), (0, 10));
        // 5 of 10: forgotten; task 7 keeps its row.
        table.forget_below(5);
        assert_eq!((table.base, table.rows.len()), (5, 5));
        assert_eq!(table[7].exec_secs, 7.0);
        assert_eq!(table.range(6, 8).len(), 2);
        // Extending counts from the base; past every row, all go.
        table.extend_to(12);
        assert_eq!(table.rows.len(), 7);
        table.forget_below(usize::MAX);
        assert_eq!((table.base, table.rows.len()), (12, 0));
    }

    #[test]
    fn a_run_of_many_jobs_forgets_the_tasks_of_the_jobs_done() {
        // dsb's 10 jobs, arriving over 1000 s rather than 600 s: some finish before the
        // next arrives, while the oldest still runs (its tasks kept, those before it
        // forgotten; forgetting one more task of it fails the test). Every attempt flagged
        // (copies and kills), the links checked after every event (`assert_links`).
        let mut spec = ScenarioSpec::dsb();
        spec.jobs.arrival_window_secs = 1000.0;
        let mut fleet = Fleet::new(&spec, 3, false).expect("a valid scenario");
        fleet.observing = true;
        let mut detector = FlagAll;
        fleet
            .run(Some(&mut detector), None)
            .expect("the run finishes");
        let total = spec.task_count() as usize;
        assert!(fleet.tasks.base > 0, "forgot none of {total}");
        assert!(fleet.tasks.base + fleet.tasks.rows.len() <= total);
        let summary = fleet.finish(FlagAll.name().to_owned()).summary;
        assert!(summary.copies > 0, "{summary:?}");
        // The public path, which resets the detector and reads its rule first, agrees.
        let again = simulate_scenario(&spec, 3, Some(&mut FlagAll), RunOptions::default())
            .expect("the run finishes")
            .summary;
        assert_eq!(format!("{summary:?}"), format!("{again:?}"));
    }

    /// Checks what it observes against what it scans: observations in time order, every
    /// row's progress that of its attempt's last report, a stage index naming one stage
    /// until that stage finishes. Keeps the ends and finished stages with the stage each
    /// index named then (if a snapshot had shown it).
    #[derive(Default)]
    struct Witness {
        last_secs: f64,
        ended: Vec<(AttemptEnd, Option<Stage>)>,
        finished: Vec<(f64, Option<Stage>)>,
        reports: std::collections::HashMap<AttemptId, (f64, f64)>,
        stages: std::collections::HashMap<u32, Stage>,
        /// The jobs submitted, each once.
        submitted: std::collections::HashSet<JobId>,
        largest_stage: u32,
        rows: usize,
        /// Reported slow at every scan (every other with `alternate`), with the rule
        /// below.
        slow: Option<(NodeId, straggler_detect::SlowNodeRule)>,
        alternate: bool,
        scans: usize,
        flag_all: bool,
    }

    impl Detector for Witness {
        fn name(&self) -> &str {
            "witness"
        }
        fn observe(&mut self, observation: &Observation) {
            let secs = match observation {
                Observation::Progress(r) => {
                    self.reports.insert(r.attempt, (r.time_secs, r.progress));
                    r.time_secs
                }
                Observation::AttemptEnded(end) => {
                    self.reports.remove(&end.attempt);
                    self.ended
                        .push((*end, self.stages.get(&end.stage.0).copied()));
                    end.end_secs
                }
                Observation::StageFinished { stage, time_secs } => {
                    self.finished
                        .push((*time_secs, self.stages.remove(&stage.0)));
                    *time_secs
                }
                Observation::JobSubmitted { job, time_secs } => {
                    assert!(self.submitted.insert(*job), "{job:?} submitted twice");
                    *time_secs
                }
                _ => unreachable!("the engine sends no other observation"),
            };
            assert!(secs >= self.last_secs, "{secs} after {}", self.last_secs);
            self.last_secs = secs;
        }
        fn scan(&mut self, snapshot: &Snapshot, findings: &mut Findings) {
            assert!(snapshot.now_secs() >= self.last_secs);
            for row in (0..snapshot.len()).filter_map(|i| snapshot.row(i)) {
                let stage = snapshot.stages()[row.stage.index()];
                assert!(
                    self.submitted.contains(&stage.job),
                    "{row:?} before its job"
                );
                assert_eq!(*self.stages.entry(row.stage.0).or_insert(stage), stage);
                self.largest_stage = self.largest_stage.max(row.stage.0);
                let report = self.reports.get(&row.attempt);
                assert_eq!(report.map(|r| r.1), Some(row.progress), "{row:?}");
            }
            self.rows += snapshot.len();
            self.scans += 1;
            if let Some((node, _)) = self.slow
                && (!self.alternate || self.scans.is_multiple_of(2))
            {
                findings.push_slow_node(node);
            }
            if self.flag_all {
                findings.rows_mut().extend(0..snapshot.len() as u32);
            }
        }
        fn slow_node_rule(&self) -> straggler_detect::SlowNodeRule {
            self.slow.map(|s| s.1).unwrap_or_default()
        }
    }

    #[test]
    fn a_detector_observes_every_end_report_and_finished_stage_under_the_stages_it_scans() {
        // Ten jobs on drifting nodes, arriving over 2000 s: a few at once, jobs ending
        // while others run, and later jobs taking the stage indices of finished ones.
        let mut spec = ScenarioSpec::dsb();
        spec.jobs.arrival_window_secs = 2000.0;
        let mut witness = Witness::default();
        let record = RunOptions {
            record: true,
            progress: None,
        };
        let outcome = simulate_scenario(&spec, 5, Some(&mut witness), record).expect("finishes");
        let run = outcome.run.expect("recorded");
        assert!(witness.rows > 0, "{}", witness.rows);
        let jobs = spec.jobs.count;
        assert!(
            witness.largest_stage < 2 * jobs - 2,
            "{}",
            witness.largest_stage
        );
        // Every attempt and job ends; those after the last scan are not handed over.
        assert!(witness.ended.len() > run.attempts.len() * 9 / 10);
        assert!(witness.finished.len() >= 2 * (jobs as usize - 2));
        for (end, stage) in &witness.ended {
            let attempt = &run.attempts[end.attempt.index()];
            let task = &run.tasks[end.task.index()];
            assert_eq!(
                (attempt.task, attempt.node, attempt.role, attempt.start_secs),
                (end.task, end.node, end.role, end.start_secs)
            );
            assert_eq!(
                (attempt.end_secs, attempt.status),
                (Some(end.end_secs), end.status)
            );
            assert_eq!(task.input_bytes, end.input_bytes);
            if let Some(stage) = stage {
                assert_eq!(run.stages[task.stage.index()], *stage);
            }
        }
        // A stage finishes once every attempt of its tasks has ended.
        for &(time_secs, stage) in &witness.finished {
            let Some(stage) = stage else { continue };
            let last_end = run
                .attempts
                .iter()
                .filter(|a| run.stages[run.tasks[a.task.index()].stage.index()] == stage)
                .map(|a| a.end_secs.expect("ended"))
                .fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(last_end, time_secs, "{stage:?}");
        }
    }

    #[test]
    fn slow_nodes_are_kept_from_what_the_rule_says() {
        let spec = ScenarioSpec::dsb();
        let slow = NodeId(3);
        let run_with = |rule| {
            let mut witness = Witness {
                slow: Some((slow, rule)),
                flag_all: true,
                ..Witness::default()
            };
            let record = RunOptions {
                record: true,
                progress: None,
            };
            let outcome = simulate_scenario(&spec, 5, Some(&mut witness), record);
            outcome.expect("finishes").run.expect("recorded")
        };
        let first_scan = spec.speculation.scan_interval_secs;
        let started_there = |run: &Run, role| {
            run.attempts
                .iter()
                .filter(|a| a.node == slow && a.role == role && a.start_secs > first_scan)
                .count()
        };
        let no_copies = run_with(straggler_detect::SlowNodeRule::NoCopies);
        assert!(
            no_copies
                .attempts
                .iter()
                .any(|a| a.role == AttemptRole::Speculative)
        );
        assert_eq!(started_there(&no_copies, AttemptRole::Speculative), 0);
        assert!(started_there(&no_copies, AttemptRole::Original) > 0);
        let no_work = run_with(straggler_detect::SlowNodeRule::NoNewWork);
        assert_eq!(started_there(&no_work, AttemptRole::Speculative), 0);
        assert_eq!(started_there(&no_work, AttemptRole::Original), 0);
        let report = run_with(straggler_detect::SlowNodeRule::Report);
        assert!(started_there(&report, AttemptRole::Speculative) > 0);
    }

    #[test]
    fn a_node_leaving_the_blacklist_takes_waiting_tasks_before_copies() {
        // Node 3 is blacklisted at every other scan while every attempt is flagged: when
        // it leaves the list, its containers come back at a scan, and the copies placed
        // at that scan must not take them from waiting tasks (`scan` checks it under
        // test).
        for rule in [
            straggler_detect::SlowNodeRule::NoNewWork,
            straggler_detect::SlowNodeRule::NoCopies,
        ] {
            let mut witness = Witness {
                slow: Some((NodeId(3), rule)),
                alternate: true,
                flag_all: true,
                ..Witness::default()
            };
            let spec = ScenarioSpec::dsb();
            let outcome = simulate_scenario(&spec, 5, Some(&mut witness), RunOptions::default());
            assert!(outcome.expect("finishes").summary.copies > 0);
        }
    }

    /// What a recorded run of `spec` with Default gives, labelled as the summary labels
    /// (checked against it).
    #[derive(Debug, Default, PartialEq)]
    struct DefaultLabels {
        detected: usize,
        /// Detected and stragglers.
        true_detections: usize,
        /// Detected, not stragglers, their original started after the first original of
        /// their stage.
        young_false_positives: usize,
        /// Detected stragglers whose original was killed (their copy won) and had run
        /// longer than the bar when killed: stragglers whatever the time estimated for
        /// them, the exact one included, which is longer than what they ran.
        killed_past_the_bar: usize,
        /// Detected stragglers whose original was killed before it had run longer than
        /// the bar: labelled by the estimate alone.
        killed_before_the_bar: usize,
        /// Originals started after the first original of their stage.
        started_later: usize,
    }

    fn default_labels(spec: &ScenarioSpec) -> DefaultLabels {
        let mut detector = straggler_detect::DefaultDetector::default();
        let options = RunOptions {
            record: true,
            progress: None,
        };
        let outcome = simulate_scenario(spec, 2019, Some(&mut detector), options).expect("runs");
        let run = outcome.run.expect("recorded");
        let times: Vec<straggler_model::OriginalTime> =
            (run.original_times().expect("a consistent run").into_iter())
                .map(|time| time.expect("every original ended"))
                .collect();
        let mut by_stage: std::collections::HashMap<StageId, Vec<f32>> = Default::default();
        let mut first_start: std::collections::HashMap<StageId, f64> = Default::default();
        for (task, time) in run.tasks.iter().zip(&times) {
            // The engine keeps a task's time as an f32.
            by_stage
                .entry(task.stage)
                .or_default()
                .push(time.exec_secs as f32);
            let first = first_start.entry(task.stage).or_insert(f64::INFINITY);
            *first = first.min(time.start_secs);
        }
        let bars: std::collections::HashMap<StageId, f64> = (by_stage.into_iter())
            .map(|(stage, mut times)| {
                let median = median(&mut times).expect("a task");
                (stage, spec.straggler_factor * median)
            })
            .collect();
        let mut labels = DefaultLabels::default();
        let mut stragglers = 0;
        let first_detections = run
            .first_detection_secs()
            .expect("detections of the engine");
        for ((task, time), first) in run.tasks.iter().zip(&times).zip(first_detections) {
            let bar = bars[&task.stage];
            let is_straggler = f64::from(time.exec_secs as f32) > bar;
            let started_later = time.start_secs > first_start[&task.stage];
            stragglers += usize::from(is_straggler);
            labels.started_later += usize::from(started_later);
            if first.is_none() {
                continue;
            }
            labels.detected += 1;
            labels.true_detections += usize::from(is_straggler);
            labels.young_false_positives += usize::from(!is_straggler && started_later);
            let original = &run.attempts[time.attempt.0 as usize];
            if is_straggler && original.status == AttemptStatus::Killed {
                let ran = original.elapsed_secs().expect("ended");
                assert!(time.exec_secs >= ran, "an estimate below what it ran");
                match ran > bar {
                    true => labels.killed_past_the_bar += 1,
                    false => labels.killed_before_the_bar += 1,
                }
            }
        }
        assert_eq!(stragglers as u64, outcome.summary.stragglers);
        assert_eq!(labels.detected as u64, outcome.summary.detections);
        assert_eq!(
            labels.true_detections as u64,
            outcome.summary.true_detections
        );
        labels
    }

    #[test]
    fn default_flags_only_stragglers_where_every_stage_starts_at_once() {
        // The datacenter's jobs (800 maps, 200 reduces, 5% of the tasks slowed by the
        // root-cause mix), three of them, hours apart, labelled against 1.2 times their
        // stage's median. On 200 nodes (1,600 containers) every stage starts at one
        // instant, so no sibling is younger than another, and Default flags only tasks 0.2
        // of progress behind their siblings: stragglers, every one, as in the
        // datacenter's table (docs/simulation.md). On 50 nodes (400 containers) the maps
        // run in two waves, and Default also flags the second wave's young attempts,
        // which are not stragglers. Most detected stragglers are killed originals that
        // had run past the bar when killed: the estimate of their time does not make
        // them stragglers.
        let mut spec = ScenarioSpec::datacenter();
        spec.jobs.count = 3;
        spec.cluster.nodes = 200;
        let one_wave = default_labels(&spec);
        assert_eq!(one_wave.started_later, 0);
        assert!(one_wave.detected > 0);
        assert_eq!(one_wave.true_detections, one_wave.detected);
        spec.cluster.nodes = 50;
        let two_waves = default_labels(&spec);
        assert!(two_waves.started_later > 0);
        let false_positives = two_waves.detected - two_waves.true_detections;
        assert!(false_positives > 0);
        assert_eq!(two_waves.young_false_positives, false_positives);
        for labels in [one_wave, two_waves] {
            assert!(labels.killed_past_the_bar > 10 * labels.killed_before_the_bar);
        }
    }

    #[test]
    fn the_summarys_straggler_factor_is_the_scenarios() {
        // `default_labels` counts the stragglers of the recorded run by hand, at the
        // scenario's factor, and checks the summary's count against it.
        let mut spec = ScenarioSpec::datacenter();
        spec.jobs.count = 2;
        spec.cluster.nodes = 50;
        let at = |factor: f64, spec: &mut ScenarioSpec| {
            spec.straggler_factor = factor;
            let labels = default_labels(spec);
            labels.true_detections
        };
        let (paper, seeds) = (at(1.2, &mut spec), at(1.5, &mut spec));
        assert!(seeds < paper, "{seeds} {paper}");
        spec.straggler_factor = 0.9;
        assert!(spec.check().is_err());
    }

    #[test]
    fn median_by_hand() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&mut []), None);
    }
}
