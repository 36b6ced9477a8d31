//! Inputs at the edges of what a path or a byte stream can be: a pipe or a device in place
//! of a file (refused up front, since an input is read twice), zstd streams with skippable
//! frames (passed over wherever a frame may start), gzip and zstd data that fail their
//! checksums (refused as corrupt) or are followed by padding or garbage (noted, not taken
//! for a cut), files of a rolling event-log directory that are not event files (named),
//! Rumen objects whose bad values are named by their line and field (and cost only the
//! attempt or task they are in), line ends, byte order marks and damaged compressed data
//! (read the same whatever the size of the reads that bring them), and a damaged first line (detection reads past
//! it, and the line costs only itself).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use straggler_trace::{
    AttemptOutcome, LogLine, ReadReport, TraceError, TraceFormat, TraceJob, detect_format,
    read_bytes, read_path, read_reader,
};

fn fixtures() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/traces"
    ))
    .to_owned()
}

/// A fresh directory of this test process for files a test writes, removed by the test.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "straggler-input-edges-{}-{test}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// `(line, field, reason)` of each skip kept in `report`.
fn skips(report: &ReadReport) -> Vec<(u64, Option<&str>, &str)> {
    report
        .skips
        .iter()
        .map(|skip| (skip.line, skip.field.as_deref(), skip.reason.as_str()))
        .collect()
}

/// What a read gave, to compare two reads of the same content: the report's counts and
/// skips, and each job's id with its tasks' ids and attempts' ids.
fn summary(jobs: &[TraceJob], report: &ReadReport) -> String {
    let jobs: Vec<_> = jobs
        .iter()
        .map(|job| {
            let tasks: Vec<_> = job
                .tasks
                .iter()
                .map(|task| {
                    let attempts: Vec<_> = task.attempts.iter().map(|a| a.id.as_str()).collect();
                    format!("{}{attempts:?}", task.id)
                })
                .collect();
            format!("{}{tasks:?}", job.id)
        })
        .collect();
    format!(
        "read {} parsed {} skipped {} truncated {:?} skips {:?} jobs {jobs:?}",
        report.records_read,
        report.records_parsed,
        report.records_skipped,
        report.truncated,
        skips(report)
    )
}

// ---------------------------------------------------------------------------------------
// A pipe or a device in place of a file.

fn assert_not_a_file(result: Result<impl std::fmt::Debug, TraceError>, path: &Path, kind: &str) {
    match result {
        Err(error @ TraceError::NotAFile { .. }) => {
            let message = error.to_string();
            assert!(
                message.starts_with(&path.display().to_string()),
                "{message}"
            );
            assert!(message.contains(kind), "{message}");
            assert!(message.contains("write it to a file first"), "{message}");
        }
        other => panic!("{}: expected NotAFile, got {other:?}", path.display()),
    }
}

#[test]
fn a_pipe_is_refused_before_anything_of_it_is_read() {
    let dir = scratch_dir("fifo");
    let fifo = dir.join("events.fifo");
    let status = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo (coreutils) runs");
    assert!(status.success(), "mkfifo {}", fifo.display());
    // A writer, as a shell's `cat log | ...` would be: it waits for a reader, then writes
    // the log. The refusal must come without opening the pipe (which would wait for the
    // writer, or take its bytes).
    let log = std::fs::read(fixtures().join("spark-small.json")).expect("the fixture");
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new()
            .write(true)
            .open(&writer_path)
            .expect("the pipe opens for writing");
        // The reader may stop early (EPIPE): that is not this test's concern.
        let _ = pipe.write_all(&log);
    });
    // What the CLI does with every input: detect, then read.
    assert_not_a_file(detect_format(&fifo), &fifo, "a pipe");
    assert_not_a_file(read_path(&fifo), &fifo, "a pipe");
    // Let the writer go: open the pipe once, read it whole, as the refusal asks.
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::fs::File::open(&fifo).expect("the pipe opens"),
        &mut bytes,
    )
    .expect("the pipe reads");
    writer.join().expect("the writer ends");
    assert!(
        !bytes.is_empty(),
        "the writer's bytes were all left in the pipe"
    );
    std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
}

#[test]
fn a_device_is_refused_too() {
    let null = Path::new("/dev/null");
    if !null.exists() {
        // Not a Unix system: no device path to try.
        eprintln!("SKIPPED: no /dev/null on this system");
        return;
    }
    assert_not_a_file(detect_format(null), null, "a character device");
    assert_not_a_file(read_path(null), null, "a character device");
}

#[test]
fn a_regular_file_and_a_directory_still_read() {
    assert_eq!(
        detect_format(&fixtures().join("spark-small.json")).expect("a file"),
        TraceFormat::SparkEventLog
    );
    let rolling = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    assert_eq!(
        detect_format(&rolling).expect("a directory"),
        TraceFormat::SparkEventLog
    );
    read_path(&rolling).expect("a rolling event log reads");
}

// ---------------------------------------------------------------------------------------
// zstd skippable frames.

/// A skippable frame of `magic_low` (0..=15: magic 0x184D2A50 + it) holding `payload`.
fn skippable_frame(magic_low: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = (0x184D_2A50u32 + u32::from(magic_low))
        .to_le_bytes()
        .to_vec();
    frame.extend_from_slice(&u32::try_from(payload.len()).expect("small").to_le_bytes());
    frame.extend_from_slice(payload);
    frame
}

/// `text` as one zstd frame.
fn zstd_frame(text: &[u8]) -> Vec<u8> {
    ruzstd::encoding::compress_to_vec(text, ruzstd::encoding::CompressionLevel::Fastest)
}

/// The Spark fixture, its first `at` lines and the rest.
fn spark_log_split(at: usize) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let log = std::fs::read(fixtures().join("spark-small.json")).expect("the fixture");
    let cut = log
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(at - 1)
        .map(|(i, _)| i + 1)
        .expect("enough lines");
    let (head, tail) = (log[..cut].to_vec(), log[cut..].to_vec());
    (log, head, tail)
}

/// Reads `bytes` as the CLI does, from a file: its format detected, then read.
fn read_as_file(test: &str, bytes: &[u8]) -> (TraceFormat, Vec<TraceJob>, ReadReport) {
    let dir = scratch_dir(test);
    let path = dir.join("events.zst");
    std::fs::write(&path, bytes).expect("the file is written");
    let format = detect_format(&path).expect("the format is detected");
    let (jobs, report) = read_path(&path).expect("the file reads");
    std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
    (format, jobs, report)
}

#[test]
fn a_skippable_frame_between_zstd_frames_is_passed_over() {
    let (log, head, tail) = spark_log_split(4);
    let (plain_jobs, plain) = read_bytes(&log, TraceFormat::SparkEventLog).expect("plain");
    let expected = summary(&plain_jobs, &plain);
    assert_eq!(plain.records_skipped, 0, "{expected}");
    assert!(plain.truncated.is_none(), "{expected}");

    let mut bytes = zstd_frame(&head);
    bytes.extend(skippable_frame(0, b"abcd"));
    bytes.extend(zstd_frame(&tail));
    let (jobs, report) = read_bytes(&bytes, TraceFormat::SparkEventLog).expect("zstd");
    assert_eq!(summary(&jobs, &report), expected);

    // Several in a row, of other magic numbers, one empty, and one at the very end.
    let mut bytes = zstd_frame(&head);
    bytes.extend(skippable_frame(15, &[0; 300]));
    bytes.extend(skippable_frame(7, b""));
    bytes.extend(zstd_frame(&tail));
    bytes.extend(skippable_frame(1, b"seek table"));
    let (format, jobs, report) = read_as_file("between", &bytes);
    assert_eq!(format, TraceFormat::SparkEventLog);
    assert_eq!(summary(&jobs, &report), expected);
}

#[test]
fn a_stream_that_starts_with_a_skippable_frame_is_zstd() {
    let (log, head, tail) = spark_log_split(4);
    let (plain_jobs, plain) = read_bytes(&log, TraceFormat::SparkEventLog).expect("plain");
    let expected = summary(&plain_jobs, &plain);

    // As `pzstd` writes: each frame after a skippable frame of 4 bytes, its size.
    let mut bytes = Vec::new();
    for frame in [zstd_frame(&head), zstd_frame(&tail)] {
        let size = u32::try_from(frame.len()).expect("small").to_le_bytes();
        bytes.extend(skippable_frame(0, &size));
        bytes.extend(frame);
    }
    let (format, jobs, report) = read_as_file("start", &bytes);
    assert_eq!(format, TraceFormat::SparkEventLog);
    assert_eq!(summary(&jobs, &report), expected);

    // The fixture `zstd -19` wrote, after a skippable frame too large for the first
    // buffer: detection cannot see past it, and guesses zstd, rightly.
    let zst = std::fs::read(fixtures().join("spark-small.json.zst")).expect("the fixture");
    let mut bytes = skippable_frame(2, &vec![0; 300 * 1024]);
    bytes.extend(zst);
    let (format, jobs, report) = read_as_file("start-large", &bytes);
    assert_eq!(format, TraceFormat::SparkEventLog);
    assert_eq!(summary(&jobs, &report), expected);
}

