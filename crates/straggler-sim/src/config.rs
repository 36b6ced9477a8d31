//! What a simulation runs: the platform, the straggler scenario, the job, the per-task
//! noise, the speculation policy and the slowdown and power models. Defaults are the seed
//! paper's (Sections 5.2-5.5, 6.2, 7.1) where it gives a value; the others are assumptions
//! documented in `docs/simulation.md`.

use serde::{Deserialize, Serialize};
use straggler_energy::{PowerModel, SlowdownModel};

use crate::SimError;
use crate::error::{check, in_table};
use crate::limits::{self, at_most};

/// The cluster: identical workers (the paper's Grid'5000 nodes, Sections 5.1-5.2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Platform {
    /// Worker nodes (20).
    pub workers: u32,
    /// Cores per worker (4, Intel Xeon X3440).
    pub cores: u32,
    /// Hardware threads per core (2).
    pub threads_per_core: u32,
    /// Containers per worker (8).
    pub containers: u32,
}

impl Default for Platform {
    fn default() -> Self {
        Platform {
            workers: 20,
            cores: 4,
            threads_per_core: 2,
            containers: 8,
        }
    }
}

/// A straggler-injection scenario (Section 5.4): `group_percent[i]` percent of the workers
/// belong to group G_(i+1) and have `i + 1` active cores. There are as many groups as cores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    /// Name used in results (`"C1"`).
    pub name: String,
    /// Percent of workers in each group, summing to 100.
    pub group_percent: Vec<f64>,
}

impl Scenario {
    /// A scenario from its name and group percentages.
    pub fn new(name: &str, group_percent: &[f64]) -> Self {
        Scenario {
            name: name.to_owned(),
            group_percent: group_percent.to_vec(),
        }
    }
    /// Every worker with all its 4 cores, the paper's: the platform of its baseline runs
    /// ([`Scenario::homogeneous_on`] for another number of cores).
    pub fn homogeneous() -> Self {
        Scenario::new("homogeneous", &[0.0, 0.0, 0.0, 100.0])
    }
    /// Every worker of `platform` with all its cores: the platform of the baseline runs.
    ///
    /// It holds one group per core: more cores than
    /// [`MAX_CORES_PER_NODE`](limits::MAX_CORES_PER_NODE) are an error naming
    /// `platform.cores`, as [`SimConfig::check`] gives, rather than an allocation that aborts.
    pub fn homogeneous_on(platform: &Platform) -> Result<Self, SimError> {
        at_most("platform.cores", platform.cores, limits::MAX_CORES_PER_NODE)?;
        let mut groups = vec![0.0; platform.cores as usize];
        if let Some(all) = groups.last_mut() {
            *all = 100.0;
        }
        Ok(Scenario::new("homogeneous", &groups))
    }
    /// C1 = (35, 35, 5, 25).
    pub fn c1() -> Self {
        Scenario::new("C1", &[35.0, 35.0, 5.0, 25.0])
    }
    /// C2 = (25, 25, 25, 25).
    pub fn c2() -> Self {
        Scenario::new("C2", &[25.0, 25.0, 25.0, 25.0])
    }
    /// C3 = (10, 10, 5, 75).
    pub fn c3() -> Self {
        Scenario::new("C3", &[10.0, 10.0, 5.0, 75.0])
    }
    /// C4 = (5, 5, 0, 90).
    pub fn c4() -> Self {
        Scenario::new("C4", &[5.0, 5.0, 0.0, 90.0])
    }
    /// The paper's four scenarios, C1 to C4.
    pub fn paper() -> Vec<Scenario> {
        vec![
            Scenario::c1(),
            Scenario::c2(),
            Scenario::c3(),
            Scenario::c4(),
        ]
    }

    /// The number of active cores of each worker, group by group (G1 first), with group
    /// sizes rounded by largest remainder so that they sum to `platform.workers`.
    ///
    /// One entry per worker: more workers than [`MAX_NODES`](limits::MAX_NODES) are an
    /// error naming `platform.workers`, as [`SimConfig::check`] gives, rather than an
    /// allocation that aborts; so is a group list whose length is not `platform.cores`.
    pub fn active_cores(&self, platform: &Platform) -> Result<Vec<u32>, SimError> {
        self.active_cores_as(platform, &format!("scenario {}.group_percent", self.name))
    }

