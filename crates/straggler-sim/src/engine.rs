//! The event-driven engine: from one event to the next (an attempt finishing, a heartbeat,
//! a scan), every running attempt progresses at a constant rate given by its node's load,
//! so the state at the next event is computed exactly, without stepping through time.
//!
//! At each instant, in this order: attempts that finished are completed (and their sibling
//! killed), nodes report progress if it is a heartbeat, free containers are filled, and if
//! it is a scan the detector runs and copies are launched.
//!
//! The nodes a detector reports slow at a scan stay slow until its next scan, and are kept
//! from new work as its [`SlowNodeRule`] says (with `copies.placement.follow_slow_node_rule`,
//! the default): no copy (`NoCopies`), or neither a new regular task nor a copy
//! (`NoNewWork`, DSB's blacklist); `copies.placement.avoid_slow_nodes` keeps copies off them
//! whatever the rule. Attempts already running there go on.
//!
//! Nothing stops a rule from blocking every node: a detector whose rule is `NoNewWork` and
//! that reports every node with room leaves the regular tasks waiting; heartbeats and
//! scans still move the clock, and the run ends at `time_limit_secs` with
//! [`SimError::DidNotFinish`], not a hang. DSB never does this (`straggler-detect`'s
//! `dsb.rs`): with an edge between intervals, the edge's source is not in level zero, the
//! blacklist; with number `k`, at least one ranked node is left out. A third-party
//! detector's rule carries no such guarantee (`docs/simulation.md`, "A rule that blocks
//! every node").

use std::collections::VecDeque;

use straggler_detect::{Detector, Findings, SlowNodeRule};
use straggler_model::{
    Attempt, AttemptEnd, AttemptId, AttemptRole, AttemptStatus, Detection, JobId, LoadTimeline,
    Node, NodeId, Observation, ProgressReport, Run, Snapshot, SnapshotRow, Stage, StageId, Task,
    TaskId, TaskKey, TaskKind,
};

use crate::rng::{Stream, label};
use crate::{Policy, Scenario, SimConfig, SimError};

/// The job simulated always has this id, so that task keys match across runs.
const JOB: JobId = JobId(0);
const MAP_STAGE: StageId = StageId(0);
const REDUCE_STAGE: StageId = StageId(1);
/// Relative slack under which an attempt counts as finished (rounding of `rate * dt`).
const FINISH_SLACK: f64 = 1e-12;
/// Marks an attempt that is not running.
const NOT_LIVE: u32 = u32::MAX;

/// Simulates one run of the job on `scenario` with the given seed. With a detector,
/// detection and speculation run as `config.speculation` and `config.copies` say; without,
/// no task is ever detected or copied (the baseline runs).
///
/// The same arguments give the same [`Run`], bit for bit.
pub fn simulate(
    config: &SimConfig,
    scenario: &Scenario,
    seed: u64,
    detector: Option<&mut dyn Detector>,
) -> Result<Run, SimError> {
    simulate_outcome(config, scenario, seed, detector).map(|outcome| outcome.run)
}

/// [`simulate`], with what only the simulator knows about the run: the exact execution
/// time each killed original would have had.
pub fn simulate_outcome(
    config: &SimConfig,
    scenario: &Scenario,
    seed: u64,
    detector: Option<&mut dyn Detector>,
) -> Result<Outcome, SimError> {
    config.check()?;
    let mut engine = Engine::new(config, scenario, seed)?;
    let mut detector = detector;
    if let Some(d) = detector.as_deref_mut() {
        d.reset();
    }
    engine.run(detector)?;
    Ok(engine.finish())
}

/// A simulated run and what only the simulator knows about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// What happened, as a real cluster would have recorded it.
    pub run: Run,
    /// For each task (indexed by `TaskId`) whose original attempt was killed because a
    /// copy won, the execution time the original would have had: its remaining work run
    /// to the end in a *shadow* computation on its node, at the rate the node would have
    /// given it with the run's actual load plus the shadows there (the shadow does not
    /// slow the real attempts; see `docs/simulation.md`). `None` for the other tasks.
    pub killed_original_exact_secs: Vec<Option<f64>>,
}

