//! Opening an input: decompression from magic bytes, and numbered lines.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use crate::{ReadReport, TraceError};

/// Buffer size for reading files: large enough that line splitting is not the bottleneck.
const BUFFER_BYTES: usize = 256 * 1024;

/// What the first bytes of an input say about its compression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compression {
    None,
    Gzip,
    Zstd,
    /// LZ4 (Spark's `LZ4BlockOutputStream` or the LZ4 frame format): recognised, not read.
    Lz4,
    /// Snappy (xerial's stream or the framing format): recognised, not read.
    Snappy,
}

impl Compression {
    pub(crate) fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if is_skippable_frame(head) {
            // A skippable frame (`pzstd` starts its output with one) belongs to zstd and to
            // the LZ4 frame format alike: the first other frame tells them apart, when
            // `head` holds it; otherwise zstd is the guess, and its decoder says if it is
            // wrong.
            match Self::after_skippable_frames(head) {
                Some(next) if Compression::sniff(next) == Compression::Lz4 => Compression::Lz4,
                _ => Compression::Zstd,
            }
        } else if head.starts_with(b"LZ4Block") || head.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
            Compression::Lz4
        } else if head.starts_with(b"\x82SNAPPY\x00") || head.starts_with(b"\xff\x06\x00\x00sNaPpY")
        {
            Compression::Snappy
        } else {
            Compression::None
        }
    }

    /// What follows the skippable frames at the start of `head`, if `head` holds it.
    fn after_skippable_frames(mut head: &[u8]) -> Option<&[u8]> {
        while is_skippable_frame(head) {
            let length = u32::from_le_bytes(head.get(4..8)?.try_into().ok()?);
            head = head.get(8usize.checked_add(usize::try_from(length).ok()?)?..)?;
        }
        Some(head)
    }
}

/// Opens `path` and undoes its compression. Every reading of a path opens it here, and
/// a path is read twice (its format detected, then its records read), so a path that is
/// not a regular file (a pipe such as `/dev/stdin` or `<(...)`, a device, a socket) is
/// refused before it is opened: the first opening would consume what the second needs.
/// (A directory is let through, to fail as it did: only a file holds a log.)
pub(crate) fn open(path: &Path) -> Result<Box<dyn BufRead>, TraceError> {
    let io_error = |error| TraceError::Io {
        path: path.to_owned(),
        error,
    };
    // The path's metadata, not the opened file's: opening a FIFO waits for a writer.
    let file_type = std::fs::metadata(path).map_err(io_error)?.file_type();
    if !file_type.is_file() && !file_type.is_dir() {
        return Err(TraceError::NotAFile {
            path: path.to_owned(),
            kind: special_kind(&file_type).to_owned(),
        });
    }
    let file = File::open(path).map_err(io_error)?;
    decompress(Box::new(BufReader::with_capacity(BUFFER_BYTES, file)), path)
}

/// What a path that is not a regular file is, in words.
fn special_kind(file_type: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a pipe";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    "neither a regular file nor a directory"
}

/// Wraps `reader` in the decoder its first bytes call for.
pub(crate) fn decompress<'a>(
    mut reader: Box<dyn BufRead + 'a>,
    path: &Path,
) -> Result<Box<dyn BufRead + 'a>, TraceError> {
    // What the reader holds in its buffer (the first 256 KiB of a file), so that the frame
    // after a skippable frame at the start can be looked at too.
    let compression = Compression::sniff(reader.fill_buf().map_err(|error| TraceError::Io {
        path: path.to_owned(),
        error,
    })?);
    match compression {
        Compression::None => Ok(reader),
        Compression::Gzip => Ok(Box::new(BufReader::with_capacity(
            BUFFER_BYTES,
            flate2::bufread::MultiGzDecoder::new(reader),
        ))),
        Compression::Zstd => Ok(Box::new(BufReader::with_capacity(
            BUFFER_BYTES,
            ZstdFrames::new(reader),
        ))),
        Compression::Lz4 => Err(unsupported_codec(path, "an LZ4-compressed log", "lz4")),
        Compression::Snappy => Err(unsupported_codec(path, "a Snappy-compressed log", "snappy")),
    }
}