    /// [`Scenario::active_cores`], an error naming the groups `field` (the key that
    /// wrote them).
    pub(crate) fn active_cores_as(
        &self,
        platform: &Platform,
        field: &str,
    ) -> Result<Vec<u32>, SimError> {
        at_most("platform.workers", platform.workers, limits::MAX_NODES)?;
        let field = field.to_owned();
        if self.group_percent.len() != platform.cores as usize {
            return Err(SimError::InvalidConfig {
                field,
                value: format!("{} groups", self.group_percent.len()),
                expected: "one group per core of the platform".into(),
            });
        }
        for &p in &self.group_percent {
            check(&field, p, "in [0, 100]", |p| (0.0..=100.0).contains(&p))?;
        }
        let total: f64 = self.group_percent.iter().sum();
        check(&format!("{field} (sum)"), total, "100", |t| {
            (t - 100.0).abs() < 1e-9
        })?;
        let workers = f64::from(platform.workers);
        let exact: Vec<f64> = self
            .group_percent
            .iter()
            .map(|p| p / 100.0 * workers)
            .collect();
        let mut counts: Vec<u32> = exact.iter().map(|e| e.floor() as u32).collect();
        let mut by_remainder: Vec<usize> = (0..exact.len()).collect();
        by_remainder.sort_by(|&a, &b| {
            let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
            rb.total_cmp(&ra).then(a.cmp(&b))
        });
        let missing = platform.workers.saturating_sub(counts.iter().sum::<u32>());
        for &group in by_remainder.iter().take(missing as usize) {
            counts[group] += 1;
        }
        Ok(counts
            .iter()
            .enumerate()
            .flat_map(|(group, &count)| std::iter::repeat_n(group as u32 + 1, count as usize))
            .collect())
    }
}

/// The job: a WordCount-like, CPU-bound MapReduce job (Section 5.3, Table 4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Workload {
    /// Map tasks (320: two waves on 160 containers).
    pub maps: u32,
    /// Reduce tasks (160).
    pub reduces: u32,
    /// Work of a map, in seconds of a task running alone on a core (assumption: 40 s,
    /// about 62 s on a fully loaded node with the default slowdown model).
    pub map_work_secs: f64,
    /// Work of a reduce (assumption: 15 s).
    pub reduce_work_secs: f64,
    /// Input of a map in bytes (20 GB / 320 = 64 MiB blocks).
    pub map_input_bytes: u64,
    /// Input of a reduce in bytes (400 MB shuffle / 160).
    pub reduce_input_bytes: u64,
    /// Fraction of maps completed before reduces are scheduled (1.0: after the map phase).
    pub reduce_slowstart: f64,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            maps: 320,
            reduces: 160,
            map_work_secs: 40.0,
            reduce_work_secs: 15.0,
            map_input_bytes: 64 << 20,
            reduce_input_bytes: 2_500_000,
            reduce_slowstart: 1.0,
        }
    }
}

/// Per-attempt variation of the work, independent of the node: a log-normal factor
/// `exp(sigma * N(0, 1))` and, with a small probability, an outlier slowdown drawn
/// uniformly in `[outlier_min, outlier_max]` (the outliers of the paper's Figure 2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Noise {
    /// Standard deviation of the log of the work factor (0.08, chosen so that the baseline
    /// runs give a Table 5 of the paper's shape; see `docs/simulation.md`).
    pub sigma: f64,
    /// Probability that an attempt is an outlier.
    pub outlier_probability: f64,
    /// Smallest outlier slowdown.
    pub outlier_min: f64,
    /// Largest outlier slowdown.
    pub outlier_max: f64,
}

impl Default for Noise {
    fn default() -> Self {
        Noise {
            sigma: 0.08,
            outlier_probability: 0.005,
            outlier_min: 1.3,
            outlier_max: 2.0,
        }
    }
}

