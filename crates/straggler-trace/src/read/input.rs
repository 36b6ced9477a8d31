//! Opening an input: decompression from magic bytes (each gzip member and zstd frame
//! checked against its checksum, what follows the last one looked at), and numbered lines.
//!
//! # Lines
//!
//! The (decompressed) content is split into lines by one rule, which looks at bytes only,
//! never at where the reads of them end, so that [`read_bytes`](crate::read_bytes), a
//! [`read_reader`](crate::read_reader) of any chunking (a pipe's reads of a byte or two)
//! and [`read_path`](crate::read_path) (its 256 KiB buffers) read the same lines:
//!
//! - A UTF-8 byte order mark (`EF BB BF`) at the very start of the input is dropped; one
//!   anywhere else is content.
//! - Lines end with `\n`, and a `\r` right before it is dropped with it (`\r\n` ends). A
//!   `\r` elsewhere is content (in JSON, whitespace).
//! - Lines end with `\r` alone instead (classic Mac OS line ends) in an input whose first
//!   [`MAX_LINE_BYTES`] + 3 bytes after a byte order mark (a line kept, its `\r\n` and one
//!   byte more), or all its bytes if it is shorter, hold no `\n` and a `\r` followed by
//!   another byte of them; a `\n` further on is then content. So a `\r` inside a first
//!   line that a `\n` ends, however long the line, never changes the line end; and an
//!   input read with `\r` ends despite a `\n` further on would have had a first line too
//!   long to keep with `\n` ends. Only the bytes up to the first `\n` are looked at.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use crate::{ReadReport, TraceError};

/// Buffer size for reading files: large enough that line splitting is not the bottleneck.
const BUFFER_BYTES: usize = 256 * 1024;

/// The bytes that tell a compression from the start of an input: the longest magic number
/// (zstd's, and a skippable frame's, are 4 bytes).
const SNIFF_BYTES: usize = 4;

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
/// (A directory is let through, to fail as it did: only a file holds a log.) The
/// [`StreamCheck`] returned with the reader says, once the reader is read, what the decoder
/// found besides the bytes it handed out.
pub(crate) fn open(path: &Path) -> Result<(Box<dyn BufRead>, StreamCheck), TraceError> {
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

/// Wraps `reader` in the decoder its first bytes call for, and returns it with the
/// [`StreamCheck`] the decoder reports to (which stays empty for plain content, read as it
/// is, with no layer between it and the lines).
pub(crate) fn decompress<'a>(
    mut reader: Box<dyn BufRead + 'a>,
    path: &Path,
) -> Result<(Box<dyn BufRead + 'a>, StreamCheck), TraceError> {
    let io_error = |error| TraceError::Io {
        path: path.to_owned(),
        error,
    };
    // What the reader holds in its buffer (the first 256 KiB of a file), so that the frame
    // after a skippable frame at the start can be looked at too.
    let head = fill_retrying(&mut *reader).map_err(io_error)?;
    let compression = if head.len() >= SNIFF_BYTES || head.is_empty() {
        Compression::sniff(head)
    } else {
        // A buffer that holds less than a magic number (a pipe's first short read, a
        // reader of a tiny capacity): its first bytes are gathered, then handed out again
        // before the rest, so that a gzip or zstd stream is not taken for plain text.
        let mut start = Vec::with_capacity(SNIFF_BYTES);
        while start.len() < SNIFF_BYTES {
            let more = fill_retrying(&mut *reader).map_err(io_error)?;
            if more.is_empty() {
                break;
            }
            let take = more.len().min(SNIFF_BYTES - start.len());
            start.extend_from_slice(&more[..take]);
            reader.consume(take);
        }
        let compression = Compression::sniff(&start);
        reader = Box::new(io::Cursor::new(start).chain(reader));
        compression
    };
    let check = StreamCheck::default();
    check.0.borrow_mut().tool = match compression {
        Compression::Gzip => Some("gzip"),
        Compression::Zstd => Some("zstd"),
        _ => None,
    };
    let decoded: Box<dyn BufRead + 'a> = match compression {
        Compression::None => reader,
        Compression::Gzip => Box::new(BufReader::with_capacity(
            BUFFER_BYTES,
            GzipMembers::new(reader, check.clone()),
        )),
        Compression::Zstd => Box::new(BufReader::with_capacity(
            BUFFER_BYTES,
            ZstdFrames::new(reader, check.clone()),
        )),
        Compression::Lz4 => return Err(unsupported_codec(path, "an LZ4-compressed log", "lz4")),
        Compression::Snappy => {
            return Err(unsupported_codec(path, "a Snappy-compressed log", "snappy"));
        }
    };
    Ok((decoded, check))
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

/// What a decoder finds about its stream besides the bytes it hands out: a failed integrity
/// check, and what follows the end of the compressed data. The decoder sits under the
/// reader's [`Lines`], which sees only bytes and read errors, so it reports here, and the
/// caller of [`decompress`], holding a clone, turns what it found into an error or report
/// entries once the reader is done ([`StreamCheck::finish`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamCheck(Rc<RefCell<Found>>);

#[derive(Debug, Default)]
struct Found {
    /// The tool that decompresses the stream (`gzip`, `zstd`), for messages that suggest
    /// one; `None` for plain content.
    tool: Option<&'static str>,
    /// Why the data fails its integrity check, if it does.
    corrupt: Option<String>,
    /// What was not read after the end of the compressed data: `(reason, note)`.
    unread: Vec<(&'static str, String)>,
}

impl StreamCheck {
    /// Notes that the data fails its integrity check, and returns the read error that stops
    /// the reading there.
    fn corrupt(&self, detail: String) -> io::Error {
        let error = io::Error::new(io::ErrorKind::InvalidData, detail.clone());
        self.0.borrow_mut().corrupt.get_or_insert(detail);
        error
    }