fn unsupported_codec(path: &Path, what: &str, tool: &str) -> TraceError {
    TraceError::Unsupported {
        path: path.to_owned(),
        what: what.to_owned(),
        why: format!(
            "this crate decodes gzip and zstd only; decompress it first (e.g. with `{tool} -d`) \
             or have Spark write zstd (spark.eventLog.compression.codec=zstd)"
        ),
    }
}

/// Whether `head` starts with the magic number of a skippable frame (zstd's and LZ4's:
/// `0x184D2A50..=0x184D2A5F`, little-endian), which a decoder passes over.
fn is_skippable_frame(head: &[u8]) -> bool {
    matches!(head, [0x50..=0x5f, 0x2a, 0x4d, 0x18, ..])
}

/// A zstd stream of frames back to back, decoded with the pure-Rust `ruzstd`: zstd frames,
/// whose content is handed out, and skippable frames (metadata, such as the frame sizes
/// `pzstd` writes first), passed over wherever a frame may start.
struct ZstdFrames<'a> {
    source: Box<dyn BufRead + 'a>,
    decoder: ruzstd::decoding::FrameDecoder,
    /// Whether a zstd frame's header is read and its content not all handed out.
    in_frame: bool,
}

impl<'a> ZstdFrames<'a> {
    fn new(source: Box<dyn BufRead + 'a>) -> Self {
        ZstdFrames {
            source,
            decoder: ruzstd::decoding::FrameDecoder::new(),
            in_frame: false,
        }
    }

    /// Passes over the `length` bytes of a skippable frame whose header is read.
    fn skip(&mut self, length: u32) -> io::Result<()> {
        let skipped = io::copy(
            &mut (&mut self.source).take(u64::from(length)),
            &mut io::sink(),
        )?;
        if skipped < u64::from(length) {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the input ends inside a skippable frame ({skipped} of {length} bytes)"),
            ));
        }
        Ok(())
    }
}

impl Read for ZstdFrames<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use ruzstd::decoding::BlockDecodingStrategy;
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if self.in_frame {
                // As ruzstd's `StreamingDecoder`: blocks are decoded until `buf` can be
                // filled or the frame is over.
                while self.decoder.can_collect() < buf.len() && !self.decoder.is_finished() {
                    let wanted = buf.len() - self.decoder.can_collect();
                    self.decoder
                        .decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBytes(wanted))
                        .map_err(io::Error::other)?;
                }
                let n = self.decoder.read(buf)?;
                if n > 0 {
                    return Ok(n);
                }
                // The frame is over; the next one (if any) starts in the source.
                self.in_frame = false;
            }
            if self.source.fill_buf()?.is_empty() {
                return Ok(0);
            }
            match self.decoder.init(&mut self.source) {
                Ok(()) => self.in_frame = true,
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => self.skip(length)?,
                Err(error) => return Err(io::Error::other(error)),
            }
        }
    }
}

/// The longest line, or record over several lines (a Hadoop 1 record, a Rumen object), a
/// reader holds: 64 MiB, far more than any real record (the largest events of the shared
/// traces are a few hundred KiB), so that a damaged or hostile input (a compressed file
/// holding one line of a gigabyte) cannot take memory without bound. A longer line is read
/// to its end without being kept and skipped as `"line too long"`; a longer record is
/// skipped as `"record too long"`.
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// The UTF-8 byte order mark, which some editors put at the start of a text file.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// One line of input, without its line ending.
#[derive(Debug)]
pub(crate) struct Line<'a> {
    /// 1-based line number.
    pub no: u64,
    /// The line's bytes; empty for a line too long.
    pub text: &'a [u8],
    /// Whether the line ended with a newline (the last line of a cut file does not).
    pub terminated: bool,
    /// Whether the line is longer than the cap ([`MAX_LINE_BYTES`]): it was read to its
    /// end and not kept, and the reader skips it (or the record it is in).
    pub too_long: bool,
}