/// Where speculative copies may run (Section 7.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Regular tasks use `regular_percent` percent of the cluster's containers, the
    /// reserved rest spread over the nodes (see [`Policy::regular_limits`]); copies run on
    /// the reserved containers as soon as they are detected, and on free regular containers
    /// once no regular task waits. At 100 (the paper's default), copies start only when
    /// containers free up at the end of a stage.
    Reserved {
        /// The share `x` of containers for regular tasks, in percent.
        regular_percent: u32,
    },
    /// Copies and regular tasks share every container from the start; a detected task's
    /// copy takes the next free container before waiting regular tasks (Section 7.1: copies
    /// are launched as soon as they are detected).
    Shared,
}

/// A policy as serde reads it: its name ([`Policy::from_name`]: `"x95"`, `"shared"`), as an
/// evaluation file may write it, or the form [`Policy`]'s `Serialize` writes
/// (`{"reserved": {"regular_percent": 95}}`, `"shared"`).
impl<'de> Deserialize<'de> for Policy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// The form `Serialize` writes.
        #[derive(Deserialize)]
        #[serde(rename_all = "snake_case", deny_unknown_fields)]
        enum Written {
            Reserved { regular_percent: u32 },
        }
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Policy;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a policy: \"shared\" or \"xN\" (N from 1 to 100)")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Policy, E> {
                Policy::from_name(name)
                    .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(name), &self))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Policy, A::Error> {
                let Written::Reserved { regular_percent } =
                    Written::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Policy::Reserved { regular_percent })
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl Policy {
    /// The paper's default: no reservation.
    pub const X100: Policy = Policy::Reserved {
        regular_percent: 100,
    };

    /// The policy named `name` ([`Policy::name`]): `"shared"`, or `"xN"` with N from 1 to
    /// 100; `None` for any other text.
    pub fn from_name(name: &str) -> Option<Policy> {
        if name == "shared" {
            return Some(Policy::Shared);
        }
        // Digits as `name` writes them: no sign, no leading zero (`x+95`, `x095`).
        let digits = name.strip_prefix('x')?;
        if !digits.bytes().all(|b| b.is_ascii_digit()) || digits.starts_with('0') {
            return None;
        }
        let percent = digits.parse::<u32>().ok()?;
        (1..=100).contains(&percent).then_some(Policy::Reserved {
            regular_percent: percent,
        })
    }

    /// The name used in results: `"x100"`, `"x50"`, `"shared"`.
    pub fn name(&self) -> String {
        match self {
            Policy::Reserved { regular_percent } => format!("x{regular_percent}"),
            Policy::Shared => "shared".to_owned(),
        }
    }

    /// Containers that regular tasks may use on each node, in node-index order.
    ///
    /// The share `x` applies to the cluster's containers: `floor(x% of all containers)` are
    /// regular, and the reserved rest is spread over the nodes, `reserved / workers` on each
    /// and one more on the first `reserved % workers` nodes of `order` (the per-run node
    /// order). Per-node rounding would make x95 and x90 identical on 8-container nodes
    /// (both 7 regular containers); see `docs/simulation.md`.
    ///
    /// Total for any platform and policy, as [`SimConfig::check`] has not checked them: no
    /// worker gives no limit, a share above 100% reserves nothing (as 100%), and indices of
    /// `order` past the last node are skipped. It allocates one `u32` per worker: a checked
    /// platform has at most [`MAX_NODES`](limits::MAX_NODES).
    pub fn regular_limits(&self, platform: &Platform, order: &[usize]) -> Vec<u32> {
        let containers = platform.containers;
        let workers = platform.workers as usize;
        let mut limits = vec![containers; workers];
        if let Policy::Reserved { regular_percent } = self
            && workers > 0
        {
            // In u128: containers times workers times a percent may exceed u64.
            let total = u128::from(containers) * workers as u128;
            let regular = total * u128::from((*regular_percent).min(100)) / 100;
            let reserved = total - regular;
            // At most `containers` each, and fewer extra than workers.
            let each = (reserved / workers as u128) as u32;
            let extra = (reserved % workers as u128) as usize;
            for limit in &mut limits {
                *limit = limit.saturating_sub(each);
            }
            for &n in order.iter().take(extra) {
                if let Some(limit) = limits.get_mut(n) {
                    *limit = limit.saturating_sub(1);
                }
            }
        }
        limits
    }

    /// The policies of the paper's Section 7 (Table 7), in its order: x100, x95, x90, x75,
    /// x50, Shared.
    pub fn section7() -> Vec<Policy> {
        let mut all: Vec<Policy> = [100, 95, 90, 75, 50]
            .into_iter()
            .map(|regular_percent| Policy::Reserved { regular_percent })
            .collect();
        all.push(Policy::Shared);
        all
    }

    /// Whether copies take free containers before waiting regular tasks.
    pub(crate) fn copies_first(&self) -> bool {
        matches!(self, Policy::Shared)
    }
}