    /// Notes bytes after the end of the compressed data that are not read.
    fn unread(&self, reason: &'static str, note: String) {
        self.0.borrow_mut().unread.push((reason, note));
    }

    /// The tool that decompresses the stream (`gzip` or `zstd`), for a message that suggests
    /// one (`gzip` for plain content, which has no stream to check and never asks).
    pub(crate) fn tool(&self) -> &'static str {
        self.0.borrow().tool.unwrap_or("gzip")
    }

    /// The [`TraceError::Corrupt`] of the integrity check that failed so far, if one did:
    /// for format detection, which reads only the head, to refuse a file as its reading
    /// would when the check fails before anything is decoded (a gzip header's CRC-16).
    pub(crate) fn corrupt_error(&self, path: &Path) -> Option<TraceError> {
        let detail = self.0.borrow().corrupt.clone()?;
        Some(TraceError::Corrupt {
            path: path.to_owned(),
            detail,
            tool: self.tool().to_owned(),
        })
    }

    /// Adds what the decoder found to `report`, the account of the input at `path`.
    ///
    /// # Errors
    /// [`TraceError::Corrupt`] when the data fails its integrity check (a gzip member's
    /// CRC-32 or length, a gzip header's CRC-16, a zstd frame's content checksum or size):
    /// see that variant for why this is an error and not a report entry.
    pub(crate) fn finish(&self, path: &Path, report: &mut ReadReport) -> Result<(), TraceError> {
        let mut found = self.0.borrow_mut();
        if let Some(detail) = found.corrupt.take() {
            return Err(TraceError::Corrupt {
                path: path.to_owned(),
                detail,
                tool: found.tool.unwrap_or("gzip").to_owned(),
            });
        }
        for (reason, note) in found.unread.drain(..) {
            report.not_read(reason, note);
        }
        Ok(())
    }
}

/// The compressed bytes under a decoder: they are counted as the decoder takes them (to say
/// where its data ends), and a few can be looked at before they are taken, even across the
/// end of the buffer below (to see what follows a gzip member or a zstd frame).
struct Source<'a> {
    inner: Box<dyn BufRead + 'a>,
    /// Bytes taken from `inner` to be looked at, handed out before any of its own, from
    /// `ahead_at` on.
    ahead: Vec<u8>,
    ahead_at: usize,
    /// Bytes handed out so far: the offset, in the compressed input, of the next one.
    taken: u64,
}

impl<'a> Source<'a> {
    fn new(inner: Box<dyn BufRead + 'a>) -> Self {
        Source {
            inner,
            ahead: Vec::new(),
            ahead_at: 0,
            taken: 0,
        }
    }

    /// The next bytes, at least `n` of them unless the input ends first, without taking
    /// them.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.ahead_at == self.ahead.len() {
            self.ahead.clear();
            self.ahead_at = 0;
            if fill_retrying(&mut *self.inner)?.len() >= n {
                return self.inner.fill_buf();
            }
        }
        while self.ahead.len() - self.ahead_at < n {
            let more = fill_retrying(&mut *self.inner)?;
            if more.is_empty() {
                break;
            }
            let take = more.len().min(n - (self.ahead.len() - self.ahead_at));
            self.ahead.extend_from_slice(&more[..take]);
            self.inner.consume(take);
        }
        Ok(&self.ahead[self.ahead_at..])
    }
}

/// `reader`'s buffer, filled, reading again where a read is interrupted (`EINTR`): a
/// decoder that parses a header over several reads would otherwise hand the interruption
/// up in the middle of the header, and be called again from its start.
fn fill_retrying<'b>(reader: &'b mut (dyn BufRead + '_)) -> io::Result<&'b [u8]> {
    loop {
        match reader.fill_buf() {
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
            // The end: read no more (a second call would read again, and could be
            // interrupted).
            Ok([]) => return Ok(&[]),
            // Filled: the second call gives its bytes from the buffer, reading nothing.
            Ok(_) => return reader.fill_buf(),
        }
    }
}

impl Read for Source<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Source<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.ahead_at < self.ahead.len() {
            return Ok(&self.ahead[self.ahead_at..]);
        }
        fill_retrying(&mut *self.inner)
    }

    fn consume(&mut self, n: usize) {
        self.taken += n as u64;
        if self.ahead_at < self.ahead.len() {
            self.ahead_at = (self.ahead_at + n).min(self.ahead.len());
        } else {
            self.inner.consume(n);
        }
    }
}

/// Looks at the bytes after the end of the compressed data (its last gzip member or zstd
/// frame complete and checked), which the decoder does not read: zero bytes to the end of
/// the input (padding, as some tape and transfer tools add) are passed over and noted as
/// `"trailing zero bytes"`, as `gzip -d` passes over them; anything else is noted as
/// `"trailing garbage"` and not read. Neither is a cut: every record before them was read
/// whole.
fn after_the_end(source: &mut Source<'_>, codec: &str, check: &StreamCheck) -> io::Result<()> {
    let at = source.taken;
    let mut zeros = 0u64;
    loop {
        let bytes = source.fill_buf()?;
        let run = bytes.iter().take_while(|&&b| b == 0).count();
        if run < bytes.len() {
            zeros += run as u64;
            source.consume(run);
            // Its first 8 bytes, wherever the buffer below ends, so that the note does not
            // depend on where the garbage falls in it.
            let start: Vec<String> = source
                .peek(8)?
                .iter()
                .take(8)
                .map(|b| format!("{b:02x}"))
                .collect();
            let after_zeros = match zeros {
                0 => String::new(),
                n => format!(", after {n} zero bytes"),
            };
            let garbage_at = at + zeros;
            check.unread(
                "trailing garbage",
                format!(
                    "the bytes after the end of the {codec} data (byte {at}) are not {codec} \
                     data (from byte {garbage_at} on{after_zeros}: `{}`...): not read; every \
                     record before them was",
                    start.join(" ")
                ),
            );
            return Ok(());
        }
        if bytes.is_empty() {
            check.unread(
                "trailing zero bytes",
                format!(
                    "{zeros} zero bytes after the end of the {codec} data (from byte {at} on), \
                     padding as tape and transfer tools add: passed over, as `gzip -d` does"
                ),
            );
            return Ok(());
        }
        zeros += run as u64;
        source.consume(run);
    }
}