/// Numbered lines of an input (one file). A UTF-8 byte order mark at the start of the
/// file is dropped. Lines end with `\n` (a `\r` before it is dropped too), or with `\r`
/// alone in a file whose first bytes hold a `\r` followed by another byte and no `\n`
/// (classic Mac OS line ends).
pub(crate) struct Lines<'a> {
    reader: Box<dyn BufRead + 'a>,
    buf: Vec<u8>,
    line: u64,
    /// Whether a read failed: no line comes after the one it cut.
    failed: bool,
    /// Whether the start of the input (its byte order mark and line ends) is looked at.
    started: bool,
    /// The byte that ends a line.
    end: u8,
    /// The longest line kept.
    max_line_bytes: usize,
    /// Whether the last line read was longer than `max_line_bytes`.
    too_long: bool,
}

impl<'a> Lines<'a> {
    /// Lines of `reader`, numbered from 1.
    pub(crate) fn new(reader: Box<dyn BufRead + 'a>) -> Self {
        Self::with_cap(reader, MAX_LINE_BYTES)
    }

    /// Lines of `reader`, numbered from 1, a line longer than `max_line_bytes` not kept.
    pub(crate) fn with_cap(reader: Box<dyn BufRead + 'a>, max_line_bytes: usize) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(64 * 1024),
            line: 0,
            failed: false,
            started: false,
            end: b'\n',
            max_line_bytes,
            too_long: false,
        }
    }

    /// The number of the last line read.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// Drops a byte order mark and sees which byte ends the lines, from the first bytes.
    fn start(&mut self) -> io::Result<()> {
        self.started = true;
        let head = self.reader.fill_buf()?;
        if head.starts_with(BOM) {
            self.reader.consume(BOM.len());
        }
        let head = self.reader.fill_buf()?;
        let cr_only = !head.contains(&b'\n')
            && head
                .windows(2)
                .any(|pair| pair[0] == b'\r' && pair[1] != b'\n');
        if cr_only {
            self.end = b'\r';
        }
        Ok(())
    }

    /// Reads the next line into `buf`, at most `max_line_bytes` bytes of it and its line
    /// end; the rest of a longer line is read and dropped, and `too_long` set.
    fn read_line(&mut self) -> io::Result<()> {
        if !self.started {
            self.start()?;
        }
        // Room for the longest line kept, a `\r` before its `\n`, and one byte more.
        let cap = self.max_line_bytes as u64 + 3;
        (&mut self.reader)
            .take(cap)
            .read_until(self.end, &mut self.buf)?;
        let ended = self.buf.last() == Some(&self.end);
        if self.buf.len() as u64 != cap
            && Self::content(&self.buf, self.end).len() <= self.max_line_bytes
        {
            return Ok(());
        }
        // Too long: read on to the line's end without keeping it.
        self.too_long = true;
        self.buf.clear();
        if ended {
            self.buf.push(self.end);
            return Ok(());
        }
        loop {
            let available = match self.reader.fill_buf() {
                Ok(bytes) => bytes,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                return Ok(());
            }
            match available.iter().position(|&b| b == self.end) {
                Some(at) => {
                    self.reader.consume(at + 1);
                    self.buf.push(self.end);
                    return Ok(());
                }
                None => {
                    let n = available.len();
                    self.reader.consume(n);
                }
            }
        }
    }

    /// The next line, or `None` at the end of input. When the input cannot be read
    /// further (a corrupt or cut compressed stream), `report` notes where it stops, and the
    /// bytes of the line read before the failure come out as a last line without its end
    /// (a cut line, which each reader counts as it counts the cut last line of a plain
    /// file); then `None`.
    pub(crate) fn next_or_note(&mut self, report: &mut ReadReport) -> Option<Line<'_>> {
        if self.failed {
            return None;
        }
        self.buf.clear();
        self.too_long = false;
        if let Err(error) = self.read_line() {
            self.failed = true;
            report.cut(
                self.line + 1,
                format!("the input cannot be read past line {}: {error}", self.line),
            );
        }
        if self.buf.is_empty() && !self.too_long {
            return None;
        }
        self.line += 1;
        let terminated = !self.failed && self.buf.last() == Some(&self.end);
        if self.too_long && !terminated {
            report.cut(
                self.line,
                format!(
                    "the input ends inside line {}, longer than {} bytes",
                    self.line, self.max_line_bytes
                ),
            );
        }
        Some(Line {
            no: self.line,
            text: Self::content(&self.buf, self.end),
            terminated,
            too_long: self.too_long,
        })
    }

    /// `line` without its line end (`end`, and a `\r` before a `\n`).
    fn content(line: &[u8], end: u8) -> &[u8] {
        let Some(text) = line.strip_suffix(&[end]) else {
            return line;
        };
        match end {
            b'\n' => text.strip_suffix(b"\r").unwrap_or(text),
            _ => text,
        }
    }
}