/// How the engine runs detection and acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Speculation {
    /// No detection before the job has run this long (Hadoop's default 60 s; the paper
    /// uses 20 s, Section 6.2).
    pub lag_secs: f64,
    /// Time between two scans (Hadoop's speculator: 1 s).
    pub scan_interval_secs: f64,
    /// Time between two progress reports of a node (Hadoop's task progress interval: 3 s).
    pub heartbeat_secs: f64,
    /// Whether each attempt reports on its own timer, `heartbeat_secs` after its launch
    /// and every `heartbeat_secs` from then on (Hadoop's tasks), rather than all attempts
    /// at the same instants (the default, the model the published figures use; see
    /// `docs/simulation.md`).
    #[serde(default)]
    pub per_attempt_reports: bool,
    /// Where copies run.
    pub policy: Policy,
    /// Whether detection in a stage also waits until none of its tasks waits for a
    /// container: the paper's Table 1, condition (i), as `framework-spec.md` states it,
    /// and Hadoop 2's speculator, which skips a job with containers still waiting. Off by
    /// default, a departure from both: the paper's Figure 3 and Detection Latencies need
    /// detection to start at the lag (see `docs/simulation.md`).
    pub wait_for_pending_tasks: bool,
}

impl Default for Speculation {
    fn default() -> Self {
        Speculation {
            lag_secs: 20.0,
            scan_interval_secs: 1.0,
            heartbeat_secs: 3.0,
            per_attempt_reports: false,
            policy: Policy::X100,
            wait_for_pending_tasks: false,
        }
    }
}

/// Hadoop's caps on running copies (`DefaultSpeculator`; Tez uses the same): a copy of a
/// task of a kind (map or reduce) is launched only while fewer copies of that kind run than
/// `max(minimum_allowed, total_fraction x tasks of the kind, running_fraction x running
/// tasks of the kind)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CopyCaps {
    /// `speculative-cap-running-tasks` (0.1).
    pub running_fraction: f64,
    /// `speculative-cap-total-tasks` (0.01).
    pub total_fraction: f64,
    /// `minimum-allowed-tasks` (10).
    pub minimum_allowed: u32,
}

impl Default for CopyCaps {
    fn default() -> Self {
        CopyCaps {
            running_fraction: 0.1,
            total_fraction: 0.01,
            minimum_allowed: 10,
        }
    }
}

impl CopyCaps {
    /// Copies of a kind that may run at once, with `tasks` tasks of the kind of which
    /// `running` are running.
    pub fn allowed(&self, tasks: u32, running: u32) -> f64 {
        f64::from(self.minimum_allowed)
            .max(self.total_fraction * f64::from(tasks))
            .max(self.running_fraction * f64::from(running))
    }
}

/// Where a speculative copy may run, and where the nodes a detector judges slow keep new
/// work from. Every rule holds together with the policy's room.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CopyPlacement {
    /// Never on the node of the original attempt it copies (Tez and Spark do so; on by
    /// default, see `docs/simulation.md`: here a node's slowness is the main cause of a
    /// straggler, so a copy beside its original shares it).
    pub avoid_original_node: bool,
    /// Only on nodes with at least this many active cores, that is of group G_i with
    /// `i >= min_active_cores` (0: any node).
    pub min_active_cores: u32,
    /// Never on these nodes (node indices, `0 .. platform.workers`).
    pub blacklist: Vec<u32>,
    /// Never on a node the detector reported slow at its last scan (`Findings::slow_nodes`),
    /// whatever the detector's own rule: for detectors whose slow nodes are information
    /// only (`SlowNodeRule::Report`, such as a detector of yours).
    pub avoid_slow_nodes: bool,
    /// Apply the detector's `Detector::slow_node_rule` to the nodes it reported slow at its
    /// last scan (on by default): `dsb` and `dsb-top<k>` give them neither new tasks nor
    /// copies (seed 002), `esplash` and `late-zaharia` no copy (seed 001, Section IV-D;
    /// LATE's SlowNodeThreshold). Off: their node judgements place nothing, for ablations.
    pub follow_slow_node_rule: bool,
}