#[test]
fn a_cut_skippable_frame_is_a_cut_not_a_panic() {
    let (log, head, _) = spark_log_split(4);
    let mut bytes = zstd_frame(&head);
    // Says 100 bytes, holds 10.
    let mut frame = skippable_frame(0, &[0; 100]);
    frame.truncate(8 + 10);
    bytes.extend(frame);
    let (_, report) = read_bytes(&bytes, TraceFormat::SparkEventLog).expect("zstd");
    let truncated = report.truncated.as_ref().expect("the cut is noted");
    assert_eq!(truncated.line, 5, "{truncated:?}");
    assert!(
        truncated.note.contains("skippable frame"),
        "{}",
        truncated.note
    );
    // The 4 lines before the cut are read.
    let lines = log.iter().filter(|&&b| b == b'\n').count() as u64;
    assert!(report.records_read == 4 && lines > 4, "{report:?}");
}

// ---------------------------------------------------------------------------------------
// gzip and zstd: integrity checks, and what follows the end of the data.

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).expect("the fixture")
}

/// What the plain Spark fixture reads as, to compare a compressed copy's reading with.
fn plain_summary() -> String {
    let (jobs, report) = read_bytes(&fixture("spark-small.json"), TraceFormat::SparkEventLog)
        .expect("the plain fixture reads");
    summary(&jobs, &report)
}

/// `(file, reason, note)` of each part of the input `report` notes as not read.
fn unread(report: &ReadReport) -> Vec<(Option<&str>, &str, &str)> {
    report
        .unread
        .iter()
        .map(|u| (u.file.as_deref(), u.reason.as_str(), u.note.as_str()))
        .collect()
}

/// `(file, reason)` of each part of the input `report` notes as not read.
fn unread_reasons(report: &ReadReport) -> Vec<(Option<&str>, &str)> {
    unread(report)
        .into_iter()
        .map(|(file, reason, _)| (file, reason))
        .collect()
}

