//! A Hadoop job's configuration file, the `_conf.xml` beside its history (Hadoop 2's done
//! directory: `job_<id>_conf.xml` beside the `.jhist`; Hadoop 1: `<jobtracker-host>_<start>
//! _job_<id>_conf.xml` beside the history file), read for the job's speculation setting.
//!
//! - The job: the `job_<digits>_<digits>` in the file's name ([`conf_job_id`]), the id the
//!   history readers give the job.
//! - The XML: Hadoop's `<configuration><property><name>N</name><value>V</value></property>
//!   ...</configuration>`, read by a small reader: the elements `configuration`,
//!   `property`, `name`, `value` and `final` (a second `<name>`, `<value>` or `<final>` in
//!   one property is malformed); `source`, `tag` and `description` are read and ignored; a
//!   `<configuration>` among the properties is loaded as one, its properties in their
//!   place, as Hadoop loads it (0.20 to 2's `loadResource` recursively, 3's parser as if
//!   it were not there); the attributes `name`, `value` and `final` of a `<property>` (the
//!   compact form, `<property name="n" value="v" final="true"/>`) are read as the Hadoop
//!   that loads the file reads them (`Property::read_as`: Hadoop 3 reads them, 0.20, 1
//!   and 2 up to 2.8 at least do not), each by its local name as Hadoop 3 reads them
//!   (`h:name` is a `name`), and other attributes are ignored (one written twice in a tag
//!   is malformed, as XML has it; so is a prefix no `xmlns:` declares, as every Hadoop's
//!   namespace-aware parser has it); comments, `<?...?>` instructions, the
//!   five predefined entities, numeric character references and CDATA sections are read
//!   as XML reads them, and an attribute's value has its line breaks and tabs read as
//!   spaces. Anything else (another element, text between properties, an unknown entity,
//!   a tag left open, a DOCTYPE) is [`TraceError::Malformed`] naming the line and what is
//!   wrong: the file is not read.
//! - The records: one per `<property>`. A property's `<name>` is trimmed and its value kept
//!   as written, as Hadoop's `Configuration` reads them; one without a name, or without a
//!   value (Hadoop sets nothing then), is a skip (`"property without a name"`, `"property
//!   without a value"`). The properties of speculation give the setting as the Hadoop
//!   that loads the file reads them ([`HadoopVersion`], given by the caller: the version
//!   that ran the job, where its log says; [`hadoop_conf::speculation_in_file`]), in the
//!   order written, as `Configuration.loadResource` loads them: the switches under the
//!   names that version reads (Hadoop 1: the Hadoop 1 names alone; Hadoop 2: either, one
//!   property, the later standing), unset meaning Hadoop's default, on; the parameters
//!   as written. A property at fault there (a switch that is no boolean to that version,
//!   an earlier property overridden by a later one of its name or, read otherwise, of
//!   its other name, a property written after a final one) is skipped with that reason
//!   on its line, the setting standing; every other property is parsed.
//! - `<final>true</final>` (exactly `true`, as Hadoop's `Configuration` reads it): Hadoop's
//!   `loadProperty` keeps a final property's value and ignores a later property of the
//!   same name, with a warning. A property of speculation written after a final one of its
//!   name (under Hadoop 2, of either name of a switch, one property) is skipped as
//!   `"overrides a final property"`, the final value standing; a final
//!   property without a value (itself skipped) makes its name final too, as Hadoop adds the
//!   name to its finals whatever the value (since HADOOP-6227, 2009: Hadoop 1, 0.21 and
//!   later; 0.20's locks nothing so, but a log does not tell 0.20 from 1, and 1's rule is
//!   applied to both, see [`HadoopVersion::Hadoop1`]).

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::hadoop_conf::{self, FileProperty, HadoopVersion};
use super::input;
use crate::{ReadReport, SpeculationSetting, TraceError, TraceFormat, java_trim};

/// What a job's configuration file gives: the job it belongs to, and its speculation
/// setting (Hadoop's defaults, on for both kinds, where it sets no switch).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobConf {
    /// The job's id, from the file's name (`job_201002080801_40864`).
    pub job: String,
    /// The job's speculation setting, as the Hadoop that loads the file reads it.
    pub speculation: SpeculationSetting,
}

/// The job id in the name of a Hadoop job configuration file: the `job_<digits>_<digits>`
/// in a name ending in `_conf.xml`, or in `_conf.xml.gz` or `_conf.xml.zst` for a
/// compressed one (`job_1329348432655_0001_conf.xml`,
/// `host_1265616107882_job_201002080801_40864_conf.xml`); `None` for any other name.
pub fn conf_job_id(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let name = [".gz", ".zst"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name);
    let stem = name.strip_suffix("_conf.xml")?;
    stem.match_indices("job_").find_map(|(at, _)| {
        if at > 0 && !stem[..at].ends_with('_') {
            return None;
        }
        let (start, rest) = digits(&stem[at + 4..])?;
        let (serial, rest) = digits(rest.strip_prefix('_')?)?;
        (rest.is_empty() || rest.starts_with('_')).then(|| format!("job_{start}_{serial}"))
    })
}

/// `text` split after its leading ASCII digits; `None` when it starts with none.
fn digits(text: &str) -> Option<(&str, &str)> {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    (end > 0).then(|| text.split_at(end))
}

/// Reads the Hadoop job configuration file at `path` (plain, gzip or zstd): the job its
/// name gives and the job's speculation setting as `version` loads the file (the Hadoop
/// that ran the job: [`HadoopVersion::Hadoop1`] for a job of a Hadoop 1 history,
/// [`HadoopVersion::Hadoop2`] for a `.jhist`'s, or where no log says), with the report
/// counting its properties (format [`TraceFormat::HadoopConf`]).
///
/// # Errors
/// [`TraceError::NotALog`] when the name holds no job id ([`conf_job_id`]);
/// [`TraceError::Malformed`] naming the line and what is wrong when the XML is malformed,
/// or not UTF-8; as [`read_jobs`](crate::read_jobs) when the file cannot be opened or its
/// compressed data is corrupt.
pub fn read_job_conf(
    path: &Path,
    version: HadoopVersion,
) -> Result<(JobConf, ReadReport), TraceError> {
    let job = conf_job_id(path).ok_or_else(|| TraceError::NotALog {
        path: path.to_owned(),
        what: "a Hadoop job configuration XML".to_owned(),
        why: "its name holds no job id (job_<digits>_<digits>), so no job to give its \
              settings to"
            .to_owned(),
    })?;
    let (input, check) = input::open(path)?;
    let mut report = ReadReport::new(path, TraceFormat::HadoopConf);
    let speculation = read(input, path, version, &mut report);
    check.finish(path, &mut report)?;
    Ok((
        JobConf {
            job,
            speculation: speculation?,
        },
        report,
    ))
}

