//! Hadoop's speculation setting in a job's configuration (Rumen's `jobProperties`, a
//! configuration file), read as Hadoop reads it.
//!
//! - The switches: `mapreduce.map.speculative` and `mapreduce.reduce.speculative` (Hadoop 2
//!   and later, `MRJobConfig`), or their Hadoop 1 names `mapred.map.tasks.speculative
//!   .execution` and `mapred.reduce.tasks.speculative.execution`, which Hadoop 2 reads as
//!   deprecated names of them. Each is read as `Configuration.getBoolean` reads it
//!   ([`SpeculationSwitch::hadoop`]); unset, Hadoop's default, true. A value Hadoop reads
//!   as its default (`yes`), or that is no JSON string or holds a variable (what Hadoop
//!   read is not known) is a fault the reader counts as a skip naming it (`"not a
//!   boolean"`, `"field of the wrong type"`, `"unexpanded variable"`), the switch standing.
//! - Both names of a switch set: Hadoop 2 takes the one later in the job's configuration
//!   file, an order the log does not keep. Read alike, the switch is the Hadoop 2 name's;
//!   read differently, it is [`SettingSource::Conflicting`] (not known), a fault naming
//!   the Hadoop 1 name (`"contradicts its Hadoop 2 name"`). Either way the other name is
//!   kept among the parameters.
//! - The parameters: every property under `mapreduce.job.speculative.`,
//!   `yarn.app.mapreduce.am.job.speculator.` or `yarn.app.mapreduce.am.job.task.estimator.`,
//!   under a switch's name and a dot, and `mapred.speculative.execution` (Hadoop 0.18's one
//!   switch, which 0.20 on do not read) and the properties under it (Hadoop 0.21's names of
//!   the cap and thresholds), as written (a value that is no string as its JSON text).
//! - A key written twice: the last stands, as Jackson reads it into Rumen's `JobProperties`;
//!   each earlier one is a fault (`"duplicate key"`).
//! - A configuration file (a `_conf.xml`, or one a Hadoop 1 log embeds) keeps what Rumen's
//!   JSON loses: the order of its properties, `<final>`, and, from the log its job comes
//!   from, the Hadoop that ran it ([`HadoopVersion`]). [`speculation_in_file`] loads it as
//!   that version's `Configuration` does: Hadoop 1 reads the Hadoop 1 names alone, as
//!   0.20's `getBoolean` reads a boolean; Hadoop 2 loads a switch's Hadoop 1 name into its
//!   Hadoop 2 name (and Hadoop 0.21's cap and slow task threshold into their Hadoop 2
//!   names, [`HADOOP2_DEPRECATIONS`]), so that the later of the two stands (no
//!   [`SettingSource::Conflicting`] there), unless an earlier one is final.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use crate::trace::{
    HadoopBoolean, SettingSource, SpeculationSetting, SpeculationSwitch, hadoop_boolean,
};

/// The names of Hadoop's switch of maps: Hadoop 2's, then Hadoop 1's.
pub(crate) const MAP_SWITCH: [&str; 2] = [
    "mapreduce.map.speculative",
    "mapred.map.tasks.speculative.execution",
];

/// The names of Hadoop's switch of reduces: Hadoop 2's, then Hadoop 1's.
pub(crate) const REDUCE_SWITCH: [&str; 2] = [
    "mapreduce.reduce.speculative",
    "mapred.reduce.tasks.speculative.execution",
];

/// Hadoop 0.18's one switch of speculation, and the prefix of Hadoop 0.21's parameters
/// (`mapred.speculative.execution.speculativeCap`...): kept as parameters.
const OLD_SWITCH: &str = "mapred.speculative.execution";

/// The prefixes of the other properties of speculation: Hadoop 2's `DefaultSpeculator`
/// (`MRJobConfig`'s caps, thresholds and retry intervals) and the speculator's and
/// estimator's classes and knobs.
const PARAMETER_PREFIXES: [&str; 3] = [
    "mapreduce.job.speculative.",
    "yarn.app.mapreduce.am.job.speculator.",
    "yarn.app.mapreduce.am.job.task.estimator.",
];

