//! Integration tests of the energy crate: energy integrals, the first-order predictor and
//! properties of the power and slowdown models, each against a case worked by hand.

use approx::assert_relative_eq;
use proptest::prelude::*;
use straggler_energy::{
    EnergyError, FirstOrderInputs, PowerModel, SlowdownModel, node_energy_joules, run_energy_joules,
};
use straggler_model::{
    Attempt, AttemptId, AttemptRole, AttemptStatus, LoadTimeline, ModelError, Node, NodeId, Run,
    TaskId, ValueError,
};

fn node(id: u32) -> Node {
    Node::new(NodeId(id), 4, 2, 8)
}

fn timeline(changes: &[(f64, u32)]) -> LoadTimeline {
    let mut load = LoadTimeline::default();
    for &(time_secs, running) in changes {
        load.record(time_secs, running);
    }
    load
}

fn powered(idle_watts: f64) -> PowerModel {
    PowerModel {
        idle_watts,
        ..PowerModel::default()
    }
}

// ---------------------------------------------------------------------------------------
// Energy integrals
// ---------------------------------------------------------------------------------------

/// Load: 0 tasks on [0, 10), 2 on [10, 30), 0 on [30, 40), 8 on [40, 50].
const LOAD: &[(f64, u32)] = &[(10.0, 2), (30.0, 0), (40.0, 8)];

fn check_node_energy(load: &[(f64, u32)], end_secs: f64, idle_watts: f64, expected: f64) {
    let energy = node_energy_joules(&node(0), &timeline(load), end_secs, &powered(idle_watts));
    assert_relative_eq!(
        energy.expect("valid inputs"),
        expected,
        max_relative = 1e-12
    );
}

#[test]
fn node_energy_over_a_piecewise_load() {
    // Idle 0 W: (65 + 2*17) * 20 + (65 + 4*17) * 10 = 99 * 20 + 133 * 10 = 1980 + 1330 = 3310.
    check_node_energy(LOAD, 50.0, 0.0, 3310.0);
    // Idle 65 W (node stays on): + 65 * 10 (before the first change) + 65 * 10 (load 0)
    // = 3310 + 1300 = 4610.
    check_node_energy(LOAD, 50.0, 65.0, 4610.0);
}

#[test]
fn node_energy_covers_idle_time_after_the_last_task() {
    // Load drops to 0 at 30 and the run ends at 35, idle 7 W:
    // 7 * 10 + 99 * 20 + 7 * 5 = 70 + 1980 + 35 = 2085.
    check_node_energy(&[(10.0, 2), (30.0, 0)], 35.0, 7.0, 2085.0);
    // The run ends while 2 tasks run: 7 * 10 + 99 * 10 = 70 + 990 = 1060.
    check_node_energy(LOAD, 20.0, 7.0, 1060.0);
    // Changes after the end are ignored: [0, 5) idle only, 7 * 5 = 35.
    check_node_energy(LOAD, 5.0, 7.0, 35.0);
}

#[test]
fn node_energy_of_degenerate_inputs() {
    // No load at all: idle the whole run, 3 * 100 = 300; with the paper's 0 W, 0.
    check_node_energy(&[], 100.0, 3.0, 300.0);
    check_node_energy(&[], 100.0, 0.0, 0.0);
    // A run of zero length draws nothing.
    check_node_energy(LOAD, 0.0, 65.0, 0.0);
    // One task from 0 to the end: (65 + 17) * 10 = 820.
    check_node_energy(&[(0.0, 1)], 10.0, 0.0, 820.0);
}

#[test]
fn run_energy_sums_nodes_and_idles_nodes_without_timeline() {
    // Node 0 with LOAD, idle 5 W: 3310 + 5 * 10 + 5 * 10 = 3410. Node 1 has no timeline:
    // 5 * 50 = 250. Total 3660.
    let run = Run {
        nodes: vec![node(0), node(1)],
        load: vec![timeline(LOAD)],
        end_secs: 50.0,
        ..Run::default()
    };
    let energy = run_energy_joules(&run, &powered(5.0)).expect("valid run");
    assert_relative_eq!(energy, 3660.0, max_relative = 1e-12);
    // An empty run draws nothing.
    assert_eq!(
        run_energy_joules(&Run::default(), &PowerModel::default()),
        Ok(0.0)
    );
}