/// Reads the configuration XML in `input` into `report` and returns the speculation
/// setting it gives.
pub(crate) fn read(
    mut input: impl Read,
    path: &Path,
    version: HadoopVersion,
    report: &mut ReadReport,
) -> Result<SpeculationSetting, TraceError> {
    let malformed = |line: u64, field: &str, reason: String| TraceError::Malformed {
        path: path.to_owned(),
        line,
        field: field.to_owned(),
        reason,
    };
    let mut bytes = Vec::new();
    input
        .read_to_end(&mut bytes)
        .map_err(|error| TraceError::Io {
            path: path.to_owned(),
            error,
        })?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(e) => {
            let line = 1 + bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            return Err(malformed(line, "text", "not UTF-8".to_owned()));
        }
    };
    let properties = parse(text).map_err(|e| malformed(e.line, &e.field, e.what))?;
    Ok(account(properties, version, report))
}

/// Reads the configuration XML `text` embedded in a log whose line `first_line` is the
/// text's first, into `report` (each property a record on its line of the log), and
/// returns the speculation setting it gives; the error, at its line of the log, when the
/// XML is malformed (no record is counted then: the caller counts the configuration).
pub(crate) fn read_embedded(
    text: &str,
    first_line: u64,
    version: HadoopVersion,
    report: &mut ReadReport,
) -> Result<SpeculationSetting, XmlError> {
    let shift = |line: u64| line + first_line - 1;
    let mut properties = parse(text).map_err(|e| XmlError {
        line: shift(e.line),
        ..e
    })?;
    for property in &mut properties {
        property.line = shift(property.line);
    }
    Ok(account(properties, version, report))
}

/// Where a configuration's XML, given line by line (as a log embeds it), closes its root:
/// the `</configuration>` that closes the first `<configuration>`, or that first element
/// written empty (`<configuration/>`). Comments, `<?...?>` instructions, CDATA sections
/// and quoted attribute values are passed over, so that a `</configuration>` inside them
/// closes nothing; a `<configuration>` inside the root (which Hadoop loads as one of its
/// own) needs its own end tag first. Each construct opens on one line (XML allows no line
/// break inside `<!--`, `<![CDATA[`, `<?` or a tag's name) and may close on a later one,
/// which is what the scan keeps from line to line. It reads no more than that: whether
/// the XML is well formed is for [`read_embedded`] to say.
#[derive(Debug, Default)]
pub(crate) struct RootScan {
    /// What the last line ended inside.
    inside: Inside,
    /// How many `<configuration>` elements are open.
    depth: u32,
    /// Whether the root has closed.
    closed: bool,
}

/// What a line of XML ends inside, for the next line to go on with.
#[derive(Debug, Default)]
enum Inside {
    /// Text between tags (or nothing yet).
    #[default]
    Text,
    Comment,
    Cdata,
    Instruction,
    /// A tag, or a declaration (`<!DOCTYPE`), whose `>` has not come yet.
    Tag {
        /// Whether it is a `<configuration` tag, and whether an end tag.
        configuration: bool,
        closing: bool,
        /// The quote of the attribute value open, if one is.
        quote: Option<char>,
        /// Whether the last character read in it is a `/` (`/>` ends an empty element).
        slash: bool,
    },
}

impl RootScan {
    /// Whether the root has closed, on one of the lines scanned.
    pub(crate) fn closed(&self) -> bool {
        self.closed
    }

    /// Scans `line`; true when the root closes on it (or closed before).
    pub(crate) fn line(&mut self, line: &str) -> bool {
        let mut rest = line;
        while !self.closed {
            match &mut self.inside {
                Inside::Text => {
                    let Some(at) = rest.find('<') else { break };
                    rest = &rest[at..];
                    let (skip, inside) = if rest.starts_with("<!--") {
                        (4, Inside::Comment)
                    } else if rest.starts_with("<![CDATA[") {
                        (9, Inside::Cdata)
                    } else if rest.starts_with("<?") {
                        (2, Inside::Instruction)
                    } else {
                        let closing = rest.starts_with("</");
                        let after = &rest[if closing { 2 } else { 1 }..];
                        let end = after
                            .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
                            .unwrap_or(after.len());
                        if end == 0 && !closing {
                            // A `<` that opens no tag (`a < b`, malformed): text.
                            rest = &rest[1..];
                            continue;
                        }
                        let tag = Inside::Tag {
                            configuration: &after[..end] == "configuration",
                            closing,
                            quote: None,
                            slash: false,
                        };
                        (rest.len() - after.len() + end, tag)
                    };
                    rest = &rest[skip..];
                    self.inside = inside;
                }
                Inside::Comment | Inside::Cdata | Inside::Instruction => {
                    let end = match self.inside {
                        Inside::Comment => "-->",
                        Inside::Cdata => "]]>",
                        _ => "?>",
                    };
                    let Some(at) = rest.find(end) else { break };
                    rest = &rest[at + end.len()..];
                    self.inside = Inside::Text;
                }
                Inside::Tag {
                    configuration,
                    closing,
                    quote,
                    slash,
                } => {
                    let mut ended = None;
                    for (at, c) in rest.char_indices() {
                        match (*quote, c) {
                            (Some(open), c) if c == open => *quote = None,
                            (Some(_), _) => {}
                            (None, '"' | '\'') => *quote = Some(c),
                            (None, '>') => {
                                ended = Some(at);
                                break;
                            }
                            _ => {}
                        }
                        *slash = quote.is_none() && c == '/';
                    }
                    let Some(at) = ended else { break };
                    let (configuration, closing, empty) = (*configuration, *closing, *slash);
                    rest = &rest[at + 1..];
                    self.inside = Inside::Text;
                    if configuration {
                        self.tag_done(closing, empty && !closing);
                    }
                }
            }
        }
        self.closed
    }

    /// Goes on after a line that could not be scanned (one over the cap): as if it left
    /// nothing open but what was open before it.
    pub(crate) fn skip_line(&mut self) {
        self.inside = Inside::Text;
    }

    /// A `<configuration>` tag ended: an end tag (`closing`), or a start tag (`empty` when
    /// written `<configuration/>`).
    fn tag_done(&mut self, closing: bool, empty: bool) {
        if closing {
            if self.depth > 0 {
                self.depth -= 1;
                self.closed = self.depth == 0;
            }
        } else if empty {
            self.closed = self.depth == 0;
        } else {
            self.depth += 1;
        }
    }
}

/// A `<property>` as written: its line, and the name, value and finality its elements
/// and its attributes give.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Property {
    line: u64,
    /// What its `<name>`, `<value>` and `<final>` give.
    elements: Fields,
    /// What its attributes `name`, `value` and `final` give (the compact form,
    /// `<property name="n" value="v" final="true"/>`).
    attributes: Fields,
}

