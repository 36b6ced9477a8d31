//! A whole simulated world in one value: the cluster, a stream of jobs, the noise, the
//! speculation timing and the straggler causes. It loads from a TOML file (unknown keys
//! are errors that name the key and the file) or from a named preset: `paper`, `esplash`,
//! `dsb`, `datacenter`. [`simulate_scenario`](crate::simulate_scenario) runs it.

use std::path::Path;

use serde::{Deserialize, Serialize};
use straggler_energy::{PowerModel, SlowdownModel};

use crate::causes::{Causes, Episode, Failure, Levels, RootCauseMix, WeakNodes};
use crate::error::{check, in_table};
use crate::limits::{self, at_most};
use crate::{Noise, Platform, Scenario, SimError, toml_file};

/// A scenario: everything a run needs but the detector and the seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    /// Name used in results.
    pub name: String,
    /// The machines.
    pub cluster: ClusterSpec,
    /// The jobs submitted.
    #[serde(default)]
    pub jobs: JobsSpec,
    /// Per-attempt variation of the work.
    #[serde(default)]
    pub noise: Noise,
    /// Detection timing.
    #[serde(default)]
    pub speculation: SpeculationSpec,
    /// Straggler causes, all off by default.
    #[serde(default)]
    pub causes: Causes,
    /// How tasks sharing a node slow each other down.
    #[serde(default)]
    pub slowdown: SlowdownModel,
    /// Power drawn by a node.
    #[serde(default)]
    pub power: PowerModel,
    /// Simulated time after which a run is abandoned with an error.
    #[serde(default = "default_time_limit")]
    pub time_limit_secs: f64,
    /// The summary's straggler rule: a task slower than this many times the median of its
    /// stage's tasks (1.2, the seed paper's factor, Section 6.1, over the sibling
    /// reference of seeds 002 and 004). `>= 1`.
    #[serde(default = "default_straggler_factor")]
    pub straggler_factor: f64,
}

fn default_time_limit() -> f64 {
    1e7
}

/// The seed paper's factor (Section 6.1).
fn default_straggler_factor() -> f64 {
    1.2
}

/// The machines: identical hardware, optionally with disabled cores (the paper's groups)
/// or container levels (see [`Causes::levels`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterSpec {
    /// Worker nodes.
    pub nodes: u32,
    /// Cores per node.
    #[serde(default = "default_cores")]
    pub cores: u32,
    /// Hardware threads per core.
    #[serde(default = "default_threads")]
    pub threads_per_core: u32,
    /// Containers per node (unless levels say otherwise).
    #[serde(default = "default_containers")]
    pub containers: u32,
    /// Percent of nodes with 1, 2, ... active cores (the paper's C1..C4, Section 5.4);
    /// empty: every core active.
    #[serde(default)]
    pub core_groups_percent: Vec<f64>,
}

fn default_cores() -> u32 {
    4
}
fn default_threads() -> u32 {
    2
}
fn default_containers() -> u32 {
    8
}

/// The jobs: `count` MapReduce jobs whose sizes spread around `maps` and `reduces`
/// (log-normal weights with `size_sigma`, apportioned so that the totals are exactly
/// `count * maps` and `count * reduces`), arriving evenly over `arrival_window_secs`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JobsSpec {
    /// Jobs.
    pub count: u32,
    /// Mean map tasks per job.
    pub maps: u32,
    /// Mean reduce tasks per job.
    pub reduces: u32,
    /// Spread of job sizes: standard deviation of the log of a job's weight (0: all equal).
    pub size_sigma: f64,
    /// Jobs arrive at `i * window / count` (0: all at the start).
    pub arrival_window_secs: f64,
    /// Work of a map, seconds of a task alone on a core.
    pub map_work_secs: f64,
    /// Work of a reduce.
    pub reduce_work_secs: f64,
    /// Input of a map, bytes.
    pub map_input_bytes: u64,
    /// Input of a reduce, bytes.
    pub reduce_input_bytes: u64,
    /// Fraction of a job's maps done before its reduces are scheduled.
    pub reduce_slowstart: f64,
}