/// A run built from a scheduler's records, timelines derived from its attempts: on node
/// 0, task 0 on [0, 10), task 1's original on [0, 15) (killed), task 2's original on
/// [0, 3) (failed); on node 1, task 3 on [0, 11), task 2's re-run on [4, 24), task 1's
/// copy on [5, 15). Power 65 + 17 n W (4 active cores), 0 W idle:
///
/// ```text
/// node 0: 3 on [0, 3): 116 x 3 = 348; 2 on [3, 10): 99 x 7 = 693; 1 on [10, 15): 82 x 5 = 410
///         0 on [15, 24]: 0                                               total 1451
/// node 1: 1 on [0, 4): 82 x 4 = 328; 2 on [4, 5): 99; 3 on [5, 11): 116 x 6 = 696;
///         2 on [11, 15): 99 x 4 = 396; 1 on [15, 24): 82 x 9 = 738       total 2257
/// run: 3708 J
/// ```
///
/// Without the timelines, every attempt's energy was left out: `Ok(0.0)`.
#[test]
fn energy_of_a_run_built_from_records() {
    use AttemptRole::{Original, Speculative};
    use AttemptStatus::{Failed, Killed, Succeeded};
    let attempts = [
        (0, 0, Original, 0.0, 10.0, Succeeded, 1.0),
        (1, 0, Original, 0.0, 15.0, Killed, 0.5),
        (2, 0, Original, 0.0, 3.0, Failed, 0.2),
        (3, 1, Original, 0.0, 11.0, Succeeded, 1.0),
        (2, 1, Original, 4.0, 24.0, Succeeded, 1.0),
        (1, 1, Speculative, 5.0, 15.0, Succeeded, 1.0),
    ];
    let mut run = Run {
        nodes: vec![node(0), node(1)],
        attempts: attempts
            .iter()
            .enumerate()
            .map(|(i, &(task, on, role, start, end, status, progress))| {
                Attempt::started(AttemptId(i as u32), TaskId(task), NodeId(on), role, start)
                    .ended(end, status, progress)
            })
            .collect(),
        end_secs: 24.0,
        ..Run::default()
    };
    let power = PowerModel::default();
    let err = run_energy_joules(&run, &power).unwrap_err();
    assert_eq!(
        err,
        EnergyError::AttemptWithoutLoad {
            attempt: 0,
            node: NodeId(0),
            timelines: 0
        }
    );
    assert_eq!(
        err.to_string(),
        "attempts[0] ran on node 0, which has no load timeline (run.load has 0); fill \
         run.load from the attempts with Run::load_from_attempts"
    );
    run.load = run.load_from_attempts().expect("valid attempts");
    assert_eq!(
        node_energy_joules(&run.nodes[0], &run.load[0], 24.0, &power),
        Ok(1451.0)
    );
    assert_eq!(
        node_energy_joules(&run.nodes[1], &run.load[1], 24.0, &power),
        Ok(2257.0)
    );
    assert_eq!(run_energy_joules(&run, &power), Ok(3708.0));
    // One timeline for two nodes: node 1's attempts are named.
    run.load.truncate(1);
    assert!(matches!(
        run_energy_joules(&run, &power),
        Err(EnergyError::AttemptWithoutLoad {
            attempt: 3,
            node: NodeId(1),
            timelines: 1
        })
    ));
}

