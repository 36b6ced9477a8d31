//! What the oracle knows and why it can score below other detectors (docs/simulation.md,
//! "The oracle"): its truth is the stragglers of the run of the same seed *without a
//! detector*. Under x100 copies start once no map waits, the regular tasks run where they
//! ran without copies, and that truth holds; under Shared copies take free containers
//! first and kill originals while maps wait, so the second wave's maps land on other
//! nodes, and the run it is scored on has other stragglers.
//!
//! For C1 to C4 under x100 and Shared, over ten seeds (usual times from ten homogeneous
//! runs, as the evaluation takes them), the example prints per run: the stragglers the
//! oracle knows, the stragglers of the run it is scored on, its detections that are not
//! stragglers there (and how many of them ran on another node than without copies), the
//! stragglers there it did not know (and how many of them are maps started after time 0 on
//! a G1 or G2 node), its copies and their wins, and its mean job time beside LATE's. Run it
//! with `cargo run --release -p stragglers --example oracle_truth`.

use std::collections::HashSet;

use stragglers::detect::{LateDetector, OracleParams};
use stragglers::model::{AttemptRole, Run, TaskId, TaskKind};
use stragglers::sim::{Policy, Scenario, SimConfig, oracle_for, simulate, straggler_times};
use stragglers::truth::{StragglerRule, UsualTimes};

/// The node of `task`'s original attempt (its last, if one failed).
fn original_node(run: &Run, task: TaskId) -> Option<usize> {
    (run.attempts.iter())
        .filter(|a| a.task == task && a.role == AttemptRole::Original)
        .map(|a| a.node.index())
        .next_back()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let rule = StragglerRule::default();
    let homogeneous = SimConfig::paper(Policy::X100);
    let baselines = (0..10)
        .map(|seed| simulate(&homogeneous, &Scenario::homogeneous(), 1000 + seed, None))
        .collect::<Result<Vec<_>, _>>()?;
    let usual = UsualTimes::from_runs(&baselines, 0.5)?;
    let late = stragglers::detect::LateParams::default().check()?;
    let seeds = 10u64;
    for scenario in Scenario::paper() {
        for policy in [Policy::X100, Policy::Shared] {
            let config = SimConfig::paper(policy);
            let mut n = [0usize; 10];
            let (mut oracle_secs, mut late_secs) = (0.0, 0.0);
            for seed in 0..seeds {
                let undisturbed = simulate(&config, &scenario, seed, None)?;
                let known: HashSet<TaskId> = straggler_times(&undisturbed, &usual, rule)?
                    .into_iter()
                    .map(|(task, _)| task)
                    .collect();
                let mut oracle = oracle_for(
                    &config,
                    &scenario,
                    seed,
                    &usual,
                    rule,
                    OracleParams::default(),
                )?;
                let run = simulate(&config, &scenario, seed, Some(&mut oracle))?;
                let stragglers: HashSet<TaskId> = straggler_times(&run, &usual, rule)?
                    .into_iter()
                    .map(|(task, _)| task)
                    .collect();
                let detected: HashSet<TaskId> = run.detections.iter().map(|d| d.task).collect();
                n[0] += known.len();
                n[1] += stragglers.len();
                n[2] += detected.len();
                for &task in detected.difference(&stragglers) {
                    n[3] += 1;
                    n[4] +=
                        usize::from(original_node(&run, task) != original_node(&undisturbed, task));
                }
                for &task in stragglers.difference(&detected) {
                    if known.contains(&task) {
                        n[5] += 1;
                        continue;
                    }
                    n[6] += 1;
                    let original = (run.attempts.iter())
                        .rfind(|a| a.task == task && a.role == AttemptRole::Original)
                        .ok_or("a task without an original")?;
                    n[7] += usize::from(
                        original.start_secs > 0.0
                            && run.tasks[task.index()].key.kind == TaskKind::Map
                            && run.nodes[original.node.index()].active_cores <= 2,
                    );
                }
                let copies = run.speculative_attempts();
                for copy in copies {
                    n[8] += 1;
                    n[9] += usize::from(copy.status == stragglers::model::AttemptStatus::Succeeded);
                }
                oracle_secs += run.makespan_secs();
                let mut detector = LateDetector::new(late);
                late_secs +=
                    simulate(&config, &scenario, seed, Some(&mut detector))?.makespan_secs();
            }
            let per_run = |k: usize| n[k] as f64 / seeds as f64;
            println!(
                "{} {:<6} known {:.1}, stragglers {:.1}, detected {:.1}; detected not stragglers {:.1} \
                 (on another node {:.1}); missed known {:.1}, unknown {:.1} (maps after 0 on G1/G2 {:.1}); \
                 copies {:.1} (won {:.1}); job {:.0} s (LATE {:.0} s); \
                 precision raw {:.2}, recall {:.2}",
                scenario.name,
                policy.name(),
                per_run(0),
                per_run(1),
                per_run(2),
                per_run(3),
                per_run(4),
                per_run(5),
                per_run(6),
                per_run(7),
                per_run(8),
                per_run(9),
                oracle_secs / seeds as f64,
                late_secs / seeds as f64,
                (n[2] - n[3]) as f64 / n[2] as f64,
                (n[2] - n[3]) as f64 / n[1] as f64,
            );
            assert_eq!(n[2], n[0], "the oracle flags every straggler it knows");
            if policy == Policy::X100 {
                assert_eq!(n[3], 0, "under x100 its truth holds");
            } else {
                assert!(
                    n[6] > 0,
                    "under Shared the scored run has stragglers it was not told"
                );
            }
        }
    }
    Ok(())
}
