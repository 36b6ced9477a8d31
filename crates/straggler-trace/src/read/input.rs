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
        } else if head.starts_with(b"LZ4Block") || head.starts_with(&[0x04, 0x22, 0x4d, 0x18]) {
            Compression::Lz4
        } else if head.starts_with(b"\x82SNAPPY\x00") || head.starts_with(b"\xff\x06\x00\x00sNaPpY")
        {
            Compression::Snappy
        } else {
            Compression::None
        }
    }
}

/// Opens `path` and undoes its compression.
pub(crate) fn open(path: &Path) -> Result<Box<dyn BufRead>, TraceError> {
    let file = File::open(path).map_err(|error| TraceError::Io {
        path: path.to_owned(),
        error,
    })?;
    decompress(Box::new(BufReader::with_capacity(BUFFER_BYTES, file)), path)
}

/// Wraps `reader` in the decoder its first bytes call for.
pub(crate) fn decompress<'a>(
    mut reader: Box<dyn BufRead + 'a>,
    path: &Path,
) -> Result<Box<dyn BufRead + 'a>, TraceError> {
    let head = fill_head(&mut reader, 10).map_err(|error| TraceError::Io {
        path: path.to_owned(),
        error,
    })?;
    match Compression::sniff(&head) {
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

/// Peeks at up to `n` bytes from the start of `reader` without consuming them. A `BufRead`
/// only exposes what is in its buffer, which holds at least the first few bytes of a file.
fn fill_head(reader: &mut Box<dyn BufRead + '_>, n: usize) -> io::Result<Vec<u8>> {
    let buf = reader.fill_buf()?;
    Ok(buf[..buf.len().min(n)].to_vec())
}

/// A zstd stream of one or more frames back to back, decoded with the pure-Rust `ruzstd`.
struct ZstdFrames<'a> {
    source: Option<Box<dyn BufRead + 'a>>,
    frame: Option<ZstdFrame<'a>>,
}

type ZstdFrame<'a> =
    ruzstd::decoding::StreamingDecoder<Box<dyn BufRead + 'a>, ruzstd::decoding::FrameDecoder>;

impl<'a> ZstdFrames<'a> {
    fn new(source: Box<dyn BufRead + 'a>) -> Self {
        ZstdFrames {
            source: Some(source),
            frame: None,
        }
    }
}

impl Read for ZstdFrames<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if let Some(frame) = self.frame.as_mut() {
                let n = frame.read(buf)?;
                if n > 0 || buf.is_empty() {
                    return Ok(n);
                }
                // The frame is over; the next one (if any) starts in the source.
                if let Some(frame) = self.frame.take() {
                    self.source = Some(frame.into_inner());
                }
            }
            let Some(mut source) = self.source.take() else {
                return Ok(0);
            };
            if source.fill_buf()?.is_empty() {
                return Ok(0);
            }
            let frame =
                ruzstd::decoding::StreamingDecoder::new(source).map_err(io::Error::other)?;
            self.frame = Some(frame);
        }
    }
}

/// One line of input, without its line ending.
#[derive(Debug)]
pub(crate) struct Line<'a> {
    /// 1-based line number.
    pub no: u64,
    pub text: &'a [u8],
    /// Whether the line ended with a newline (the last line of a cut file does not).
    pub terminated: bool,
}

/// Numbered lines of an input.
pub(crate) struct Lines<'a> {
    reader: Box<dyn BufRead + 'a>,
    buf: Vec<u8>,
    line: u64,
    /// Whether a read failed: no line comes after the one it cut.
    failed: bool,
}

impl<'a> Lines<'a> {
    /// Lines of `reader`, numbered from `offset + 1`.
    pub(crate) fn new(reader: Box<dyn BufRead + 'a>, offset: u64) -> Self {
        Lines {
            reader,
            buf: Vec::with_capacity(64 * 1024),
            line: offset,
            failed: false,
        }
    }

    /// The number of the last line read.
    pub(crate) fn line(&self) -> u64 {
        self.line
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
        match self.reader.read_until(b'\n', &mut self.buf) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(error) => {
                self.failed = true;
                report.cut(
                    self.line + 1,
                    format!("the input cannot be read past line {}: {error}", self.line),
                );
                if self.buf.is_empty() {
                    return None;
                }
            }
        }
        self.line += 1;
        let mut text = &self.buf[..];
        let terminated = !self.failed && text.last() == Some(&b'\n');
        if text.last() == Some(&b'\n') {
            text = &text[..text.len() - 1];
            if text.last() == Some(&b'\r') {
                text = &text[..text.len() - 1];
            }
        }
        Some(Line {
            no: self.line,
            text,
            terminated,
        })
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

/// The key of the JSON field where `error` (a type error) points in `text`: the last
/// `"key":` written before its position. serde_json's messages give the position, not the
/// field; a value of the wrong type sits right after its key.
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
    // The last `":` before the position closes the key; its opening quote is the last `"`
    // before that.
    let colon = before.windows(2).rposition(|w| w == b"\":")?;
    let open = before[..colon].iter().rposition(|&b| b == b'"')?;
    std::str::from_utf8(&before[open + 1..colon])
        .ok()
        .map(str::to_owned)
}

/// Whether a line holds only whitespace (such lines are not records in any format).
pub(crate) fn is_blank(text: &[u8]) -> bool {
    text.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