/// The gzip magic number, which starts every member.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Where a gzip stream is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GzipAt {
    /// Before a member's header.
    Header,
    /// In a member's compressed data.
    Data,
    /// After a member's trailer: another member, or the end, may follow.
    Between,
    /// At the end: every member read, and what follows them (if anything) noted.
    End,
}

/// A gzip stream of members back to back (as `cat a.gz b.gz` or `bgzip` make), decoded with
/// flate2's pure-Rust inflater: each member's header is read here (RFC 1952: its optional
/// fields passed over, its CRC-16 checked when it has one), its deflate data inflated, and
/// its trailer checked: the CRC-32 and length (modulo 2^32) of the data it gave must match.
/// flate2's own `MultiGzDecoder` checks the trailer too, but its error does not say which
/// check failed, and it takes anything after a member for the start of another, so that
/// zero padding or garbage there read as a cut stream; here they are told apart
/// ([`after_the_end`]), and a failed check goes to the [`StreamCheck`].
///
/// Damaged deflate data gives the data decoded before the damage, then the error, whatever
/// the size of the reads ([`GzipMembers::inflate_more`]): flate2's readers drop what the
/// call that meets the damage decoded, so that read whole, a small damaged log gave no
/// line, and read a byte at a time, every line before the damage.
struct GzipMembers<'a> {
    source: Source<'a>,
    /// The member's deflate data, inflated by flate2's pure-Rust inflater (miniz_oxide).
    inflater: flate2::Decompress,
    /// Data inflated and not handed out yet: `inflated[handed..filled]`.
    inflated: Box<[u8]>,
    handed: usize,
    filled: usize,
    /// The inflater's error, handed out once the data it decoded before it is.
    damage: Option<io::Error>,
    /// The CRC-32 and length of the data the member has given so far.
    crc: flate2::Crc,
    at: GzipAt,
    /// The 1-based number of the member being read.
    member: u64,
    check: StreamCheck,
}

impl<'a> GzipMembers<'a> {
    fn new(source: Box<dyn BufRead + 'a>, check: StreamCheck) -> Self {
        GzipMembers {
            source: Source::new(source),
            inflater: flate2::Decompress::new(false),
            inflated: vec![0; INFLATE_WINDOW].into_boxed_slice(),
            handed: 0,
            filled: 0,
            damage: None,
            crc: flate2::Crc::new(),
            at: GzipAt::Header,
            member: 1,
            check,
        }
    }

    /// Reads a member's header, up to its deflate data.
    fn header(&mut self) -> io::Result<()> {
        let member = self.member;
        let source = &mut self.source;
        let cut = |error: io::Error| match error.kind() {
            io::ErrorKind::UnexpectedEof => io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the input ends inside the header of gzip member {member}"),
            ),
            _ => error,
        };
        // The header's CRC-16 (FHCRC) covers every byte before it.
        let mut header_crc = flate2::Crc::new();
        let mut fixed = [0u8; 10];
        source.read_exact(&mut fixed).map_err(cut)?;
        header_crc.update(&fixed);
        if fixed[..2] != GZIP_MAGIC {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("gzip member {member} does not start with the gzip magic number"),
            ));
        }
        if fixed[2] != 8 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "gzip member {member} uses compression method {}, not deflate (8)",
                    fixed[2]
                ),
            ));
        }
        let flags = fixed[3];
        if flags & 0xe0 != 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("gzip member {member} sets reserved header flags ({flags:#04x})"),
            ));
        }
        if flags & 0x04 != 0 {
            // FEXTRA: a length, then that many bytes.
            let mut length = [0u8; 2];
            source.read_exact(&mut length).map_err(cut)?;
            header_crc.update(&length);
            let mut extra = (&mut *source).take(u64::from(u16::from_le_bytes(length)));
            let mut buf = [0u8; 512];
            loop {
                let n = extra.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                header_crc.update(&buf[..n]);
            }
            if extra.limit() > 0 {
                return Err(cut(io::ErrorKind::UnexpectedEof.into()));
            }
        }
        // FNAME, FCOMMENT: bytes up to a zero byte, passed over without being kept.
        for flag in [0x08, 0x10] {
            if flags & flag == 0 {
                continue;
            }
            loop {
                let bytes = source.fill_buf()?;
                if bytes.is_empty() {
                    return Err(cut(io::ErrorKind::UnexpectedEof.into()));
                }
                let (n, ended) = match bytes.iter().position(|&b| b == 0) {
                    Some(zero) => (zero + 1, true),
                    None => (bytes.len(), false),
                };
                header_crc.update(&bytes[..n]);
                source.consume(n);
                if ended {
                    break;
                }
            }
        }
        if flags & 0x02 != 0 {
            let mut stored = [0u8; 2];
            source.read_exact(&mut stored).map_err(cut)?;
            let stored = u16::from_le_bytes(stored);
            // The low 16 bits of the header's CRC-32.
            let computed = (header_crc.sum() & 0xffff) as u16;
            if stored != computed {
                return Err(self.check.corrupt(format!(
                    "the header of gzip member {member} fails its CRC-16: the header's is \
                     {computed:04x}, it says {stored:04x}"
                )));
            }
        }
        Ok(())
    }

    /// Reads a member's trailer and checks the member's data against it.
    fn trailer(&mut self) -> io::Result<()> {
        let member = self.member;
        let source = &mut self.source;
        let mut trailer = [0u8; 8];
        source
            .read_exact(&mut trailer)
            .map_err(|error| match error.kind() {
                io::ErrorKind::UnexpectedEof => io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the input ends inside gzip member {member}, before its checksum"),
                ),
                _ => error,
            })?;
        let end = source.taken;
        let [c0, c1, c2, c3, l0, l1, l2, l3] = trailer;
        let (stored_crc, stored_length) = (
            u32::from_le_bytes([c0, c1, c2, c3]),
            u32::from_le_bytes([l0, l1, l2, l3]),
        );
        let (crc, length) = (self.crc.sum(), self.crc.amount());
        let mut faults = Vec::new();
        if crc != stored_crc {
            faults.push(format!(
                "the CRC-32 of its data is {crc:08x}, its trailer says {stored_crc:08x}"
            ));
        }
        if length != stored_length {
            faults.push(format!(
                "its data is {length} bytes (modulo 2^32), its trailer says {stored_length}"
            ));
        }
        if faults.is_empty() {
            return Ok(());
        }
        Err(self.check.corrupt(format!(
            "gzip member {member} (ending at byte {end}) fails its integrity check: {}",
            faults.join("; ")
        )))
    }
}