#[test]
fn energy_rejects_invalid_inputs() {
    let load = timeline(LOAD);
    let power = PowerModel::default();
    assert!(matches!(
        node_energy_joules(&node(0), &load, f64::NAN, &power),
        Err(EnergyError::Value(ValueError::NotFinite {
            field: "end_secs",
            ..
        }))
    ));
    assert!(matches!(
        node_energy_joules(&node(0), &load, -1.0, &power),
        Err(EnergyError::Value(ValueError::OutOfRange {
            field: "end_secs",
            ..
        }))
    ));
    let bad_power = PowerModel {
        dynamic_watts: f64::INFINITY,
        ..power
    };
    assert!(matches!(
        node_energy_joules(&node(0), &load, 10.0, &bad_power),
        Err(EnergyError::Value(ValueError::NotFinite {
            field: "dynamic_watts",
            ..
        }))
    ));
    let mut unordered = timeline(LOAD);
    unordered.changes[2].time_secs = 5.0;
    assert_eq!(
        node_energy_joules(&node(3), &unordered, 50.0, &power),
        Err(EnergyError::BadLoadChange {
            node: NodeId(3),
            change: 2,
            value: 5.0
        })
    );
    let run = Run {
        nodes: vec![node(0)],
        load: vec![load.clone(), load],
        ..Run::default()
    };
    assert_eq!(
        run_energy_joules(&run, &power),
        Err(EnergyError::LoadWithoutNode {
            timelines: 2,
            nodes: 1
        })
    );
    let run = Run {
        nodes: vec![node(0)],
        end_secs: f64::INFINITY,
        ..Run::default()
    };
    assert!(matches!(
        run_energy_joules(&run, &power),
        Err(EnergyError::Value(ValueError::NotFinite {
            field: "end_secs",
            ..
        }))
    ));
}

/// The error of a node whose `field` is out of `range`.
fn bad_node(id: u32, field: &'static str, value: f64, range: &'static str) -> EnergyError {
    EnergyError::BadNode {
        node: NodeId(id),
        error: ModelError::Value(ValueError::OutOfRange {
            field,
            value,
            range,
        }),
    }
}

#[test]
fn energy_rejects_nodes_that_break_their_invariants() {
    // A node without an active core that runs tasks drew P_static and gave
    // Ok((65 + 0 * 17) * 30 = 1950): tasks that never progress, energy as if they did.
    let power = PowerModel::default();
    let load = timeline(LOAD);
    let shaped = |cores, threads, containers, active| {
        Node::new(NodeId(0), cores, threads, containers).with_active_cores(active)
    };
    let cases = [
        (shaped(4, 2, 8, 0), "active_cores", 0.0, ">= 1"),
        (shaped(4, 2, 8, 5), "active_cores", 5.0, "<= cores"),
        (shaped(4, 0, 8, 4), "threads_per_core", 0.0, ">= 1"),
        (shaped(0, 2, 8, 0), "cores", 0.0, ">= 1"),
        (shaped(4, 2, 0, 4), "containers", 0.0, ">= 1"),
    ];
    for (bad, field, value, range) in cases {
        assert_eq!(
            node_energy_joules(&bad, &load, 50.0, &power),
            Err(bad_node(0, field, value, range)),
            "{bad:?}"
        );
    }
    // In a run, the error names the node, with or without a timeline.
    let run = Run {
        nodes: vec![node(0), node(1).with_active_cores(0), node(2)],
        load: vec![timeline(LOAD)],
        end_secs: 50.0,
        ..Run::default()
    };
    assert_eq!(
        run_energy_joules(&run, &power),
        Err(bad_node(1, "active_cores", 0.0, ">= 1"))
    );
    let message = run_energy_joules(&run, &power).unwrap_err().to_string();
    assert_eq!(message, "node 1: active_cores must be >= 1, got 0");
}

