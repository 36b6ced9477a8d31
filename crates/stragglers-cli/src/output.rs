//! Output files (`--json`, `--markdown`): checked before a run, so that a mistyped path
//! fails at once rather than after an evaluation or a simulated day, and written after it.

use std::fs::OpenOptions;
use std::path::Path;

use anyhow::{Context, bail};

/// Fails if `path`, given to `flag`, cannot be written after the run: its directory does
/// not exist or is not one, the path is a directory, or an existing file there cannot be
/// opened for writing. Creates and changes nothing.
pub fn check(flag: &str, path: &Path) -> anyhow::Result<()> {
    let shown = path.display();
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

/// Writes `text` to `path`, naming the path in the error.
pub fn write(path: &Path, text: &str) -> anyhow::Result<()> {
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_refused_for_its_directory_and_an_existing_file_kept() {
        let dir = std::env::temp_dir().join(format!("stragglers-output-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("out.json");
        std::fs::write(&file, "kept").unwrap();
        check("--json", &file).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
        check("--json", &dir.join("new.json")).unwrap();
        assert!(!dir.join("new.json").exists());
        check("--json", Path::new("relative.json")).unwrap();

        let error = check("--json", &dir).unwrap_err().to_string();
        assert!(error.ends_with("a directory, not a file"), "{error}");
        let error = check("--json", &file.join("x.json"))
            .unwrap_err()
            .to_string();
        assert!(error.ends_with("out.json is not a directory"), "{error}");
        let missing = dir.join("missing").join("x.json");
        let error = check("--markdown", &missing).unwrap_err();
        assert!(error.to_string().starts_with("--markdown "), "{error}");
        assert!(error.to_string().contains("no directory"), "{error}");
        assert_eq!(error.chain().count(), 2, "{error:#}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