impl Default for CopyPlacement {
    fn default() -> Self {
        CopyPlacement {
            avoid_original_node: true,
            min_active_cores: 0,
            blacklist: Vec::new(),
            avoid_slow_nodes: false,
            follow_slow_node_rule: true,
        }
    }
}

/// What the engine does with a detection: how many copies, how fast, and where. A policy
/// separate from the detector, which only flags attempts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CopyControls {
    /// At most this many copies of a task over the run (1, as Hadoop, Spark and Tez; MRSG
    /// allows 2). A task flagged again gets another copy while it has fewer.
    pub max_copies_per_task: u32,
    /// At most this many copies launched after each scan (`None`: unlimited; Hadoop's
    /// speculator launches one map and one reduce copy per scan).
    pub launches_per_scan: Option<u32>,
    /// Hadoop's caps on running copies (`None`: off, the paper's setting).
    pub caps: Option<CopyCaps>,
    /// Where copies may run.
    pub placement: CopyPlacement,
}

impl Default for CopyControls {
    fn default() -> Self {
        CopyControls {
            max_copies_per_task: 1,
            launches_per_scan: None,
            caps: None,
            placement: CopyPlacement::default(),
        }
    }
}

impl CopyControls {
    /// Checks every value against the platform; the error names the first bad key.
    pub fn check(&self, platform: &Platform) -> Result<(), SimError> {
        check(
            "copies.max_copies_per_task",
            f64::from(self.max_copies_per_task),
            ">= 1",
            |v| v >= 1.0,
        )?;
        if let Some(n) = self.launches_per_scan {
            check("copies.launches_per_scan", f64::from(n), ">= 1", |v| {
                v >= 1.0
            })?;
        }
        if let Some(caps) = &self.caps {
            check(
                "copies.caps.running_fraction",
                caps.running_fraction,
                "in [0, 1]",
                |v| (0.0..=1.0).contains(&v),
            )?;
            check(
                "copies.caps.total_fraction",
                caps.total_fraction,
                "in [0, 1]",
                |v| (0.0..=1.0).contains(&v),
            )?;
        }
        check(
            "copies.placement.min_active_cores",
            f64::from(self.placement.min_active_cores),
            "at most platform.cores",
            |v| v <= f64::from(platform.cores),
        )?;
        for &node in &self.placement.blacklist {
            check(
                "copies.placement.blacklist",
                f64::from(node),
                "a node index below platform.workers",
                |v| v < f64::from(platform.workers),
            )?;
        }
        Ok(())
    }
}

/// Everything a simulation needs but the scenario, the detector and the seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SimConfig {
    /// The cluster.
    pub platform: Platform,
    /// The job.
    pub workload: Workload,
    /// Per-attempt variation.
    pub noise: Noise,
    /// Detection and copies.
    pub speculation: Speculation,
    /// What the engine does with a detection (copies per task, launches per scan, caps,
    /// placement).
    #[serde(default)]
    pub copies: CopyControls,
    /// How tasks sharing a node slow each other down.
    pub slowdown: SlowdownModel,
    /// Power drawn by a node.
    pub power: PowerModel,
    /// Simulated time after which a run is abandoned with an error.
    pub time_limit_secs: f64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            platform: Platform::default(),
            workload: Workload::default(),
            noise: Noise::default(),
            speculation: Speculation::default(),
            copies: CopyControls::default(),
            slowdown: SlowdownModel::default(),
            power: PowerModel::default(),
            time_limit_secs: 1e6,
        }
    }
}

impl SimConfig {
    /// The paper's setting with the given policy.
    pub fn paper(policy: Policy) -> Self {
        let mut config = SimConfig::default();
        config.speculation.policy = policy;
        config
    }