#[test]
fn energy_too_large_for_an_f64_is_an_error() {
    // LOAD up to end_secs = MAX: 133 W over [40, MAX] is 133 * 1.8e308 = inf (was Ok(inf)).
    let power = PowerModel::default();
    assert_eq!(
        node_energy_joules(&node(3), &timeline(LOAD), f64::MAX, &power),
        Err(EnergyError::EnergyOverflow {
            node: NodeId(3),
            end_secs: f64::MAX
        })
    );
    // Each node finite, their sum not: one task from 0 on each of two nodes up to MAX / 100
    // is 82 * MAX / 100 = 0.82 MAX per node and 1.64 MAX in total; the second node is named.
    let end_secs = f64::MAX / 100.0;
    let busy = timeline(&[(0.0, 1)]);
    let one = node_energy_joules(&node(0), &busy, end_secs, &power).expect("finite");
    assert_relative_eq!(one, 0.82 * f64::MAX, max_relative = 1e-12);
    let run = Run {
        nodes: vec![node(0), node(1)],
        load: vec![busy.clone(), busy],
        end_secs,
        ..Run::default()
    };
    assert_eq!(
        run_energy_joules(&run, &power),
        Err(EnergyError::EnergyOverflow {
            node: NodeId(1),
            end_secs
        })
    );
}

#[test]
fn energy_rejects_a_power_model_beyond_a_megawatt() {
    // static and dynamic watts of f64::MAX passed the check; P(4) was inf.
    let huge = PowerModel {
        static_watts: f64::MAX,
        dynamic_watts: f64::MAX,
        idle_watts: 0.0,
    };
    assert!(matches!(
        node_energy_joules(&node(0), &timeline(LOAD), 50.0, &huge),
        Err(EnergyError::Value(ValueError::OutOfRange {
            field: "static_watts",
            ..
        }))
    ));
}

// ---------------------------------------------------------------------------------------
// First-order predictor (Section 4.2)
// ---------------------------------------------------------------------------------------

fn inputs(alpha: f64, p: f64, r: f64, dl: f64, ut: f64) -> FirstOrderInputs {
    FirstOrderInputs {
        straggler_ratio: alpha,
        precision: p,
        recall: r,
        detection_latency: dl,
        undetected_time: ut,
    }
}

fn check_prediction(input: FirstOrderInputs, time: f64, energy: f64) {
    let prediction = input.predict().expect("valid inputs");
    assert_relative_eq!(prediction.time_per_task, time, max_relative = 1e-12);
    assert_relative_eq!(prediction.energy_per_task, energy, max_relative = 1e-12);
    assert_relative_eq!(prediction.time_overhead, time - 1.0, epsilon = 1e-12);
    assert_relative_eq!(prediction.energy_overhead, energy - 1.0, epsilon = 1e-12);
}

#[test]
fn first_order_worked_example() {
    // alpha = 0.1, p = 0.5, r = 0.5, DL = 0.4, UT = 2:
    // P1 = 0.05, P2 = 0.05, P3 = 0.05 * 0.5 / 0.5 = 0.05, P4 = 1 - 0.1 - 0.05 = 0.85.
    // time   = 0.05 * 1.4 + 0.05 * 2 + 0.05 + 0.85 = 0.07 + 0.1 + 0.05 + 0.85 = 1.07.
    // energy = 0.05 * 2.4 + 0.05 * 2 + 0.05 * 1.5 + 0.85 = 0.12 + 0.1 + 0.075 + 0.85 = 1.145.
    check_prediction(inputs(0.1, 0.5, 0.5, 0.4, 2.0), 1.07, 1.145);
}