#[derive(Debug)]
struct NodeState {
    node: Node,
    regular: u32,
    copies: u32,
    regular_limit: u32,
    rate: f64,
    /// Shadows of killed originals computed on this node.
    shadows: u32,
    /// Never receives a copy (`copies.placement.blacklist`).
    blacklisted: bool,
    /// Reported slow by the detector at its last scan.
    slow: bool,
}

/// What the nodes reported slow are kept from in a run: the detector's [`SlowNodeRule`]
/// (if followed) and the `avoid_slow_nodes` placement rule together.
#[derive(Debug, Clone, Copy, Default)]
struct SlowNodeEffect {
    /// No copy starts on a slow node.
    no_copies: bool,
    /// No new regular task starts on a slow node.
    no_tasks: bool,
}

impl SlowNodeEffect {
    fn new(config: &SimConfig, rule: SlowNodeRule) -> Self {
        let placement = &config.copies.placement;
        let rule = if placement.follow_slow_node_rule {
            rule
        } else {
            SlowNodeRule::Report
        };
        SlowNodeEffect {
            no_copies: placement.avoid_slow_nodes || rule.keeps_copies_off(),
            no_tasks: rule.keeps_tasks_off(),
        }
    }
}

impl NodeState {
    fn used(&self) -> u32 {
        self.regular + self.copies
    }
}

#[derive(Debug, Default)]
struct TaskState {
    original_work: f64,
    original: Option<AttemptId>,
    /// Every copy launched, in launch order.
    copies: Vec<AttemptId>,
    done: bool,
    detected: bool,
}

/// The remaining work of a killed original, run to its end for the exact time it would
/// have taken (see [`Outcome::killed_original_exact_secs`]).
#[derive(Debug)]
struct Shadow {
    task: TaskId,
    node: usize,
    start_secs: f64,
    work_total: f64,
    work_left: f64,
    rate: f64,
}

#[derive(Debug)]
struct Live {
    attempt: AttemptId,
    node: usize,
    work_total: f64,
    work_done: f64,
    /// Last reported progress, `None` before the first report.
    reported: Option<f64>,
    /// With per-attempt reports, when this attempt reports next.
    next_report_secs: f64,
}

#[derive(Debug)]
struct Engine<'a> {
    config: &'a SimConfig,
    nodes: Vec<NodeState>,
    node_order: Vec<usize>,
    stages: Vec<Stage>,
    tasks: Vec<Task>,
    state: Vec<TaskState>,
    attempts: Vec<Attempt>,
    live: Vec<Live>,
    live_slot: Vec<u32>,
    pending_maps: VecDeque<TaskId>,
    pending_reduces: VecDeque<TaskId>,
    reduces_released: bool,
    maps_done: u32,
    tasks_done: usize,
    candidates: Vec<TaskId>,
    /// Tasks of each kind (map, reduce), running originals and running copies of each.
    kind_tasks: [u32; 2],
    running_originals: [u32; 2],
    running_copies: [u32; 2],
    shadows: Vec<Shadow>,
    killed_original_exact_secs: Vec<Option<f64>>,
    detections: Vec<Detection>,
    load: Vec<LoadTimeline>,
    copy_noise: Stream,
    snapshot: Snapshot,
    findings: Findings,
    slow_nodes: SlowNodeEffect,
    /// With per-attempt reports, the reports made since the detector last observed them:
    /// time, attempt, progress.
    reports: Vec<(f64, AttemptId, f64)>,
    now: f64,
}

