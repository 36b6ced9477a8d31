//! The largest counts a configuration, a scenario file or a flag of `stragglers` may give.
//! Each is far above what the seed papers and the presets use (the `datacenter` preset:
//! 12,000 nodes, 25,600 jobs, 25.6 million tasks) and keeps a run's memory within a few
//! GiB, so that a mistyped count is a typed error naming the key, not an allocation that
//! aborts the process. `docs/simulation.md`, "Limits", gives the memory behind each.

use crate::SimError;

/// Map tasks, or reduce tasks, of a job: `workload.maps` and `workload.reduces` (`stragglers
/// eval --maps`, `--reduces`; the paper: 320 and 160), and the mean per job of a scenario,
/// `jobs.maps` and `jobs.reduces`.
pub const MAX_TASKS_PER_STAGE: u32 = 1_000_000;
/// Repetitions of every cell of an evaluation (`--repetitions`; 10 by default: the paper
/// does not say how many runs each cell of its Tables 6 and 7 averages).
pub const MAX_REPETITIONS: u32 = 1_000;
/// Homogeneous baseline runs of an evaluation (`--baseline-runs`; the paper: 10, Section
/// 6.1).
pub const MAX_BASELINE_RUNS: u32 = 1_000;
/// The counts of an evaluation file that a count flag of `stragglers eval` sets too, each
/// with the least and the most it may be, the flag's range: a value out of `u32`'s range
/// in the file (`repetitions = -3`) is refused with this range, as the flag refuses it.
pub const EVAL_COUNTS: [(&str, u32, u32); 4] = [
    ("repetitions", 1, MAX_REPETITIONS),
    ("baseline_runs", 1, MAX_BASELINE_RUNS),
    ("sim.workload.maps", 1, MAX_TASKS_PER_STAGE),
    ("sim.workload.reduces", 0, MAX_TASKS_PER_STAGE),
];
/// Tasks of all the baseline runs, `baseline_runs * (sim.workload.maps + sim.workload.reduces)`:
/// the baseline runs are held in memory together (the paper: 10 x 480).
pub const MAX_BASELINE_TASKS: u64 = 20_000_000;
/// Runs of an evaluation whose metrics are kept, cells times repetitions (the paper's
/// matrix: 84 cells x 10).
pub const MAX_EVALUATED_RUNS: u64 = 500_000;
/// Nodes of a cluster: `cluster.nodes`, `platform.workers`.
pub const MAX_NODES: u32 = 1_000_000;
/// Containers of one node: `cluster.containers`, each of `causes.levels.containers`,
/// `platform.containers`.
pub const MAX_CONTAINERS_PER_NODE: u32 = 10_000;
/// Cores of one node, and hardware threads of one core: `platform.cores`,
/// `platform.threads_per_core`, `cluster.cores`, `cluster.threads_per_core` (the paper's
/// 4 and 2; a scenario holds one group of nodes per core).
pub const MAX_CORES_PER_NODE: u32 = 1_024;
/// Containers of the whole cluster, nodes times the most containers of a node.
pub const MAX_CONTAINERS: u64 = 10_000_000;
/// Jobs of a scenario: `jobs.count`.
pub const MAX_JOBS: u32 = 1_000_000;
/// Tasks of a scenario: `jobs.count * (jobs.maps + jobs.reduces)`.
pub const MAX_TASKS: u64 = 100_000_000;
/// Background tasks of one slowdown episode: `causes.episodes[i].background_tasks` (seed
/// 001: 8).
pub const MAX_BACKGROUND_TASKS: u32 = 1_000;
/// Ticks of a run's clock: `time_limit_secs` over the shorter of
/// `speculation.heartbeat_secs` and `speculation.scan_interval_secs` (the paper's
/// configuration: 10^6 s / 1 s; a scenario file's default: 10^7 s / 1 s; the `datacenter`
/// preset: 10^7 s / 10 s), and, in a scenario with weak nodes, `causes.weak_nodes.count`
/// times `time_limit_secs` over `causes.weak_nodes.step_secs` (the `dsb` preset: 5 x 10^7 s
/// / 60 s). A run whose tasks cannot finish (every node down) takes every tick up to its
/// time limit before it fails, about 2 million a second: 10^9 take about 8 minutes, where
/// intervals of 1 ms under the default limit of 10^7 s took 1.4 hours.
pub const MAX_TICKS: u64 = 1_000_000_000;
/// Simulated seconds of a scenario's `time_limit_secs` (its default: 10^7). The scale
/// engine keeps a task's execution time as an `f32` (16 bytes a task): every such time is
/// at most 10^4 times the time limit (a killed or lost original's time estimated from a
/// progress of at least 10^-4), so that under 10^30 s it stays far below `f32::MAX`
/// (about 3.4 x 10^38) rather than becoming infinite and miscounting the stragglers.
pub const MAX_SCENARIO_TIME_LIMIT_SECS: f64 = 1e30;
/// Bytes of a scenario file or an evaluation file (16 MiB; the example
/// `fixtures/scenarios/esplash-failure.toml` has about 1 KiB): `ScenarioSpec::from_toml_file`
/// and `EvalConfig::from_toml_file` read no further.
pub const MAX_CONFIG_FILE_BYTES: u64 = 16 << 20;

/// Checks that the count `value` of `field` is at most `limit`; the error names the field,
/// the value and the limit.
pub(crate) fn at_most(
    field: &str,
    value: impl Into<u64>,
    limit: impl Into<u64>,
) -> Result<(), SimError> {
    let (value, limit) = (value.into(), limit.into());
    if value <= limit {
        return Ok(());
    }
    Err(SimError::InvalidConfig {
        field: field.to_owned(),
        value: value.to_string(),
        expected: format!("at most {limit} (see docs/simulation.md, Limits)").into(),
    })
}

/// Checks that a run's clock ticks at most [`MAX_TICKS`] times: `span_secs` (a time
/// limit) over `step_secs` (an interval), times `count` (the clocks ticking at that
/// interval); the error names `field`, the expression of the keys, and the limit.
pub(crate) fn ticks_at_most(
    field: &str,
    count: f64,
    span_secs: f64,
    step_secs: f64,
) -> Result<(), SimError> {
    let ticks = count * (span_secs / step_secs);
    if ticks <= MAX_TICKS as f64 {
        return Ok(());
    }
    Err(SimError::InvalidConfig {
        field: field.to_owned(),
        value: format!("{ticks:e}"),
        expected: format!("at most {MAX_TICKS:.0e} ticks (see docs/simulation.md, Limits)").into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_above_its_limit_names_the_field_the_value_and_the_limit() {
        assert!(at_most("x", 1000u64, 1000u64).is_ok());
        let err = at_most("x", 1001u64, 1000u64).expect_err("above the limit");
        assert_eq!(
            err.to_string(),
            "invalid configuration: x = 1001: must be at most 1000 (see docs/simulation.md, \
             Limits)"
        );
    }
}
