//! Energy of a node and of a run: the exact integral of the power over a piecewise-constant
//! load.

use straggler_model::{LoadTimeline, Node, Run, check_range};

use crate::{EnergyError, PowerModel};

/// The energy, in joules, that `node` draws over `[0, end_secs]` under `load`:
///
/// ```text
/// E = sum over segments [a, b) of constant load n:  P(n) * (b - a)
/// ```
///
/// with `P` from [`PowerModel::power_watts`]. The whole interval is covered: before the
/// first load change and wherever the load is 0 the node draws `idle_watts`; changes at or
/// after `end_secs` are ignored.
///
/// # Errors
///
/// An invalid `power` (see [`PowerModel::check`]), an `end_secs` that is not finite or
/// negative, [`EnergyError::BadNode`] for a node that breaks `Node::check` (no active
/// core, say: it would draw `P_static` while its tasks make no progress),
/// [`EnergyError::BadLoadChange`] for a load change at a time that is not finite, negative
/// or before the previous change, and [`EnergyError::EnergyOverflow`] when the energy is
/// not a finite `f64` (an `end_secs` near `f64::MAX`).
pub fn node_energy_joules(
    node: &Node,
    load: &LoadTimeline,
    end_secs: f64,
    power: &PowerModel,
) -> Result<f64, EnergyError> {
    let power = power.check()?;
    check_range("end_secs", end_secs, 0.0, f64::MAX, ">= 0")?;
    check_node(node)?;
    check_timeline(node, load)?;
    finite(integrate(node, load, end_secs, &power), node, end_secs)
}

/// The energy, in joules, of every node of `run` over `[0, run.end_secs]`: the sum of
/// [`node_energy_joules`] over `run.nodes`, each with its timeline `run.load[i]`. A node
/// without a timeline (`run.load` shorter than `run.nodes`) and without attempts is idle
/// the whole run. A run built from records, not by an engine, has its timelines from its
/// attempts ([`Run::load_from_attempts`]):
///
/// ```
/// use straggler_energy::{PowerModel, run_energy_joules};
/// use straggler_model::*;
///
/// // One attempt on [0, 10) on a node of 4 cores: (65 + 17) W x 10 s = 820 J.
/// let mut run = Run {
///     nodes: vec![Node::new(NodeId(0), 4, 2, 8)],
///     attempts: vec![
///         Attempt::started(AttemptId(0), TaskId(0), NodeId(0), AttemptRole::Original, 0.0)
///             .ended(10.0, AttemptStatus::Succeeded, 1.0),
///     ],
///     end_secs: 10.0,
///     ..Run::default()
/// };
/// assert!(run_energy_joules(&run, &PowerModel::default()).is_err()); // no timeline
/// run.load = run.load_from_attempts()?;
/// assert_eq!(run_energy_joules(&run, &PowerModel::default())?, 820.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`node_energy_joules`] for each node (every node is checked, with or without a
/// timeline), plus [`EnergyError::LoadWithoutNode`] if `run.load` has more timelines than
/// `run.nodes` has nodes, [`EnergyError::AttemptWithoutLoad`] for an attempt on a node
/// without a timeline (its energy would be left out), and [`EnergyError::EnergyOverflow`]
/// naming the node whose energy takes the total beyond a finite `f64`.
pub fn run_energy_joules(run: &Run, power: &PowerModel) -> Result<f64, EnergyError> {
    let power = power.check()?;
    check_range("end_secs", run.end_secs, 0.0, f64::MAX, ">= 0")?;
    if run.load.len() > run.nodes.len() {
        return Err(EnergyError::LoadWithoutNode {
            timelines: run.load.len(),
            nodes: run.nodes.len(),
        });
    }
    if let Some((attempt, on)) = run
        .attempts
        .iter()
        .enumerate()
        .find(|(_, a)| a.node.index() >= run.load.len())
    {
        return Err(EnergyError::AttemptWithoutLoad {
            attempt,
            node: on.node,
            timelines: run.load.len(),
        });
    }
    let idle = LoadTimeline::default();
    let mut total = 0.0;
    for (i, node) in run.nodes.iter().enumerate() {
        let load = run.load.get(i).unwrap_or(&idle);
        check_node(node)?;
        check_timeline(node, load)?;
        total += integrate(node, load, run.end_secs, &power);
        total = finite(total, node, run.end_secs)?;
    }
    Ok(total)
}

fn check_node(node: &Node) -> Result<(), EnergyError> {
    node.check().map_err(|error| EnergyError::BadNode {
        node: node.id,
        error,
    })
}

/// `joules` if finite. With a checked model, node and `end_secs` every term of the
/// integral is finite and `>= 0`, so a sum that is not finite is `+inf`: the time is too
/// long for an `f64` of joules.
fn finite(joules: f64, node: &Node, end_secs: f64) -> Result<f64, EnergyError> {
    if joules.is_finite() {
        Ok(joules)
    } else {
        Err(EnergyError::EnergyOverflow {
            node: node.id,
            end_secs,
        })
    }
}

fn check_timeline(node: &Node, load: &LoadTimeline) -> Result<(), EnergyError> {
    let mut previous = 0.0;
    for (change, step) in load.changes.iter().enumerate() {
        let value = step.time_secs;
        if !value.is_finite() || value < previous {
            return Err(EnergyError::BadLoadChange {
                node: node.id,
                change,
                value,
            });
        }
        previous = value;
    }
    Ok(())
}

/// Integrates over a checked timeline and a checked `end_secs >= 0`.
fn integrate(node: &Node, load: &LoadTimeline, end_secs: f64, power: &PowerModel) -> f64 {
    let mut covered = 0.0;
    let mut energy = 0.0;
    for (from, to, running) in load.segments(end_secs) {
        if from > covered {
            energy += power.idle_watts * (from - covered);
        }
        energy += power.power_watts(node, running) * (to - from);
        covered = to;
    }
    if end_secs > covered {
        energy += power.idle_watts * (end_secs - covered);
    }
    energy
}
