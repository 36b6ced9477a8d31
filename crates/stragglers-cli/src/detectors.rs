//! Lists of detectors named on the command line (`eval --detectors`, `simulate --detector`,
//! `replay --detectors`): one reading for all three commands, which differ only in the
//! choices they offer and the words that stand for several.

use anyhow::{Context, bail};
use stragglers::sim::{DetectorSpec, split_list, split_params};

/// A word of a list that stands for several choices: those of the command's choices,
/// in their order, that `includes` accepts.
pub struct Group<'a, T> {
    /// The word (`all`, `paper`).
    pub word: &'static str,
    /// Whether a choice is one of the group's.
    pub includes: &'a dyn Fn(&T) -> bool,
}

/// The choices `list` names: comma-separated items, each trimmed, empty ones (a trailing
/// comma) ignored. An item is a choice's name (`name` of it), a group's word, which stands
/// for the group's choices, or a choice's name with parameters set in parentheses,
/// `late(alpha = 0.5, parallelism = "sequential")`, which `tune` makes (the items are
/// [`split_list`]'s: commas inside parentheses, brackets, braces and quotes do not separate
/// them; a bracket or quote left open is an error). Each choice is kept
/// once, by its name (a tuned one's names what was set), where it is first named, so
/// `a,all` runs `a` first and then the others. An unknown name, parameters that cannot be
/// set, or a list that names no choice, is an error naming `flag` and what it takes; so is
/// the oracle where it is no choice, and `none` and `recorded`, each saying where it is
/// taken.
pub fn parse<T: Clone>(
    flag: &str,
    list: &str,
    choices: &[T],
    name: impl Fn(&T) -> &str,
    groups: &[Group<'_, T>],
    tune: impl Fn(&T, &str) -> anyhow::Result<T>,
) -> anyhow::Result<Vec<T>> {
    let mut chosen: Vec<T> = Vec::new();
    let mut take = |choice: T| {
        if chosen.iter().all(|c| name(c) != name(&choice)) {
            chosen.push(choice);
        }
    };
    for item in split_list(list).with_context(|| flag.to_owned())? {
        let Some((word, set)) = split_params(item) else {
            bail!("{flag}: {item:?} opens a parenthesis it does not close last");
        };
        if let Some(group) = groups.iter().find(|g| g.word == word) {
            if set.is_some() {
                bail!("{flag}: {item:?}: `{word}` names several detectors and takes no parameters");
            }
            choices
                .iter()
                .filter(|c| (group.includes)(c))
                .cloned()
                .for_each(&mut take);
        } else if let Some(choice) = choices.iter().find(|c| name(c) == word) {
            match set {
                Some(set) => take(tune(choice, set).with_context(|| format!("{flag}: {item:?}"))?),
                None => take(choice.clone()),
            }
        } else if word == ORACLE {
            bail!(
                "{flag}: the oracle runs only in `stragglers eval`: it needs the truth of a \
                 simulated run (the stragglers of an undisturbed run of the same seed), which \
                 this command has not"
            );
        } else if let Some(only) = ONE_COMMAND_WORDS.iter().find(|(w, _)| *w == word) {
            bail!("{flag}: `{word}` is no detector: {}", only.1);
        } else {
            let words: Vec<&str> = groups.iter().map(|g| g.word).collect();
            let names: Vec<&str> = choices.iter().map(&name).collect();
            bail!(
                "{flag}: unknown detector {word:?}: expected {} or names among {} (a name may \
                 take parameters in parentheses, `late(alpha = 0.5)`; `stragglers detectors \
                 NAME` lists them)",
                words.join(", "),
                names.join(", ")
            );
        }
    }
    if chosen.is_empty() {
        bail!("{flag} names no detector");
    }
    Ok(chosen)
}

/// [`parse`]'s `tune` for the commands whose choices are a detector or none
/// (`none`, `recorded`: `word`).
pub fn tune_some(
    word: &'static str,
) -> impl Fn(&Option<DetectorSpec>, &str) -> anyhow::Result<Option<DetectorSpec>> {
    move |choice, set| match choice {
        Some(spec) => Ok(Some(spec.tuned_from(set)?)),
        None => bail!("`{word}` is no detector and has no parameters"),
    }
}

/// The oracle's name: a detector of `eval` only.
pub const ORACLE: &str = "oracle";

/// The words one command takes beside the detectors' names, each with where it is taken
/// and what it means, for the error of a list given elsewhere (`stragglers detectors
/// none`, `eval --detectors recorded`), where [`parse`]'s choices do not hold it.
const ONE_COMMAND_WORDS: [(&str, &str); 2] = [
    (
        "none",
        "`stragglers simulate --detector none` runs the scenario without one (no task is \
         detected or copied); no other command takes it",
    ),
    (
        "recorded",
        "`stragglers replay --detectors recorded` judges the speculation the log records (a \
         task is detected when the engine launched its first copy); no other command takes it",
    ),
];

/// The commands that run `detector`, for `stragglers detectors`.
pub fn commands_of(detector: &DetectorSpec) -> &'static str {
    if detector.oracle_params().is_some() {
        "eval only"
    } else {
        "eval, simulate, replay"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHOICES: [&str; 4] = ["none", "a", "b", "c"];

    fn parsed(list: &str) -> anyhow::Result<Vec<&'static str>> {
        let some = |c: &&str| *c != "none";
        let groups = [Group {
            word: "all",
            includes: &some,
        }];
        let tune = |c: &&'static str, set: &str| -> anyhow::Result<&'static str> {
            match (*c, set.trim()) {
                ("a", "x = 1") => Ok("a(x=1)"),
                _ => bail!("cannot set {set:?}"),
            }
        };
        parse("--detector", list, &CHOICES, |c| c, &groups, tune)
    }

    #[test]
    fn names_are_kept_once_in_the_order_first_named_and_groups_expand() {
        assert_eq!(
            parsed(" b, none,,all,none ,").unwrap(),
            ["b", "none", "a", "c"]
        );
        assert_eq!(parsed("all").unwrap(), ["a", "b", "c"]);
        assert_eq!(parsed("c,c").unwrap(), ["c"]);
    }

    #[test]
    fn an_unknown_name_or_an_empty_list_is_refused_naming_the_flag() {
        let unknown = parsed("a,d").unwrap_err().to_string();
        assert_eq!(
            unknown,
            "--detector: unknown detector \"d\": expected all or names among none, a, b, c (a \
             name may take parameters in parentheses, `late(alpha = 0.5)`; `stragglers \
             detectors NAME` lists them)"
        );
        let recorded = parsed("a,recorded").unwrap_err().to_string();
        assert!(
            recorded.starts_with(
                "--detector: `recorded` is no detector: `stragglers replay --detectors recorded`"
            ),
            "{recorded}"
        );
        let oracle = parsed("oracle").unwrap_err().to_string();
        assert!(
            oracle.starts_with("--detector: the oracle runs only in `stragglers eval`"),
            "{oracle}"
        );
        for empty in ["", " , ,"] {
            let error = parsed(empty).unwrap_err().to_string();
            assert_eq!(error, "--detector names no detector");
        }
    }

    #[test]
    fn parameters_in_parentheses_tune_a_choice_and_keep_their_commas() {
        assert_eq!(parsed("a(x = 1),a, b").unwrap(), ["a(x=1)", "a", "b"]);
        assert_eq!(parsed(" a ( x = 1 ) ").unwrap(), ["a(x=1)"]);
        let error = |list: &str| parsed(list).unwrap_err();
        // The tune's error, with the item it came from.
        let refused = format!("{:#}", error("a(x = 2, y = [1, 2])"));
        assert_eq!(
            refused,
            "--detector: \"a(x = 2, y = [1, 2])\": cannot set \"x = 2, y = [1, 2]\""
        );
        let quoted = format!("{:#}", error("b(s = \"),(\", t = '[')"));
        assert!(
            quoted.ends_with("cannot set \"s = \\\"),(\\\", t = '['\""),
            "{quoted}"
        );
        assert_eq!(
            error("all(x = 1)").to_string(),
            "--detector: \"all(x = 1)\": `all` names several detectors and takes no parameters"
        );
        assert_eq!(
            error("a(x = 1) b").to_string(),
            "--detector: \"a(x = 1) b\" opens a parenthesis it does not close last"
        );
        // A list that does not split (split_list's tests have every case) names the flag.
        for (list, problem) in [
            ("a(x = 1", "'(' is left open"),
            ("a(x = 1]", "']' at byte 7 where ')' is due"),
        ] {
            let message = format!("{:#}", error(list));
            assert_eq!(message, format!("--detector: {list:?}: {problem}"));
        }
    }
}
