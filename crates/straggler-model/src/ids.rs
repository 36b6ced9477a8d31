//! Dense numeric identifiers. Each is an index into the vector of its kind in a [`Run`](crate::Run).

use serde::{Deserialize, Serialize};

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The identifier as an index into a vector.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id!(
    /// A worker node of the cluster.
    NodeId
);
id!(
    /// A task of a run (index into [`Run::tasks`](crate::Run::tasks)).
    TaskId
);
id!(
    /// An attempt of a run (index into [`Run::attempts`](crate::Run::attempts)).
    AttemptId
);
id!(
    /// A job. The same job run again keeps its id, so that task keys match across runs.
    JobId
);
id!(
    /// A stage: the tasks of one kind of one job (the maps of job 3, say). Detectors compare
    /// a task with the other tasks of its stage.
    StageId
);
