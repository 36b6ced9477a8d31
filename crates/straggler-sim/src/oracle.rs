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
/// evaluation's metrics, and so is a run whose original times cannot be read
/// ([`Run::original_times`]).
pub fn straggler_times(
    run: &Run,
    usual: &UsualTimes,
    rule: StragglerRule,
) -> Result<Vec<(TaskId, f64)>, SimError> {
    let mut stragglers = Vec::new();
    for (task, original) in run.tasks.iter().zip(run.original_times()?) {
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
            .expect("detections of the engine")
            .iter()
            .enumerate()
            .filter(|(_, d)| d.is_some())
            .map(|(task, _)| TaskId(task as u32))
            .collect();
        let stragglers: Vec<TaskId> = truth.iter().map(|&(task, _)| task).collect();
        assert_eq!(detected, stragglers);
    }

    /// The node of `task`'s last original attempt.
    fn original_node(run: &Run, task: TaskId) -> Option<straggler_model::NodeId> {
        (run.attempts.iter())
            .filter(|a| a.task == task && a.role == straggler_model::AttemptRole::Original)
            .map(|a| a.node)
            .next_back()
    }

    #[test]
    fn under_shared_the_oracle_is_scored_on_a_run_with_other_stragglers() {
        // Its truth is the run without copies. Under x100 its copies start once no map
        // waits, and it flags exactly the stragglers of the run it is scored on; under
        // Shared its copies move the second wave's maps: it flags tasks that ran on
        // another node and are no stragglers there, and misses stragglers it was not
        // told of (docs/simulation.md, "What the oracle bounds").
        let baseline = SimConfig::default();
        let homogeneous = simulate(&baseline, &Scenario::homogeneous(), 7, None).expect("runs");
        let usual = UsualTimes::from_runs(&[homogeneous], 0.5).expect("usual times");
        let rule = StragglerRule::default();
        let scenario = Scenario::c2();
        let labelled = |run: &Run| -> std::collections::BTreeSet<TaskId> {
            let truth = straggler_times(run, &usual, rule).expect("labelled");
            truth.into_iter().map(|(task, _)| task).collect()
        };
        for policy in [crate::Policy::X100, crate::Policy::Shared] {
            let config = SimConfig::paper(policy);
            let undisturbed = simulate(&config, &scenario, 11, None).expect("runs");
            let told = labelled(&undisturbed);
            let params = OracleParams::default();
            let mut oracle =
                oracle_for(&config, &scenario, 11, &usual, rule, params).expect("oracle");
            let run = simulate(&config, &scenario, 11, Some(&mut oracle)).expect("runs");
            let stragglers = labelled(&run);
            let detected: std::collections::BTreeSet<TaskId> =
                run.detections.iter().map(|d| d.task).collect();
            assert_eq!(detected, told, "{policy:?}: it flags what it was told");
            let false_positives: Vec<TaskId> = detected.difference(&stragglers).copied().collect();
            let not_told = stragglers.difference(&told).count();
            if policy == crate::Policy::X100 {
                assert!(false_positives.is_empty());
                continue;
            }
            assert!(!false_positives.is_empty() && not_told > 0);
            let moved = (false_positives.iter())
                .filter(|&&task| original_node(&run, task) != original_node(&undisturbed, task))
                .count();
            assert!(
                2 * moved > false_positives.len(),
                "{moved} of {false_positives:?}"
            );
        }
    }
}