/// Counts line `no` of a JSON Lines log, `text`, that did not parse: cut by the end of the
/// input (an unterminated last line ending inside a value), a value of the wrong type (its
/// field named), or not JSON.
pub(crate) fn json_line_skipped(
    no: u64,
    text: &[u8],
    terminated: bool,
    error: &serde_json::Error,
    report: &mut ReadReport,
) {
    if !terminated && error.is_eof() {
        report.skipped(no, None, "truncated record");
        report.cut(
            no,
            format!("the input ends in the middle of the event on line {no}"),
        );
    } else if error.is_data() {
        let field = json_field_at(text, error);
        report.skipped(no, field.as_deref(), "field of the wrong type");
    } else {
        report.skipped(no, None, "malformed JSON");
    }
}

/// The key of the JSON field where `error` (a type error) points in `text`: the last key
/// (a string followed by `:`, with or without whitespace between, as Rumen writes
/// `"key" : value`) written before its position. serde_json's messages give the position,
/// not the field; a value of the wrong type sits right after its key.
pub(crate) fn json_field_at(text: &[u8], error: &serde_json::Error) -> Option<String> {
    // The error's line (1-based) and column (1-based, in bytes) within `text`.
    let line_start = if error.line() <= 1 {
        0
    } else {
        text.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(error.line() - 2)
            .map(|(i, _)| i + 1)?
    };
    let end = (line_start + error.column()).min(text.len());
    let before = &text[..end];
    // Strings are followed to their closing quote (a `":` inside a value is not a key).
    let mut key = None;
    let mut last_string = None;
    let mut at = 0;
    while at < before.len() {
        match before[at] {
            b'"' => {
                let open = at + 1;
                at = open;
                while at < before.len() && before[at] != b'"' {
                    at += if before[at] == b'\\' { 2 } else { 1 };
                }
                last_string = Some(open..at.min(before.len()));
            }
            b':' => key = last_string.take().or(key),
            byte if byte.is_ascii_whitespace() => {}
            _ => last_string = None,
        }
        at += 1;
    }
    let key: std::ops::Range<usize> = key?;
    std::str::from_utf8(&before[key]).ok().map(str::to_owned)
}