/// A property's name, value and finality, as its elements or its attributes write them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Fields {
    /// Its name; an element's trimmed (as Hadoop trims it). `None` when absent, or an
    /// element without text (Hadoop reads no name from it).
    name: Option<String>,
    /// Its value, as written. `None` when absent, or an element without text (Hadoop reads
    /// no value from it); an attribute's may be empty, a value Hadoop 3 sets.
    value: Option<String>,
    /// Whether it is exactly `true` (`"true".equals`: no other case, no blank around it);
    /// `None` when absent.
    is_final: Option<bool>,
}

impl Fields {
    /// What the attributes `name`, `value` and `final` among `attributes` give, each read
    /// by its local name as Hadoop 3's parser reads them (`getAttributeLocalName`: `x:name`
    /// is a `name`), the later of two of one local name standing (its loop over them sets
    /// each in turn); a namespace declaration (`xmlns`, `xmlns:name`) is no attribute.
    fn of_attributes(attributes: &[(String, String)]) -> Fields {
        let get = |name: &str| {
            (attributes.iter().rev())
                .find(|(attribute, _)| local_name(attribute) == Some(name))
                .map(|(_, value)| value.clone())
        };
        Fields {
            name: get("name"),
            value: get("value"),
            is_final: get("final").map(|text| text == "true"),
        }
    }
}

impl Property {
    /// Its name (`None` when it has none, or an empty one), value (`None` when it has
    /// none) and finality, as `version` reads them. Hadoop 0.20, 1 and 2 up to 2.8 at
    /// least (checked in 0.20.2, 1.0 and 2.8.5: `loadResource` reads a property's child
    /// elements alone; 2.9 took trunk's parser, HADOOP-14216, not checked) read its
    /// elements, and a property written in the compact form has no name there; Hadoop 3
    /// (HADOOP-6964; trunk's `Configuration.Parser.handleStartProperty`) reads its
    /// attributes, and then its elements, each element with text in the place of the
    /// attribute. [`HadoopVersion::Hadoop2`] reads as Hadoop 3 does: a `.jhist` does not
    /// tell 2 from 3, and Hadoop's own `writeXml` never writes the compact form, so that
    /// only a file written otherwise holds it.
    fn read_as(&self, version: HadoopVersion) -> (Option<&str>, Option<&str>, bool) {
        let (elements, attributes) = (&self.elements, &self.attributes);
        let (name, value, is_final) = match version {
            HadoopVersion::Hadoop1 => (
                elements.name.as_deref(),
                elements.value.as_deref(),
                elements.is_final,
            ),
            HadoopVersion::Hadoop2 => (
                (elements.name.as_deref()).or(attributes.name.as_deref()),
                (elements.value.as_deref()).or(attributes.value.as_deref()),
                elements.is_final.or(attributes.is_final),
            ),
        };
        (
            name.filter(|name| !name.is_empty()),
            value,
            is_final == Some(true),
        )
    }
}

/// Counts each of `properties` in `report` and returns the speculation setting they give,
/// loaded as `version`'s `Configuration` loads them
/// ([`hadoop_conf::speculation_in_file`]): each property a record, parsed, or skipped
/// with the reason it is not read.
fn account(
    properties: Vec<Property>,
    version: HadoopVersion,
    report: &mut ReadReport,
) -> SpeculationSetting {
    // Each property's name, value and finality as `version` reads them.
    let read: Vec<(Option<&str>, Option<&str>, bool)> = (properties.iter())
        .map(|property| property.read_as(version))
        .collect();
    // The properties with a name, and where each is among `properties`.
    let (at, named): (Vec<usize>, Vec<FileProperty<'_>>) = (read.iter().enumerate())
        .filter_map(|(at, &(name, value, is_final))| {
            let named = FileProperty {
                name: name?,
                value,
                is_final,
            };
            Some((at, named))
        })
        .unzip();
    let (setting, faults) = hadoop_conf::speculation_in_file(&named, version);
    let faults: HashMap<usize, &str> = (faults.into_iter())
        .map(|(index, reason)| (at[index], reason))
        .collect();
    for (at, (property, &(name, value, _))) in properties.iter().zip(&read).enumerate() {
        let (Some(name), Some(_)) = (name, value) else {
            let reason = if name.is_none() {
                "property without a name"
            } else {
                "property without a value"
            };
            report.skipped(property.line, name, reason);
            continue;
        };
        match faults.get(&at) {
            Some(reason) => report.skipped(property.line, Some(name), reason),
            None => report.parsed(),
        }
    }
    setting
}

/// What is wrong with the XML, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct XmlError {
    pub line: u64,
    /// The element it is in (`<property>`), or `document` outside the root.
    pub field: String,
    pub what: String,
    /// Whether the text ends before the XML does (an element, comment or section left
    /// open, no root at all): a text cut short, where the rest is not.
    pub cut: bool,
    /// Whether the text ends before any `<configuration>` (at its last line then).
    pub no_root: bool,
}

/// A piece of the XML: a tag, or text (its entities, references and CDATA decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// A start tag: its name, whether it is empty (`<a/>`), and its attributes, in order
    /// (each name once), their values decoded.
    Start {
        name: String,
        empty: bool,
        attributes: Vec<(String, String)>,
    },
    End(String),
    Text(String),
}

/// The XML text being read, and where.
struct Xml<'a> {
    text: &'a str,
    at: usize,
    line: u64,
    /// The line the last token [`Xml::next`] gave starts on (a tag's `<`).
    token_line: u64,
    /// The namespace prefixes each open element declares (`xmlns:x="uri"`), as `(x, uri)`,
    /// the innermost last.
    namespaces: Vec<Vec<(String, String)>>,
}

/// The elements read inside `<property>` and ignored.
const IGNORED: [&str; 3] = ["source", "tag", "description"];

