//! Output files (`--json`, `--markdown`): checked before a run, so that a mistyped path
//! fails at once rather than after an evaluation or a simulated day, and written after it.
//! The path `-` is standard output, where the output then goes in place of the tables.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// Fails if `path`, given to `flag`, cannot be written after the run: its directory does
/// not exist or is not one, the path is a directory, an existing file there cannot be
/// opened for writing, or it names the same file as one of `others` (the command's inputs
/// and its other outputs, each with the flag or words that name it), which writing would
/// overwrite. Creates and changes nothing.
pub fn check(flag: &str, path: &Path, others: &[(&str, &Path)]) -> anyhow::Result<()> {
    let shown = path.display();
    if is_stdout(path) {
        if let Some((what, _)) = others.iter().find(|(_, other)| is_stdout(other)) {
            bail!("{flag} -: {what} already writes to standard output");
        }
        return Ok(());
    }
    if let Some((what, other)) = others.iter().find(|(_, other)| same_file(path, other)) {
        bail!(
            "{flag} {shown}: the same file as {what} {}, which it would overwrite",
            other.display()
        );
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let metadata = std::fs::metadata(directory)
        .with_context(|| format!("{flag} {shown}: no directory {}", directory.display()))?;
    if !metadata.is_dir() {
        bail!("{flag} {shown}: {} is not a directory", directory.display());
    }
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => bail!("{flag} {shown}: a directory, not a file"),
        // Opened to append, which leaves the file as it is.
        Ok(_) => OpenOptions::new()
            .append(true)
            .open(path)
            .map(drop)
            .with_context(|| format!("{flag} {shown}: cannot be written")),
        Err(_) => Ok(()),
    }
}

/// Whether `a` and `b` name one file: on Unix, both existing with the same device and
/// inode (a hard link too); else equal once resolved (`./x` and `x`, a symbolic link and
/// its target), or, where one cannot be resolved, equal as written.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        use std::os::unix::fs::MetadataExt;
        if (x.dev(), x.ino()) == (y.dev(), y.ino()) {
            return true;
        }
    }
    match (resolved(a), resolved(b)) {
        (Some(a), Some(b)) => a == b,
        _ => a == b,
    }
}

/// `path` made absolute with links resolved: itself if it exists, else its directory's
/// resolution and its name.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(path) = path.canonicalize() {
        return Some(path);
    }
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    Some(directory.canonicalize().ok()?.join(path.file_name()?))
}

/// Whether `path` is `-`, standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// Whether any of `outputs` goes to standard output, so that the command prints no
/// tables there.
pub fn any_stdout<'a>(outputs: impl IntoIterator<Item = &'a Option<PathBuf>>) -> bool {
    outputs.into_iter().flatten().any(|path| is_stdout(path))
}

/// Writes `text` to `path` (standard output for `-`), naming the path in the error.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    if is_stdout(path) {
        return print(text);
    }
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

/// Writes `text` to standard output. A reader that stopped early (`| head`) wants no
/// more, which is no error (`print!` panics on it); any other failure is.
pub fn print(text: &str) -> anyhow::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        written => written.context("writing to standard output"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of its own for `test`, created.
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stragglers-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Asserts that `check` refused `path` as the same file as the scenario file `input`.
    fn assert_same_as_input(path: &Path, input: &Path) {
        let error = check("--json", path, &[("--scenario-file", input)]).unwrap_err();
        let error = error.to_string();
        assert!(
            error.contains("the same file as --scenario-file"),
            "{error}"
        );
    }

    #[test]
    fn standard_output_takes_one_output_only() {
        let dash = Path::new("-");
        assert!(check("--json", dash, &[]).is_ok());
        let error = check("--markdown", dash, &[("--json", dash)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "--markdown -: --json already writes to standard output"
        );
        assert!(check("--markdown", Path::new("report.md"), &[("--json", dash)]).is_ok());
        let (dash_opt, file) = (Some(PathBuf::from("-")), Some(PathBuf::from("x.json")));
        assert!(any_stdout([&file, &dash_opt]));
        assert!(!any_stdout([&file, &None]));
    }

    #[test]
    fn a_path_is_refused_for_its_directory_and_an_existing_file_kept() {
        let dir = scratch("output");
        let file = dir.join("out.json");
        std::fs::write(&file, "kept").unwrap();
        check("--json", &file, &[]).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
        check("--json", &dir.join("new.json"), &[]).unwrap();
        assert!(!dir.join("new.json").exists());
        check("--json", Path::new("relative.json"), &[]).unwrap();

        let error = check("--json", &dir, &[]).unwrap_err().to_string();
        assert!(error.ends_with("a directory, not a file"), "{error}");
        let error = check("--json", &file.join("x.json"), &[])
            .unwrap_err()
            .to_string();
        assert!(error.ends_with("out.json is not a directory"), "{error}");
        let missing = dir.join("missing").join("x.json");
        let error = check("--markdown", &missing, &[]).unwrap_err();
        assert!(error.to_string().starts_with("--markdown "), "{error}");
        assert!(error.to_string().contains("no directory"), "{error}");
        assert_eq!(error.chain().count(), 2, "{error:#}");

        // An input or another output, however written, is not overwritten.
        assert_same_as_input(&dir.join(".").join("out.json"), &file);
        let new = dir.join("new.json");
        let error = check("--markdown", &new, &[("--json", &dir.join("./new.json"))]);
        assert!(error.is_err());
        check("--markdown", &new, &[("--json", &file)]).unwrap();
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_hard_link_to_an_input_is_refused() {
        let dir = scratch("links");
        let (input, link) = (dir.join("scenario.toml"), dir.join("summary.json"));
        std::fs::write(&input, "kept").unwrap();
        std::fs::hard_link(&input, &link).unwrap();
        assert_same_as_input(&link, &input);
        // Two files of equal content are not one file.
        let copy = dir.join("copy.toml");
        std::fs::write(&copy, "kept").unwrap();
        check("--json", &copy, &[("--scenario-file", &input)]).unwrap();
        std::fs::remove_dir_all(&dir).ok();
    }
}
