//! The truth an [`Oracle`] needs, from an undisturbed run: the simulator is deterministic,
//! so a run of the same configuration, scenario and seed without a detector shows which
//! tasks straggle and how long their original attempts take.

use straggler_detect::{Oracle, OracleParams};
use straggler_model::{Run, TaskId};
use straggler_truth::{StragglerRule, UsualTimes};

use crate::{Scenario, SimConfig, SimError, simulate};

/// The straggler tasks of `run` with the execution times of their original attempts,
/// labelled as the evaluation labels them (`rule` against `usual`). A task that cannot be
/// labelled (its original never ended, or it has no usual time) is an error, as in the
/// evaluation's metrics.
pub fn straggler_times(
    run: &Run,
    usual: &UsualTimes,
    rule: StragglerRule,
) -> Result<Vec<(TaskId, f64)>, SimError> {
    let mut stragglers = Vec::new();
    for (task, original) in run.tasks.iter().zip(run.original_times()) {
        let original = original.ok_or(SimError::Unlabelled {
            key: task.key,
            reason: "its original attempt never ended",
        })?;
        let usual_secs = usual.get(&task.key).ok_or(SimError::Unlabelled {
            key: task.key,
            reason: "the baseline runs have no usual time for it",
        })?;
        if rule.is_straggler(original.exec_secs, usual_secs) {
            stragglers.push((task.id, original.exec_secs));
        }
    }
    Ok(stragglers)
}

/// An oracle for the run of `config`, `scenario` and `seed`: simulates it once without a
/// detector and knows its stragglers ([`straggler_times`]).
pub fn oracle_for(
    config: &SimConfig,
    scenario: &Scenario,
    seed: u64,
    usual: &UsualTimes,
    rule: StragglerRule,
    params: OracleParams,
) -> Result<Oracle, SimError> {
    let undisturbed = simulate(config, scenario, seed, None)?;
    let stragglers = straggler_times(&undisturbed, usual, rule)?;
    let oracle = params
        .check()
        .and_then(|params| Oracle::new(params, stragglers))?;
    Ok(oracle)
}

#[cfg(test)]
mod tests {
    use straggler_model::TaskId;

    use super::*;

    #[test]
    fn the_oracle_detects_exactly_the_undisturbed_stragglers() {
        let config = SimConfig::default();
        let baseline = simulate(&config, &Scenario::homogeneous(), 7, None).expect("runs");
        let usual = UsualTimes::from_runs(&[baseline], 0.5).expect("usual times");
        let rule = StragglerRule::default();
        let scenario = Scenario::c1();
        let undisturbed = simulate(&config, &scenario, 11, None).expect("runs");
        let truth = straggler_times(&undisturbed, &usual, rule).expect("labelled");
        assert!(!truth.is_empty(), "C1 has stragglers");
        let params = OracleParams {
            fraction: 0.1,
            ..OracleParams::default()
        };
        let mut oracle = oracle_for(&config, &scenario, 11, &usual, rule, params).expect("oracle");
        assert_eq!(oracle.stragglers(), truth.len());
        let run = simulate(&config, &scenario, 11, Some(&mut oracle)).expect("runs");
        let detected: Vec<TaskId> = run
            .first_detection_secs()
            .iter()
            .enumerate()
            .filter(|(_, d)| d.is_some())
            .map(|(task, _)| TaskId(task as u32))
            .collect();
        let stragglers: Vec<TaskId> = truth.iter().map(|&(task, _)| task).collect();
        assert_eq!(detected, stragglers);
    }
}
