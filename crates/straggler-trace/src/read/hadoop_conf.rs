//! Hadoop's speculation setting in a job's configuration (Rumen's `jobProperties`), read as
//! Hadoop reads it.
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

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

use crate::trace::{SettingSource, SpeculationSetting, SpeculationSwitch};

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
}