/// Whether `key` is a switch of speculation, on or off, rather than a parameter of how the
/// engine speculates: a name of Hadoop's switch of maps or of reduces, or Hadoop 0.18's one
/// switch.
pub(crate) fn is_switch_key(key: &str) -> bool {
    (MAP_SWITCH.iter().chain(&REDUCE_SWITCH)).any(|name| key == *name) || key == OLD_SWITCH
}

/// The reason of a fault whose value is no JSON string.
pub(crate) const WRONG_TYPE: &str = "field of the wrong type";

/// Whether `key` is a property of speculation this module reads: a switch, a parameter.
pub(crate) fn is_speculation_key(key: &str) -> bool {
    let under = |name: &str| {
        key == name
            || key
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('.'))
    };
    (MAP_SWITCH.iter().chain(&REDUCE_SWITCH))
        .chain([&OLD_SWITCH])
        .any(|name| under(name))
        || PARAMETER_PREFIXES
            .iter()
            .any(|prefix| key.starts_with(prefix))
}

/// A property's value as the log writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PropertyValue {
    /// A JSON string (what Rumen writes), unescaped.
    Text(String),
    /// Any other JSON value, as its JSON text.
    Other(String),
}

impl PropertyValue {
    fn text(&self) -> &str {
        match self {
            PropertyValue::Text(text) | PropertyValue::Other(text) => text,
        }
    }
}

/// A property of speculation the reader counts as a skip: its key, which of that key's
/// occurrences it is (0 the first), and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fault {
    pub key: String,
    pub occurrence: usize,
    pub reason: &'static str,
}

/// The speculation setting of a job whose configuration holds `properties` (its properties
/// of speculation, [`is_speculation_key`], in the order written), and its faults, in the
/// order of the switches (maps', reduces') after the duplicates.
pub(crate) fn speculation(
    properties: Vec<(String, PropertyValue)>,
) -> (SpeculationSetting, Vec<Fault>) {
    let mut faults = Vec::new();
    // Each key's last value and how many times it is written.
    let mut last: BTreeMap<String, (usize, PropertyValue)> = BTreeMap::new();
    for (key, value) in properties {
        match last.entry(key) {
            Entry::Vacant(entry) => {
                entry.insert((1, value));
            }
            Entry::Occupied(mut entry) => {
                let (count, _) = *entry.get();
                faults.push(Fault {
                    key: entry.key().clone(),
                    occurrence: count - 1,
                    reason: "duplicate key",
                });
                entry.insert((count + 1, value));
            }
        }
    }
    let mut parameters = BTreeMap::new();
    let map = switch(MAP_SWITCH, &mut last, &mut faults, &mut parameters);
    let reduce = switch(REDUCE_SWITCH, &mut last, &mut faults, &mut parameters);
    for (key, (_, value)) in last {
        parameters.insert(key, value.text().to_owned());
    }
    let mut setting = SpeculationSetting::hadoop(map, reduce);
    setting.parameters = parameters;
    (setting, faults)
}

