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

/// The citations of `stragglers detectors`' lines.
const PHAN_2019: &str = "Phan et al., ACM TOMPECS 2019";
/// Hadoop 2's speculator's rule, shared by its three estimators.
const HADOOP2: &str = "Hadoop 2 DefaultSpeculator: per stage and scan, the task whose estimated \
                       end lies furthest past a new copy's, once 5% of the stage finished, none waiting";

/// The line `stragglers detectors` prints for `name`: its rule and the paper or software it
/// comes from (the library's descriptions cite the seed papers by their internal numbers);
/// `None` for a name without one here, whose library description is printed instead.
pub fn line_of(name: &str) -> Option<String> {
    let line = match name {
        "default" => format!(
            "progress score below the stage's mean minus 0.2 (Dean & Ghemawat, CACM 2008; {PHAN_2019}, Eq. 6)"
        ),
        "hierarchical" => format!(
            "Default's detections kept on nodes below 0.9 x the mean node speed (Phan et al., Euro-Par 2017; {PHAN_2019}, Sec. 5.5)"
        ),
        "late" => format!(
            "progress rate below the stage's mean minus 1 standard deviation (LATE as in {PHAN_2019}, Eqs. 7-10)"
        ),
        "hadoop1" => "Hadoop 1: progress 0.2 below the mean of all the stage's tasks, 60 s into the job, one attempt running".to_owned(),
        "hadoop-legacy" => format!("{HADOOP2}; estimate elapsed / progress (legacy)"),
        "hadoop-exp-smoothed" => {
            format!("{HADOOP2}; estimate from the progress rate smoothed over reports (lambda 60 s)")
        }
        "hadoop-simple-exp" => format!(
            "{HADOOP2}; estimate from the rate by simple exponential smoothing (tau 120 s; Hussein et al., A Comprehensive Review of Speculation for Hadoop Ecosystem, Alg. 1-2)"
        ),
        "spark" => "Spark 4: runtime above 3 x the median of the finished tasks once 90% finished, efficiency check".to_owned(),
        "spark-legacy" => "Spark before 4.0: runtime above 1.5 x the median of the finished tasks once 75% finished".to_owned(),
        "late-zaharia" => "LATE (Zaharia et al., OSDI 2008): 25th-percentile rate, 10% cap, longest time left first, no copy on slow nodes".to_owned(),
        "esplash" => "eSplash (Wang et al., IPCCC 2016): tasks on nodes slow for their k-means level (SV > 3) whose copy pays (minL); those nodes host no copy".to_owned(),
        "dsb" => "DSB (Ouyang et al., FGCS 2019): tasks on nodes blacklisted by P-Cores over 95% t-intervals of normalised durations, every 60 s; no new task or copy there".to_owned(),
        "dsb-top3" => "DSB with number (Ouyang et al., FGCS 2019): at most 3 blacklisted nodes, by sd and mean of normalised durations".to_owned(),
        "garraghan" => "Garraghan et al. (IEEE TSC 2019, Sec. 6): progress below the median progress model stretched by Diff 0.5 and below half the stage median".to_owned(),
        "garraghan-offline" => "Garraghan et al. offline (IEEE TSC 2019, Eq. 3): progress below the median progress model stretched by Diff 0.5".to_owned(),
        "garraghan-online" => "Garraghan et al. online (IEEE TSC 2019, Sec. 6.2): progress below half the median progress of the stage".to_owned(),
        "dos-index" => "DoS-index >= 2.5: time per input byte against the stage's (Garraghan et al., IEEE TSC 2019, Eq. 1)".to_owned(),
        "dos-index-10" => "DoS-index >= 10, the extreme stragglers of Garraghan et al.'s diagnosis (IEEE TSC 2019, Eq. 1)".to_owned(),
        _ => return None,
    };
    Some(line)
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