impl Default for JobsSpec {
    fn default() -> Self {
        let w = crate::Workload::default();
        JobsSpec {
            count: 1,
            maps: w.maps,
            reduces: w.reduces,
            size_sigma: 0.0,
            arrival_window_secs: 0.0,
            map_work_secs: w.map_work_secs,
            reduce_work_secs: w.reduce_work_secs,
            map_input_bytes: w.map_input_bytes,
            reduce_input_bytes: w.reduce_input_bytes,
            reduce_slowstart: w.reduce_slowstart,
        }
    }
}

/// When detection runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SpeculationSpec {
    /// No detection in a job before it has run this long (the paper: 20 s).
    pub lag_secs: f64,
    /// Time between two scans (Hadoop: 1 s).
    pub scan_interval_secs: f64,
    /// Time between two progress reports (Hadoop: 3 s).
    pub heartbeat_secs: f64,
}

impl Default for SpeculationSpec {
    fn default() -> Self {
        let s = crate::Speculation::default();
        SpeculationSpec {
            lag_secs: s.lag_secs,
            scan_interval_secs: s.scan_interval_secs,
            heartbeat_secs: s.heartbeat_secs,
        }
    }
}

/// The names of the presets, for help texts.
pub const PRESETS: [&str; 4] = ["paper", "esplash", "dsb", "datacenter"];

impl ScenarioSpec {
    /// A preset by name: one of [`PRESETS`].
    pub fn preset(name: &str) -> Result<Self, SimError> {
        match name {
            "paper" => Ok(ScenarioSpec::paper()),
            "esplash" => Ok(ScenarioSpec::esplash()),
            "dsb" => Ok(ScenarioSpec::dsb()),
            "datacenter" => Ok(ScenarioSpec::datacenter()),
            other => Err(SimError::UnknownPreset {
                name: other.to_owned(),
                known: PRESETS.join(", "),
            }),
        }
    }

    /// The seed paper's platform and job (Sections 5.1-5.4): 20 nodes of 4 cores and 8
    /// containers, one job of 320 maps and 160 reduces, scenario C2 (25% of the nodes in
    /// each group of 1 to 4 active cores).
    pub fn paper() -> Self {
        let platform = Platform::default();
        ScenarioSpec {
            name: "paper".to_owned(),
            cluster: ClusterSpec {
                nodes: platform.workers,
                cores: platform.cores,
                threads_per_core: platform.threads_per_core,
                containers: platform.containers,
                core_groups_percent: Scenario::c2().group_percent,
            },
            jobs: JobsSpec::default(),
            noise: Noise::default(),
            speculation: SpeculationSpec::default(),
            causes: Causes::default(),
            slowdown: SlowdownModel::default(),
            power: PowerModel::default(),
            time_limit_secs: default_time_limit(),
            straggler_factor: default_straggler_factor(),
        }
    }

    /// Seed 001's testbed (eSplash, Section V): 8 workers of 8 cores (ARMv8, one thread
    /// per core) in 4 levels of 2 nodes with 32, 16, 8 and 4 containers; a WordCount-like
    /// job; a node of the fastest level slowed by 8 background processes for 1000 s, then
    /// shut down and restarted 600 s later (Section V.B.3).
    pub fn esplash() -> Self {
        ScenarioSpec {
            name: "esplash".to_owned(),
            cluster: ClusterSpec {
                nodes: 8,
                cores: 8,
                threads_per_core: 1,
                containers: 8,
                core_groups_percent: Vec::new(),
            },
            jobs: JobsSpec {
                maps: 2400,
                reduces: 120,
                ..JobsSpec::default()
            },
            causes: Causes {
                levels: Some(Levels {
                    containers: vec![32, 16, 8, 4],
                }),
                episodes: vec![Episode {
                    node: 7,
                    start_secs: 20.0,
                    duration_secs: 1000.0,
                    background_tasks: 8,
                }],
                failures: vec![Failure {
                    node: 7,
                    at_secs: 1020.0,
                    down_secs: 600.0,
                }],
                ..Causes::default()
            },
            ..ScenarioSpec::paper_base("esplash")
        }
    }