/// The switch of names `[hadoop2, hadoop1]`, taken out of `last`; the faults of its
/// values pushed to `faults`, and the name not read put among `parameters` where both are
/// set.
fn switch(
    [hadoop2, hadoop1]: [&str; 2],
    last: &mut BTreeMap<String, (usize, PropertyValue)>,
    faults: &mut Vec<Fault>,
    parameters: &mut BTreeMap<String, String>,
) -> SpeculationSwitch {
    let mut read_name = |key: &str| {
        let (count, value) = last.remove(key)?;
        let occurrence = count - 1;
        let switch = match &value {
            PropertyValue::Text(text) => SpeculationSwitch::hadoop(key, Some(text)),
            PropertyValue::Other(json) => {
                SpeculationSwitch::unknown(key, json, SettingSource::Unreadable)
            }
        };
        if switch.source == SettingSource::Unreadable {
            let reason = match (&value, switch.enabled) {
                (PropertyValue::Other(_), _) => WRONG_TYPE,
                (PropertyValue::Text(_), None) => "unexpanded variable",
                (PropertyValue::Text(_), Some(_)) => "not a boolean",
            };
            faults.push(Fault {
                key: key.to_owned(),
                occurrence,
                reason,
            });
        }
        Some((switch, occurrence))
    };
    let (new, old) = (read_name(hadoop2), read_name(hadoop1));
    let (new, (old, old_occurrence)) = match (new, old) {
        (None, None) => return SpeculationSwitch::hadoop(hadoop2, None),
        (Some((new, _)), None) => return new,
        (None, Some((old, _))) => return old,
        (Some((new, _)), Some(old)) => (new, old),
    };
    // Both names set: the one read, and the other kept among the parameters. An unknown
    // reading of either leaves the switch unknown.
    let (read, other) = match (new.enabled, old.enabled) {
        (None, _) => (new, old),
        (Some(_), None) => (old, new),
        (Some(a), Some(b)) if a == b => (new, old),
        (Some(_), Some(_)) => {
            faults.push(Fault {
                key: hadoop1.to_owned(),
                occurrence: old_occurrence,
                reason: "contradicts its Hadoop 2 name",
            });
            let value = new.value.clone().unwrap_or_default();
            let conflicting =
                SpeculationSwitch::unknown(hadoop2, &value, SettingSource::Conflicting);
            (conflicting, old)
        }
    };
    parameters.insert(other.key, other.value.unwrap_or_default());
    read
}

/// The Hadoop whose `Configuration` loaded a job's configuration file, where the log its
/// job comes from says which: it decides which names of the switches count, and how their
/// values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HadoopVersion {
    /// Hadoop 0.20 and 1 (the JobTracker; a Hadoop 1 JobHistory log, whose
    /// Rumen-concatenated form embeds the configurations): `JobConf` reads the switches
    /// under their Hadoop 1 names alone (`mapred.map.tasks.speculative.execution`,
    /// `mapred.reduce.tasks.speculative.execution`), and its `Configuration` knows no
    /// deprecated name, so a Hadoop 2 name is a property it does not read; a value is read
    /// as [`SpeculationSwitch::hadoop1`] reads it.
    ///
    /// 0.20's and 1's `Configuration.loadResource` differ on one point this reads: a
    /// property whose `<final>` is `true` and that has no value makes its name final in 1
    /// (HADOOP-6227), and locks nothing in 0.20 (0.20.2 adds a name to its finals only
    /// where the property has a value). 1's rule is applied to 0.20 too, as a log does not
    /// tell them apart: both write `Meta VERSION="1"` (`JobHistory.VERSION`), and the keys
    /// later releases added (`JOB_QUEUE`, `MAP_COUNTERS`...) date a log to a later branch,
    /// not to one with HADOOP-6227 (the 2010 logs of `counters-format-test-logs` carry
    /// `MAP_COUNTERS`). It rarely matters: the `_conf.xml` a 0.20 or 1 JobTracker writes
    /// (`JobHistory`, with `Configuration.writeXml`) holds each property's `<name>` and
    /// `<value>` alone, never a `<final>`, so only a file written otherwise holds one.
    Hadoop1,
    /// Hadoop 0.21 and later, 2 and 3 (a `.jhist` log): the switches under their Hadoop 2
    /// names (`mapreduce.map.speculative`, `mapreduce.reduce.speculative`), each Hadoop 1
    /// name a deprecated name its `Configuration` loads into the Hadoop 2 one
    /// (`ConfigUtil`'s deprecations), so that both names are one property; a value is read
    /// as [`SpeculationSwitch::hadoop`] reads it. The version a configuration file is read
    /// as when its job's log does not say.
    Hadoop2,
}