/// The properties of the configuration XML `text`, in order.
fn parse(text: &str) -> Result<Vec<Property>, XmlError> {
    let mut xml = Xml {
        text: text.strip_prefix('\u{feff}').unwrap_or(text),
        at: 0,
        line: 1,
        token_line: 1,
        namespaces: Vec::new(),
    };
    let document = "document";
    // Before the root: blanks, comments, instructions.
    let (empty_root, root_line) = loop {
        match xml.next(document)? {
            None => {
                return Err(XmlError {
                    no_root: true,
                    ..xml.ends_early(document, "no <configuration> element".into())
                });
            }
            Some(Token::Text(text)) if is_blank(&text) => {}
            Some(Token::Start { name, empty, .. }) if name == "configuration" => {
                break (empty, xml.token_line);
            }
            Some(token) => {
                return Err(xml.at_token(
                    &token,
                    document,
                    format!("{} before <configuration>", describe(&token)),
                ));
            }
        }
    };
    let mut properties = Vec::new();
    let root = "<configuration>";
    // The lines of the `<configuration>` elements open, the root first. One inside another
    // is loaded as a configuration of its own, its properties in their place: Hadoop 0.20
    // to 2's `loadResource` loads it so (checked in 0.20.2, 1.0 and 2.8.5), and Hadoop 3's
    // parser reads its properties as if it were not there.
    let mut open = if empty_root { vec![] } else { vec![root_line] };
    while let Some(&opened) = open.last() {
        match xml.next(root)? {
            None => return Err(left_open(opened, root)),
            Some(Token::Text(text)) if is_blank(&text) => {}
            Some(Token::End(name)) if name == "configuration" => {
                open.pop();
            }
            Some(Token::Start { name, empty, .. }) if name == "configuration" => {
                if !empty {
                    open.push(xml.token_line);
                }
            }
            Some(Token::Start {
                name,
                empty,
                attributes,
            }) if name == "property" => {
                let line = xml.token_line;
                let mut property = if empty {
                    Property {
                        line,
                        ..Property::default()
                    }
                } else {
                    property(&mut xml, line)?
                };
                property.attributes = Fields::of_attributes(&attributes);
                properties.push(property);
            }
            Some(token) => {
                return Err(xml.at_token(
                    &token,
                    root,
                    format!(
                        "{} where <property> and <configuration> are read",
                        describe(&token)
                    ),
                ));
            }
        }
    }
    // After the root: blanks, comments, instructions.
    loop {
        match xml.next(document)? {
            None => return Ok(properties),
            Some(Token::Text(text)) if is_blank(&text) => {}
            Some(token) => {
                return Err(xml.at_token(
                    &token,
                    document,
                    format!("{} after </configuration>", describe(&token)),
                ));
            }
        }
    }
}

/// The error of an element opened at `line` that the file leaves open, at that line.
fn left_open(line: u64, element: &str) -> XmlError {
    XmlError {
        line,
        field: element.to_owned(),
        what: "the file ends inside it".into(),
        cut: true,
        no_root: false,
    }
}

/// The `<property>` just opened (at `line`), read up to its end tag, with what its
/// elements give ([`Fields`]): its `<name>` (trimmed), its `<value>`, each `None` without
/// text, as Hadoop reads neither then (0.20 to 2: `field.hasChildNodes()`; 3: a token of
/// no length), and whether its `<final>` is `true`.
fn property(xml: &mut Xml<'_>, line: u64) -> Result<Property, XmlError> {
    let here = "<property>";
    let (mut name, mut value, mut is_final) = (None, None, None);
    loop {
        match xml.next(here)? {
            None => return Err(left_open(line, here)),
            Some(Token::Text(text)) if is_blank(&text) => {}
            Some(Token::End(end)) if end == "property" => break,
            Some(Token::Start {
                name: element,
                empty,
                ..
            }) => {
                let text = if empty {
                    String::new()
                } else {
                    let opened = xml.token_line;
                    element_text(xml, &element, opened)?
                };
                let slot = match element.as_str() {
                    "name" => &mut name,
                    "value" => &mut value,
                    "final" => &mut is_final,
                    ignored if IGNORED.contains(&ignored) => continue,
                    _ => {
                        return Err(xml.error(
                            here,
                            format!("<{element}> where <name> and <value> are read"),
                        ));
                    }
                };
                if slot.is_some() {
                    return Err(xml.error(here, format!("a second <{element}>")));
                }
                *slot = Some(text);
            }
            Some(token) => {
                return Err(xml.at_token(
                    &token,
                    here,
                    format!("{} between its elements", describe(&token)),
                ));
            }
        }
    }
    let with_text = |text: Option<String>| text.filter(|text| !text.is_empty());
    Ok(Property {
        line,
        elements: Fields {
            name: with_text(name).map(|name| java_trim(&name).to_owned()),
            value: with_text(value),
            is_final: is_final.map(|text| text == "true"),
        },
        attributes: Fields::default(),
    })
}

/// The text of the element `element` just opened (at `line`), read up to its end tag.
fn element_text(xml: &mut Xml<'_>, element: &str, line: u64) -> Result<String, XmlError> {
    let here = format!("<{element}>");
    let mut text = String::new();
    loop {
        match xml.next(&here)? {
            None => return Err(left_open(line, &here)),
            Some(Token::Text(more)) => text += &more,
            Some(Token::End(end)) if end == element => return Ok(text),
            Some(token) => {
                return Err(xml.at_token(&token, &here, format!("{} inside it", describe(&token))));
            }
        }
    }
}

fn is_blank(text: &str) -> bool {
    text.chars().all(is_blank_char)
}

