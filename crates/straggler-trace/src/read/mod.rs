//! Reading a log: format detection, decompression, and one reader per format.
//!
//! Every reader streams: it reads its input record by record, keeps only the jobs still open,
//! and hands each job to the caller as soon as the log says it is over (or at the end of the
//! input for jobs the log never closes). Every record read is counted in the [`ReadReport`]:
//! parsed, or skipped with a reason and its line. A malformed record never panics and never
//! disappears; an input cut in the middle of a record yields what it holds and sets
//! [`ReadReport::truncated`], as does one that ends before the end of a job it opened (in
//! the formats that write a job's end). A record that repeats or contradicts one applied before (an
//! attempt id of another task, a second start or end, a start after the end) is skipped
//! with a reason naming the conflict, never merged. What of an input holds no record and
//! is not read (bytes after the end of its compressed data, files of a rolling directory
//! that are not event files) is named in [`ReadReport::unread`]; compressed data that fails
//! its checksum is refused ([`TraceError::Corrupt`]). See `docs/trace-formats.md` for what
//! each format gives.

mod assemble;
mod conf_xml;
mod csv;
mod detect;
mod hadoop1;
mod hadoop_conf;
mod input;
mod jhist;
mod rumen;
mod spark;

use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::{ReadReport, TraceError, TraceFormat, TraceJob};

pub use conf_xml::{JobConf, conf_job_id, read_job_conf};
pub use detect::{detect_bytes, detect_format};
pub use hadoop_conf::HadoopVersion;
pub(crate) use hadoop_conf::is_switch_key;

/// Reads the log at `path` (a file, plain or gzip or zstd, or a Spark rolling event-log
/// directory), calling `on_job` for each job as soon as it is complete, so that memory stays
/// flat with the size of the input (apart from the jobs still open).
///
/// # Errors
/// [`TraceError`] when the input cannot be opened, is neither a regular file nor a directory
/// ([`TraceError::NotAFile`]: a pipe such as `/dev/stdin`, which could not be read twice),
/// its format is unknown ([`TraceError::UnknownFormat`]), it is no log
/// ([`TraceError::NotALog`]: a job configuration, a topology) or a log not read
/// ([`TraceError::Unsupported`]), its compressed data fails its checksum
/// ([`TraceError::Corrupt`]: the records it held cannot be trusted, and the jobs handed to
/// `on_job` before the error came from them), or a record the whole file depends on (a
/// `.jhist` header) is malformed. Bad records inside a readable input are not errors: they
/// are counted in the returned [`ReadReport`], as are the parts of it not read (bytes after
/// the end of its compressed data, files of a rolling directory that are not event files,
/// in [`ReadReport::unread`]).
pub fn read_jobs(path: &Path, on_job: impl FnMut(TraceJob)) -> Result<ReadReport, TraceError> {
    let format = detect_format(path)?;
    if path.is_dir() {
        let listing = detect::rolling_event_files(path)?;
        let mut report = ReadReport::new(path, format);
        // Every other entry of the directory is named, with why it is not read: nothing in
        // it goes unread without a word.
        report.unread.extend(listing.others);
        let mut reader = spark::SparkReader::new(on_job);
        // Each file is read and counted on its own, its lines numbered from 1, then added
        // to the directory's report, its skips naming it. A file cut short does not stop
        // the reading: the next files hold later events. The report keeps the first cut,
        // naming its file, as the note of a job without its end does.
        for file in &listing.events {
            let mut part = ReadReport::new(file, format);
            let (input, check) = input::open(file)?;
            let name = file.file_name().unwrap_or(file.as_os_str());
            let name = name.to_string_lossy();
            reader.read_lines(&mut input::Lines::new(input), &mut part, Some(&name));
            check.finish(file, &mut part)?;
            report.add_file(part, &name);
        }
        reader.finish(&mut report);
        return Ok(report);
    }
    let (input, check) = input::open(path)?;
    read_input(input, &check, format, path, on_job)
}

/// Reads the whole log at `path` and returns its jobs (in the order they completed) with
/// the report. See [`read_jobs`].
///
/// # Errors
/// As [`read_jobs`].
pub fn read_path(path: &Path) -> Result<(Vec<TraceJob>, ReadReport), TraceError> {
    let mut jobs = Vec::new();
    let report = read_jobs(path, |job| jobs.push(job))?;
    Ok((jobs, report))
}

/// Reads a log in a known `format` from any buffered reader (decompressing gzip or zstd
/// content first, detected from its magic bytes). `path` only names the input in the report
/// and in errors. This is what [`read_jobs`] does after detection; tests and fuzz targets
/// call it on bytes in memory.
///
/// # Errors
/// As [`read_jobs`]: [`TraceError::Unsupported`] for LZ4 or Snappy content,
/// [`TraceError::Corrupt`] for compressed content that fails its checksum,
/// [`TraceError::Malformed`] for a broken `.jhist` header.
pub fn read_reader<'a>(
    reader: impl BufRead + 'a,
    format: TraceFormat,
    path: &Path,
    on_job: impl FnMut(TraceJob),
) -> Result<ReadReport, TraceError> {
    let (input, check) = input::decompress(Box::new(reader), path)?;
    read_input(input, &check, format, path, on_job)
}

/// Reads the decompressed `input` in `format`, then adds what its decoder found (`check`)
/// to the report: bytes after the end of the compressed data, or an integrity check that
/// failed, which refuses the input whatever the reader made of it.
fn read_input(
    input: Box<dyn BufRead + '_>,
    check: &input::StreamCheck,
    format: TraceFormat,
    path: &Path,
    on_job: impl FnMut(TraceJob),
) -> Result<ReadReport, TraceError> {
    let mut report = ReadReport::new(path, format);
    // Only a `.jhist` can fail as a whole (its header); every other reader counts all.
    let mut read = Ok(());
    match format {
        TraceFormat::SparkEventLog => {
            let mut reader = spark::SparkReader::new(on_job);
            reader.read_lines(&mut input::Lines::new(input), &mut report, None);
            reader.finish(&mut report);
        }
        TraceFormat::HadoopJhist => read = jhist::read(input, path, &mut report, on_job),
        TraceFormat::Hadoop1History => hadoop1::read(input, &mut report, on_job),
        TraceFormat::Rumen => rumen::read(input, &mut report, on_job),
        TraceFormat::Google2011TaskEvents => csv::read_google(input, &mut report, on_job),
        TraceFormat::Alibaba2018BatchInstance => csv::read_alibaba(input, &mut report, on_job),
        // No job: its properties counted (`read_job_conf` gives its setting), read as
        // Hadoop 2 reads them, the version a configuration file is read as when no log
        // says.
        TraceFormat::HadoopConf => {
            let version = HadoopVersion::Hadoop2;
            read = conf_xml::read(input, path, version, &mut report).map(|_| ());
        }
    }
    check.finish(path, &mut report)?;
    read?;
    Ok(report)
}

/// Reads `bytes` as a log in `format` and returns its jobs and report; the entry point of
/// the property tests and fuzz targets. Never panics, whatever the bytes.
///
/// # Errors
/// As [`read_reader`].
pub fn read_bytes(
    bytes: &[u8],
    format: TraceFormat,
) -> Result<(Vec<TraceJob>, ReadReport), TraceError> {
    let mut jobs = Vec::new();
    let report = read_reader(bytes, format, &PathBuf::from("<bytes>"), |job| {
        jobs.push(job);
    })?;
    Ok((jobs, report))
}