/// The inflater's window (`miniz_oxide`'s `TINFL_LZ_DICT_SIZE`): it decodes into a ring
/// of this many bytes and copies them out from there.
const INFLATE_WINDOW: usize = 32 * 1024;

impl GzipMembers<'_> {
    /// The member's next inflated bytes into `buf`, as many as are at hand; 0 at the end of
    /// its deflate data. As flate2's `bufread::DeflateDecoder`, but for damaged data: its
    /// error comes after the data decoded before it.
    fn inflate(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.handed == self.filled {
            if let Some(damage) = self.damage.take() {
                return Err(damage);
            }
            self.inflate_more()?;
        }
        let n = buf.len().min(self.filled - self.handed);
        buf[..n].copy_from_slice(&self.inflated[self.handed..self.handed + n]);
        self.handed += n;
        Ok(n)
    }

    /// Inflates into `self.inflated` at most up to the end of the inflater's ring: the
    /// inflater decodes into its ring and copies out what fits the output it is given, and
    /// once it meets damaged data, keeps what it could not copy. Given room up to the ring's
    /// end, it copies out everything it decoded, and the data before the damage is the
    /// same however the input was cut (for any room, decoding stops at the ring's end).
    /// Nothing inflated (the end of the data) leaves `filled` at 0.
    fn inflate_more(&mut self) -> io::Result<()> {
        let room = INFLATE_WINDOW - (self.inflater.total_out() % INFLATE_WINDOW as u64) as usize;
        self.handed = 0;
        loop {
            let input = self.source.fill_buf()?;
            let end = input.is_empty();
            let flush = match end {
                true => flate2::FlushDecompress::Finish,
                false => flate2::FlushDecompress::None,
            };
            let (before_in, before_out) = (self.inflater.total_in(), self.inflater.total_out());
            let status = self
                .inflater
                .decompress(input, &mut self.inflated[..room], flush);
            let consumed = (self.inflater.total_in() - before_in) as usize;
            self.filled = (self.inflater.total_out() - before_out) as usize;
            self.source.consume(consumed);
            match status {
                // Nothing yet: more input is needed, if there is any.
                Ok(flate2::Status::Ok | flate2::Status::BufError) if self.filled == 0 => {
                    if !end {
                        continue;
                    }
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "incomplete deflate stream",
                    ));
                }
                Ok(_) => return Ok(()),
                Err(_) => {
                    let damage =
                        io::Error::new(io::ErrorKind::InvalidInput, "corrupt deflate stream");
                    if self.filled == 0 {
                        return Err(damage);
                    }
                    self.damage = Some(damage);
                    return Ok(());
                }
            }
        }
    }
}

impl Read for GzipMembers<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match self.at {
                GzipAt::Header => {
                    self.header()?;
                    self.at = GzipAt::Data;
                }
                GzipAt::Data => {
                    // Nothing more from the inflater: its data is over, or the input is
                    // (and then the trailer cannot be read).
                    let n = self.inflate(buf)?;
                    if n > 0 {
                        self.crc.update(&buf[..n]);
                        return Ok(n);
                    }
                    self.trailer()?;
                    self.at = GzipAt::Between;
                }
                GzipAt::Between => {
                    let source = &mut self.source;
                    let next = source.peek(GZIP_MAGIC.len())?;
                    // The magic number (or its first byte at the very end of the input,
                    // where the header's reading says the input is cut) starts a member.
                    if !next.is_empty() && GZIP_MAGIC.starts_with(&next[..next.len().min(2)]) {
                        self.inflater.reset(false);
                        self.crc.reset();
                        self.member += 1;
                        self.at = GzipAt::Header;
                        continue;
                    }
                    if !next.is_empty() {
                        after_the_end(source, "gzip", &self.check)?;
                    }
                    self.at = GzipAt::End;
                }
                GzipAt::End => return Ok(0),
            }
        }
    }
}

/// The zstd magic number, which starts every zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Whether `head`, the next bytes of a zstd stream (fewer than 4 only at its end), start a
/// frame, zstd or skippable, or could (a frame cut inside its magic number, which the
/// decoder then says is cut).
fn starts_zstd_frame(head: &[u8]) -> bool {
    let head = &head[..head.len().min(ZSTD_MAGIC.len())];
    let skippable = match head.split_first() {
        Some((first, rest)) => {
            (0x50..=0x5f).contains(first) && [0x2a, 0x4d, 0x18].starts_with(rest)
        }
        None => false,
    };
    ZSTD_MAGIC.starts_with(head) || skippable
}

