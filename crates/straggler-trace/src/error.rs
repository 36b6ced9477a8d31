//! The error type of the trace crate.

use std::path::PathBuf;

/// Why a trace could not be read at all. A bad record inside a readable trace is not an
/// error: it is a [`Skip`](crate::Skip) counted in the [`ReadReport`](crate::ReadReport).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The file or directory could not be opened or read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause, which the message includes (so that a chain of causes does not print
        /// it twice).
        error: std::io::Error,
    },
    /// The content matches none of the supported formats.
    #[error("{path}: not a trace format this crate reads ({hint})")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// What the content looked like.
        hint: String,
    },
    /// The path is a pipe (`/dev/stdin`, a shell's `<(...)`), a device or a socket: an input
    /// is read twice (its format detected, then its records read), and such a path gives
    /// its bytes only once. Write it to a file first; or, knowing its format, hand the
    /// stream to [`read_reader`](crate::read_reader), which reads it once.
    #[error(
        "{path}: {kind}, which cannot be read twice (once to detect its format, once to read \
         it): write it to a file first (`... > trace.log`) and read that"
    )]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead ("a pipe", "a character device"...).
        kind: String,
    },
    /// A file that travels with logs but holds no tasks: a Hadoop job configuration XML
    /// beside its history file, a Rumen topology beside its trace.
    #[error("{path}: {what} is no log: {why}")]
    NotALog {
        /// The file.
        path: PathBuf,
        /// What was recognised.
        what: String,
        /// What it holds, and what to read instead.
        why: String,
    },
    /// A log recognised but not read: an LZ4- or Snappy-compressed Spark log, a binary
    /// `.jhist`, an Alibaba `batch_task` table.
    #[error("{path}: {what} is not supported: {why}")]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// What was recognised.
        what: String,
        /// Why it cannot be read, and what to do instead.
        why: String,
    },
    /// The compressed input fails its integrity check: a gzip member's CRC-32 or length (its
    /// trailer), a gzip header's CRC-16, or a zstd frame's content checksum or content size
    /// does not match the data decompressed. The check comes at the end of the member or
    /// frame, after its records were read, and they look valid; but some of their bytes are
    /// not those that were written, and which cannot be told: a flipped bit in a launch
    /// time passes every check of a record and changes the replay without a word. No record
    /// can be singled out, so no skip can account for it: the whole input is refused, with
    /// this error rather than a report entry that a caller could overlook (the jobs that
    /// [`read_jobs`](crate::read_jobs) handed out before it came from the same data:
    /// [`read_path`](crate::read_path) drops them). `gzip -t` or `zstd -t` confirms the
    /// fault; `gzip -dc` or `zstd -dc` writes out what the file holds, for a user who
    /// chooses to read that all the same (the message names the one tool that fits).
    #[error(
        "{path}: corrupt compressed data: {detail}; none of what the file decompresses to \
         can be trusted, so it is not read (`{tool} -t` confirms the fault; `{tool} -dc` \
         writes out what it holds, to read knowingly)"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// Which check failed, where, and the values it compared.
        detail: String,
        /// The tool that decompresses the file: `gzip` or `zstd`.
        tool: String,
    },
    /// A record the whole file depends on (a header, a schema line) is malformed.
    #[error("{path}:{line}: field {field}: {reason}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line (or record) number.
        line: u64,
        /// The field at fault.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
}
