//! What the scan benchmarks share: their snapshots and the floor pass they are measured
//! beside.

use straggler_detect::conformance::straggling_stage;
use straggler_model::Snapshot;

/// `attempts` running maps of one job on `nodes` nodes: the kit's straggling stage.
pub fn snapshot(attempts: usize, nodes: u32) -> Snapshot {
    straggling_stage(attempts, nodes, 0x00be_ac4e_d5ca_4500 ^ attempts as u64).expect("valid rows")
}

/// Reads the progress and start columns and nothing else.
pub fn floor(snapshot: &Snapshot) -> f64 {
    let (progress, start) = (snapshot.progress(), snapshot.start_secs());
    let mut lanes = [0.0f64; 8];
    let (progress_chunks, start_chunks) = (progress.chunks_exact(8), start.chunks_exact(8));
    let tail: f64 = progress_chunks
        .remainder()
        .iter()
        .chain(start_chunks.remainder())
        .sum();
    for (p, s) in progress_chunks.zip(start_chunks) {
        for ((lane, p), s) in lanes.iter_mut().zip(p).zip(s) {
            *lane += p + s;
        }
    }
    lanes.iter().sum::<f64>() + tail
}