/// A zstd stream of frames back to back, decoded with the pure-Rust `ruzstd`: zstd frames,
/// whose content is handed out, and skippable frames (metadata, such as the frame sizes
/// `pzstd` writes first), passed over wherever a frame may start. A frame that carries a
/// content checksum (`zstd` writes one by default) is checked against it once its content
/// is all handed out (ruzstd computes it, with its `hash` feature, and leaves the
/// comparison to its caller), and so is the content size its header gives, if it gives
/// one (ruzstd does not check it); a mismatch goes to the [`StreamCheck`]. Bytes after the
/// last frame that start none are looked at by [`after_the_end`].
struct ZstdFrames<'a> {
    source: Source<'a>,
    decoder: ruzstd::decoding::FrameDecoder,
    /// Whether a zstd frame's header is read and its content not all handed out.
    in_frame: bool,
    /// The 1-based number of the last zstd frame started.
    frame: u64,
    /// The bytes of content the frame being read has handed out, to check against the
    /// content size its header gives.
    frame_bytes: u64,
    /// Whether the stream is over: its frames read, and what follows them noted.
    ended: bool,
    check: StreamCheck,
}

impl<'a> ZstdFrames<'a> {
    fn new(source: Box<dyn BufRead + 'a>, check: StreamCheck) -> Self {
        ZstdFrames {
            source: Source::new(source),
            decoder: ruzstd::decoding::FrameDecoder::new(),
            in_frame: false,
            frame: 0,
            frame_bytes: 0,
            ended: false,
            check,
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

    /// Checks the frame whose content is all handed out against the content size its
    /// header gives, if it gives one, and its content checksum, if it has one: the low 32
    /// bits of the XXH64 of its content. (The size is the only check of a frame written
    /// without a checksum, `zstd --no-check`, and `zstd -t` makes it; ruzstd does not. A
    /// header without the size and one that gives 0 both read as 0 here: neither is
    /// checked.)
    fn check_frame(&mut self) -> io::Result<()> {
        let declared = self.decoder.content_size();
        if declared > 0 && declared != self.frame_bytes {
            return Err(self.check.corrupt(format!(
                "zstd frame {} (ending at byte {}) holds {} bytes of content, its header says \
                 {declared}",
                self.frame, self.source.taken, self.frame_bytes
            )));
        }
        let Some(stored) = self.decoder.get_checksum_from_data() else {
            return Ok(());
        };
        let computed = self.decoder.get_calculated_checksum();
        if computed == Some(stored) {
            return Ok(());
        }
        let computed = computed.map_or_else(|| "unknown".to_owned(), |c| format!("{c:08x}"));
        Err(self.check.corrupt(format!(
            "zstd frame {} (ending at byte {}) fails its content checksum: the checksum of its \
             data is {computed}, the frame says {stored:08x}",
            self.frame, self.source.taken
        )))
    }
}

impl Read for ZstdFrames<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use ruzstd::decoding::BlockDecodingStrategy;
        use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
        if buf.is_empty() || self.ended {
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
                        .map_err(|error| zstd_error(&error, self.frame, "zstd frame"))?;
                }
                let n = self.decoder.read(buf)?;
                if n > 0 {
                    self.frame_bytes += n as u64;
                    return Ok(n);
                }
                // The frame is over; the next one (if any) starts in the source.
                self.in_frame = false;
                self.check_frame()?;
            }
            let next = self.source.peek(ZSTD_MAGIC.len())?;
            if next.is_empty() {
                return Ok(0);
            }
            if !starts_zstd_frame(next) {
                self.ended = true;
                after_the_end(&mut self.source, "zstd", &self.check)?;
                return Ok(0);
            }
            match self.decoder.init(&mut self.source) {
                Ok(()) => {
                    self.in_frame = true;
                    self.frame += 1;
                    self.frame_bytes = 0;
                }
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => self.skip(length)?,
                Err(error) => {
                    let header = "the header of zstd frame";
                    return Err(zstd_error(&error, self.frame + 1, header));
                }
            }
        }
    }
}

/// The read error of the zstd decoder's `error` in frame `frame` (`what`: the frame, or its
/// header), in words: the input ends inside it (an `UnexpectedEof` somewhere in the error's
/// sources: the file is cut), or it is damaged, with the decoder's deepest reason. (ruzstd's
/// own text names its error types, `BlockContentReadError(Error { kind: UnexpectedEof,
/// .. })`, and some of them wrongly.)
fn zstd_error(error: &(dyn std::error::Error + 'static), frame: u64, what: &str) -> io::Error {
    let mut deepest = error;
    let mut cut = false;
    let mut next = Some(error);
    while let Some(source) = next {
        deepest = source;
        cut |= (source.downcast_ref::<io::Error>())
            .is_some_and(|e| e.kind() == io::ErrorKind::UnexpectedEof);
        next = source.source();
    }
    if cut {
        return io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the input ends inside {what} {frame}"),
        );
    }
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{what} {frame} is damaged: {deepest}"),
    )
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

/// A read that failed while the start of an input was looked at ([`Lines::start`]): it
/// fails once more, after the bytes read before it, then is at the end.
struct FailedRead(Option<io::Error>);

impl Read for FailedRead {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}

impl BufRead for FailedRead {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self.0.take() {
            Some(error) => Err(error),
            None => Ok(&[]),
        }
    }

    fn consume(&mut self, _: usize) {}
}