/// The inputs from one run's metrics, undefined where their denominator was empty: the
/// four-map run of `docs/formulas.md` (detection metrics), alpha = 2/4, p = 2/3 (raw:
/// the fake counted true), r = 1, DL = 1.05, no false negative so no Undetected Time.
/// P1 = 0.5, P2 = 0, P3 = 0.5 x (1/3) / (2/3) = 0.25, P4 = 0.25:
/// time = 0.5 x 2.05 + 0.25 + 0.25 = 1.525, energy = 0.5 x 3.05 + 0.375 + 0.25 = 2.15.
#[test]
fn first_order_inputs_from_a_runs_metrics() {
    let from = FirstOrderInputs::from_metrics;
    let four_maps = from(0.5, Some(2.0 / 3.0), Some(1.0), Some(1.05), None).unwrap();
    assert_eq!(four_maps, inputs(0.5, 2.0 / 3.0, 1.0, 1.05, 0.0));
    check_prediction(four_maps, 1.525, 2.15);
    // No straggler: recall undefined, and nothing else is needed.
    assert_eq!(
        from(0.0, Some(0.0), None, None, None),
        Ok(inputs(0.0, 0.0, 0.0, 0.0, 0.0))
    );
    // No detection at all: precision and Detection Latency undefined, unused.
    assert_eq!(
        from(0.25, None, Some(0.0), None, Some(2.0)),
        Ok(inputs(0.25, 1.0, 0.0, 0.0, 2.0))
    );
    // A needed input undefined is named.
    let err = from(0.5, Some(1.0), Some(0.5), Some(0.2), None).unwrap_err();
    assert_eq!(
        err,
        EnergyError::Undefined {
            field: "undetected_time"
        }
    );
    assert_eq!(
        err.to_string(),
        "undetected_time is undefined, but the prediction needs it"
    );
    assert_eq!(
        from(0.5, None, Some(0.5), Some(0.2), Some(2.0)),
        Err(EnergyError::Undefined {
            field: "precision_raw"
        })
    );
    assert_eq!(
        from(0.5, Some(1.0), None, Some(0.2), Some(2.0)),
        Err(EnergyError::Undefined { field: "recall" })
    );
}

#[test]
fn first_order_degenerate_cases() {
    // No stragglers: every task takes its usual time, whatever p (even 0).
    check_prediction(inputs(0.0, 0.0, 0.7, 0.5, 3.0), 1.0, 1.0);
    // No detection (r = 0): P2 = alpha = 0.1, P4 = 0.9; time = energy = 0.1 * 3 + 0.9 = 1.2.
    check_prediction(inputs(0.1, 0.0, 0.0, 0.5, 3.0), 1.2, 1.2);
    // Perfect detector, alpha = 0.2, DL = 0.5: time = 0.2 * 1.5 + 0.8 = 1.1,
    // energy = 0.2 * 2.5 + 0.8 = 1.3.
    check_prediction(inputs(0.2, 1.0, 1.0, 0.5, 9.0), 1.1, 1.3);
    // Every task a straggler, all detected: time = 1 + DL = 1.25, energy = 2 + DL = 2.25.
    check_prediction(inputs(1.0, 1.0, 1.0, 0.25, 9.0), 1.25, 2.25);
    // P4 exactly 0: alpha = 0.5, r = 1, p = 0.5: P1 = 0.5, P3 = 0.5, P4 = 0;
    // time = 0.5 * 1.4 + 0.5 = 1.2, energy = 0.5 * 2.4 + 0.5 * 1.5 = 1.2 + 0.75 = 1.95.
    check_prediction(inputs(0.5, 0.5, 1.0, 0.4, 9.0), 1.2, 1.95);
}

#[test]
fn first_order_rejects_impossible_inputs() {
    // True positives with precision 0.
    assert!(matches!(
        inputs(0.1, 0.0, 0.5, 0.4, 2.0).predict(),
        Err(EnergyError::Impossible {
            field: "precision",
            ..
        })
    ));
    // alpha = 0.5, r = 1, p = 0.25: P3 = 0.5 * 3 = 1.5, P4 = 1 - 0.5 - 1.5 = -1.
    match inputs(0.5, 0.25, 1.0, 0.4, 2.0).predict() {
        Err(EnergyError::Impossible { field, value, .. }) => {
            assert!(field.starts_with("P(!stg & !det)"));
            assert_relative_eq!(value, -1.0);
        }
        other => panic!("expected an impossible P4, got {other:?}"),
    }
    assert!(matches!(
        inputs(0.1, 0.5, f64::NAN, 0.4, 2.0).predict(),
        Err(EnergyError::Value(ValueError::NotFinite {
            field: "recall",
            ..
        }))
    ));
    assert!(matches!(
        inputs(1.1, 0.5, 0.5, 0.4, 2.0).check(),
        Err(EnergyError::Value(ValueError::OutOfRange {
            field: "straggler_ratio",
            ..
        }))
    ));
    assert!(matches!(
        inputs(0.1, 0.5, 0.5, -0.4, 2.0).check(),
        Err(EnergyError::Value(ValueError::OutOfRange {
            field: "detection_latency",
            ..
        }))
    ));
    assert!(matches!(
        inputs(0.1, 0.5, 0.5, 0.4, f64::INFINITY).check(),
        Err(EnergyError::Value(ValueError::NotFinite {
            field: "undetected_time",
            ..
        }))
    ));
}