    /// Seed 002's testbed (DSB, Section V): 30 VMs of 2 vCPUs, 5 of them weak with a speed
    /// that drifts; ten WordCount-like jobs arriving over 10 minutes.
    pub fn dsb() -> Self {
        ScenarioSpec {
            name: "dsb".to_owned(),
            cluster: ClusterSpec {
                nodes: 30,
                cores: 2,
                threads_per_core: 1,
                containers: 4,
                core_groups_percent: Vec::new(),
            },
            jobs: JobsSpec {
                count: 10,
                maps: 120,
                reduces: 20,
                size_sigma: 0.3,
                arrival_window_secs: 600.0,
                ..JobsSpec::default()
            },
            causes: Causes {
                weak_nodes: Some(WeakNodes::default()),
                ..Causes::default()
            },
            ..ScenarioSpec::paper_base("dsb")
        }
    }

    /// Seed 004's Cloud datacenter B at the scale of one day (Section 5.1): 12,000 nodes,
    /// 25,600 batch jobs summing to 25.6 million tasks, arriving over 23 hours, 5% of the
    /// tasks stragglers after Table 4's root-cause mix with slowdowns up to 10x. Scans
    /// and progress reports every 10 s (a coarser clock than Hadoop's, to keep a day of
    /// 25.6 million tasks within a minute of simulation; see `docs/simulation.md`).
    pub fn datacenter() -> Self {
        ScenarioSpec {
            name: "datacenter".to_owned(),
            cluster: ClusterSpec {
                nodes: 12_000,
                cores: 8,
                threads_per_core: 2,
                containers: 8,
                core_groups_percent: Vec::new(),
            },
            jobs: JobsSpec {
                count: 25_600,
                maps: 800,
                reduces: 200,
                size_sigma: 1.0,
                arrival_window_secs: 23.0 * 3600.0,
                map_work_secs: 40.0,
                reduce_work_secs: 15.0,
                ..JobsSpec::default()
            },
            speculation: SpeculationSpec {
                lag_secs: 20.0,
                scan_interval_secs: 10.0,
                heartbeat_secs: 10.0,
            },
            causes: Causes {
                mix: Some(RootCauseMix::default()),
                ..Causes::default()
            },
            ..ScenarioSpec::paper_base("datacenter")
        }
    }

    fn paper_base(name: &str) -> Self {
        ScenarioSpec {
            name: name.to_owned(),
            ..ScenarioSpec::paper()
        }
    }

    /// Total tasks of the workload.
    pub fn task_count(&self) -> u64 {
        u64::from(self.jobs.count) * (u64::from(self.jobs.maps) + u64::from(self.jobs.reduces))
    }

    /// The paper's platform and node groups seen as the older types.
    pub(crate) fn platform(&self) -> Platform {
        Platform {
            workers: self.cluster.nodes,
            cores: self.cluster.cores,
            threads_per_core: self.cluster.threads_per_core,
            containers: self.cluster.containers,
        }
    }

    /// Active cores of each node before placement, G1 first.
    pub(crate) fn active_cores(&self) -> Result<Vec<u32>, SimError> {
        if self.cluster.core_groups_percent.is_empty() {
            return Ok(vec![self.cluster.cores; self.cluster.nodes as usize]);
        }
        Scenario::new(&self.name, &self.cluster.core_groups_percent)
            .active_cores_as(&self.platform(), "cluster.core_groups_percent")
    }