/// Numbered lines of an input (one file), by the rule of the module's docs: a UTF-8 byte
/// order mark at the start dropped; lines ending with `\n` (a `\r` before it dropped too),
/// or with `\r` alone in an input whose first line holds no `\n` (classic Mac OS line
/// ends). What the rule looks at is gathered before it is applied, so that it never
/// depends on where the reads below end.
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

    /// Drops a byte order mark and sees which byte ends the lines (see the module's docs),
    /// from the start of the input: its first three bytes (a byte order mark's length),
    /// then the bytes up to its first `\n` (or [`Self::head_bytes`] of them), or all of a
    /// shorter input, gathered however many reads they take, and handed out again before
    /// the rest. A read that fails meanwhile is handed out after the bytes read before it,
    /// as it would have come.
    fn start(&mut self) {
        self.started = true;
        let head_bytes = self.head_bytes();
        let mut head = Vec::new();
        let mut bom_checked = false;
        let mut found_lf = false;
        let failure = loop {
            if !bom_checked && head.len() >= BOM.len() {
                if head.starts_with(BOM) {
                    head.drain(..BOM.len());
                }
                bom_checked = true;
            }
            if bom_checked && (found_lf || head.len() >= head_bytes) {
                break None;
            }
            let bytes = match fill_retrying(&mut *self.reader) {
                Ok(bytes) => bytes,
                Err(error) => break Some(error),
            };
            if bytes.is_empty() {
                break None;
            }
            // Only what is still to be looked at: the rest of the byte order mark's bytes,
            // or up to the first `\n`.
            let wanted = match bom_checked {
                false => BOM.len() - head.len(),
                true => head_bytes - head.len(),
            };
            let bytes = &bytes[..bytes.len().min(wanted)];
            let take = bytes
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |at| at + 1);
            found_lf |= bytes[..take].ends_with(b"\n");
            head.extend_from_slice(&bytes[..take]);
            self.reader.consume(take);
        };
        // A `\r` followed by another byte (any, there being no `\n` among them): the last
        // byte looked at may be the `\r` of a `\r\n`.
        let cr_only = !found_lf && head[..head.len().saturating_sub(1)].contains(&b'\r');
        if cr_only {
            self.end = b'\r';
        }
        let rest = std::mem::replace(&mut self.reader, Box::new(io::empty()));
        self.reader = match failure {
            None => Box::new(io::Cursor::new(head).chain(rest)),
            Some(error) => Box::new(io::Cursor::new(head).chain(FailedRead(Some(error)))),
        };
    }

    /// How much of the start of the input, after a byte order mark, is looked at for a
    /// `\n`: a line kept, with a `\r\n` after it and one byte more. An input with no `\n`
    /// in as many bytes has a first line too long in `\n` mode, so that the `\r` mode it
    /// may be read in instead costs no line that the `\n` mode would keep.
    fn head_bytes(&self) -> usize {
        self.max_line_bytes.saturating_add(3)
    }

    /// Reads the next line into `buf`, at most `max_line_bytes` bytes of it and its line
    /// end; the rest of a longer line is read and dropped, and `too_long` set.
    fn read_line(&mut self) -> io::Result<()> {
        if !self.started {
            self.start();
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

/// Whether `value`, a JSON number that serde_json read as a float, can be an integer as
/// written: `-0`, or one past the 64-bit range (serde_json reads every other integer as an
/// `i64` or a `u64`). The JSON readers take such a number for the integer it is where an
/// integer is due, so that a time past the range is implausible or negative, as any other
/// is, and `-0` is 0; any other float there (`1.5e3`, `1500.0`, `0.0`) is of the wrong
/// type. serde_json keeps no trace of how a number was written, so `-0.0` passes as `-0`
/// does, and a float past the range (`1e20`) as an integer past it would.
pub(crate) fn integer_read_as_float(value: f64) -> bool {
    // The bounds of the integers serde_json reads as such: `i64::MIN` and `u64::MAX`.
    let past_range = value < -(2f64.powi(63)) || value >= 2f64.powi(64);
    let minus_zero = value == 0.0 && value.is_sign_negative();
    minus_zero || past_range
}

/// Counts line `no` of a JSON Lines log, `text`, that did not parse: cut by the end of the
/// input (an unterminated last line ending inside a value), a key read written twice
/// (`"duplicate key"`, see [`duplicate_key`]), a value of the wrong type (its field
/// named), a `NaN` or `Infinity` where a value should be (its field named, see
/// [`non_number_at`]), a number too large for a double (`"number out of range"`, its field
/// named, see [`out_of_range`]), or not JSON.
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
    } else if let Some(key) = duplicate_key(error) {
        report.skipped(no, Some(&key), "duplicate key");
    } else if error.is_data() {
        let field = json_field_at(text, error);
        report.skipped(no, field.as_deref(), "field of the wrong type");
    } else if let Some(reason) =
        non_number_at(text, error).or_else(|| out_of_range(error).then_some("number out of range"))
    {
        let field = json_field_at(text, error);
        report.skipped(no, field.as_deref(), reason);
    } else {
        report.skipped(no, None, "malformed JSON");
    }
}

/// The key that a data `error` of serde_json says one object writes twice, if it says so
/// (`duplicate field `Launch Time``): a key the reader reads, written again, which a record
/// is skipped for as `"duplicate key"` naming it (which value to take cannot be told), not
/// as a value of the wrong type named by the key before it. serde_json tells it only in
/// its message.
pub(crate) fn duplicate_key(error: &serde_json::Error) -> Option<String> {
    if !error.is_data() {
        return None;
    }
    let message = error.to_string();
    let key = message.strip_prefix("duplicate field `")?;
    key.split_once('`').map(|(key, _)| key.to_owned())
}

/// The skip reason of a JSON text whose syntax `error` points at `NaN`, `Infinity` or
/// `-Infinity`: words for floats that JSON has no number for, which Python's `json` and
/// Jackson (with `ALLOW_NON_NUMERIC_NUMBERS`) write all the same, and which serde_json
/// refuses as a syntax error, naming neither the word nor its field. `None` for any other
/// syntax error (`"malformed JSON"`). Called only on a text that failed to parse, so that
/// valid input pays nothing for it.
pub(crate) fn non_number_at(text: &[u8], error: &serde_json::Error) -> Option<&'static str> {
    // serde_json points at the first byte it cannot take: the `N` or `I` (after a `-`, which
    // it takes as the start of a number).
    let at = error_offset(text, error)?;
    let rest = text.get(at..)?;
    let (word, reason) = [
        ("NaN", "NaN is not a JSON number"),
        ("Infinity", "Infinity is not a JSON number"),
    ]
    .into_iter()
    .find(|(word, _)| rest.starts_with(word.as_bytes()))?;
    // The whole word, not the start of another (`Infinityx`, `NaNa`).
    if rest
        .get(word.len())
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    {
        return None;
    }
    let negative = at > 0 && text[at - 1] == b'-';
    Some(match (word, negative) {
        ("Infinity", true) => "-Infinity is not a JSON number",
        _ => reason,
    })
}

