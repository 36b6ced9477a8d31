//! Lists of detectors named on the command line (`eval --detectors`, `simulate --detector`,
//! `replay --detectors`): one reading for all three commands, which differ only in the
//! choices they offer and the words that stand for several.

use anyhow::bail;

/// A word of a list that stands for several choices: those of the command's choices,
/// in their order, that `includes` accepts.
pub struct Group<'a, T> {
    /// The word (`all`, `paper`).
    pub word: &'static str,
    /// Whether a choice is one of the group's.
    pub includes: &'a dyn Fn(&T) -> bool,
}

/// The choices `list` names: comma-separated names, each trimmed, empty ones (a trailing
/// comma) ignored. A name is a choice's (`name` of it) or a group's word, which stands for
/// the group's choices. Each choice is kept once, where it is first named, so `a,all`
/// runs `a` first and then the others. An unknown name, or a list that names no choice,
/// is an error naming `flag` and what it takes.
pub fn parse<'c, T>(
    flag: &str,
    list: &str,
    choices: &'c [T],
    name: impl Fn(&T) -> &str,
    groups: &[Group<'_, T>],
) -> anyhow::Result<Vec<&'c T>> {
    let mut chosen: Vec<&T> = Vec::new();
    let mut take = |choice: &'c T| {
        if chosen.iter().all(|&c| name(c) != name(choice)) {
            chosen.push(choice);
        }
    };
    for item in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if let Some(group) = groups.iter().find(|g| g.word == item) {
            choices
                .iter()
                .filter(|c| (group.includes)(c))
                .for_each(&mut take);
        } else if let Some(choice) = choices.iter().find(|c| name(c) == item) {
            take(choice);
        } else if item == ORACLE {
            bail!(
                "{flag}: the oracle runs only in `stragglers eval`: it needs the truth of a \
                 simulated run (the stragglers of an undisturbed run of the same seed), which \
                 this command has not"
            );
        } else {
            let words: Vec<&str> = groups.iter().map(|g| g.word).collect();
            let names: Vec<&str> = choices.iter().map(&name).collect();
            bail!(
                "{flag}: unknown detector {item:?}: expected {} or names among {}",
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

/// The oracle's name: a detector of `eval` only.
pub const ORACLE: &str = "oracle";

/// The commands that run the detector `name`, for `stragglers detectors`.
pub fn commands_of(name: &str) -> &'static str {
    if name == ORACLE {
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
        let chosen = parse("--detector", list, &CHOICES, |c| c, &groups)?;
        Ok(chosen.into_iter().copied().collect())
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
            "--detector: unknown detector \"d\": expected all or names among none, a, b, c"
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
}