    /// Checks every value; the error names the first bad key.
    pub fn check(&self) -> Result<(), SimError> {
        // The name is printed in every summary: one that is empty or holds control
        // characters (a terminal's escapes) would print nothing, or something else.
        if self.name.trim().is_empty() || self.name.chars().any(char::is_control) {
            return Err(SimError::InvalidConfig {
                field: "name".to_owned(),
                value: format!("{:?}", self.name),
                expected: "a name that is not empty and has no control characters".into(),
            });
        }
        check("straggler_factor", self.straggler_factor, ">= 1", |f| {
            f >= 1.0
        })?;
        let at_least_one = |field: &str, v: u32| check(field, f64::from(v), ">= 1", |v| v >= 1.0);
        let c = &self.cluster;
        at_least_one("cluster.nodes", c.nodes)?;
        at_least_one("cluster.cores", c.cores)?;
        at_least_one("cluster.threads_per_core", c.threads_per_core)?;
        at_least_one("cluster.containers", c.containers)?;
        at_most("cluster.nodes", c.nodes, limits::MAX_NODES)?;
        at_most("cluster.cores", c.cores, limits::MAX_CORES_PER_NODE)?;
        at_most(
            "cluster.threads_per_core",
            c.threads_per_core,
            limits::MAX_CORES_PER_NODE,
        )?;
        at_most(
            "cluster.containers",
            c.containers,
            limits::MAX_CONTAINERS_PER_NODE,
        )?;
        // An upper bound of the containers in all, levels included.
        let most = self
            .causes
            .levels
            .iter()
            .flat_map(|l| l.containers.iter().copied())
            .chain([c.containers])
            .max()
            .unwrap_or(c.containers);
        at_most(
            "cluster.nodes * cluster.containers",
            u64::from(c.nodes) * u64::from(most),
            limits::MAX_CONTAINERS,
        )?;
        let j = &self.jobs;
        at_least_one("jobs.count", j.count)?;
        at_least_one("jobs.maps", j.maps)?;
        at_most("jobs.count", j.count, limits::MAX_JOBS)?;
        at_most("jobs.maps", j.maps, limits::MAX_TASKS_PER_STAGE)?;
        at_most("jobs.reduces", j.reduces, limits::MAX_TASKS_PER_STAGE)?;
        at_most(
            "jobs.count * (jobs.maps + jobs.reduces)",
            self.task_count(),
            limits::MAX_TASKS,
        )?;
        check("jobs.size_sigma", j.size_sigma, "in [0, 3]", |v| {
            (0.0..=3.0).contains(&v)
        })?;
        check(
            "jobs.arrival_window_secs",
            j.arrival_window_secs,
            ">= 0",
            |v| v >= 0.0,
        )?;
        check("jobs.map_work_secs", j.map_work_secs, "> 0", |v| v > 0.0)?;
        check("jobs.reduce_work_secs", j.reduce_work_secs, "> 0", |v| {
            v > 0.0
        })?;
        check(
            "jobs.reduce_slowstart",
            j.reduce_slowstart,
            "in [0, 1]",
            |v| (0.0..=1.0).contains(&v),
        )?;
        // A task's time is an f32 in the scale engine, at most 10^4 times the time limit.
        check(
            "time_limit_secs",
            self.time_limit_secs,
            "in (0, 1e30] (the scale engine keeps a task's time as an f32; see \
             docs/simulation.md, Limits)",
            |v| v > 0.0 && v <= limits::MAX_SCENARIO_TIME_LIMIT_SECS,
        )?;
        // The noise's, speculation's and time limit's keys are checked by the paper
        // configuration's rules, under the same names.
        let mut sim = crate::SimConfig {
            noise: self.noise,
            time_limit_secs: self.time_limit_secs,
            ..crate::SimConfig::default()
        };
        sim.speculation.lag_secs = self.speculation.lag_secs;
        sim.speculation.scan_interval_secs = self.speculation.scan_interval_secs;
        sim.speculation.heartbeat_secs = self.speculation.heartbeat_secs;
        sim.check()?;
        self.slowdown.check().map_err(|e| in_table("slowdown", e))?;
        self.power.check().map_err(|e| in_table("power", e))?;
        self.active_cores()?;
        self.causes.check(c.nodes)?;
        if let Some(w) = &self.causes.weak_nodes {
            // Each weak node takes a drift step every `step_secs` up to the time limit.
            limits::ticks_at_most(
                "causes.weak_nodes.count * time_limit_secs / causes.weak_nodes.step_secs",
                f64::from(w.count),
                self.time_limit_secs,
                w.step_secs,
            )?;
        }
        Ok(())
    }

    /// Parses a scenario from TOML text; `origin` names the file in errors. The error of
    /// a bad value or an unknown key names the key (`cluster.nodes`), the line and the file.
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Self, SimError> {
        let spec: ScenarioSpec = toml_file::parse_known(text, origin, &[])?;
        spec.check()
            .map_err(|e| toml_file::at_key(e, text, origin))?;
        Ok(spec)
    }

    /// Reads and parses a scenario file (see [`ScenarioSpec::from_toml_str`]). A file
    /// larger than [`MAX_CONFIG_FILE_BYTES`](limits::MAX_CONFIG_FILE_BYTES) is an error
    /// (so is an endless one, such as `/dev/zero`): reading stops there.
    pub fn from_toml_file(path: &Path) -> Result<Self, SimError> {
        let (text, origin) = toml_file::read(path, "a scenario file")?;
        ScenarioSpec::from_toml_str(&text, &origin)
    }
}