/// Whether the syntax `error` is a number too large for a double (`1e400`), which
/// serde_json refuses as a syntax error: `"number out of range"` says so, rather than
/// `"malformed JSON"`, in every JSON reader. (serde_json tells it only in its message.)
pub(crate) fn out_of_range(error: &serde_json::Error) -> bool {
    error.is_syntax() && error.to_string().starts_with("number out of range")
}

/// The key of the member of a JSON object that a syntax `error` in `text` falls in: the
/// last key written, in its innermost object, before the byte at fault (`"outputBytes"`
/// for `"outputBytes"Z: 1`), or at the end of a text that ends too soon; in an array, the
/// member that holds the array (`"mapTasks"` for `{"mapTasks": [}`), and likewise
/// between the members of an object (a key that is not a string, `{"a": {"b": 1, c": 2}}`
/// names `a`); `None` between the members of the outermost object.
pub(crate) fn syntax_field_at(text: &[u8], error: &serde_json::Error) -> Option<String> {
    // Up to the byte at fault, or all of a text that ends too soon.
    let end = match error.is_eof() {
        true => text.len(),
        false => error_offset(text, error)?.min(text.len()),
    };
    // Each open bracket, with the key of the member it is at, for an object (`None` before
    // its first key, after a `,`, and for an array).
    let mut open: Vec<(u8, Option<std::ops::Range<usize>>)> = Vec::new();
    let mut last = 0u8;
    let mut at = 0;
    while at < end {
        match text[at] {
            b'"' => {
                let start = at + 1;
                at = start;
                while at < text.len() && text[at] != b'"' {
                    at += if text[at] == b'\\' { 2 } else { 1 };
                }
                if let Some((b'{', key)) = open.last_mut()
                    && matches!(last, b'{' | b',')
                {
                    *key = Some(start..at.min(text.len()));
                }
                last = b'"';
            }
            byte @ (b'{' | b'[') => {
                open.push((byte, None));
                last = byte;
            }
            byte @ (b'}' | b']') => {
                open.pop();
                last = byte;
            }
            b',' => {
                if let Some((b'{', key)) = open.last_mut() {
                    *key = None;
                }
                last = b',';
            }
            byte if byte.is_ascii_whitespace() => {}
            byte => last = byte,
        }
        at += 1;
    }
    // In an array, the member of the object that holds it.
    let key = open.into_iter().rev().find_map(|(_, key)| key)?;
    std::str::from_utf8(text.get(key)?).ok().map(str::to_owned)
}

/// The byte offset in `text` of the byte `error` points at: serde_json gives a 1-based line
/// and a 1-based column, in bytes (0 before the line's first byte).
pub(crate) fn error_offset(text: &[u8], error: &serde_json::Error) -> Option<usize> {
    Some(error_line_start(text, error)? + error.column().saturating_sub(1))
}

/// The byte offset in `text` of the start of the line `error` points at.
fn error_line_start(text: &[u8], error: &serde_json::Error) -> Option<usize> {
    if error.line() <= 1 {
        return Some(0);
    }
    text.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(error.line() - 2)
        .map(|(i, _)| i + 1)
}