/// The deprecated names of speculation properties Hadoop 2's `Configuration` loads into
/// another (`ConfigUtil`'s `DeprecationDelta`s, as trunk has them), each `[new, old]`: the
/// switches' Hadoop 1 names, and Hadoop 0.21's cap and slow task
/// threshold. An older `ConfigUtil` mapped the cap onto `mapreduce.job.speculative
/// .speculativecap`, which Hadoop 2's speculator did not read, and Hadoop 0.21's
/// `slowNodeThreshold` onto `mapreduce.job.speculative.slownodethreshold`, which trunk's
/// table no longer holds: those are not taken here.
pub(crate) const HADOOP2_DEPRECATIONS: [[&str; 2]; 4] = [
    MAP_SWITCH,
    REDUCE_SWITCH,
    [
        "mapreduce.job.speculative.speculative-cap-running-tasks",
        "mapred.speculative.execution.speculativeCap",
    ],
    [
        "mapreduce.job.speculative.slowtaskthreshold",
        "mapred.speculative.execution.slowTaskThreshold",
    ],
];

impl HadoopVersion {
    /// The property `name` loads into: under Hadoop 2, a deprecated name
    /// ([`HADOOP2_DEPRECATIONS`]: a switch's Hadoop 1 name...) loads into its new name; any
    /// other name into itself.
    fn key_of(self, name: &str) -> &str {
        match self {
            HadoopVersion::Hadoop2 => (HADOOP2_DEPRECATIONS.into_iter())
                .find(|[_, old]| *old == name)
                .map_or(name, |[new, _]| new),
            HadoopVersion::Hadoop1 => name,
        }
    }