    /// Checks every value; the error names the first bad key.
    pub fn check(&self) -> Result<(), SimError> {
        let positive = |field: &str, v: u32| check(field, f64::from(v), ">= 1", |v| v >= 1.0);
        let p = &self.platform;
        positive("platform.workers", p.workers)?;
        positive("platform.cores", p.cores)?;
        positive("platform.threads_per_core", p.threads_per_core)?;
        positive("platform.containers", p.containers)?;
        at_most("platform.workers", p.workers, limits::MAX_NODES)?;
        at_most("platform.cores", p.cores, limits::MAX_CORES_PER_NODE)?;
        at_most(
            "platform.threads_per_core",
            p.threads_per_core,
            limits::MAX_CORES_PER_NODE,
        )?;
        at_most(
            "platform.containers",
            p.containers,
            limits::MAX_CONTAINERS_PER_NODE,
        )?;
        at_most(
            "platform.workers * platform.containers",
            u64::from(p.workers) * u64::from(p.containers),
            limits::MAX_CONTAINERS,
        )?;
        let w = &self.workload;
        positive("workload.maps", w.maps)?;
        at_most("workload.maps", w.maps, limits::MAX_TASKS_PER_STAGE)?;
        at_most("workload.reduces", w.reduces, limits::MAX_TASKS_PER_STAGE)?;
        check("workload.map_work_secs", w.map_work_secs, "> 0", |v| {
            v > 0.0
        })?;
        check(
            "workload.reduce_work_secs",
            w.reduce_work_secs,
            "> 0",
            |v| v > 0.0,
        )?;
        check(
            "workload.reduce_slowstart",
            w.reduce_slowstart,
            "in [0, 1]",
            |v| (0.0..=1.0).contains(&v),
        )?;
        let n = &self.noise;
        // Up to 1, so that exp(sigma * N(0, 1)) stays finite and positive for every draw.
        check("noise.sigma", n.sigma, "in [0, 1]", |v| {
            (0.0..=1.0).contains(&v)
        })?;
        check(
            "noise.outlier_probability",
            n.outlier_probability,
            "in [0, 1]",
            |v| (0.0..=1.0).contains(&v),
        )?;
        check("noise.outlier_min", n.outlier_min, ">= 1", |v| v >= 1.0)?;
        check(
            "noise.outlier_max",
            n.outlier_max,
            ">= noise.outlier_min",
            |v| v >= n.outlier_min,
        )?;
        let s = &self.speculation;
        check("speculation.lag_secs", s.lag_secs, ">= 0", |v| v >= 0.0)?;
        // At least a millisecond, as a replay's scans: finer, a run would take scans
        // without end.
        check(
            "speculation.scan_interval_secs",
            s.scan_interval_secs,
            ">= 0.001",
            |v| v >= 1e-3,
        )?;
        check(
            "speculation.heartbeat_secs",
            s.heartbeat_secs,
            ">= 0.001",
            |v| v >= 1e-3,
        )?;
        if let Policy::Reserved { regular_percent } = s.policy {
            check(
                "speculation.policy.regular_percent",
                f64::from(regular_percent),
                "in [1, 100]",
                |v| (1.0..=100.0).contains(&v),
            )?;
            let order: Vec<usize> = (0..p.workers as usize).collect();
            if s.policy.regular_limits(p, &order).contains(&0) {
                return Err(SimError::InvalidConfig {
                    field: "speculation.policy.regular_percent".to_owned(),
                    value: regular_percent.to_string(),
                    expected: "large enough to leave regular tasks at least one container per node"
                        .into(),
                });
            }
        }
        self.copies.check(p)?;
        check("time_limit_secs", self.time_limit_secs, "> 0", |v| v > 0.0)?;
        // A run whose tasks cannot finish ticks up to its time limit: a bound on the ticks,
        // named by the shorter interval.
        let (interval, interval_secs) = if s.scan_interval_secs < s.heartbeat_secs {
            ("speculation.scan_interval_secs", s.scan_interval_secs)
        } else {
            ("speculation.heartbeat_secs", s.heartbeat_secs)
        };
        limits::ticks_at_most(
            &format!("time_limit_secs / {interval}"),
            1.0,
            self.time_limit_secs,
            interval_secs,
        )?;
        self.slowdown.check().map_err(|e| in_table("slowdown", e))?;
        self.power.check().map_err(|e| in_table("power", e))?;
        Ok(())
    }
}