/// The key of the JSON field where `error` (a type error) points in `text`: the last key
/// (a string followed by `:`, with or without whitespace between, as Rumen writes
/// `"key" : value`) written before its position. serde_json's messages give the position,
/// not the field; a value of the wrong type sits right after its key.
pub(crate) fn json_field_at(text: &[u8], error: &serde_json::Error) -> Option<String> {
    // Up to the byte at fault, included.
    let end = (error_line_start(text, error)? + error.column()).min(text.len());
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

    /// A reader that gives `bytes` `step` bytes a read, then fails with `error` if given.
    struct Chunked {
        bytes: Vec<u8>,
        step: usize,
        error: Option<io::ErrorKind>,
    }

    impl Read for Chunked {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.bytes.is_empty() {
                return self.error.take().map_or(Ok(0), |kind| Err(kind.into()));
            }
            let n = buf.len().min(self.step).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes.drain(..n);
            Ok(n)
        }
    }

    /// The lines of `bytes` read `step` bytes a read, with a cap of `cap` bytes, as
    /// `(number, text, terminated)`, and where the report says the input stops.
    fn chunked_lines(
        bytes: &[u8],
        step: usize,
        cap: usize,
        error: Option<io::ErrorKind>,
    ) -> (Vec<(u64, String, bool)>, Option<u64>) {
        let mut report = ReadReport::new("t", crate::TraceFormat::SparkEventLog);
        let reader = Chunked {
            bytes: bytes.to_vec(),
            step,
            error,
        };
        let mut lines = Lines::with_cap(Box::new(BufReader::with_capacity(step, reader)), cap);
        let mut out = Vec::new();
        while let Some(line) = lines.next_or_note(&mut report) {
            let text = String::from_utf8_lossy(line.text).into_owned();
            out.push((line.no, text, line.terminated));
        }
        (out, report.truncated.map(|t| t.line))
    }

    #[test]
    fn the_line_end_is_told_from_the_bytes_not_from_the_reads() {
        let line = |no, text: &str| (no, text.to_owned(), true);
        for step in [1, 2, 3, 5, 64] {
            // A `\r` in a first line that a `\n` ends, past the first read: `\n` ends.
            assert_eq!(
                chunked_lines(b"ab\rcdef\nx\n", step, 64, None).0,
                [line(1, "ab\rcdef"), line(2, "x")],
                "{step}"
            );
            // No `\n` before the cap and 3 bytes more: `\r` ends, a later `\n` content.
            assert_eq!(
                chunked_lines(b"ab\rcdefgh\nx\r", step, 4, None).0,
                [line(1, "ab"), (2, String::new(), true)],
                "{step}"
            );
            // A byte order mark read a byte at a time, then `\r` ends.
            assert_eq!(
                chunked_lines(b"\xef\xbb\xbfa\rb\r", step, 64, None).0,
                [line(1, "a"), line(2, "b")],
                "{step}"
            );
            // Shorter than a byte order mark.
            assert_eq!(
                chunked_lines(b"\xef\xbb", step, 64, None).0,
                [(1, String::from_utf8_lossy(b"\xef\xbb").into_owned(), false)],
                "{step}"
            );
        }
    }

    #[test]
    fn a_read_that_fails_while_the_start_is_looked_at_comes_after_its_bytes() {
        for step in [1, 2, 64] {
            // The bytes read before the failure come out as a cut line, and the input
            // stops there, as a failure later on does; its line ends are told from the
            // bytes read.
            assert_eq!(
                chunked_lines(b"abcd", step, 64, Some(io::ErrorKind::InvalidData)),
                (vec![(1, "abcd".to_owned(), false)], Some(1)),
                "{step}"
            );
            assert_eq!(
                chunked_lines(b"ab\rcd", step, 64, Some(io::ErrorKind::InvalidData)),
                (
                    vec![(1, "ab".to_owned(), true), (2, "cd".to_owned(), false)],
                    Some(2)
                ),
                "{step}"
            );
            assert_eq!(
                chunked_lines(b"ab\ncd", step, 64, Some(io::ErrorKind::InvalidData)),
                (
                    vec![(1, "ab".to_owned(), true), (2, "cd".to_owned(), false)],
                    Some(2)
                ),
                "{step}"
            );
        }
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
    fn a_non_number_is_told_where_serde_json_stops() {
        let reason = |text: &str| {
            let error = serde_json::from_str::<serde::de::IgnoredAny>(text).expect_err("not JSON");
            non_number_at(text.as_bytes(), &error)
        };
        assert_eq!(reason(r#"{"a":NaN}"#), Some("NaN is not a JSON number"));
        assert_eq!(
            reason(r#"{"a": [1, Infinity]}"#),
            Some("Infinity is not a JSON number")
        );
        assert_eq!(
            reason("{\"a\" :\n -Infinity\n}"),
            Some("-Infinity is not a JSON number")
        );
        // A word that only starts like one, another word, another fault.
        assert_eq!(reason(r#"{"a":NaNa}"#), None);
        assert_eq!(reason(r#"{"a":Nope}"#), None);
        assert_eq!(reason(r#"{"a":1,}"#), None);
        assert_eq!(reason(r#"{"a":"NaN" x}"#), None);
    }

    /// The compressed data read through a buffer of `capacity` bytes, as lines, and what the
    /// decoder found: so that looking past a member's or frame's end is tried across the
    /// end of a buffer.
    fn decoded(bytes: &[u8], capacity: usize) -> (Vec<u8>, ReadReport) {
        let source = Box::new(io::BufReader::with_capacity(capacity, bytes));
        let (mut reader, check) = decompress(source, Path::new("t")).expect("compressed");
        let mut out = Vec::new();
        reader.read_to_end(&mut out).expect("readable");
        let mut report = ReadReport::new("t", crate::TraceFormat::SparkEventLog);
        check
            .finish(Path::new("t"), &mut report)
            .expect("not corrupt");
        (out, report)
    }

    #[test]
    fn what_follows_the_data_is_seen_across_the_end_of_a_buffer() {
        use std::io::Write;
        let text = b"line one\nline two\n";
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(text).expect("in memory");
        let member = gzip.finish().expect("in memory");
        let zstd = ruzstd::encoding::compress_to_vec(
            &text[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        for frame in [member, zstd] {
            let mut two = frame.clone();
            two.extend(&frame);
            let mut padded = two.clone();
            padded.extend([0; 5]);
            let mut garbage = two.clone();
            garbage.extend(b"\0\0?");
            // From 4 bytes, which the magic numbers need to be told from the first buffer.
            for capacity in [4, 5, 7, 13, 4096] {
                let (out, report) = decoded(&two, capacity);
                assert_eq!(out, [&text[..], &text[..]].concat(), "{capacity}");
                assert!(report.unread.is_empty());
                let (out, report) = decoded(&padded, capacity);
                assert_eq!(out.len(), 2 * text.len(), "{capacity}");
                assert_eq!(report.unread[0].reason, "trailing zero bytes", "{capacity}");
                let (out, report) = decoded(&garbage, capacity);
                assert_eq!(out.len(), 2 * text.len(), "{capacity}");
                assert_eq!(report.unread[0].reason, "trailing garbage", "{capacity}");
                assert!(report.unread[0].note.contains("after 2 zero bytes: `3f`"));
            }
        }
    }

    #[test]
    fn a_zstd_frame_start_is_told_from_what_is_not_one() {
        assert!(starts_zstd_frame(&[0x28, 0xb5, 0x2f, 0xfd, 0]));
        assert!(starts_zstd_frame(&[0x5e, 0x2a, 0x4d, 0x18]));
        // The start of a magic number at the very end: a frame cut, for the decoder to say.
        assert!(starts_zstd_frame(&[0x28, 0xb5]));
        assert!(starts_zstd_frame(&[0x51]));
        assert!(!starts_zstd_frame(&[0, 0, 0, 0]));
        assert!(!starts_zstd_frame(&[0x28, 0xb5, 0x2f, 0xfe]));
        assert!(!starts_zstd_frame(&[0x60, 0x2a, 0x4d, 0x18]));
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