#[test]
fn results_serialise_with_their_field_names() {
    let prediction = inputs(0.0, 1.0, 1.0, 0.0, 0.0).predict().expect("valid");
    let json = serde_json::to_value(prediction).expect("serialisable");
    assert_eq!(
        json,
        serde_json::json!({
            "time_per_task": 1.0, "energy_per_task": 1.0,
            "time_overhead": 0.0, "energy_overhead": 0.0
        })
    );
    let power: PowerModel = serde_json::from_value(
        serde_json::json!({"static_watts": 65.0, "dynamic_watts": 17.0, "idle_watts": 0.0}),
    )
    .expect("deserialisable");
    assert_eq!(power, PowerModel::default());
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

fn any_node() -> impl Strategy<Value = Node> {
    (1u32..=8, 1u32..=4, 1u32..=16).prop_flat_map(|(cores, threads, containers)| {
        (1..=cores).prop_map(move |active| {
            Node::new(NodeId(0), cores, threads, containers).with_active_cores(active)
        })
    })
}

fn any_slowdown() -> impl Strategy<Value = SlowdownModel> {
    (0.0..=1.0f64, 0.0..=1.0f64, 0.0..=1.0f64).prop_map(|(cf, smt, mc)| SlowdownModel {
        compute_fraction: cf,
        smt_gain: smt,
        memory_contention: mc,
    })
}

proptest! {
    #[test]
    fn rate_is_in_zero_one_and_never_rises_with_load(
        node in any_node(), model in any_slowdown(), running in 1u32..64,
    ) {
        let here = model.rate(&node, running);
        let next = model.rate(&node, running + 1);
        prop_assert!(here > 0.0 && here <= 1.0, "rate {here}");
        prop_assert!(next <= here + 1e-12, "rate rose from {here} to {next}");
    }

    #[test]
    fn rate_is_in_zero_one_for_every_checked_model_and_load(
        node in any_node(),
        compute_fraction in 0.0..=1.0f64,
        smt_gain in 0.0..=1.0f64,
        memory_contention in prop_oneof![0.0..=1.0f64, 0.0..=SlowdownModel::MAX_MEMORY_CONTENTION],
        running in any::<u32>(),
    ) {
        let model = SlowdownModel { compute_fraction, smt_gain, memory_contention }
            .check()
            .expect("in range");
        let rate = model.rate(&node, running);
        prop_assert!(rate > 0.0 && rate <= 1.0, "rate {rate}");
        prop_assert!((1.0 / rate).is_finite(), "rate {rate}");
    }

    #[test]
    fn constant_load_energy_is_power_times_time(
        node in any_node(), running in 1u32..64, end_secs in 0.0..1e6f64,
    ) {
        // One change at 0 to `running` tasks: E = P(running) * end.
        let power = PowerModel::default();
        let load = timeline(&[(0.0, running)]);
        let energy = node_energy_joules(&node, &load, end_secs, &power).expect("valid");
        let watts = 65.0 + 17.0 * f64::from(running.min(node.active_cores));
        prop_assert!((energy - watts * end_secs).abs() <= 1e-9 * watts * end_secs.max(1.0));
    }
}