impl<'a> Engine<'a> {
    fn new(config: &'a SimConfig, scenario: &Scenario, seed: u64) -> Result<Self, SimError> {
        let platform = &config.platform;
        let workload = &config.workload;
        let mut layout = Stream::new(seed, &[label("layout")]);
        let active = scenario.active_cores(platform)?;
        let placement = layout.permutation(active.len());
        let node_order = layout.permutation(active.len());
        let regular_limits = config
            .speculation
            .policy
            .regular_limits(platform, &node_order);
        let blacklist = &config.copies.placement.blacklist;
        let nodes: Vec<NodeState> = (0..platform.workers)
            .map(|i| {
                let node = Node::new(
                    NodeId(i),
                    platform.cores,
                    platform.threads_per_core,
                    platform.containers,
                )
                .with_active_cores(active[placement[i as usize]]);
                NodeState {
                    node,
                    regular: 0,
                    copies: 0,
                    regular_limit: regular_limits[i as usize],
                    rate: 0.0,
                    shadows: 0,
                    blacklisted: blacklist.contains(&i),
                    slow: false,
                }
            })
            .collect();

        let stages = vec![
            Stage {
                job: JOB,
                kind: TaskKind::Map,
            },
            Stage {
                job: JOB,
                kind: TaskKind::Reduce,
            },
        ];
        let mut noise = Stream::new(seed, &[label("noise")]);
        let mut tasks = Vec::new();
        let mut state = Vec::new();
        let kinds = [
            (
                TaskKind::Map,
                MAP_STAGE,
                workload.maps,
                workload.map_work_secs,
                workload.map_input_bytes,
            ),
            (
                TaskKind::Reduce,
                REDUCE_STAGE,
                workload.reduces,
                workload.reduce_work_secs,
                workload.reduce_input_bytes,
            ),
        ];
        for (kind, stage, count, work, input_bytes) in kinds {
            for index in 0..count {
                let id = TaskId(tasks.len() as u32);
                tasks.push(Task {
                    id,
                    key: TaskKey {
                        job: JOB,
                        kind,
                        index,
                    },
                    stage,
                    input_bytes,
                });
                let original_work = work * work_factor(config, &mut noise);
                state.push(TaskState {
                    original_work,
                    ..TaskState::default()
                });
            }
        }
        let pending_maps = (0..workload.maps).map(TaskId).collect();
        let pending_reduces = (workload.maps..workload.maps + workload.reduces)
            .map(TaskId)
            .collect();
        let snapshot = Snapshot::new(0.0, platform.workers, stages.clone())?;
        Ok(Engine {
            config,
            load: vec![LoadTimeline::default(); nodes.len()],
            nodes,
            node_order,
            stages,
            tasks,
            state,
            attempts: Vec::new(),
            live: Vec::new(),
            live_slot: Vec::new(),
            pending_maps,
            pending_reduces,
            reduces_released: false,
            maps_done: 0,
            tasks_done: 0,
            candidates: Vec::new(),
            kind_tasks: [workload.maps, workload.reduces],
            running_originals: [0; 2],
            running_copies: [0; 2],
            shadows: Vec::new(),
            killed_original_exact_secs: vec![None; (workload.maps + workload.reduces) as usize],
            detections: Vec::new(),
            copy_noise: Stream::new(seed, &[label("copies")]),
            snapshot,
            findings: Findings::default(),
            slow_nodes: SlowNodeEffect::default(),
            reports: Vec::new(),
            now: 0.0,
        })
    }