/// A character XML counts as white space.
fn is_blank_char(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// A token as the error messages name it.
fn describe(token: &Token) -> String {
    match token {
        Token::Start { name, .. } => format!("<{name}>"),
        Token::End(name) => format!("</{name}>"),
        Token::Text(_) => "text".to_owned(),
    }
}

impl Xml<'_> {
    /// The error `what` of `token`, the last [`Xml::next`] gave, at its line: a tag's `<`,
    /// or the first character of a text that is not a blank.
    fn at_token(&self, token: &Token, field: &str, what: String) -> XmlError {
        let lines_before = match token {
            Token::Text(text) => {
                let blanks = text.len() - text.trim_start_matches(is_blank_char).len();
                text[..blanks].matches('\n').count() as u64
            }
            _ => 0,
        };
        XmlError {
            line: self.token_line + lines_before,
            field: field.to_owned(),
            what,
            cut: false,
            no_root: false,
        }
    }

    fn error(&self, field: &str, what: String) -> XmlError {
        XmlError {
            line: self.line,
            field: field.to_owned(),
            what,
            cut: false,
            no_root: false,
        }
    }

    /// The error `what` of a text that ends before the XML does, at the current line.
    fn ends_early(&self, field: &str, what: String) -> XmlError {
        XmlError {
            cut: true,
            ..self.error(field, what)
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    /// Moves `n` bytes on, counting the lines passed.
    fn advance(&mut self, n: usize) {
        let passed = &self.text[self.at..self.at + n];
        self.line += passed.bytes().filter(|&b| b == b'\n').count() as u64;
        self.at += n;
    }

    /// The text up to `end` (which is passed too), or an error saying what is not closed.
    fn until(&mut self, end: &str, field: &str, what: &str) -> Result<&str, XmlError> {
        let Some(found) = self.rest().find(end) else {
            return Err(self.ends_early(field, format!("{what} not closed by `{end}`")));
        };
        let start = self.at;
        self.advance(found + end.len());
        Ok(&self.text[start..start + found])
    }

    /// The next tag or text, comments and instructions passed; `None` at the end.
    fn next(&mut self, field: &str) -> Result<Option<Token>, XmlError> {
        loop {
            self.token_line = self.line;
            let rest = self.rest();
            if rest.is_empty() {
                return Ok(None);
            }
            if rest.starts_with("<!--") {
                self.until("-->", field, "a comment")?;
            } else if rest.starts_with("<?") {
                self.until("?>", field, "an instruction")?;
            } else if rest.starts_with("<![CDATA[") || !rest.starts_with('<') {
                return self.text_token(field).map(|text| Some(Token::Text(text)));
            } else if rest.starts_with("<!") {
                return Err(self.error(
                    field,
                    "a declaration (<!DOCTYPE ...>), which this reader does not read".into(),
                ));
            } else {
                let token = self.tag(field)?;
                self.scope(&token, field)?;
                return Ok(Some(token));
            }
        }
    }

    /// Keeps the namespace prefixes in scope as `token` (a tag just read) opens or closes
    /// an element, and checks its prefixes as the namespace-aware parsers of every Hadoop
    /// do (0.20 to 2's DOM parser, `setNamespaceAware(true)`; 3's StAX one), which refuse
    /// the file otherwise: each prefix of its name and attributes declared by an
    /// `xmlns:prefix` of it or of an element around it (`xml` is declared by XML), no
    /// prefix declared to the empty namespace, no attribute twice under one namespace and
    /// local name (`x:name` and `y:name`, `x` and `y` one namespace).
    fn scope(&mut self, token: &Token, field: &str) -> Result<(), XmlError> {
        let (name, empty, attributes) = match token {
            Token::Start {
                name,
                empty,
                attributes,
            } => (name, *empty, attributes),
            Token::End(_) => {
                self.namespaces.pop();
                return Ok(());
            }
            Token::Text(_) => return Ok(()),
        };
        let mut own: Vec<(String, String)> = Vec::new();
        for (attribute, uri) in attributes {
            if let Some(("xmlns", prefix)) = attribute.split_once(':') {
                if uri.is_empty() {
                    let what =
                        format!("{attribute}=\"\" in <{name}> binds a prefix to no namespace");
                    return Err(self.at_token(token, field, what));
                }
                own.push((prefix.to_owned(), uri.clone()));
            }
        }
        let scope = &self.namespaces;
        let names =
            std::iter::once(name.as_str()).chain(attributes.iter().map(|(a, _)| a.as_str()));
        for qualified in names {
            let Some((prefix, _)) = qualified.split_once(':') else {
                continue;
            };
            if prefix != "xmlns" && namespace_of(prefix, &own, scope).is_none() {
                let what = format!(
                    "the prefix {prefix} of {qualified} in <{name}> is declared by no \
                     xmlns:{prefix}"
                );
                return Err(self.at_token(token, field, what));
            }
        }
        // Each attribute's namespace and local name (unprefixed ones are in none).
        let expanded: Vec<(Option<&str>, &str, &str)> = (attributes.iter())
            .filter_map(|(qualified, _)| match qualified.split_once(':') {
                Some(("xmlns", _)) => None,
                Some((prefix, local)) => {
                    Some((namespace_of(prefix, &own, scope), local, qualified.as_str()))
                }
                None => Some((None, qualified.as_str(), qualified.as_str())),
            })
            .collect();
        for (at, (uri, local, qualified)) in expanded.iter().enumerate() {
            let twice = expanded[..at]
                .iter()
                .find(|(seen_uri, seen_local, _)| seen_uri == uri && seen_local == local);
            if let Some((_, _, first)) = twice {
                let what = format!(
                    "{first} and {qualified} in <{name}>, one attribute under two prefixes of \
                     one namespace"
                );
                return Err(self.at_token(token, field, what));
            }
        }
        if !empty {
            self.namespaces.push(own);
        }
        Ok(())
    }

    /// Text and CDATA sections up to the next tag, comment or instruction, decoded.
    fn text_token(&mut self, field: &str) -> Result<String, XmlError> {
        let mut text = String::new();
        loop {
            let rest = self.rest();
            if rest.starts_with("<![CDATA[") {
                self.advance("<![CDATA[".len());
                text += self.until("]]>", field, "a CDATA section")?;
            } else if rest.is_empty() || rest.starts_with('<') {
                return Ok(text);
            } else {
                let end = rest.find(['<', '&']).unwrap_or(rest.len());
                if end == 0 {
                    text.push(self.reference(field)?);
                } else {
                    text += &rest[..end];
                    self.advance(end);
                }
            }
        }
    }

    /// The character of the entity or character reference at `&`.
    fn reference(&mut self, field: &str) -> Result<char, XmlError> {
        match decode_reference(self.rest()) {
            Ok((c, passed)) => {
                self.advance(passed);
                Ok(c)
            }
            Err(what) => Err(self.error(field, what)),
        }
    }

    /// The tag at `<`: its name, whether it closes or is empty, and its attributes. An
    /// attribute written twice in a tag is malformed, as XML has it.
    fn tag(&mut self, field: &str) -> Result<Token, XmlError> {
        let closing = self.rest().starts_with("</");
        self.advance(if closing { 2 } else { 1 });
        let rest = self.rest();
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
            .unwrap_or(rest.len());
        let name = rest[..end].to_owned();
        if name.is_empty() || name.contains(['<', '=', '"', '\'', '&']) {
            return Err(self.error(field, "a `<` that opens no tag (write `&lt;`)".into()));
        }
        self.advance(end);
        let mut attributes: Vec<(String, String)> = Vec::new();
        loop {
            let rest = self.rest();
            let blank = rest.len() - rest.trim_start().len();
            self.advance(blank);
            let rest = self.rest();
            if rest.starts_with('>') {
                self.advance(1);
                return Ok(if closing {
                    Token::End(name)
                } else {
                    Token::Start {
                        name,
                        empty: false,
                        attributes,
                    }
                });
            }
            if rest.starts_with("/>") && !closing {
                self.advance(2);
                return Ok(Token::Start {
                    name,
                    empty: true,
                    attributes,
                });
            }
            let attribute = if closing {
                None
            } else {
                self.attribute(field)?
            };
            let Some((attribute, value)) = attribute else {
                return Err(self.error(field, format!("a malformed tag <{name}")));
            };
            if attributes.iter().any(|(seen, _)| *seen == attribute) {
                let what = format!("a second attribute {attribute} in <{name}>");
                return Err(self.error(field, what));
            }
            attributes.push((attribute, value));
        }
    }

    /// Reads an attribute (`name="value"` or `name='value'`): its name, and its value with
    /// its references decoded and its line breaks and tabs read as spaces, as XML
    /// normalizes an attribute's value; `None` when none is here (the tag is malformed).
    fn attribute(&mut self, field: &str) -> Result<Option<(String, String)>, XmlError> {
        let rest = self.rest();
        let Some(equals) = rest.find('=') else {
            return Ok(None);
        };
        let name = rest[..equals].trim_end();
        if name.is_empty() || name.contains(|c: char| c.is_whitespace() || "<>/\"'".contains(c)) {
            return Ok(None);
        }
        let after = rest[equals + 1..].trim_start();
        let Some(quote) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            return Ok(None);
        };
        let Some(close) = after[1..].find(quote) else {
            return Ok(None);
        };
        let written = &after[1..1 + close];
        if written.contains('<') {
            return Ok(None);
        }
        let mut value = String::with_capacity(written.len());
        let mut chars = written.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            match c {
                '&' => {
                    let (decoded, passed) =
                        decode_reference(&written[at..]).map_err(|what| self.error(field, what))?;
                    value.push(decoded);
                    while chars.next_if(|&(next, _)| next < at + passed).is_some() {}
                }
                // A line end (`\r\n` one) or a tab is a space.
                '\r' => {
                    chars.next_if(|&(_, next)| next == '\n');
                    value.push(' ');
                }
                '\n' | '\t' => value.push(' '),
                c => value.push(c),
            }
        }
        let attribute = (name.to_owned(), value);
        let passed = rest.len() - after.len() + close + 2;
        self.advance(passed);
        Ok(Some(attribute))
    }
}