    /// The name of the switch of names `[hadoop2, hadoop1]` this version reads.
    fn switch_name(self, [hadoop2, hadoop1]: [&'static str; 2]) -> &'static str {
        match self {
            HadoopVersion::Hadoop2 => hadoop2,
            HadoopVersion::Hadoop1 => hadoop1,
        }
    }

    /// The switch property `key` set to `value` (or unset) gives, as this version reads it.
    fn switch(self, key: &str, value: Option<&str>) -> SpeculationSwitch {
        match self {
            HadoopVersion::Hadoop2 => SpeculationSwitch::hadoop(key, value),
            HadoopVersion::Hadoop1 => SpeculationSwitch::hadoop1(key, value),
        }
    }
}

/// A `<property>` of a configuration file with a name: its name, its value (`None` when it
/// has none) and whether it is final (`<final>true</final>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileProperty<'a> {
    pub name: &'a str,
    pub value: Option<&'a str>,
    pub is_final: bool,
}

/// The speculation setting of a job whose configuration file holds `properties` (each
/// property with a name, in the order written), loaded as `version`'s `Configuration`
/// loads a file (`loadResource`, then `loadProperty` for each property in order), and the
/// reason each property of speculation with a value that the setting does not rest on is
/// skipped for, by its index in `properties`:
///
/// - a property under a name already final (`"overrides a final property"`): Hadoop keeps
///   the final value and ignores it; a final property without a value makes its name
///   final too (Hadoop 0.21 on, and Hadoop 1 since HADOOP-6227; Hadoop 0.20 read so too,
///   see [`HadoopVersion::Hadoop1`]);
/// - an earlier property of the same name (`"duplicate key"`) or, under Hadoop 2, of its
///   other name ([`HADOOP2_DEPRECATIONS`]) read otherwise (`"overridden by its other
///   name"`): the later one stands. Both names read alike both stand: a switch is the
///   Hadoop 2 name's, as for Rumen, the other name kept among the parameters, as both
///   names of a parameter are;
/// - the switch's value, where the version cannot read it as a boolean (`"not a boolean"`,
///   `"unexpanded variable"`), the switch standing as
///   [`SpeculationSwitch::hadoop`]/[`SpeculationSwitch::hadoop1`] give it.
///
/// The parameters are every other property of speculation that stands, as written.
pub(crate) fn speculation_in_file(
    properties: &[FileProperty<'_>],
    version: HadoopVersion,
) -> (SpeculationSetting, BTreeMap<usize, &'static str>) {
    let mut faults = BTreeMap::new();
    let mut finals: std::collections::HashSet<&str> = Default::default();
    // For each property loaded into, those that set it and stand, in the order written:
    // the last is the one read; any before it is of another name, and reads alike.
    let mut standing: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (at, property) in properties.iter().enumerate() {
        if !is_speculation_key(property.name) {
            continue;
        }
        let key = version.key_of(property.name);
        if let Some(value) = property.value {
            if finals.contains(key) {
                faults.insert(at, "overrides a final property");
                continue;
            }
            let set = standing.entry(key).or_default();
            set.retain(|&before| {
                let earlier = &properties[before];
                let reason = if earlier.name == property.name {
                    "duplicate key"
                } else if read_alike(earlier.value.unwrap_or_default(), value) {
                    return true;
                } else {
                    "overridden by its other name"
                };
                faults.insert(before, reason);
                false
            });
            set.push(at);
        }
        if property.is_final {
            finals.insert(key);
        }
    }
    let mut parameters = BTreeMap::new();
    let mut switch = |names: [&'static str; 2]| {
        let key = version.switch_name(names);
        let Some(set) = standing.remove(key) else {
            return version.switch(key, None);
        };
        for &at in &set {
            let property = &properties[at];
            let read = version.switch(property.name, property.value);
            if read.source == SettingSource::Unreadable {
                let reason = match read.enabled {
                    None => "unexpanded variable",
                    Some(_) => "not a boolean",
                };
                faults.insert(at, reason);
            }
        }
        let chosen = (set.iter().copied())
            .find(|&at| properties[at].name == names[0])
            .unwrap_or(set[set.len() - 1]);
        for &at in set.iter().filter(|&&at| at != chosen) {
            let other = &properties[at];
            parameters.insert(
                other.name.to_owned(),
                other.value.unwrap_or_default().into(),
            );
        }
        version.switch(properties[chosen].name, properties[chosen].value)
    };
    let map = switch(MAP_SWITCH);
    let reduce = switch(REDUCE_SWITCH);
    for at in standing.into_values().flatten() {
        let property = &properties[at];
        let value = property.value.unwrap_or_default();
        parameters.insert(property.name.to_owned(), value.to_owned());
    }
    let mut setting = SpeculationSetting::hadoop(map, reduce);
    setting.parameters = parameters;
    (setting, faults)
}

/// Whether two values of a property read alike: the same text, or the same boolean as
/// Hadoop 2 reads them (the only version under which a property has two names).
fn read_alike(a: &str, b: &str) -> bool {
    a == b
        || matches!(
            (hadoop_boolean(a), hadoop_boolean(b)),
            (HadoopBoolean::Value(x), HadoopBoolean::Value(y)) if x == y
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(key: &str, value: &str) -> (String, PropertyValue) {
        (key.to_owned(), PropertyValue::Text(value.to_owned()))
    }

    #[test]
    fn speculation_keys_are_the_switches_and_the_parameters() {
        for key in [
            "mapreduce.map.speculative",
            "mapreduce.reduce.speculative",
            "mapred.map.tasks.speculative.execution",
            "mapred.reduce.tasks.speculative.execution",
            "mapreduce.map.speculative.x",
            "mapreduce.job.speculative.speculativecap",
            "mapred.speculative.execution",
            "mapred.speculative.execution.slowTaskThreshold",
            "yarn.app.mapreduce.am.job.speculator.class",
            "yarn.app.mapreduce.am.job.task.estimator.class",
        ] {
            assert!(is_speculation_key(key), "{key}");
        }
        for key in [
            "mapreduce.map.speculativeX",
            "mapreduce.job.speculative",
            "mapred.speculative.executionX",
            "yarn.app.mapreduce.am.job.task.listener.thread-count",
            "mapreduce.map.memory.mb",
        ] {
            assert!(!is_speculation_key(key), "{key}");
        }
    }

    #[test]
    fn the_tuning_is_every_parameter_but_a_switch() {
        // Both names of the map switch (the Hadoop 1 one kept as a parameter), Hadoop
        // 0.18's switch and its 0.21 cap, a switch's own `.*`, and the caps and estimator.
        let (setting, _) = speculation(vec![
            text("mapreduce.map.speculative", "true"),
            text("mapred.map.tasks.speculative.execution", "true"),
            text("mapred.speculative.execution", "true"),
            text("mapred.speculative.execution.speculativeCap", "0.2"),
            text("mapreduce.map.speculative.x", "1"),
            text("mapreduce.job.speculative.minimum-allowed-tasks", "20"),
            text("yarn.app.mapreduce.am.job.task.estimator.class", "E"),
        ]);
        assert_eq!(setting.parameters.len(), 6);
        let tuning: Vec<(&str, &str)> = setting.tuning().collect();
        assert_eq!(
            tuning,
            [
                ("mapred.speculative.execution.speculativeCap", "0.2"),
                ("mapreduce.job.speculative.minimum-allowed-tasks", "20"),
                ("mapreduce.map.speculative.x", "1"),
                ("yarn.app.mapreduce.am.job.task.estimator.class", "E"),
            ]
        );
        assert!(is_switch_key("mapreduce.reduce.speculative"));
        assert!(is_switch_key("mapred.reduce.tasks.speculative.execution"));
        assert!(!is_switch_key("mapreduce.reduce.speculative.x"));
    }

    #[test]
    fn both_names_of_a_switch_read_alike_or_not() {
        // Alike: the Hadoop 2 name's, the other kept as a parameter.
        let (setting, faults) = speculation(vec![
            text("mapred.map.tasks.speculative.execution", "FALSE"),
            text("mapreduce.map.speculative", "false"),
        ]);
        assert_eq!(
            setting.map,
            SpeculationSwitch::hadoop("mapreduce.map.speculative", Some("false"))
        );
        assert_eq!(
            setting.parameters["mapred.map.tasks.speculative.execution"],
            "FALSE"
        );
        assert!(faults.is_empty());
        // Read differently ("yes" is Hadoop's default, true): not known.
        let (setting, faults) = speculation(vec![
            text("mapreduce.reduce.speculative", "false"),
            text("mapred.reduce.tasks.speculative.execution", "yes"),
        ]);
        assert_eq!(
            (setting.reduce.enabled, setting.reduce.source),
            (None, SettingSource::Conflicting)
        );
        assert_eq!(setting.reduce.key, "mapreduce.reduce.speculative");
        assert_eq!(setting.reduce.value.as_deref(), Some("false"));
        let reasons: Vec<(&str, &str)> =
            faults.iter().map(|f| (f.key.as_str(), f.reason)).collect();
        assert_eq!(
            reasons,
            [
                ("mapred.reduce.tasks.speculative.execution", "not a boolean"),
                (
                    "mapred.reduce.tasks.speculative.execution",
                    "contradicts its Hadoop 2 name"
                ),
            ]
        );
        // An unknown reading of the Hadoop 1 name leaves the switch unknown, under it.
        let (setting, _) = speculation(vec![
            text("mapreduce.map.speculative", "true"),
            text("mapred.map.tasks.speculative.execution", "${flag}"),
        ]);
        assert_eq!(
            (setting.map.enabled, setting.map.key.as_str()),
            (None, "mapred.map.tasks.speculative.execution")
        );
        assert_eq!(setting.parameters["mapreduce.map.speculative"], "true");
    }

    #[test]
    fn a_key_written_twice_is_a_fault_and_the_last_stands() {
        let (setting, faults) = speculation(vec![
            text("mapreduce.map.speculative", "true"),
            text("mapreduce.map.speculative", "false"),
            text("mapreduce.map.speculative", "false"),
        ]);
        assert_eq!(setting.map.enabled, Some(false));
        let occurrences: Vec<(usize, &str)> =
            faults.iter().map(|f| (f.occurrence, f.reason)).collect();
        assert_eq!(occurrences, [(0, "duplicate key"), (1, "duplicate key")]);
    }

    const MAP2: &str = "mapreduce.map.speculative";
    const MAP1: &str = "mapred.map.tasks.speculative.execution";

    fn set<'a>(name: &'a str, value: &'a str) -> FileProperty<'a> {
        FileProperty {
            name,
            value: Some(value),
            is_final: false,
        }
    }

    /// The setting `properties` give, loaded as `version` loads them, with the skipped
    /// ones as `(index, reason)`.
    fn in_file(
        properties: &[FileProperty<'_>],
        version: HadoopVersion,
    ) -> (SpeculationSetting, Vec<(usize, &'static str)>) {
        let (setting, faults) = speculation_in_file(properties, version);
        (setting, faults.into_iter().collect())
    }

    /// Hadoop 2 loads a switch's Hadoop 1 name into its Hadoop 2 name: in a file, the later
    /// of the two stands, whichever it is, and the earlier, read otherwise, is skipped;
    /// read alike, both stand and the switch is the Hadoop 2 name's, as for Rumen.
    #[test]
    fn under_hadoop_2_the_later_name_of_a_switch_stands() {
        use HadoopVersion::Hadoop2;
        let overridden = "overridden by its other name";
        let (setting, faults) = in_file(&[set(MAP1, "false"), set(MAP2, "true")], Hadoop2);
        assert_eq!(setting.map, SpeculationSwitch::hadoop(MAP2, Some("true")));
        assert_eq!(faults, [(0, overridden)]);
        assert!(setting.parameters.is_empty());
        let (setting, faults) = in_file(&[set(MAP2, "true"), set(MAP1, "false")], Hadoop2);
        assert_eq!(setting.map, SpeculationSwitch::hadoop(MAP1, Some("false")));
        assert_eq!(faults, [(0, overridden)]);
        // Alike: no skip, the Hadoop 2 name's switch, the other kept as a parameter.
        let (setting, faults) = in_file(&[set(MAP1, "FALSE"), set(MAP2, "false")], Hadoop2);
        assert_eq!(setting.map, SpeculationSwitch::hadoop(MAP2, Some("false")));
        assert_eq!(setting.parameters[MAP1], "FALSE");
        assert!(faults.is_empty());
        // A second of one name is a duplicate; the other name, alike before, is read
        // otherwise now.
        let properties = [set(MAP1, "false"), set(MAP2, "false"), set(MAP1, "true")];
        let (setting, faults) = in_file(&properties, Hadoop2);
        assert_eq!(setting.map, SpeculationSwitch::hadoop(MAP1, Some("true")));
        assert_eq!(faults, [(0, "duplicate key"), (1, overridden)]);
        // A final value under either name stands against the other.
        let final_false = FileProperty {
            is_final: true,
            ..set(MAP1, "false")
        };
        let (setting, faults) = in_file(&[final_false, set(MAP2, "true")], Hadoop2);
        assert_eq!(setting.map, SpeculationSwitch::hadoop(MAP1, Some("false")));
        assert_eq!(faults, [(1, "overrides a final property")]);
    }

    /// Hadoop 1 reads the Hadoop 1 names alone, as `"true".equals` reads them: a Hadoop 2
    /// name is a property it does not read (kept as a parameter, no skip), and `FALSE` is
    /// its default, true (`not a boolean`), where Hadoop 2 reads it as false.
    #[test]
    fn under_hadoop_1_only_the_hadoop_1_names_count() {
        use HadoopVersion::{Hadoop1, Hadoop2};
        let (setting, faults) = in_file(&[set(MAP2, "false"), set(MAP1, "true")], Hadoop1);
        assert_eq!(setting.map, SpeculationSwitch::hadoop1(MAP1, Some("true")));
        assert_eq!(setting.parameters[MAP2], "false");
        assert!(faults.is_empty());
        let (setting, faults) = in_file(&[set(MAP1, "true"), set(MAP2, "false")], Hadoop1);
        assert_eq!(setting.map.enabled, Some(true));
        assert!(faults.is_empty());
        // Unset under its Hadoop 1 name: Hadoop's default, under the name Hadoop 1 reads.
        let (setting, _) = in_file(&[set(MAP2, "false")], Hadoop1);
        assert_eq!(setting.map, SpeculationSwitch::hadoop1(MAP1, None));
        assert_eq!(
            (setting.map.enabled, setting.map.source),
            (Some(true), SettingSource::Default)
        );
        assert_eq!(
            setting.reduce.key,
            "mapred.reduce.tasks.speculative.execution"
        );
        // `FALSE`: Hadoop 1's default, Hadoop 2's false.
        let (setting, faults) = in_file(&[set(MAP1, "FALSE")], Hadoop1);
        assert_eq!(
            (setting.map.enabled, setting.map.source),
            (Some(true), SettingSource::Unreadable)
        );
        assert_eq!(faults, [(0, "not a boolean")]);
        let (setting, faults) = in_file(&[set(MAP1, "FALSE")], Hadoop2);
        assert_eq!(setting.map.enabled, Some(false));
        assert!(faults.is_empty());
        let (setting, faults) = in_file(&[set(MAP1, "${flag}")], Hadoop1);
        assert_eq!(setting.map.enabled, None);
        assert_eq!(faults, [(0, "unexpanded variable")]);
    }

    /// A final property without a value locks its name under Hadoop 1 as under Hadoop 2
    /// (HADOOP-6227), 1's rule applied to 0.20 too: a log does not tell them apart.
    #[test]
    fn a_final_without_a_value_locks_its_name_under_either_version() {
        let final_alone = FileProperty {
            name: MAP1,
            value: None,
            is_final: true,
        };
        for version in [HadoopVersion::Hadoop1, HadoopVersion::Hadoop2] {
            let (setting, faults) = in_file(&[final_alone, set(MAP1, "false")], version);
            assert_eq!(faults, [(1, "overrides a final property")], "{version:?}");
            assert_eq!(setting.map.enabled, Some(true), "{version:?}");
        }
    }

    /// Under Hadoop 2, Hadoop 0.21's name of the cap loads into
    /// `speculative-cap-running-tasks` (trunk's `ConfigUtil`), as a switch's Hadoop 1 name
    /// does into its Hadoop 2 name: the later stands; under Hadoop 1 they are two
    /// properties, both kept.
    #[test]
    fn under_hadoop_2_the_old_cap_is_a_name_of_the_running_tasks_cap() {
        let old = "mapred.speculative.execution.speculativeCap";
        let new = "mapreduce.job.speculative.speculative-cap-running-tasks";
        let properties = [set(old, "0.2"), set(new, "0.3")];
        let (setting, faults) = in_file(&properties, HadoopVersion::Hadoop2);
        assert_eq!(faults, [(0, "overridden by its other name")]);
        let parameters: Vec<(&str, &str)> = setting.tuning().collect();
        assert_eq!(parameters, [(new, "0.3")]);
        let (setting, faults) = in_file(&properties, HadoopVersion::Hadoop1);
        assert!(faults.is_empty());
        assert_eq!(setting.parameters.len(), 2);
        // Read alike: both kept.
        let (setting, faults) =
            in_file(&[set(old, "0.2"), set(new, "0.2")], HadoopVersion::Hadoop2);
        assert!(faults.is_empty());
        assert_eq!(setting.parameters.len(), 2);
    }
}