    fn run<D: Detector + ?Sized>(&mut self, mut detector: Option<&mut D>) -> Result<(), SimError> {
        let speculation = &self.config.speculation;
        if let Some(d) = detector.as_deref_mut() {
            self.slow_nodes = SlowNodeEffect::new(self.config, d.slow_node_rule());
            // The job is submitted at the start of the run.
            d.observe(&Observation::JobSubmitted {
                job: JOB,
                time_secs: self.now,
            });
        }
        let (mut heartbeats, mut scans) = (1u64, 1u64);
        self.release_reduces();
        self.fill();
        while self.tasks_done < self.tasks.len() {
            let next_heartbeat = heartbeats as f64 * speculation.heartbeat_secs;
            let next_scan = match detector.is_some() {
                true => scans as f64 * speculation.scan_interval_secs,
                false => f64::INFINITY,
            };
            let next_tick = next_heartbeat.min(next_scan);
            // The attempt due first finishes at `next` whatever the rounding of `rate * dt`:
            // a remainder smaller than an ulp of `now` must not stop time.
            let (next, due) = match self.next_completion() {
                Some((time, attempt)) if time <= next_tick => (time.max(self.now), Some(attempt)),
                _ => (next_tick, None),
            };
            if next > self.config.time_limit_secs {
                return Err(SimError::DidNotFinish {
                    limit_secs: self.config.time_limit_secs,
                    done: self.tasks_done,
                    total: self.tasks.len(),
                });
            }
            self.advance_to(next, due);
            self.observe_reports(detector.as_deref_mut());
            self.complete_finished(detector.as_deref_mut());
            if next == next_heartbeat {
                heartbeats += 1;
                if !speculation.per_attempt_reports {
                    self.report_progress(detector.as_deref_mut());
                }
            }
            self.fill();
            if next == next_scan {
                scans += 1;
                if let Some(d) = detector.as_deref_mut() {
                    self.scan(d)?;
                    self.fill();
                }
            }
        }
        Ok(())
    }

