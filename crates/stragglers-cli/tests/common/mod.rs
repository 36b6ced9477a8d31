//! What the CLI's test files share: running the binary, and temporary directories that
//! go away when the test ends, passed or failed.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs `stragglers ARGS`.
pub fn stragglers(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stragglers"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// A directory `stragglers-NAME-PID` under the system's temporary directory, created
/// empty (whatever an interrupted run left there is removed first) and removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    /// The directory for a test named `name` (unique among the tests of a file, which
    /// run in one process).
    pub fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("stragglers-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("a temporary directory");
        TempDir(path)
    }
}

impl Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Best effort: a directory left behind is removed by the next run's `new`.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
