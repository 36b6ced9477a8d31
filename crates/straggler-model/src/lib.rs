//! The vocabulary shared by every crate of the workspace: what a node, a task, an attempt,
//! a progress report and a run are, and the columnar [`Snapshot`] of running attempts that
//! straggler detectors scan.
//!
//! The types follow the seed paper (Phan et al., TOMPECS 2019, Sections 2.1.3 and 3.2): a
//! *task* is a unit of work of a job (a map or a reduce); an *attempt* is one execution of
//! it on a node, either the *original* or a *speculative* copy; the first attempt to finish
//! wins and the other is killed. A task is identified across repeated runs of the same job
//! by its [`TaskKey`], which is what ground truth (the usual execution time) is keyed on.
//!
//! This crate has no logic beyond validation and small derived quantities, so that a
//! downstream scheduler can depend on it (and on `straggler-detect`) without pulling in the
//! simulator.
#![deny(missing_docs)]

mod error;
mod event;
mod ids;
mod node;
mod run;
mod snapshot;
mod task;

pub use error::{ModelError, ValueError, check_range};
pub use event::{AttemptEnd, Observation, ProgressReport};
pub use ids::{AttemptId, JobId, NodeId, StageId, TaskId};
pub use node::Node;
pub use run::{Detection, LoadChange, LoadTimeline, OriginalTime, Run, TimeSource};
pub use snapshot::{Snapshot, SnapshotRow, Stage};
pub use task::{Attempt, AttemptRole, AttemptStatus, Task, TaskKey, TaskKind};