    /// When the first running attempt finishes at the current rates, and which one (the
    /// lowest attempt id on a tie).
    fn next_completion(&mut self) -> Option<(f64, AttemptId)> {
        for node in &mut self.nodes {
            node.rate = self.config.slowdown.rate(&node.node, node.used());
        }
        self.live
            .iter()
            .map(|l| {
                (
                    self.now + (l.work_total - l.work_done) / self.nodes[l.node].rate,
                    l.attempt,
                )
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
    }

    /// Moves time to `time`; every attempt progresses at its node's rate, and `due`, the
    /// attempt whose completion defines `time`, is exactly done.
    ///
    /// With per-attempt reports, an attempt whose report falls in `(now, time]` reports
    /// the progress it had then, exact: its node's rate is constant in between.
    fn advance_to(&mut self, time: f64, due: Option<AttemptId>) {
        let dt = time - self.now;
        let speculation = &self.config.speculation;
        for l in &mut self.live {
            let rate = self.nodes[l.node].rate;
            while speculation.per_attempt_reports && l.next_report_secs <= time {
                let at = l.next_report_secs;
                let done = l.work_done + rate * (at - self.now);
                let progress = (done / l.work_total).clamp(0.0, 1.0);
                l.reported = Some(progress);
                self.reports.push((at, l.attempt, progress));
                l.next_report_secs += speculation.heartbeat_secs;
            }
            l.work_done += rate * dt;
            if Some(l.attempt) == due {
                l.work_done = l.work_done.max(l.work_total);
            }
        }
        self.advance_shadows(self.now, time);
        self.now = time;
    }

    /// Runs the shadows of killed originals from `from` to `to` (infinite: to their ends),
    /// the load of every node being constant in between. A shadow runs at the rate its node
    /// gives each of `used + shadows` attempts; a shadow that ends within the interval
    /// speeds up the others on its node from that instant.
    fn advance_shadows(&mut self, from: f64, to: f64) {
        let mut t = from;
        while !self.shadows.is_empty() {
            let mut first: Option<(f64, usize)> = None;
            for (i, s) in self.shadows.iter_mut().enumerate() {
                let node = &self.nodes[s.node];
                s.rate = self
                    .config
                    .slowdown
                    .rate(&node.node, node.used() + node.shadows);
                let end = t + s.work_left / s.rate;
                if first.is_none_or(|(e, _)| end < e) {
                    first = Some((end, i));
                }
            }
            let Some((end, due)) = first.filter(|(end, _)| end.is_finite()) else {
                return;
            };
            let step_end = end.min(to);
            let dt = step_end - t;
            for (i, s) in self.shadows.iter_mut().enumerate() {
                s.work_left -= s.rate * dt;
                if i == due && end <= to {
                    s.work_left = 0.0;
                }
            }
            let mut i = 0;
            while i < self.shadows.len() {
                let s = &self.shadows[i];
                if s.work_left <= s.work_total * FINISH_SLACK {
                    let s = self.shadows.swap_remove(i);
                    self.nodes[s.node].shadows -= 1;
                    self.killed_original_exact_secs[s.task.index()] = Some(step_end - s.start_secs);
                } else {
                    i += 1;
                }
            }
            t = step_end;
            if end > to {
                return;
            }
        }
    }

    fn complete_finished<D: Detector + ?Sized>(&mut self, mut detector: Option<&mut D>) {
        let mut finished: Vec<AttemptId> = self
            .live
            .iter()
            .filter(|l| l.work_done >= l.work_total * (1.0 - FINISH_SLACK))
            .map(|l| l.attempt)
            .collect();
        finished.sort_unstable();
        for attempt in finished {
            let task = self.attempts[attempt.index()].task;
            if self.state[task.index()].done {
                continue; // its sibling finished at the same instant and won
            }
            self.end_attempt(attempt, AttemptStatus::Succeeded, detector.as_deref_mut());
            let state = &mut self.state[task.index()];
            state.done = true;
            let siblings: Vec<AttemptId> = state
                .original
                .into_iter()
                .chain(state.copies.iter().copied())
                .filter(|&a| a != attempt && self.live_slot[a.index()] != NOT_LIVE)
                .collect();
            for sibling in siblings {
                self.end_attempt(sibling, AttemptStatus::Killed, detector.as_deref_mut());
            }
            self.tasks_done += 1;
            if self.tasks[task.index()].key.kind == TaskKind::Map {
                self.maps_done += 1;
                self.release_reduces();
            }
        }
    }

    fn release_reduces(&mut self) {
        let workload = &self.config.workload;
        let needed = (workload.reduce_slowstart * f64::from(workload.maps)).ceil() as u32;
        if !self.reduces_released && self.maps_done >= needed {
            self.reduces_released = true;
        }
    }

    fn end_attempt<D: Detector + ?Sized>(
        &mut self,
        id: AttemptId,
        status: AttemptStatus,
        detector: Option<&mut D>,
    ) {
        let slot = self.live_slot[id.index()] as usize;
        let live = self.live.swap_remove(slot);
        if let Some(moved) = self.live.get(slot) {
            self.live_slot[moved.attempt.index()] = slot as u32;
        }
        self.live_slot[id.index()] = NOT_LIVE;
        let attempt = &mut self.attempts[id.index()];
        attempt.end_secs = Some(self.now);
        attempt.status = status;
        attempt.progress_at_end = match status {
            AttemptStatus::Succeeded => 1.0,
            _ => (live.work_done / live.work_total).clamp(0.0, 1.0),
        };
        let kind = kind_index(self.tasks[attempt.task.index()].key.kind);
        let node = &mut self.nodes[live.node];
        match attempt.role {
            AttemptRole::Original => {
                node.regular -= 1;
                self.running_originals[kind] -= 1;
            }
            AttemptRole::Speculative => {
                node.copies -= 1;
                self.running_copies[kind] -= 1;
            }
        }
        self.load[live.node].record(self.now, node.used());
        if status == AttemptStatus::Killed && attempt.role == AttemptRole::Original {
            node.shadows += 1;
            self.shadows.push(Shadow {
                task: attempt.task,
                node: live.node,
                start_secs: attempt.start_secs,
                work_total: live.work_total,
                work_left: (live.work_total - live.work_done).max(0.0),
                rate: 0.0,
            });
        }
        if let Some(d) = detector {
            let task = &self.tasks[attempt.task.index()];
            d.observe(&Observation::AttemptEnded(AttemptEnd {
                attempt: id,
                task: task.id,
                stage: task.stage,
                node: attempt.node,
                role: attempt.role,
                start_secs: attempt.start_secs,
                end_secs: self.now,
                status,
                input_bytes: task.input_bytes,
            }));
        }
    }

    /// Hands the detector the per-attempt reports made since the last call, in time order
    /// (attempt order on a tie).
    fn observe_reports<D: Detector + ?Sized>(&mut self, detector: Option<&mut D>) {
        let mut reports = std::mem::take(&mut self.reports);
        if let Some(d) = detector {
            reports.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            for &(time_secs, id, progress) in &reports {
                let attempt = &self.attempts[id.index()];
                d.observe(&Observation::Progress(ProgressReport {
                    attempt: id,
                    task: attempt.task,
                    stage: self.tasks[attempt.task.index()].stage,
                    node: attempt.node,
                    time_secs,
                    progress,
                }));
            }
        }
        reports.clear();
        self.reports = reports;
    }

    fn report_progress<D: Detector + ?Sized>(&mut self, detector: Option<&mut D>) {
        for l in &mut self.live {
            l.reported = Some((l.work_done / l.work_total).clamp(0.0, 1.0));
        }
        if let Some(d) = detector {
            for l in &self.live {
                let attempt = &self.attempts[l.attempt.index()];
                d.observe(&Observation::Progress(ProgressReport {
                    attempt: l.attempt,
                    task: attempt.task,
                    stage: self.tasks[attempt.task.index()].stage,
                    node: attempt.node,
                    time_secs: self.now,
                    progress: l.reported.unwrap_or(0.0),
                }));
            }
        }
    }

    fn regular_waiting(&self) -> bool {
        !self.pending_maps.is_empty() || (self.reduces_released && !self.pending_reduces.is_empty())
    }

    /// Gives free containers to waiting regular tasks and to copies, in the policy's order.
    fn fill(&mut self) {
        if self.config.speculation.policy.copies_first() {
            self.launch_copies();
            self.launch_regular();
        } else {
            self.launch_regular();
            self.launch_copies();
        }
    }

    fn launch_regular(&mut self) {
        for i in 0..self.node_order.len() {
            let n = self.node_order[i];
            loop {
                let node = &self.nodes[n];
                if node.regular >= node.regular_limit
                    || node.used() >= node.node.containers
                    || (self.slow_nodes.no_tasks && node.slow)
                {
                    break;
                }
                let next = match self.pending_maps.pop_front() {
                    Some(task) => task,
                    None if self.reduces_released => match self.pending_reduces.pop_front() {
                        Some(task) => task,
                        None => return,
                    },
                    None => return,
                };
                let work = self.state[next.index()].original_work;
                let id = self.start(next, n, AttemptRole::Original, work);
                self.state[next.index()].original = Some(id);
            }
        }
    }

    /// Whether node `n` has room for a copy now under the policy.
    fn copy_room(&self, n: usize) -> bool {
        let node = &self.nodes[n];
        let reserved = node.node.containers - node.regular_limit;
        let room = match self.config.speculation.policy {
            Policy::Shared => true,
            Policy::Reserved { .. } => node.copies < reserved || !self.regular_waiting(),
        };
        room && node.used() < node.node.containers
    }

    /// Whether the placement rules let a copy of `task` run on node `n`.
    fn placement_allows(&self, task: TaskId, n: usize) -> bool {
        let placement = &self.config.copies.placement;
        let node = &self.nodes[n];
        if node.blacklisted
            || node.node.active_cores < placement.min_active_cores
            || (self.slow_nodes.no_copies && node.slow)
        {
            return false;
        }
        if placement.avoid_original_node {
            let state = &self.state[task.index()];
            let here = |a: &AttemptId| self.attempts[a.index()].node.index() == n;
            if state.original.iter().chain(&state.copies).any(here) {
                return false;
            }
        }
        true
    }

    /// Whether Hadoop's caps (if on) let one more copy of a task of `kind` run.
    fn cap_allows(&self, kind: usize) -> bool {
        match &self.config.copies.caps {
            None => true,
            Some(caps) => {
                f64::from(self.running_copies[kind])
                    < caps.allowed(self.kind_tasks[kind], self.running_originals[kind])
            }
        }
    }

    /// Launches copies of the candidates, in their order, each on the allowed node with
    /// the most free containers (the lowest index on a tie). A candidate that cannot run
    /// now stays a candidate until the next scan.
    fn launch_copies(&mut self) {
        if self.candidates.is_empty() || !(0..self.nodes.len()).any(|n| self.copy_room(n)) {
            return;
        }
        let max_copies = self.config.copies.max_copies_per_task as usize;
        let mut candidates = std::mem::take(&mut self.candidates);
        candidates.retain(|&task| {
            let state = &self.state[task.index()];
            if state.done || state.copies.len() >= max_copies {
                return false;
            }
            let kind = kind_index(self.tasks[task.index()].key.kind);
            if !self.cap_allows(kind) {
                return true;
            }
            let target = self
                .node_order
                .iter()
                .copied()
                .filter(|&n| self.copy_room(n) && self.placement_allows(task, n))
                .max_by_key(|&n| {
                    (
                        self.nodes[n].node.containers - self.nodes[n].used(),
                        std::cmp::Reverse(n),
                    )
                });
            let Some(n) = target else { return true };
            let base = match self.tasks[task.index()].key.kind {
                TaskKind::Map => self.config.workload.map_work_secs,
                TaskKind::Reduce => self.config.workload.reduce_work_secs,
            };
            let work = base * work_factor(self.config, &mut self.copy_noise);
            let id = self.start(task, n, AttemptRole::Speculative, work);
            self.state[task.index()].copies.push(id);
            false
        });
        self.candidates = candidates;
    }

    fn start(&mut self, task: TaskId, n: usize, role: AttemptRole, work: f64) -> AttemptId {
        let id = AttemptId(self.attempts.len() as u32);
        self.attempts
            .push(Attempt::started(id, task, NodeId(n as u32), role, self.now));
        self.live_slot.push(self.live.len() as u32);
        self.live.push(Live {
            attempt: id,
            node: n,
            work_total: work,
            work_done: 0.0,
            reported: None,
            next_report_secs: self.now + self.config.speculation.heartbeat_secs,
        });
        let kind = kind_index(self.tasks[task.index()].key.kind);
        let node = &mut self.nodes[n];
        match role {
            AttemptRole::Original => {
                node.regular += 1;
                self.running_originals[kind] += 1;
            }
            AttemptRole::Speculative => {
                node.copies += 1;
                self.running_copies[kind] += 1;
            }
        }
        self.load[n].record(self.now, node.used());
        id
    }

    /// Runs the detector and records its first detections of original attempts.
    ///
    /// Detection starts once the job has run longer than the speculative lag (condition
    /// (ii) of the paper's Table 1; the scan at exactly the lag does not run). Condition
    /// (i), "no waiting unscheduled task", is applied only with `wait_for_pending_tasks`:
    /// by default tasks waiting for a container do not hold detection back, a departure
    /// from the paper's text that its Figure 3 and Detection Latencies call for
    /// (`docs/simulation.md`); they hold copies back under the `x100` policy (see
    /// [`Policy`]).
    ///
    /// The snapshot holds the running attempts that have reported progress at least once:
    /// the master knows an attempt's progress only from its reports, and a detector cannot
    /// judge the speed of an attempt it has not heard from.
    fn scan<D: Detector + ?Sized>(&mut self, detector: &mut D) -> Result<(), SimError> {
        if self.now <= self.config.speculation.lag_secs {
            return Ok(());
        }
        self.snapshot.clear(self.now)?;
        self.snapshot
            .set_pending(MAP_STAGE, self.pending_maps.len() as u32)?;
        self.snapshot
            .set_pending(REDUCE_STAGE, self.pending_reduces.len() as u32)?;
        for l in &self.live {
            let Some(progress) = l.reported else { continue };
            let attempt = &self.attempts[l.attempt.index()];
            let task = &self.tasks[attempt.task.index()];
            self.snapshot.push(SnapshotRow {
                attempt: l.attempt,
                task: task.id,
                stage: task.stage,
                node: attempt.node,
                role: attempt.role,
                start_secs: attempt.start_secs,
                progress,
                input_bytes: task.input_bytes as f64,
            })?;
        }
        self.findings.clear();
        detector.scan(&self.snapshot, &mut self.findings);
        self.findings.check(detector.name(), &self.snapshot)?;
        for node in &mut self.nodes {
            node.slow = false;
        }
        for slow in self.findings.slow_nodes() {
            if let Some(node) = self.nodes.get_mut(slow.index()) {
                node.slow = true;
            }
        }

        let mut flagged: Vec<(f64, TaskId)> = Vec::new();
        for &row in self.findings.rows() {
            let Some(row) = self.snapshot.row(row as usize) else {
                continue;
            };
            let waits = self.config.speculation.wait_for_pending_tasks
                && self.snapshot.pending(row.stage) > 0;
            if row.role != AttemptRole::Original || waits {
                continue;
            }
            let state = &mut self.state[row.task.index()];
            if !state.detected {
                state.detected = true;
                self.detections.push(Detection {
                    task: row.task,
                    attempt: row.attempt,
                    time_secs: self.now,
                });
            }
            if state.copies.len() < self.config.copies.max_copies_per_task as usize {
                flagged.push((
                    estimated_remaining_secs(self.now, row.start_secs, row.progress),
                    row.task,
                ));
            }
        }
        // Longest estimated time to end first (LATE's order), task id on a tie.
        flagged.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        if let Some(limit) = self.config.copies.launches_per_scan {
            flagged.truncate(limit as usize);
        }
        self.candidates.clear();
        self.candidates
            .extend(flagged.into_iter().map(|(_, task)| task));
        Ok(())
    }

    fn finish(mut self) -> Outcome {
        // The job is over: the shadows still running finish on otherwise idle nodes.
        self.advance_shadows(self.now, f64::INFINITY);
        let run = Run {
            nodes: self.nodes.iter().map(|n| n.node).collect(),
            stages: self.stages,
            tasks: self.tasks,
            attempts: self.attempts,
            detections: self.detections,
            load: self.load,
            end_secs: self.now,
        };
        Outcome {
            run,
            killed_original_exact_secs: self.killed_original_exact_secs,
        }
    }
}

/// The index of a kind in per-kind counters.
fn kind_index(kind: TaskKind) -> usize {
    match kind {
        TaskKind::Map => 0,
        TaskKind::Reduce => 1,
    }
}

/// Remaining time by Hadoop's legacy estimator: `elapsed * (1 - p) / max(p, 1e-4)`.
fn estimated_remaining_secs(now: f64, start: f64, progress: f64) -> f64 {
    (now - start) * (1.0 - progress) / progress.max(1e-4)
}

/// One draw of the per-attempt work factor (see [`Noise`](crate::Noise)).
fn work_factor(config: &SimConfig, stream: &mut Stream) -> f64 {
    let noise = &config.noise;
    let lognormal = (noise.sigma * stream.normal()).exp();
    let outlier = if stream.uniform() < noise.outlier_probability {
        noise.outlier_min + (noise.outlier_max - noise.outlier_min) * stream.uniform()
    } else {
        // Keep the stream aligned whether or not the attempt is an outlier.
        let _ = stream.uniform();
        1.0
    };
    lognormal * outlier
}