/// The local name of the attribute `qualified` (`name` of `x:name`, `name` of `name`);
/// `None` for a namespace declaration (`xmlns`, `xmlns:x`), which XML's namespaces do not
/// count among an element's attributes.
fn local_name(qualified: &str) -> Option<&str> {
    match qualified.split_once(':') {
        _ if qualified == "xmlns" => None,
        Some(("xmlns", _)) => None,
        Some((_, local)) => Some(local),
        None => Some(qualified),
    }
}

/// The namespace bound to `prefix` in `scope` (the declarations of the elements open, the
/// innermost last) and `own` (those of the tag read): the innermost declaration; `xml`'s
/// own, bound by XML itself.
fn namespace_of<'a>(
    prefix: &str,
    own: &'a [(String, String)],
    scope: &'a [Vec<(String, String)>],
) -> Option<&'a str> {
    if prefix == "xml" {
        return Some("http://www.w3.org/XML/1998/namespace");
    }
    (own.iter().rev())
        .chain(
            scope
                .iter()
                .rev()
                .flat_map(|declared| declared.iter().rev()),
        )
        .find(|(declared, _)| declared == prefix)
        .map(|(_, uri)| uri.as_str())
}

/// The character of the entity or character reference that `text` starts with (at its
/// `&`), and the bytes it takes; what is wrong with it otherwise.
fn decode_reference(text: &str) -> Result<(char, usize), String> {
    let Some(end) = text.find(';').filter(|&end| end <= 12) else {
        return Err("a `&` that opens no reference (write `&amp;`)".into());
    };
    let body = &text[1..end];
    // Digits only: `from_str_radix` would take a sign (`&#+65;`), which XML does not.
    let number = |digits: &str, radix: u32| {
        (!digits.is_empty() && digits.chars().all(|c| c.is_digit(radix)))
            .then(|| u32::from_str_radix(digits, radix).ok())
            .flatten()
            .filter(|&n| n != 0)
            .and_then(char::from_u32)
    };
    let found = match body {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => match body.strip_prefix("#x") {
            Some(hex) => number(hex, 16),
            None => body
                .strip_prefix('#')
                .and_then(|decimal| number(decimal, 10)),
        },
    };
    found
        .map(|c| (c, end + 1))
        .ok_or_else(|| format!("unknown reference &{body};"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SettingSource;

    fn property(line: u64, name: &str, value: &str) -> Property {
        Property {
            line,
            elements: Fields {
                name: Some(name.to_owned()),
                value: Some(value.to_owned()),
                is_final: None,
            },
            attributes: Fields::default(),
        }
    }

    #[test]
    fn reads_hadoop_2_conf() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\
            <configuration>\n<property><name>mapreduce.map.speculative</name>\
            <value>false</value><final>false</final><source>mapred-default.xml</source>\
            <source>job.xml</source></property>\n</configuration>\n";
        let mut expected = property(2, "mapreduce.map.speculative", "false");
        expected.elements.is_final = Some(false);
        assert_eq!(parse(text).unwrap(), [expected]);
    }

    #[test]
    fn decodes_entities_cdata_and_comments() {
        let text = "<!-- a -->\n<configuration xmlns:xi='x'>\n<!-- <property> -->\
            <property>\n <name> a.b </name>\n<value>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;\
            <![CDATA[<x>&amp;]]></value><description>d</description></property>\
            <property/></configuration>";
        assert_eq!(
            parse(text).unwrap(),
            [
                property(3, "a.b", "<>&\"'AB<x>&amp;"),
                Property {
                    line: 5,
                    ..Property::default()
                }
            ]
        );
    }

    #[test]
    fn malformed_xml_is_an_error_with_its_line() {
        let check = |text: &str, line: u64, what: &str| {
            let error = parse(text).unwrap_err();
            assert_eq!(error.line, line, "{error:?}");
            assert!(error.what.contains(what), "{error:?}");
        };
        // An element left open is at the line that opens it, not at the file's end.
        check(
            "<configuration>\n<property><name>a</name>\n\n",
            2,
            "ends inside",
        );
        check(
            "<configuration>\n<property>\n  <value>a\n\n",
            3,
            "ends inside",
        );
        check("\n<configuration>\n<property/>\n", 2, "ends inside");
        // A character reference is digits alone.
        check(
            "<configuration>\n<property><name>&#+65;</name>",
            2,
            "&#+65;",
        );
        check("<configuration>\n<prop/></configuration>", 2, "<prop>");
        check("<configuration>\n<property><name>a &b; c</name>", 2, "&b;");
        check(
            "<configuration>\n<property>\n<name>a</value>",
            3,
            "</value>",
        );
        check(
            "<configuration>\n<!-- never closed",
            2,
            "a comment not closed",
        );
        check("<configuration>\nx</configuration>", 2, "text");
        check("<!DOCTYPE c>\n<configuration/>", 1, "DOCTYPE");
        check("<configuration/>\n<configuration/>", 2, "after");
        check("<c/>", 1, "<c> before <configuration>");
        check(
            "<configuration>\n<property><name>a < b</name>",
            2,
            "opens no tag",
        );
        check("", 1, "no <configuration>");
    }

    /// The line on which each of `texts` (lines joined by `\n`) closes its root.
    #[test]
    fn the_root_closes_on_the_line_of_its_end_tag() {
        let closes_on = |text: &str| {
            let mut scan = RootScan::default();
            (text.lines().position(|line| scan.line(line))).map(|at| at + 1)
        };
        assert_eq!(closes_on("<configuration/>"), Some(1));
        assert_eq!(
            closes_on("<?xml version='1.0'?>\n<configuration\n/>"),
            Some(3)
        );
        assert_eq!(
            closes_on("<configuration>\n<property/>\n</configuration >\nx"),
            Some(3)
        );
        // Passed over: comments, instructions, CDATA, quoted values, a `<` that opens no
        // tag; a nested `<configuration>` needs its own end first.
        let text = "<!-- <configuration/> -->\n<configuration a='/>' b=\"\n>\">\n\
            <?x </configuration>?><!--\n</configuration>\n--><v><![CDATA[\n\
            </configuration>]]>a < b</v>\n<configuration><configuration/>\n\
            </configuration>\n</configuration>";
        assert_eq!(closes_on(text), Some(10));
        // Never closed: an end tag before any root, another element's end.
        assert_eq!(
            closes_on("</configuration>\n<conf/>\n<configurations/>"),
            None
        );
        // A line over the cap leaves what it opened: the next line is text.
        let mut scan = RootScan::default();
        assert!(!scan.line("<configuration><!--"));
        scan.skip_line();
        assert!(scan.line("</configuration>"));
    }

    #[test]
    fn job_id_from_the_name() {
        let id = |name: &str| conf_job_id(Path::new(name));
        assert_eq!(
            id("job_1329348432655_0001_conf.xml").as_deref(),
            Some("job_1329348432655_0001")
        );
        assert_eq!(
            id("host.com_1265616107882_job_201002080801_40864_conf.xml").as_deref(),
            Some("job_201002080801_40864")
        );
        // Compressed, as Hadoop's history server may keep it.
        for name in ["job_1_2_conf.xml.gz", "job_1_2_conf.xml.zst"] {
            assert_eq!(id(name).as_deref(), Some("job_1_2"), "{name}");
        }
        assert_eq!(id("job_1_2_conf.xml.bz2"), None);
        assert_eq!(id("job_1_conf.xml"), None);
        assert_eq!(id("myjob_1_2_conf.xml"), None);
        assert_eq!(id("job_1_2.xml"), None);
    }

    #[test]
    fn faults_are_skips_on_their_line() {
        let text = "<configuration>\n\
            <property><name>mapreduce.map.speculative</name><value>yes</value></property>\n\
            <property><name>other</name><value>1</value></property>\n\
            <property><name>novalue</name></property>\n\
            <property\n\n><name>x</name></property>\n</configuration>";
        let mut report = ReadReport::new("c", TraceFormat::HadoopConf);
        let setting = read(
            text.as_bytes(),
            Path::new("c"),
            HadoopVersion::Hadoop2,
            &mut report,
        )
        .unwrap();
        assert_eq!(setting.map.enabled, Some(true));
        assert_eq!((report.records_read, report.records_parsed), (4, 1));
        let skips: Vec<(u64, &str)> = (report.skips.iter())
            .map(|s| (s.line, s.reason.as_str()))
            .collect();
        assert_eq!(
            skips,
            // A start tag over several lines is at the line of its `<`.
            [
                (2, "not a boolean"),
                (4, "property without a value"),
                (5, "property without a value")
            ]
        );
    }

    /// The skips of reading `text` as Hadoop 2 does, as `(line, reason)`, and the setting
    /// it gives.
    fn read_text(text: &str) -> (Vec<(u64, String)>, SpeculationSetting) {
        read_text_as(text, HadoopVersion::Hadoop2)
    }

    /// The speculation parameters of `setting`, as `(key, value)`.
    fn parameters_of(setting: &SpeculationSetting) -> Vec<(&str, &str)> {
        (setting.parameters.iter())
            .map(|(key, value)| (key.as_str(), value.as_str()))
            .collect()
    }

    /// The skips of reading `text` as `version` does, as `(line, reason)`, and the setting
    /// it gives.
    fn read_text_as(
        text: &str,
        version: HadoopVersion,
    ) -> (Vec<(u64, String)>, SpeculationSetting) {
        let mut report = ReadReport::new("c", TraceFormat::HadoopConf);
        let setting = read(text.as_bytes(), Path::new("c"), version, &mut report).unwrap();
        assert_eq!(
            report.records_read,
            report.records_parsed + report.records_skipped
        );
        let skips = (report.skips.iter())
            .map(|s| (s.line, s.reason.clone()))
            .collect();
        (skips, setting)
    }

    /// `<final>true</final>`: a later property of the same name is ignored (Hadoop's
    /// `loadProperty`), skipped on its line, the final value standing; a final without a
    /// value locks the name too (Hadoop adds the name to its finals whatever the value).
    /// Only `true` as written is final: `TRUE` and ` true` are not, and the later property
    /// then stands, the earlier a duplicate.
    #[test]
    fn a_final_property_stands_against_a_later_one() {
        let conf = |final_text: &str| {
            format!(
                "<configuration>\n\
                 <property><name>mapreduce.map.speculative</name><value>false</value>\
                 <final>{final_text}</final></property>\n\
                 <property><name>mapreduce.map.speculative</name><value>true</value>\
                 </property>\n\
                 <property><name>mapreduce.map.speculative</name><value>true</value>\
                 <final>true</final></property>\n\
                 <property><name>other</name><value>1</value><final>true</final></property>\n\
                 <property><name>other</name><value>2</value></property>\n\
                 </configuration>"
            )
        };
        let (skips, setting) = read_text(&conf("true"));
        let overrides = "overrides a final property".to_owned();
        assert_eq!(skips, [(3, overrides.clone()), (4, overrides.clone())]);
        assert_eq!(setting.map.enabled, Some(false));
        assert_eq!(setting.map.value.as_deref(), Some("false"));
        for not_final in ["TRUE", " true", "false", ""] {
            let (skips, setting) = read_text(&conf(not_final));
            let duplicate = "duplicate key".to_owned();
            assert_eq!(
                skips,
                [(2, duplicate.clone()), (3, duplicate)],
                "{not_final:?}"
            );
            assert_eq!(setting.map.enabled, Some(true), "{not_final:?}");
        }
        // Final without a value: the later value is not read, the switch Hadoop's default.
        let (skips, setting) = read_text(
            "<configuration>\n\
             <property><name>mapreduce.reduce.speculative</name><final>true</final>\
             </property>\n\
             <property><name>mapreduce.reduce.speculative</name><value>false</value>\
             </property>\n</configuration>",
        );
        let reasons = ["property without a value", "overrides a final property"];
        assert_eq!(skips, [(2, reasons[0].into()), (3, reasons[1].into())]);
        assert_eq!(
            (setting.reduce.enabled, setting.reduce.source),
            (Some(true), SettingSource::Default)
        );
        // Two <final> in one property: which Hadoop reads differs between releases.
        let error = parse(
            "<configuration>\n<property><name>a</name><final>true</final>\n\
             <final>false</final></property></configuration>",
        )
        .unwrap_err();
        assert_eq!((error.line, error.what.as_str()), (3, "a second <final>"));
    }

    /// The compact form, `<property name="n" value="v" final="true"/>`: Hadoop 3 reads its
    /// attributes (as [`HadoopVersion::Hadoop2`] does), an element with text in the place of
    /// an attribute; Hadoop 0.20 and 1 read the elements alone, so that a property written
    /// so has no name there.
    #[test]
    fn the_compact_form_is_read_as_hadoop_3_reads_it() {
        let map2 = "mapreduce.map.speculative";
        let text = format!(
            "<configuration>\n\
             <property name=\"{map2}\" value='false' final=\"true\"/>\n\
             <property><name>{map2}</name><value>true</value></property>\n\
             <property name=\"x\" value=\"1\" final=\"true\"><name>{map2}.x</name>\
             <value>a&amp;b&#10;c\td</value><final/></property>\n\
             <property name='mapreduce.job.speculative.a' value=\"a&lt;&#10;b\tc\r\nd\"/>\n\
             </configuration>"
        );
        let (skips, setting) = read_text(&text);
        assert_eq!(skips, [(3, "overrides a final property".to_owned())]);
        assert_eq!(
            (setting.map.enabled, setting.map.value.as_deref()),
            (Some(false), Some("false"))
        );
        // The elements in the place of the attributes (`<final/>` too), and an attribute's
        // value with its line breaks and tabs as spaces, a reference's as written.
        let parameters = parameters_of(&setting);
        assert_eq!(
            parameters,
            [
                ("mapreduce.job.speculative.a", "a<\nb c d"),
                ("mapreduce.map.speculative.x", "a&b\nc\td"),
            ]
        );
        let (skips, setting) = read_text_as(&text, HadoopVersion::Hadoop1);
        let no_name = "property without a name".to_owned();
        assert_eq!(skips, [(2, no_name.clone()), (5, no_name)]);
        assert_eq!(setting.map.enabled, Some(true));
        // An attribute written twice is malformed, as XML has it.
        let error =
            parse("<configuration>\n<property name='a' name='b'/></configuration>").unwrap_err();
        assert_eq!(
            (error.line, error.what.as_str()),
            (2, "a second attribute name in <property>")
        );
        let error = parse("<configuration><property value='&nbsp;'/>").unwrap_err();
        assert_eq!(error.what, "unknown reference &nbsp;");
    }

    /// Namespaced attributes of a `<property>`: Hadoop 3 reads them by their local name
    /// (`h:name` is its `name`, the later of two of one local name standing), and a
    /// namespace declaration is no attribute; Hadoop 1 reads no attribute. Every Hadoop's
    /// parser is namespace-aware and refuses a prefix no `xmlns:` declares, a prefix
    /// declared to no namespace and one attribute under two prefixes of one namespace. (The
    /// attributes were matched by their qualified names: `h:value` was ignored, an
    /// undeclared `h:final` read without a word.)
    #[test]
    fn namespaced_attributes_are_read_by_their_local_name() {
        let map2 = "mapreduce.map.speculative";
        let text = format!(
            "<configuration xmlns:h='urn:h'>\n\
             <property h:name=\"{map2}\" h:value='false' h:final='true'/>\n\
             <property xmlns:g='urn:g' name='{map2}' g:name='mapreduce.job.speculative.a' \
             value='1'/>\n\
             <property xmlns:name='urn:n' xmlns:value='urn:v' name='{map2}' value='true'/>\n\
             </configuration>"
        );
        let (skips, setting) = read_text(&text);
        // The third is read, and overrides the first, final: a namespace declaration
        // (`xmlns:name`) is no `name`; the second is named by its later `g:name`.
        assert_eq!(skips, [(4, "overrides a final property".to_owned())]);
        assert_eq!(
            (setting.map.enabled, setting.map.value.as_deref()),
            (Some(false), Some("false"))
        );
        let parameters = parameters_of(&setting);
        assert_eq!(parameters, [("mapreduce.job.speculative.a", "1")]);
        let (skips, _) = read_text_as(&text, HadoopVersion::Hadoop1);
        let no_name = "property without a name".to_owned();
        assert_eq!(
            skips,
            [(2, no_name.clone()), (3, no_name.clone()), (4, no_name)]
        );

        let check = |text: &str, line: u64, what: &str| {
            let error = parse(text).unwrap_err();
            assert_eq!((error.line, error.what.as_str()), (line, what), "{error:?}");
        };
        check(
            "<configuration>\n<property h:final='true' name='a' value='b'/>\n</configuration>",
            2,
            "the prefix h of h:final in <property> is declared by no xmlns:h",
        );
        // A declaration holds in its element and those inside it, not after it.
        check(
            "<configuration>\n<configuration xmlns:h='urn:h'><property h:name='a'/>\
             </configuration>\n<property h:name='b'/>\n</configuration>",
            3,
            "the prefix h of h:name in <property> is declared by no xmlns:h",
        );
        check(
            "<configuration xmlns:h=''>\n</configuration>",
            1,
            "xmlns:h=\"\" in <configuration> binds a prefix to no namespace",
        );
        check(
            "<configuration xmlns:h='urn:x' xmlns:g='urn:x'>\n<property h:name='a' \
             g:name='b'/>\n</configuration>",
            2,
            "h:name and g:name in <property>, one attribute under two prefixes of one \
             namespace",
        );
        check(
            "<configuration>\n<property><h:name>a</h:name></property>\n</configuration>",
            2,
            "the prefix h of h:name in <h:name> is declared by no xmlns:h",
        );
        // `xml` is declared by XML itself.
        assert!(
            parse(
                "<configuration xml:lang='en'>\n<property xml:space='default'/>\n</configuration>"
            )
            .is_ok()
        );
    }

    /// A `<configuration>` inside the root is loaded as one, its properties in their place,
    /// as Hadoop loads it; left open, it is the element the file ends inside.
    #[test]
    fn a_nested_configuration_is_read_in_its_place() {
        let text = "<configuration>\n<property><name>a</name><value>1</value></property>\n\
            <configuration><configuration/>\n\
            <property><name>b</name><value>2</value></property></configuration>\n\
            <property><name>c</name><value>3</value></property>\n</configuration>";
        let names: Vec<(u64, String)> = (parse(text).unwrap().into_iter())
            .map(|p| (p.line, p.elements.name.unwrap_or_default()))
            .collect();
        assert_eq!(names, [(2, "a".into()), (4, "b".into()), (5, "c".into())]);
        let error =
            parse("<configuration>\n<configuration>\n<property/>\n</configuration>").unwrap_err();
        assert_eq!((error.line, error.cut), (1, true));
        let error = parse("<configuration>\n<configuration>\n<property/>\n").unwrap_err();
        assert_eq!((error.line, error.cut), (2, true));
    }
}
