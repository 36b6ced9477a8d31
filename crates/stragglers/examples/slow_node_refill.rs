//! Why early copies do not pay in the simulator (Section 7 of the seed paper): a killed
//! straggler frees a container on its slow node, and that container takes the next waiting
//! regular map, itself a straggler.
//!
//! For each policy, Hierarchical runs in C2 over ten seeds; the example prints the mean
//! job time and how many maps started on a G1 node (one active core) after the first
//! wave. Under x100 copies start only once no map waits, so no map is started on a G1
//! node after time 0; under Shared and x75 copies start early and the slow nodes refill.
//! Run it with `cargo run --release -p stragglers --example slow_node_refill`.

use stragglers::detect::{DefaultDetector, Hierarchical, HierarchicalParams};
use stragglers::model::{AttemptRole, TaskKind};
use stragglers::sim::{Policy, Scenario, SimConfig, simulate};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let params = HierarchicalParams::default().check()?;
    let mut refills = Vec::new();
    for policy in [
        Policy::X100,
        Policy::Reserved {
            regular_percent: 75,
        },
        Policy::Shared,
    ] {
        let config = SimConfig::paper(policy);
        let (mut makespan, mut late_maps_on_g1) = (0.0, 0usize);
        let seeds = 10;
        for seed in 0..seeds {
            let mut detector = Hierarchical::new(DefaultDetector::default(), params);
            let run = simulate(&config, &Scenario::c2(), seed, Some(&mut detector))?;
            makespan += run.makespan_secs();
            late_maps_on_g1 += run
                .attempts
                .iter()
                .filter(|a| {
                    a.role == AttemptRole::Original
                        && a.start_secs > 0.0
                        && run.tasks[a.task.index()].key.kind == TaskKind::Map
                        && run.nodes[a.node.index()].active_cores == 1
                })
                .count();
        }
        println!(
            "{:<7} mean job time {:>5.0} s, maps started on G1 nodes after the first wave: {:>5.1} per run",
            policy.name(),
            makespan / f64::from(seeds as u32),
            late_maps_on_g1 as f64 / seeds as f64,
        );
        refills.push(late_maps_on_g1);
    }
    assert_eq!(
        refills[0], 0,
        "under x100 no map starts on a G1 node after time 0"
    );
    assert!(
        refills[1] > 0 && refills[2] > 0,
        "early copies refill the slow nodes"
    );
    Ok(())
}