/// Whether a line holds only whitespace (such lines are not records in any format).
pub(crate) fn is_blank(text: &[u8]) -> bool {
    text.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of `bytes` read with a cap of `cap` bytes, as `(number, text, too long)`.
    fn lines_of(bytes: &[u8], cap: usize) -> Vec<(u64, String, bool)> {
        let mut report = ReadReport::new("t", crate::TraceFormat::SparkEventLog);
        let mut lines = Lines::with_cap(Box::new(bytes), cap);
        let mut out = Vec::new();
        while let Some(line) = lines.next_or_note(&mut report) {
            let text = String::from_utf8_lossy(line.text).into_owned();
            out.push((line.no, text, line.too_long));
        }
        out
    }

    #[test]
    fn a_line_past_the_cap_is_read_to_its_end_and_not_kept() {
        let line = |no, text: &str, too_long| (no, text.to_owned(), too_long);
        // Cap 4: "abcd" is kept, "abcde" is not, nor a cut last line past the cap.
        assert_eq!(
            lines_of(b"abcd\nabcde\nxy\r\nabcdefgh", 4),
            [
                line(1, "abcd", false),
                line(2, "", true),
                line(3, "xy", false),
                line(4, "", true),
            ]
        );
        // The cap counts the line, not its end: "abcd" with CRLF or CR-only ends is
        // kept, and "abcde" is not, nor a cut last line of five bytes.
        assert_eq!(
            lines_of(b"abcd\r\nabcde\r\nabcd\r\nabcde", 4),
            [
                line(1, "abcd", false),
                line(2, "", true),
                line(3, "abcd", false),
                line(4, "", true),
            ]
        );
        assert_eq!(
            lines_of(b"abcd\rabcde\rab", 4),
            [
                line(1, "abcd", false),
                line(2, "", true),
                line(3, "ab", false)
            ]
        );
        // A cut last line past the cap is noted as where the input stops; one within it
        // is left to the reader (a cut record), and one past it that ends is not a cut.
        let truncated = |bytes: &[u8]| {
            let mut report = ReadReport::new("t", crate::TraceFormat::SparkEventLog);
            let mut lines = Lines::with_cap(Box::new(bytes), 4);
            while lines.next_or_note(&mut report).is_some() {}
            report.truncated.map(|t| t.line)
        };
        assert_eq!(truncated(b"ab\nabcdefgh"), Some(2));
        assert_eq!(truncated(b"ab\nabcde"), Some(2));
        assert_eq!(truncated(b"ab\nabcd"), None);
        assert_eq!(truncated(b"ab\nabcdefgh\n"), None);
    }

    #[test]
    fn a_byte_order_mark_is_dropped_and_cr_only_ends_end_lines() {
        let line = |no, text: &str| (no, text.to_owned(), false);
        assert_eq!(
            lines_of(b"\xef\xbb\xbfa\nb\n", 64),
            [line(1, "a"), line(2, "b")]
        );
        // Only at the start of the input.
        assert_eq!(lines_of(b"a\n\xef\xbb\xbfb", 64)[1].1, "\u{feff}b");
        assert_eq!(
            lines_of(b"\xef\xbb\xbfa\rb\r\rc", 64),
            [line(1, "a"), line(2, "b"), line(3, ""), line(4, "c")]
        );
        // CRLF ends, and a CR inside a line of an LF file, are not CR-only ends.
        assert_eq!(lines_of(b"a\r\nb\r\n", 64), [line(1, "a"), line(2, "b")]);
        assert_eq!(lines_of(b"a\rb\nc", 64), [line(1, "a\rb"), line(2, "c")]);
    }

    #[test]
    fn a_type_error_names_the_field_it_is_in() {
        let text = br#"{"Event":"x","Task Info":{"Task ID":1,"Host":5,"Index":0}}"#;
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Info {
            #[serde(rename = "Host")]
            host: String,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Event {
            #[serde(rename = "Task Info")]
            info: Info,
        }
        let error = serde_json::from_slice::<Event>(text).expect_err("a type error");
        assert!(error.is_data());
        assert_eq!(json_field_at(text, &error).as_deref(), Some("Host"));
        // Over several lines too.
        let text = b"{\"a\": 1,\n \"Host\": 5}";
        let error = serde_json::from_slice::<Info>(text).expect_err("a type error");
        assert_eq!(json_field_at(text, &error).as_deref(), Some("Host"));
        // Whitespace between a key and its colon (Rumen writes `"key" : value`), and a
        // value before it holding what looks like a key.
        for text in [
            &b"{\n  \"a\" : \"b\",\n  \"Host\" : 5\n}"[..],
            b"{\"a\" : \"x\\\":\", \"Host\"\n:\t5}",
        ] {
            let error = serde_json::from_slice::<Info>(text).expect_err("a type error");
            assert_eq!(json_field_at(text, &error).as_deref(), Some("Host"));
        }
    }

    #[test]
    fn a_skippable_frame_at_the_start_is_told_by_the_frame_after_it() {
        let skippable = |length: u32| {
            let mut frame = vec![0x5a, 0x2a, 0x4d, 0x18];
            frame.extend(length.to_le_bytes());
            frame.extend(std::iter::repeat_n(0, length as usize));
            frame
        };
        let mut zstd = skippable(4);
        zstd.extend([0x28, 0xb5, 0x2f, 0xfd]);
        assert_eq!(Compression::sniff(&zstd), Compression::Zstd);
        let mut lz4 = skippable(0);
        lz4.extend(skippable(3));
        lz4.extend([0x04, 0x22, 0x4d, 0x18]);
        assert_eq!(Compression::sniff(&lz4), Compression::Lz4);
        // A frame after it that the head does not hold: zstd, the likelier.
        assert_eq!(Compression::sniff(&skippable(100)[..20]), Compression::Zstd);
        assert_eq!(Compression::sniff(&skippable(100)[..6]), Compression::Zstd);
        assert_eq!(Compression::sniff(b"P*M"), Compression::None);
    }
}