/// The message of the [`TraceError::Corrupt`] that `result` should be.
fn corrupt_message<T: std::fmt::Debug>(result: Result<T, TraceError>) -> String {
    match result {
        Err(error @ TraceError::Corrupt { .. }) => error.to_string(),
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

/// `data` as one gzip member with the header `flags` asks for (RFC 1952: FHCRC 0x02,
/// FEXTRA 0x04, FNAME 0x08, FCOMMENT 0x10), its header CRC-16 off by one if `bad_header`.
fn gzip_member(data: &[u8], flags: u8, bad_header: bool) -> Vec<u8> {
    let mut member = vec![0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 255];
    if flags & 0x04 != 0 {
        member.extend([3, 0]);
        member.extend(b"abc");
    }
    if flags & 0x08 != 0 {
        member.extend(b"events.json\0");
    }
    if flags & 0x10 != 0 {
        member.extend(b"a comment\0");
    }
    if flags & 0x02 != 0 {
        let mut crc = flate2::Crc::new();
        crc.update(&member);
        let crc16 = (crc.sum() & 0xffff) as u16 ^ u16::from(bad_header);
        member.extend(crc16.to_le_bytes());
    }
    let mut deflate =
        flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    deflate.write_all(data).expect("in memory");
    member.extend(deflate.finish().expect("in memory"));
    let mut crc = flate2::Crc::new();
    crc.update(data);
    member.extend(crc.sum().to_le_bytes());
    member.extend(crc.amount().to_le_bytes());
    member
}

/// A gzip member whose trailer (its data's CRC-32, then its length) does not match its
/// data is a corrupt file, refused, naming the check that failed: every record of it was
/// read and looks valid, but the data is not what was written. (It was a cut: "the input
/// cannot be read past line 13".)
#[test]
fn a_gzip_member_that_fails_its_checksum_is_corrupt_not_cut() {
    let gz = fixture("spark-small.json.gz");
    let n = gz.len();
    let mut bad_crc = gz.clone();
    bad_crc[n - 8] ^= 0x01;
    let message = corrupt_message(read_bytes(&bad_crc, TraceFormat::SparkEventLog));
    assert!(
        message.starts_with(
            "<bytes>: corrupt compressed data: gzip member 1 (ending at byte 723) fails its \
             integrity check: the CRC-32 of its data is c7ad4a2a, its trailer says c7ad4a2b; \
             none of what the file decompresses to can be trusted, so it is not read"
        ),
        "{message}"
    );
    // The length: the fixture is 4049 bytes, its trailer made to say 4048.
    let mut bad_length = gz.clone();
    bad_length[n - 4] ^= 0x01;
    let message = corrupt_message(read_bytes(&bad_length, TraceFormat::SparkEventLog));
    assert!(
        message.contains("its data is 4049 bytes (modulo 2^32), its trailer says 4048"),
        "{message}"
    );
    // In a second member; and read from a file, which the message names (detection, which
    // reads only the head, still tells the format).
    let mut two = gz.clone();
    two.extend(&bad_crc);
    let dir = scratch_dir("gzip-crc");
    let path = dir.join("events.gz");
    std::fs::write(&path, &two).expect("the file is written");
    let format = detect_format(&path);
    let message = corrupt_message(read_path(&path));
    std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
    assert_eq!(format.ok(), Some(TraceFormat::SparkEventLog));
    assert!(
        message.starts_with(&path.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("gzip member 2 (ending at byte 1446)"),
        "{message}"
    );
    // A member cut inside its trailer is a cut, as before: what it checks is not there.
    let (_, report) = read_bytes(&gz[..n - 3], TraceFormat::SparkEventLog).expect("a cut");
    let cut = report.truncated.expect("the cut is noted");
    assert!(cut.note.contains("before its checksum"), "{}", cut.note);
}

/// A gzip header's optional fields are passed over, and its CRC-16, when it has one,
/// checked: a header written by flate2's `GzBuilder` (name, comment, extra field), and one
/// with every field and a CRC-16, read as the plain fixture; a wrong CRC-16 is corrupt.
#[test]
fn gzip_headers_are_read_whole_and_their_crc16_checked() {
    let plain = fixture("spark-small.json");
    let expected = plain_summary();
    let mut built = flate2::GzBuilder::new()
        .filename("events.json")
        .comment("a comment")
        .extra(vec![1, 2, 3])
        .write(Vec::new(), flate2::Compression::default());
    built.write_all(&plain).expect("in memory");
    let built = built.finish().expect("in memory");
    for bytes in [built, gzip_member(&plain, 0x1e, false)] {
        let (jobs, report) = read_bytes(&bytes, TraceFormat::SparkEventLog).expect("gzip");
        assert_eq!(summary(&jobs, &report), expected);
    }
    let message = corrupt_message(read_bytes(
        &gzip_member(&plain, 0x1e, true),
        TraceFormat::SparkEventLog,
    ));
    assert!(
        message.contains("the header of gzip member 1 fails its CRC-16"),
        "{message}"
    );
}

/// A zstd frame whose content checksum (written by `zstd` by default, and by ruzstd's
/// encoder) does not match its content is a corrupt file, refused. (ruzstd leaves the
/// check to its caller, which did not make it: the file was read without a word.)
#[test]
fn a_zstd_frame_that_fails_its_content_checksum_is_corrupt() {
    // The fixture `zstd -19` wrote, its checksum (the frame's last 4 bytes) changed.
    let mut zst = fixture("spark-small.json.zst");
    let n = zst.len();
    zst[n - 1] ^= 0x80;
    let message = corrupt_message(read_bytes(&zst, TraceFormat::SparkEventLog));
    assert!(
        message.contains("zstd frame 1 (ending at byte 720) fails its content checksum"),
        "{message}"
    );
    // The second of two frames, after a skippable frame.
    let (_, head, tail) = spark_log_split(4);
    let mut bytes = zstd_frame(&head);
    bytes.extend(skippable_frame(3, b"meta"));
    let mut second = zstd_frame(&tail);
    let last = second.len() - 1;
    second[last] ^= 0x01;
    bytes.extend(second);
    let message = corrupt_message(read_bytes(&bytes, TraceFormat::SparkEventLog));
    assert!(message.contains("zstd frame 2"), "{message}");
}

/// The compressed fixtures and their codecs.
const COMPRESSED: [(&str, &str); 2] = [
    ("spark-small.json.gz", "gzip"),
    ("spark-small.json.zst", "zstd"),
];

/// The fixture `name` with `tail` after it, the byte where its data ends, and its report,
/// once checked that every record before the tail reads as the plain fixture does.
fn read_with_tail(name: &str, tail: &[u8]) -> (Vec<u8>, usize, ReadReport) {
    let mut bytes = fixture(name);
    let end = bytes.len();
    bytes.extend(tail);
    let (jobs, report) = read_bytes(&bytes, TraceFormat::SparkEventLog).expect(name);
    assert_eq!(summary(&jobs, &report), plain_summary(), "{name}");
    (bytes, end, report)
}

/// Zero bytes after the last gzip member or zstd frame (padding, as tape and transfer tools
/// add) are passed over and noted; the records are all read, and nothing is cut. (They read
/// as a cut stream: "the input cannot be read past line 13".)
#[test]
fn zero_padding_after_the_compressed_data_is_passed_over_and_noted() {
    let expected = plain_summary();
    for (name, codec) in COMPRESSED {
        let (bytes, end, report) = read_with_tail(name, &[0; 4096]);
        let note = format!(
            "4096 zero bytes after the end of the {codec} data (from byte {end} on), padding \
             as tape and transfer tools add: passed over, as `gzip -d` does"
        );
        assert_eq!(
            unread(&report),
            [(None, "trailing zero bytes", note.as_str())],
            "{codec}"
        );
        // Read from a file, as the CLI does: detection too.
        let (format, jobs, report) = read_as_file(&format!("zeros-{codec}"), &bytes);
        assert_eq!(format, TraceFormat::SparkEventLog);
        assert_eq!(summary(&jobs, &report), expected, "{codec}");
        assert_eq!(report.unread.len(), 1, "{codec}");
    }
}

/// Bytes after the last gzip member or zstd frame that are not compressed data are noted
/// as trailing garbage, where they start and what they start with, and not read; the
/// records before them are all read, and nothing is cut.
#[test]
fn garbage_after_the_compressed_data_is_noted_not_taken_for_a_cut() {
    for (name, codec) in COMPRESSED {
        let (_, end, report) = read_with_tail(name, b"PK\x03\x04 and more");
        let note = format!(
            "the bytes after the end of the {codec} data (byte {end}) are not {codec} data \
             (from byte {end} on: `50 4b 03 04 20 61 6e 64`...): not read; every record \
             before them was"
        );
        assert_eq!(
            unread(&report),
            [(None, "trailing garbage", note.as_str())],
            "{codec}"
        );
        // Zero bytes, then garbage: the garbage is where the zeros stop.
        let (_, _, report) = read_with_tail(name, b"\0\0\0\0\0\0\0\0\0\0xyz");
        let (_, reason, note) = unread(&report)[0];
        assert_eq!(reason, "trailing garbage");
        let at = end + 10;
        assert!(
            note.contains(&format!(
                "(from byte {at} on, after 10 zero bytes: `78 79 7a`...)"
            )),
            "{note}"
        );
    }
}

/// Every entry of a rolling event-log directory that is not read is named in the report
/// with why: Spark's `appstatus_` file (expected), a stray file, an `events_` file whose
/// index is not a number, an editor's backup of an event file (which would give its events
/// twice), a subdirectory; and what a decoder found after an event file's data names that
/// file. (They were passed over without a word, and the backup read as an event file.)
#[test]
fn every_entry_of_a_rolling_directory_not_read_is_named_with_why() {
    let fixture_dir = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    let (_, whole) = read_path(&fixture_dir).expect("the fixture reads");
    let dir = scratch_dir("rolling-unread").join("eventlog_v2_app-20260101000000-0001");
    std::fs::create_dir_all(dir.join("logs")).expect("a scratch directory");
    let first = "events_1_app-20260101000000-0001";
    for entry in std::fs::read_dir(&fixture_dir).expect("the fixture") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        if name == first {
            // The first file gzipped, with padding after it; and an editor's backup of it.
            let text = std::fs::read(&path).expect("readable");
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            gz.write_all(&text).expect("in memory");
            let mut bytes = gz.finish().expect("in memory");
            bytes.extend([0; 512]);
            std::fs::write(dir.join(format!("{first}.gz")), bytes).expect("writable");
            std::fs::write(dir.join(format!("{first}~")), text).expect("writable");
        } else {
            std::fs::copy(&path, dir.join(&name)).expect("copied");
        }
    }
    std::fs::write(dir.join("README"), "notes\n").expect("writable");
    std::fs::write(dir.join("events_x_app-20260101000000-0001"), "{}\n").expect("writable");
    let (_, report) = read_path(&dir).expect("the directory reads");
    let listed = unread_reasons(&report);
    assert_eq!(
        listed,
        [
            (Some("README"), "not an event file"),
            (
                Some("appstatus_app-20260101000000-0001"),
                "Spark status file"
            ),
            (
                Some("events_1_app-20260101000000-0001~"),
                "not an event file"
            ),
            (
                Some("events_x_app-20260101000000-0001"),
                "not an event file"
            ),
            (Some("logs"), "not an event file"),
            (
                Some("events_1_app-20260101000000-0001.gz"),
                "trailing zero bytes"
            ),
        ]
    );
    let notes: Vec<&str> = report.unread.iter().map(|u| u.note.as_str()).collect();
    assert!(
        notes[2].contains("a backup copy of an event file"),
        "{}",
        notes[2]
    );
    assert!(notes[2].contains("`~`"), "{}", notes[2]);
    assert!(
        notes[3].contains("not named `events_<N>_<app>`"),
        "{}",
        notes[3]
    );
    assert!(notes[4].starts_with("a directory"), "{}", notes[4]);
    // The events, each read once.
    assert_eq!(
        (report.records_read, report.records_skipped),
        (whole.records_read, 0)
    );

    // An event file that fails its checksum refuses the directory, naming the file.
    let gz_path = dir.join(format!("{first}.gz"));
    let mut bytes = std::fs::read(&gz_path).expect("readable");
    let trailer = bytes.len() - 512 - 8;
    bytes[trailer] ^= 0x01;
    std::fs::write(&gz_path, bytes).expect("writable");
    let message = corrupt_message(read_path(&dir));
    std::fs::remove_dir_all(dir.parent().expect("a parent")).expect("the scratch directory goes");
    assert!(
        message.starts_with(&gz_path.display().to_string()),
        "{message}"
    );
}

/// The three words for floats JSON has no number for, with their skip reasons.
const NON_NUMBERS: [(&str, &str); 3] = [
    ("NaN", "NaN is not a JSON number"),
    ("Infinity", "Infinity is not a JSON number"),
    ("-Infinity", "-Infinity is not a JSON number"),
];

/// A `NaN`, `Infinity` or `-Infinity` in a Rumen job (not JSON) in a field the reader
/// reads costs the smallest part that holds it, as a value of the wrong type does, skipped
/// on its own line under the word's reason, naming its field; before, it cost the job.
#[test]
fn a_rumen_nan_costs_its_attempt_named_by_its_line_and_field() {
    for (word, reason) in NON_NUMBERS {
        let (jobs, report) = read_rumen(&rumen_job(word, "3000"));
        assert_eq!(skips(&report), [(14, Some("startTime"), reason)], "{word}");
        assert_eq!(
            (report.records_parsed, report.records_skipped),
            (1, 1),
            "{word}"
        );
        let attempts: Vec<_> = jobs[0].tasks[0].attempts.iter().map(|a| &a.id).collect();
        assert_eq!(attempts, ["attempt_1_0001_m_000000_1"], "{word}");
        // A job before it is read: the skip's line counts from the file's start.
        let text = rumen_job("1500", "3000") + &another_rumen_job(&rumen_job("1500", word));
        let (jobs, report) = read_rumen(&text);
        assert_eq!(
            skips(&report),
            [(25 + 20, Some("finishTime"), reason)],
            "{word}"
        );
        assert_eq!(jobs.len(), 2, "{word}");
        assert_eq!(jobs[1].tasks[0].attempts.len(), 1, "{word}");
        // In a field the reader reads as text, the word is not taken for text.
        let text = rumen_job("1500", "3000").replace(r#""/rack1/host1""#, word);
        let (jobs, report) = read_rumen(&text);
        assert_eq!(skips(&report), [(13, Some("hostName"), reason)], "{word}");
        assert_eq!(jobs[0].tasks[0].attempts.len(), 1, "{word}");
    }
    // After a value of the wrong type, a NaN too: each costs its attempt, and is named.
    let (jobs, report) = read_rumen(&rumen_job("true", "NaN"));
    assert_eq!(
        skips(&report),
        [
            (14, Some("startTime"), "field of the wrong type"),
            (20, Some("finishTime"), "NaN is not a JSON number"),
        ]
    );
    assert_eq!((report.records_parsed, report.records_skipped), (1, 2));
    assert!(jobs[0].tasks[0].attempts.is_empty());
}

/// In a task's own fields the word costs the task (its attempts with it), counted as one
/// record, and the job is read without it; in the job's own fields, the job.
#[test]
fn a_rumen_nan_in_a_task_costs_the_task_and_in_the_job_the_job() {
    for (word, reason) in NON_NUMBERS {
        let text = rumen_job("1500", "3000")
            .replace(r#""inputBytes" : -1"#, &format!(r#""inputBytes" : {word}"#));
        let (jobs, report) = read_rumen(&text);
        assert_eq!(skips(&report), [(10, Some("inputBytes"), reason)], "{word}");
        assert_eq!(
            (report.records_parsed, report.records_skipped),
            (1, 1),
            "{word}"
        );
        assert!(jobs[0].tasks.is_empty(), "{word}");

        let text = rumen_job("1500", "3000").replace(r#""MAP""#, word);
        let (jobs, report) = read_rumen(&text);
        assert_eq!(skips(&report), [(8, Some("taskType"), reason)], "{word}");
        assert!(jobs[0].tasks.is_empty(), "{word}");

        let text = rumen_job("1500", "3000").replace(
            r#""submitTime" : 1000"#,
            &format!(r#""submitTime" : {word}"#),
        );
        let (jobs, report) = read_rumen(&text);
        assert_eq!(skips(&report), [(4, Some("submitTime"), reason)], "{word}");
        assert!(jobs.is_empty(), "{word}");

        // Where a list of tasks or an attempt (an object) should be, as where a number is.
        let text = rumen_job("1500", "3000").replace("[ ]", word);
        let (jobs, report) = read_rumen(&text);
        assert_eq!(
            skips(&report),
            [(24, Some("reduceTasks"), reason)],
            "{word}"
        );
        assert!(jobs.is_empty(), "{word}");
        let text = rumen_job("1500", "3000").replace(
            r#""attempts" : [ {"#,
            &format!(r#""attempts" : [ {word}, {{"#),
        );
        let (jobs, report) = read_rumen(&text);
        // An element of a list has no key of its own to name (as a `true` there).
        assert_eq!(skips(&report), [(11, None, reason)], "{word}");
        assert_eq!(jobs[0].tasks[0].attempts.len(), 2, "{word}");
    }
}

/// A `NaN`, `Infinity` or `-Infinity` in a field the reader does not read (Rumen's doubles:
/// `failedMapperFraction`, `mapperTriesToSucceed`, a CDF's `relativeRanking`, where a 0/0
/// gives NaN) costs nothing: the job reads as without it. In `clockSplits` it leaves the
/// attempt without progress, as a split that is not an integer does, and is reported as one.
#[test]
fn a_rumen_nan_in_a_field_not_read_costs_nothing() {
    let (plain_jobs, _) = read_rumen(&rumen_job("1500", "3000"));
    for (word, _) in NON_NUMBERS {
        // On one line, as the line it replaces, so that the job ends on the same line.
        let doubles = format!(
            concat!(
                r#""failedMapperFraction" : {word}, "mapperTriesToSucceed" : [ {word}, 1.0 ], "#,
                r#""successfulMapAttemptCDFs" : [ {{ "rankings" : [ {{ "relativeRanking" :{word}}} ] }} ],"#,
            ),
            word = word
        );
        let text = rumen_job("1500", "3000")
            .replace(r#""priority" : "NORMAL","#, &doubles)
            .replace(
                r#""result" : "KILLED""#,
                &format!(r#""result" : "KILLED", "mapperTriesToSucceed" : {word}"#),
            );
        let (jobs, report) = read_rumen(&text);
        assert!(skips(&report).is_empty(), "{word}: {:?}", skips(&report));
        assert_eq!(
            (report.records_parsed, report.records_skipped),
            (1, 0),
            "{word}"
        );
        assert_eq!(jobs, plain_jobs, "{word}");

        // Splits an attempt's progress is read from, the same splits with the word.
        let splits = |splits: &str| {
            rumen_job("1500", "3000").replace(
                r#""result" : "SUCCESS""#,
                &format!(r#""result" : "SUCCESS", "clockSplits" : [ {splits} ]"#),
            )
        };
        let (jobs, report) = read_rumen(&splits("1000, 2500"));
        assert!(!jobs[0].tasks[0].attempts[0].progress.is_empty());
        assert!(skips(&report).is_empty());
        assert!(report.unusable_splits.is_empty());
        let (jobs, report) = read_rumen(&splits(&format!("1000, {word}")));
        assert!(skips(&report).is_empty(), "{word}: {:?}", skips(&report));
        assert_eq!(jobs[0].tasks[0].attempts.len(), 2, "{word}");
        assert!(jobs[0].tasks[0].attempts[0].progress.is_empty(), "{word}");
        // The word was read as `0.0`: a split that is not an integer, on the `result` line
        // the splits were written on.
        let unusable: Vec<_> = (report.unusable_splits.iter())
            .map(|u| (u.line, u.attempt.as_str(), u.reason.as_str()))
            .collect();
        assert_eq!(
            unusable,
            [(16, "attempt_1_0001_m_000000_0", "clockSplits not integers")],
            "{word}"
        );
    }
}

/// A word inside a string (a value, a key, after an escaped quote or backslash) is left as
/// it is when the job's words are replaced.
#[test]
fn a_rumen_nan_inside_a_string_is_left_as_it_is() {
    let name = r#""NaN \"Infinity\" -Infinity\\""#;
    let text = rumen_job("1500", "3000")
        .replace(r#""sort""#, name)
        .replace(
            r#""priority" : "NORMAL""#,
            r#""NaN" : "Infinity", "failedMapperFraction" : NaN"#,
        );
    let (jobs, report) = read_rumen(&text);
    assert!(skips(&report).is_empty(), "{:?}", skips(&report));
    assert_eq!(
        jobs[0].name.as_deref(),
        Some(r#"NaN "Infinity" -Infinity\"#)
    );
    assert_eq!(jobs[0].tasks[0].attempts.len(), 2);
}

/// A word that only starts like one (`NaNa`, `Infinityx`) is malformed JSON, as before, and
/// so is a job with a `NaN` and malformed JSON besides (before, the job was named by its
/// `NaN`, the first fault serde_json met); each on the line of the fault and naming its
/// member (before, on the job's first line).
#[test]
fn a_rumen_job_malformed_besides_its_nan_is_malformed() {
    for word in ["NaNa", "Infinityx"] {
        let (jobs, report) = read_rumen(&rumen_job(word, "3000"));
        assert_eq!(
            skips(&report),
            [(14, Some("startTime"), "malformed JSON")],
            "{word}"
        );
        assert!(jobs.is_empty(), "{word}");
    }
    for (first_start, second_finish) in [("NaN", "3000 3000"), ("NaN", "NaNa")] {
        let text = rumen_job(first_start, second_finish) + &rumen_job("1500", "3000");
        let (jobs, report) = read_rumen(&text);
        assert_eq!(
            skips(&report),
            [(20, Some("finishTime"), "malformed JSON")],
            "{second_finish}"
        );
        assert_eq!(
            (report.records_parsed, report.records_skipped),
            (1, 1),
            "{second_finish}"
        );
        assert_eq!(jobs.len(), 1, "{second_finish}");
    }
}

// ---------------------------------------------------------------------------------------
// Rumen skips: their line and field.

/// A Rumen job as Rumen writes it (`"key" : value`, one key a line), of one map task with
/// two attempts; `first_start` is the first attempt's `startTime` as written, and
/// `second_finish` the second's `finishTime`. Lines: 1 the job's `{`, 4 `submitTime`, 6
/// the task's `{`, 10 its `inputBytes`, 11 the first attempt's `{`, 14 its `startTime`,
/// 17 the second attempt's `{`, 19 its `startTime`, 20 its `finishTime`; 25 lines.
fn rumen_job(first_start: &str, second_finish: &str) -> String {
    format!(
        r#"{{
  "jobID" : "job_1_0001",
  "jobName" : "sort",
  "submitTime" : 1000,
  "priority" : "NORMAL",
  "mapTasks" : [ {{
    "taskID" : "task_1_0001_m_000000",
    "taskType" : "MAP",
    "startTime" : 1000,
    "inputBytes" : -1,
    "attempts" : [ {{
      "attemptID" : "attempt_1_0001_m_000000_0",
      "hostName" : "/rack1/host1",
      "startTime" : {first_start},
      "finishTime" : 5000,
      "result" : "SUCCESS"
    }}, {{
      "attemptID" : "attempt_1_0001_m_000000_1",
      "startTime" : 2000,
      "finishTime" : {second_finish},
      "result" : "KILLED"
    }} ]
  }} ],
  "reduceTasks" : [ ]
}}
"#
    )
}

/// `job` (of [`rumen_job`]) as job `job_1_0002`, its tasks and attempts renamed with it: a
/// second object of one `jobID` would be skipped as `job read twice`.
fn another_rumen_job(job: &str) -> String {
    job.replace("_1_0001", "_1_0002")
}

fn read_rumen(text: &str) -> (Vec<TraceJob>, ReadReport) {
    read_bytes(text.as_bytes(), TraceFormat::Rumen).expect("Rumen reads")
}

#[test]
fn a_rumen_value_of_the_wrong_type_costs_its_attempt_named_by_line_and_field() {
    let (jobs, report) = read_rumen(&rumen_job("1500", "3000"));
    assert_eq!((report.records_parsed, report.records_skipped), (1, 0));
    assert_eq!(jobs[0].tasks[0].attempts.len(), 2);

    // The first attempt's startTime, a float: that attempt is skipped, on its line, and
    // the job keeps the other.
    let (jobs, report) = read_rumen(&rumen_job("1.5e3", "3000"));
    assert_eq!(
        skips(&report),
        [(14, Some("startTime"), "field of the wrong type")]
    );
    assert_eq!((report.records_parsed, report.records_skipped), (1, 1));
    assert_eq!(jobs.len(), 1);
    let attempts: Vec<_> = jobs[0].tasks[0].attempts.iter().map(|a| &a.id).collect();
    assert_eq!(attempts, ["attempt_1_0001_m_000000_1"]);

    // A task's own field of the wrong type costs the task (one record), named.
    let text =
        rumen_job("1500", "3000").replace(r#""inputBytes" : -1"#, r#""inputBytes" : "lots""#);
    let (jobs, report) = read_rumen(&text);
    assert_eq!(
        skips(&report),
        [(10, Some("inputBytes"), "field of the wrong type")]
    );
    assert_eq!((report.records_parsed, report.records_skipped), (1, 1));
    assert!(jobs[0].tasks.is_empty());

    // A job's own field costs the job, named on its line.
    let text =
        rumen_job("1500", "3000").replace(r#""submitTime" : 1000"#, r#""submitTime" : "soon""#);
    let (jobs, report) = read_rumen(&text);
    assert_eq!(
        skips(&report),
        [(4, Some("submitTime"), "field of the wrong type")]
    );
    assert!(jobs.is_empty());
}

#[test]
fn a_rumen_attempt_skip_names_its_line_and_field() {
    // The second attempt ends before it starts: its finishTime, line 20.
    let (jobs, report) = read_rumen(&rumen_job("1500", "1500"));
    assert_eq!(
        skips(&report),
        [(20, Some("finishTime"), "attempt ends before it starts")]
    );
    assert_eq!(jobs[0].tasks[0].attempts.len(), 1);
    // Two jobs back to back: the lines are the second job's, counted from the file's start.
    let text = rumen_job("1500", "3000") + &another_rumen_job(&rumen_job("1500", "1500"));
    let (_, report) = read_rumen(&text);
    assert_eq!(
        skips(&report),
        [(25 + 20, Some("finishTime"), "attempt ends before it starts")]
    );
    // When the field is not written, the attempt's line.
    let text = rumen_job("1500", "3000").replace("      \"finishTime\" : 3000,\n", "");
    let (_, report) = read_rumen(&text);
    assert_eq!(skips(&report), [(17, Some("finishTime"), "missing field")]);
}

/// Rumen writes `-1` for a size it does not know; any other negative size is damage, and
/// costs the part whose field it is (the task for its `inputBytes`, the successful attempt
/// for the counter its task's input is read from), named, as a negative time does; before,
/// it was taken for unknown without a word.
#[test]
fn a_rumen_negative_size_other_than_unknown_costs_its_part() {
    let (jobs, _) = read_rumen(&rumen_job("1500", "3000"));
    assert_eq!(jobs[0].tasks[0].input_bytes, None, "-1 is unknown");

    let text = rumen_job("1500", "3000").replace(r#""inputBytes" : -1"#, r#""inputBytes" : -5"#);
    let (jobs, report) = read_rumen(&text);
    assert_eq!(skips(&report), [(10, Some("inputBytes"), "negative size")]);
    assert_eq!((report.records_parsed, report.records_skipped), (1, 1));
    assert!(jobs[0].tasks.is_empty());

    // The successful map attempt's `hdfsBytesRead`: the attempt, on its line.
    let text = rumen_job("1500", "3000").replace(
        "\"hostName\" : \"/rack1/host1\",",
        "\"hostName\" : \"/rack1/host1\", \"hdfsBytesRead\" : -7,",
    );
    let (jobs, report) = read_rumen(&text);
    assert_eq!(
        skips(&report),
        [(13, Some("hdfsBytesRead"), "negative size")]
    );
    let attempts: Vec<_> = jobs[0].tasks[0].attempts.iter().map(|a| &a.id).collect();
    assert_eq!(attempts, ["attempt_1_0001_m_000000_1"]);
    // A size a known one: read.
    let text = text.replace("-7", "4096");
    let (jobs, report) = read_rumen(&text);
    assert_eq!(report.records_skipped, 0);
    assert_eq!(jobs[0].tasks[0].input_bytes, Some(4096));
}

/// An attempt that gives its `finishTime` but not its `result` ended, and the log does
/// not say how: it is no unfinished attempt (which replay runs past its end for ever, its
/// finish time unused), but a record missing a field, as one with a `result` and no
/// `finishTime` is. None of the shared Rumen traces holds such an attempt.
#[test]
fn a_rumen_attempt_that_ends_without_a_result_is_missing_a_field() {
    let text = rumen_job("1500", "3000").replace("      \"result\" : \"KILLED\"\n", "");
    let text = text.replace("\"finishTime\" : 3000,", "\"finishTime\" : 3000");
    let (jobs, report) = read_rumen(&text);
    assert_eq!(skips(&report), [(17, Some("result"), "missing field")]);
    assert_eq!((report.records_parsed, report.records_skipped), (1, 1));
    let attempts: Vec<_> = jobs[0].tasks[0].attempts.iter().map(|a| &a.id).collect();
    assert_eq!(attempts, ["attempt_1_0001_m_000000_0"]);
    // Without a finish time either (`-1`, unknown), the attempt is unfinished, and read.
    let text = text.replace("\"finishTime\" : 3000", "\"finishTime\" : -1");
    let (jobs, report) = read_rumen(&text);
    assert_eq!(report.records_skipped, 0, "{:?}", skips(&report));
    let attempt = &jobs[0].tasks[0].attempts[1];
    assert_eq!(
        (attempt.end_secs, attempt.outcome),
        (None, AttemptOutcome::Unfinished)
    );
}

#[test]
fn a_rumen_key_of_any_spacing_is_named() {
    // The same fault, keys written `"key":value`, `"key" :value` and over two lines.
    for (key_sep, line) in [(":", 14), (" :", 14), ("\n:", 15)] {
        let text = rumen_job("1500", "3000").replace(
            "\"startTime\" : 1500",
            &format!("\"startTime\"{key_sep}true"),
        );
        let (_, report) = read_rumen(&text);
        assert_eq!(
            skips(&report),
            [(line, Some("startTime"), "field of the wrong type")],
            "{key_sep:?}"
        );
    }
}

#[test]
fn the_reviewed_rumen_repro_names_line_19_and_start_time() {
    let path = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/traces/hadoop-sls-gridmix-rumen/2jobs2min-rumen-jh.json"
    ));
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (the shared logs, README, Set-up)", path.display()));
    let (plain_jobs, plain) = read_rumen(&text);
    // The review's `sed '19s/"startTime" : 1371222061163/"startTime" : 1.5e12/'`.
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let changed = lines[18].replace(r#""startTime" : 1371222061163"#, r#""startTime" : 1.5e12"#);
    assert_ne!(
        changed, lines[18],
        "line 19 holds the startTime the review changed"
    );
    lines[18] = &changed;
    let (jobs, report) = read_rumen(&lines.concat());
    assert_eq!(
        skips(&report),
        [(19, Some("startTime"), "field of the wrong type")]
    );
    // One attempt (or its task) lost, both jobs kept, every record accounted for.
    assert_eq!(jobs.len(), plain_jobs.len());
    assert_eq!(report.records_read, plain.records_read + 1);
    let attempts = |jobs: &[TraceJob]| -> usize {
        jobs.iter()
            .flat_map(|job| &job.tasks)
            .map(|task| task.attempts.len())
            .sum()
    };
    assert_eq!(attempts(&jobs) + 1, attempts(&plain_jobs));
}

/// As Spark's reader: the files before the last compacted one (whose events it holds) are
/// not read, each named; the compacted file and those after it are.
#[test]
fn files_a_compacted_file_replaces_are_named_and_not_read() {
    let fixture_dir = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    let (whole_jobs, whole) = read_path(&fixture_dir).expect("the fixture reads");
    let dir = scratch_dir("rolling-compact").join("eventlog_v2_app-20260101000000-0001");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    for entry in std::fs::read_dir(&fixture_dir).expect("the fixture") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().expect("a name");
        std::fs::copy(&path, dir.join(name)).expect("copied");
    }
    // Index 1 compacted: its events (all of them, as nothing is dropped here) in the
    // compacted file; an older compacted file is replaced too.
    let first = "events_1_app-20260101000000-0001";
    std::fs::copy(dir.join(first), dir.join(format!("{first}.compact"))).expect("copied");
    std::fs::write(dir.join("events_0_app-20260101000000-0001.compact"), "{}\n").expect("writable");
    let (jobs, report) = read_path(&dir).expect("the directory reads");
    let listed = unread_reasons(&report);
    assert_eq!(
        listed,
        [
            (
                Some("appstatus_app-20260101000000-0001"),
                "Spark status file"
            ),
            (
                Some("events_0_app-20260101000000-0001.compact"),
                "replaced by a compacted file"
            ),
            (Some(first), "replaced by a compacted file"),
        ]
    );
    assert!(
        report.unread[2]
            .note
            .contains("events_1_app-20260101000000-0001.compact"),
        "{}",
        report.unread[2].note
    );
    // The events, each read once.
    assert_eq!(
        (report.records_read, report.records_skipped),
        (whole.records_read, 0)
    );
    assert_eq!(jobs, whole_jobs);
    std::fs::remove_dir_all(dir.parent().expect("a parent")).expect("the scratch directory goes");
}

/// `bytes` read through a buffer of `capacity` bytes, as a stream is (a pipe's first read
/// may give a byte or two).
fn read_through(bytes: &[u8], capacity: usize) -> Result<(Vec<TraceJob>, ReadReport), TraceError> {
    let mut jobs = Vec::new();
    let reader = std::io::BufReader::with_capacity(capacity, bytes);
    let report = read_reader(
        reader,
        TraceFormat::SparkEventLog,
        Path::new("<bytes>"),
        |job| {
            jobs.push(job);
        },
    )?;
    Ok((jobs, report))
}

/// A stream whose first buffer holds less than a magic number is still told gzip or zstd
/// (both were read as plain text, every line skipped as malformed JSON, without a cut).
#[test]
fn a_first_buffer_shorter_than_a_magic_number_still_tells_the_compression() {
    let expected = plain_summary();
    for name in [
        "spark-small.json.gz",
        "spark-small.json.zst",
        "spark-small.json",
    ] {
        let bytes = fixture(name);
        for capacity in 1..=4 {
            let (jobs, report) = read_through(&bytes, capacity).expect(name);
            assert_eq!(
                summary(&jobs, &report),
                expected,
                "{name}, capacity {capacity}"
            );
            assert!(report.unread.is_empty(), "{name}, capacity {capacity}");
        }
    }
    // Shorter than a magic number in all: plain, as before.
    for bytes in [&b""[..], b"\x1f", b"\x28\xb5\x2f"] {
        let (jobs, report) = read_through(bytes, 1).expect("short");
        assert!(jobs.is_empty() && report.truncated.is_none());
    }
}

/// A gzip file whose first header fails its CRC-16 is refused as corrupt by `read_path`
/// too, as by `read_bytes` (detection, which stops at the header, said the stream was cut
/// or damaged: `TraceError::Io`).
#[test]
fn a_bad_first_header_crc16_is_corrupt_when_read_from_a_file() {
    let bytes = gzip_member(&fixture("spark-small.json"), 0x02, true);
    let dir = scratch_dir("gzip-hcrc");
    let path = dir.join("events.gz");
    std::fs::write(&path, &bytes).expect("the file is written");
    let detected = detect_format(&path);
    let read = read_path(&path);
    std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
    let message = corrupt_message(detected);
    assert!(
        message.contains("the header of gzip member 1 fails its CRC-16"),
        "{message}"
    );
    corrupt_message(read);
}

/// A zstd frame whose content is not the size its header gives is corrupt (`zstd -t`:
/// "Data corruption detected"); it was read without a word, and in a frame without a
/// checksum, the size is the only check.
#[test]
fn a_zstd_frame_whose_content_size_is_wrong_is_corrupt() {
    let zst = fixture("spark-small.json.zst");
    // The fixture's header: descriptor 0x64 (a 2-byte content size, single segment, a
    // checksum), then the size less 256, 3793 (4049 bytes): made 3777.
    assert_eq!(zst[4], 0x64);
    let mut bad = zst.clone();
    bad[5] ^= 0x10;
    let message = corrupt_message(read_bytes(&bad, TraceFormat::SparkEventLog));
    assert!(
        message.contains(
            "zstd frame 1 (ending at byte 720) holds 4049 bytes of content, its header says 4033"
        ),
        "{message}"
    );
    // Only the tool that fits the file is suggested.
    assert!(
        message.ends_with(
            "(`zstd -t` confirms the fault; `zstd -dc` writes out what it holds, to read knowingly)"
        ),
        "{message}"
    );
}

/// A compressed file cut before anything of it decodes names the one tool that fits it
/// (before, `zstd -dc` or `gzip -dc` for either).
#[test]
fn a_compressed_file_cut_before_it_decodes_names_its_own_tool() {
    let dir = scratch_dir("cut-before-decoding");
    let path = dir.join("events.zst");
    let zst = fixture("spark-small.json.zst");
    std::fs::write(&path, &zst[..zst.len() / 2]).expect("writable");
    let message = match read_path(&path) {
        Err(error) => error.to_string(),
        Ok(read) => panic!("expected an error, got {read:?}"),
    };
    std::fs::remove_dir_all(&dir).expect("removable");
    assert!(
        message.contains("decompress what it holds with `zstd -dc` and read that"),
        "{message}"
    );
    assert!(!message.contains("gzip"), "{message}");
}

/// The note of trailing garbage shows its first 8 bytes however the buffer below is cut.
#[test]
fn the_garbage_note_does_not_depend_on_the_buffer() {
    for name in ["spark-small.json.gz", "spark-small.json.zst"] {
        let mut bytes = fixture(name);
        bytes.extend(b"\0PK\x03\x04 and more");
        let notes: Vec<String> = [3, 5, 64, 1 << 20]
            .into_iter()
            .map(|capacity| {
                let (_, report) = read_through(&bytes, capacity).expect(name);
                report.unread[0].note.clone()
            })
            .collect();
        assert!(
            notes[0].contains("`50 4b 03 04 20 61 6e 64`"),
            "{}",
            notes[0]
        );
        assert!(notes.iter().all(|note| *note == notes[0]), "{notes:#?}");
    }
}

/// A reader that fails every other call with `Interrupted` (`EINTR`), as a signal does to
/// a read of a pipe or socket, and otherwise gives at most `step` bytes.
struct Interrupting<'a> {
    bytes: &'a [u8],
    step: usize,
    calls: u64,
}

impl std::io::Read for Interrupting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        if self.calls % 2 == 1 {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.step).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// An interrupted read is read again, wherever it falls: in a gzip header read over
/// several reads, it made the header be parsed again from the middle (a header of a name,
/// a comment and an extra field read with buffers of a few bytes).
#[test]
fn an_interrupted_read_is_read_again_even_inside_a_gzip_header() {
    let plain = fixture("spark-small.json");
    let expected = plain_summary();
    let mut members = gzip_member(&plain[..1000], 0x1e, false);
    members.extend(gzip_member(&plain[1000..], 0x1e, false));
    for bytes in [members, fixture("spark-small.json.zst")] {
        for step in [1, 3, 7] {
            let reader = Interrupting {
                bytes: &bytes,
                step,
                calls: 0,
            };
            let mut jobs = Vec::new();
            let report = read_reader(
                std::io::BufReader::with_capacity(step, reader),
                TraceFormat::SparkEventLog,
                Path::new("<interrupted>"),
                |job| jobs.push(job),
            )
            .expect("read again where interrupted");
            assert_eq!(summary(&jobs, &report), expected, "step {step}");
        }
    }
}

/// A gap in a rolling directory's indices (Spark's reader refuses one: "Found missing event
/// log file") and an index two files have are named; the files there are read.
#[test]
fn a_missing_or_repeated_event_file_index_is_named() {
    let fixture_dir = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    let dir = scratch_dir("rolling-gap").join("eventlog_v2_app-20260101000000-0001");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let app = "app-20260101000000-0001";
    // Files 1 and 4 (2 and 3 missing), and a second file of index 4.
    std::fs::copy(
        fixture_dir.join(format!("events_1_{app}")),
        dir.join(format!("events_1_{app}")),
    )
    .expect("copied");
    for name in [
        format!("events_4_{app}.zstd"),
        format!("events_4_{app}.zst"),
    ] {
        std::fs::copy(
            fixture_dir.join(format!("events_2_{app}.zstd")),
            dir.join(name),
        )
        .expect("copied");
    }
    let (_, report) = read_path(&dir).expect("the directory reads");
    let notes: Vec<(&str, &str)> = unread(&report)
        .into_iter()
        .map(|(_, reason, note)| (reason, note))
        .collect();
    assert_eq!(
        notes,
        [
            (
                "missing event file",
                "no event file of indices 2 to 3 (before events_4_app-20260101000000-0001.zst): \
                 its events are missing"
            ),
            (
                "missing event file",
                "a second event file of index 4, events_4_app-20260101000000-0001.zstd: both \
                 read, as Spark would not"
            ),
        ]
    );
    std::fs::remove_dir_all(dir.parent().expect("a parent")).expect("the scratch directory goes");
    // The fixture, 1 and 2 (and no compacted file), has none.
    let (_, report) = read_path(&fixture_dir).expect("the fixture reads");
    assert!(
        unread(&report)
            .iter()
            .all(|(_, reason, _)| *reason != "missing event file")
    );
}

// ---------------------------------------------------------------------------------------
// Line ends and the byte order mark, whatever the chunking.

/// A reader that gives at most `step` bytes a read, as a pipe or a socket may.
struct Chunked<'a> {
    bytes: &'a [u8],
    step: usize,
}

impl std::io::Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.step).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// The summary of `bytes` read in `format` by `read_reader` from a reader of `step` bytes a
/// read (through a `BufReader` no larger, so that each buffer holds `step` bytes at most).
fn chunked_summary(bytes: &[u8], format: TraceFormat, step: usize) -> String {
    let reader = std::io::BufReader::with_capacity(step, Chunked { bytes, step });
    let mut jobs = Vec::new();
    let report = read_reader(reader, format, Path::new("<bytes>"), |job| jobs.push(job))
        .unwrap_or_else(|error| panic!("step {step}: {error}"));
    summary(&jobs, &report)
}

/// The summary of `bytes` read as a file, its format detected (`read_path`, whose buffers
/// are 256 KiB).
fn file_summary(test: &str, bytes: &[u8]) -> String {
    let dir = scratch_dir(test);
    let path = dir.join("events.json");
    std::fs::write(&path, bytes).expect("the file is written");
    let read = read_path(&path);
    std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
    let (jobs, report) = read.unwrap_or_else(|error| panic!("{test}: {error}"));
    summary(&jobs, &report)
}

/// The Spark fixture with its first line made longer than `read_path`'s 256 KiB buffer:
/// a field of 300 000 bytes after `Spark Version`, `before` written before its key.
fn spark_long_first_line(before: &str) -> Vec<u8> {
    let log = String::from_utf8(fixture("spark-small.json")).expect("UTF-8");
    let (first, rest) = log.split_once('\n').expect("lines");
    let pad = "x".repeat(300_000);
    let first = first.replacen(
        "\"Spark Version\":\"3.5.0\"",
        &format!("\"Spark Version\":\"3.5.0\",{before}\"Pad\":\"{pad}\""),
        1,
    );
    assert!(
        first.len() > 256 * 1024,
        "the fixture's first line has changed"
    );
    format!("{first}\n{rest}").into_bytes()
}

/// The same log with each `\n` line end made `end`.
fn with_ends(log: &[u8], end: &str) -> Vec<u8> {
    String::from_utf8(log.to_vec())
        .expect("UTF-8")
        .replace('\n', end)
        .into_bytes()
}

/// The Spark fixture in every line-end style, with and without a byte order mark, with a
/// `\r` inside a line (JSON whitespace), and with a first line longer than a buffer, reads
/// as the fixture does through `read_bytes`, through `read_reader` whatever the size of
/// its reads, and through `read_path`. The line end and the byte order mark were told from
/// the first buffer only: a CR-only log whose first line is longer than 256 KiB read from
/// a file as one skipped record; a `\r` in a first line that long made a file of `\n` ends
/// CR-only, two skipped records; and a byte order mark that the first read cut in two was
/// not dropped, line 1 "malformed JSON".
#[test]
fn line_ends_and_a_byte_order_mark_read_the_same_whatever_the_chunking() {
    let expected = plain_summary();
    let lf = fixture("spark-small.json");
    let bom = |log: &[u8]| [&b"\xef\xbb\xbf"[..], log].concat();
    // Lines 1 to 4 with CRLF ends, the rest with LF, and a `\r` between two fields of
    // line 6 (JSON whitespace).
    let mixed = {
        let text = String::from_utf8(lf.clone()).expect("UTF-8");
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines[5] = lines[5].replacen(",", ",\r", 1);
        let mut out = String::new();
        for (i, line) in lines.iter().enumerate() {
            out.push_str(line);
            out.push_str(if i < 4 { "\r\n" } else { "\n" });
        }
        out.into_bytes()
    };
    let long = spark_long_first_line("");
    let long_cr_inside = spark_long_first_line("\r");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("lf", lf.clone()),
        ("crlf", with_ends(&lf, "\r\n")),
        ("cr", with_ends(&lf, "\r")),
        ("mixed", mixed),
        ("bom-lf", bom(&lf)),
        ("bom-crlf", bom(&with_ends(&lf, "\r\n"))),
        ("bom-cr", bom(&with_ends(&lf, "\r"))),
        ("long-first-lf", long.clone()),
        ("long-first-cr", with_ends(&long, "\r")),
        ("long-first-crlf", with_ends(&long, "\r\n")),
        ("long-first-cr-inside", long_cr_inside.clone()),
        ("bom-long-first-cr-inside", bom(&long_cr_inside)),
        ("bom-long-first-cr", bom(&with_ends(&long, "\r"))),
    ];
    for (name, bytes) in &cases {
        let (jobs, report) = read_bytes(bytes, TraceFormat::SparkEventLog).expect(name);
        assert_eq!(summary(&jobs, &report), expected, "{name}: read_bytes");
        for step in [1, 2, 3, 7] {
            assert_eq!(
                chunked_summary(bytes, TraceFormat::SparkEventLog, step),
                expected,
                "{name}: read_reader, {step} bytes a read"
            );
        }
        assert_eq!(
            file_summary(&format!("line-ends-{name}"), bytes),
            expected,
            "{name}: read_path"
        );
    }
}

/// What a read of `bytes` gave: its summary, or its error.
fn outcome(read: Result<(Vec<TraceJob>, ReadReport), TraceError>) -> String {
    match read {
        Ok((jobs, report)) => summary(&jobs, &report),
        Err(error) => format!("error: {error}"),
    }
}

/// A gzip or zstd stream damaged at any byte reads the same whatever the size of the reads
/// that bring it: where the damage stops the decoder, the lines decoded before it are read,
/// then the stream is cut. flate2's inflater dropped what the call that met the damage had
/// decoded, so that read whole, a gzip stream gave fewer lines than read a byte at a time
/// (a fuzzed Hadoop 1 log: no record against one skipped; here, none of 13 lines).
#[test]
fn damaged_compressed_data_reads_the_same_whatever_the_chunking() {
    for name in ["spark-small.json.gz", "spark-small.json.zst"] {
        let good = fixture(name);
        let mut cut_after_lines = 0;
        for (at, mask) in (0..good.len()).flat_map(|at| [(at, 0x01), (at, 0x10), (at, 0xff)]) {
            let mut bad = good.clone();
            bad[at] ^= mask;
            let whole = outcome(read_bytes(&bad, TraceFormat::SparkEventLog));
            for step in [1, 3, 64] {
                let reader = std::io::BufReader::with_capacity(step, Chunked { bytes: &bad, step });
                let mut jobs = Vec::new();
                let path = Path::new("<bytes>");
                let read = read_reader(reader, TraceFormat::SparkEventLog, path, |job| {
                    jobs.push(job);
                });
                assert_eq!(
                    outcome(read.map(|report| (jobs, report))),
                    whole,
                    "{name}: byte {at} ^ {mask:#04x}, {step} bytes a read"
                );
            }
            cut_after_lines +=
                usize::from(whole.contains("truncated Some(") && !whole.starts_with("read 0 "));
        }
        // Most damage is refused as corrupt by a checksum, or cuts the stream before its
        // first line; in gzip, some stops the inflater after lines were read. (The zstd
        // fixture is one block, which is decoded whole before any of it is handed out.)
        if name.ends_with(".gz") {
            assert!(cut_after_lines >= 10, "{name}: {cut_after_lines}");
        }
    }
    // The first byte of the deflate data (after the 10 bytes of a header without optional
    // fields) changed: the whole log was decoded in the call that met the damage.
    let mut bad = fixture("spark-small.json.gz");
    assert_eq!(bad[3], 0, "the fixture's header has optional fields");
    bad[10] ^= 0x01;
    let (_, report) = read_bytes(&bad, TraceFormat::SparkEventLog).expect("cut, not refused");
    assert_eq!(report.records_parsed, 13);
    let truncation = report.truncated.expect("a cut");
    assert_eq!(truncation.line, 14);
    assert!(
        truncation.note.contains("corrupt deflate stream"),
        "{}",
        truncation.note
    );
}

/// Every format drops a byte order mark that the first read of the decompressed content
/// cuts (a gzip or zstd stream read a byte or two at a time hands out its content in as
/// small pieces): the mark was taken for part of the first record, skipped.
#[test]
fn a_byte_order_mark_cut_by_the_first_read_is_dropped_in_every_format() {
    for (name, format) in [
        (
            "google-2011-task_events.csv",
            TraceFormat::Google2011TaskEvents,
        ),
        (
            "alibaba-2018-batch_instance.csv",
            TraceFormat::Alibaba2018BatchInstance,
        ),
        ("spark-small.json", TraceFormat::SparkEventLog),
    ] {
        let bytes = fixture(name);
        let (jobs, report) = read_bytes(&bytes, format).expect("the fixture reads");
        let expected = summary(&jobs, &report);
        let with_bom = [&b"\xef\xbb\xbf"[..], &bytes].concat();
        let plain = with_bom.clone();
        let gzip = gzip_member(&with_bom, 0, false);
        let zstd = zstd_frame(&with_bom);
        for (codec, input) in [("plain", plain), ("gzip", gzip), ("zstd", zstd)] {
            for step in [1, 2, 3, 7] {
                assert_eq!(
                    chunked_summary(&input, format, step),
                    expected,
                    "{name}, {codec}, {step} bytes a read"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Format detection past a damaged first line.

/// The result of `read_path` on `bytes` written to a file named `name`, and the file's
/// path (removed).
fn read_file(
    test: &str,
    name: &str,
    bytes: &[u8],
) -> (PathBuf, Result<(Vec<TraceJob>, ReadReport), TraceError>) {
    let dir = scratch_dir(test);
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("the file is written");
    let read = read_path(&path);
    std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
    (path, read)
}

/// A log whose first line is damaged is read from a file as `read_bytes` reads it with its
/// format given: that line a counted skip, the rest read. Detection looked at the first
/// line only, and refused the whole file as of no known format.
#[test]
fn a_damaged_first_line_costs_that_line_not_the_file() {
    let damage_first_line = |name: &str, from: &str, to: &str| {
        let text = String::from_utf8(fixture(name)).expect("UTF-8");
        let (first, rest) = text.split_once('\n').expect("lines");
        assert!(first.contains(from), "{name}: the fixture has changed");
        format!("{}\n{rest}", first.replacen(from, to, 1)).into_bytes()
    };
    for (name, format, from, to, reason) in [
        (
            "spark-small.json",
            TraceFormat::SparkEventLog,
            "\"Event\"",
            "\"Evnt\"",
            "no Event field",
        ),
        (
            "google-2011-task_events.csv",
            TraceFormat::Google2011TaskEvents,
            "0,,",
            "x,,",
            "field of the wrong type",
        ),
    ] {
        let bytes = damage_first_line(name, from, to);
        let (jobs, report) = read_bytes(&bytes, format).expect(name);
        assert_eq!(
            skips(&report)
                .first()
                .map(|&(line, _, reason)| (line, reason)),
            Some((1, reason)),
            "{name}"
        );
        let expected = summary(&jobs, &report);
        let (_, read) = read_file("damaged-first", name, &bytes);
        let (jobs, report) = read.unwrap_or_else(|error| panic!("{name}: {error}"));
        assert_eq!(report.format, format, "{name}");
        assert_eq!(summary(&jobs, &report), expected, "{name}");
    }
    // A `.jhist` whose header is damaged is refused by the `.jhist` reader, naming the
    // header's line and field, not as of no known format.
    let jhist = "Avro-Jsn\n{\"type\":\"record\",\"name\":\"Event\",\"fields\":[]}\n\
        {\"type\":\"JOB_SUBMITTED\",\"event\":{\"e\":{\"jobid\":\"job_1_0001\"}}}\n";
    match read_file("damaged-jhist", "job.jhist", jhist.as_bytes()).1 {
        Err(TraceError::Malformed { line, field, .. }) => {
            assert_eq!((line, field.as_str()), (1, "header"));
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
}

/// A file whose first lines are of no known format is refused naming the file, the first
/// non-blank line's number and what it looks like (the hint said only "JSON with neither
/// Spark events nor Rumen jobs").
#[test]
fn an_unknown_format_names_the_file_and_its_first_line() {
    let (path, read) = read_file(
        "unknown-format",
        "notes.json",
        b"\n{\"Evnt\":\"SparkListenerLogStart\"}\nsome notes\n",
    );
    match read {
        Err(error @ TraceError::UnknownFormat { .. }) => {
            let message = error.to_string();
            assert!(
                message.starts_with(&path.display().to_string()),
                "{message}"
            );
            assert!(
                message.contains(
                    "line 2 is JSON with neither Spark events nor Rumen jobs \
                     (`{\"Evnt\":\"SparkListenerLogStart\"}`), nor is the one line after it"
                ),
                "{message}"
            );
        }
        other => panic!("expected UnknownFormat, got {other:?}"),
    }
}

/// Event files that start at index 0, which Spark's writer never gives (it numbers them
/// from 1) and its reader reads, are read and noted as such, alone or with more after them
/// (a gap after them named too). A lone `events_0_*` file, or `events_0_*` before
/// `events_1_*`, was noted as "a second event file of index 0 ... both read".
#[test]
fn event_files_from_index_0_are_read_and_noted_as_not_spark_s() {
    let fixture_dir = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    let app = "app-20260101000000-0001";
    let first = fixture_dir.join(format!("events_1_{app}"));
    let second = fixture_dir.join(format!("events_2_{app}.zstd"));
    // What a file reads as on its own.
    let records = |path: &Path| read_path(path).expect("the fixture reads").1.records_read;
    let index_0 = |name: &str| {
        format!(
            "the event files start at index 0, {name}, which Spark's writer never gives (it \
             numbers them from 1): read all the same, as Spark's reader does"
        )
    };
    // The files of each directory (name, copied from) and the notes it is expected to have.
    type Files<'a> = Vec<(String, &'a PathBuf)>;
    let cases: Vec<(Files<'_>, Vec<(&str, String)>)> = vec![
        (
            vec![(format!("events_0_{app}"), &first)],
            vec![(
                "unexpected event file index",
                index_0(&format!("events_0_{app}")),
            )],
        ),
        (
            vec![(format!("events_0_{app}.compact"), &first)],
            vec![(
                "unexpected event file index",
                index_0(&format!("events_0_{app}.compact")),
            )],
        ),
        (
            vec![
                (format!("events_0_{app}"), &first),
                (format!("events_1_{app}.zstd"), &second),
            ],
            vec![(
                "unexpected event file index",
                index_0(&format!("events_0_{app}")),
            )],
        ),
        (
            vec![
                (format!("events_0_{app}"), &first),
                (format!("events_2_{app}.zstd"), &second),
            ],
            vec![
                (
                    "unexpected event file index",
                    index_0(&format!("events_0_{app}")),
                ),
                (
                    "missing event file",
                    format!(
                        "no event file of index 1 (before events_2_{app}.zstd): its events \
                         are missing"
                    ),
                ),
            ],
        ),
    ];
    for (files, expected) in cases {
        let dir = scratch_dir("rolling-index-0").join(format!("eventlog_v2_{app}"));
        std::fs::create_dir_all(&dir).expect("a scratch directory");
        for (name, source) in &files {
            std::fs::copy(source, dir.join(name)).expect("copied");
        }
        let read = read_path(&dir);
        std::fs::remove_dir_all(dir.parent().expect("a parent"))
            .expect("the scratch directory goes");
        let (_, report) = read.expect("the directory reads");
        let notes: Vec<(&str, String)> = unread(&report)
            .into_iter()
            .map(|(file, reason, note)| {
                assert_eq!(file, None, "{note}");
                (reason, note.to_owned())
            })
            .collect();
        assert_eq!(notes, expected, "{files:?}");
        // Every file read.
        let lines: u64 = files.iter().map(|(_, source)| records(source)).sum();
        assert_eq!(report.records_read, lines, "{files:?}");
    }
}

/// A zstd stream cut inside a frame says where the input ends in words, as a cut gzip
/// stream does, not in the decoder's error types (`BlockContentReadError(Error { kind:
/// UnexpectedEof, .. })` before): inside the second frame, after the lines of the first;
/// inside the first frame's header or data, where nothing of it can be decoded, in the
/// error that stops the command.
#[test]
fn a_zstd_stream_cut_inside_a_frame_says_where_in_words() {
    let (_, head, tail) = spark_log_split(6);
    let mut bytes = zstd_frame(&head);
    let second = zstd_frame(&tail);
    bytes.extend_from_slice(&second[..second.len() / 2]);
    let (_, _, report) = read_as_file("zstd-cut-second-frame", &bytes);
    assert_eq!(report.records_read, 6);
    let truncation = report.truncated.expect("the input is cut");
    assert_eq!(truncation.line, 7);
    assert_eq!(
        truncation.note,
        "the input cannot be read past line 6: the input ends inside zstd frame 2"
    );

    let first = zstd_frame(&head);
    for (cut, place) in [
        (4, "the header of zstd frame 1"),
        (first.len() - 1, "zstd frame 1"),
    ] {
        let dir = scratch_dir("zstd-cut-first-frame");
        let path = dir.join("events.zst");
        std::fs::write(&path, &first[..cut]).expect("the file is written");
        let error = detect_format(&path).expect_err("nothing to decode");
        std::fs::remove_dir_all(&dir).expect("the scratch directory goes");
        let text = error.to_string();
        assert!(
            text.contains(&format!("cut or damaged before anything of it can be decoded (the input ends inside {place});")),
            "{text}"
        );
    }
}

/// A Spark job carries the line of the environment update whose properties give its
/// speculation setting (and that line's file, in a rolling directory), which a note on a
/// `spark.speculation.interval` Spark cannot read names; none before an update, or where
/// the log has none.
#[test]
fn a_spark_job_carries_the_line_of_its_environment_update() {
    let update = r#"{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"spark.speculation.interval":"soon"}}"#;
    let (log, head, tail) = spark_log_split(2);
    let (plain, _) = read_bytes(&log, TraceFormat::SparkEventLog).expect("the fixture reads");
    assert_eq!(plain[0].speculation_line, None);
    let with_update = [head, format!("{update}\n").into_bytes(), tail].concat();
    let (jobs, _) = read_bytes(&with_update, TraceFormat::SparkEventLog).expect("it reads");
    let at = |line, file: Option<&str>| {
        Some(LogLine {
            line,
            file: file.map(str::to_owned),
        })
    };
    assert_eq!(jobs[0].speculation_line, at(3, None));

    let fixture_dir = fixtures().join("spark-rolling/eventlog_v2_app-20260101000000-0001");
    let dir = scratch_dir("rolling-update").join("eventlog_v2_app-20260101000000-0001");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let first = "events_1_app-20260101000000-0001";
    for entry in std::fs::read_dir(&fixture_dir).expect("the fixture") {
        let path = entry.expect("an entry").path();
        let name = path.file_name().expect("a name").to_owned();
        std::fs::copy(&path, dir.join(&name)).expect("copied");
    }
    let text = std::fs::read_to_string(dir.join(first)).expect("the first event file");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(2, update);
    std::fs::write(dir.join(first), lines.join("\n") + "\n").expect("writable");
    let (jobs, _) = read_path(&dir).expect("the directory reads");
    std::fs::remove_dir_all(dir.parent().expect("the scratch directory")).ok();
    assert_eq!(jobs[0].speculation_line, at(3, Some(first)));
}
