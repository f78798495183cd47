//! Records the commit whittle is built from, for `--version` and `doctor`
//! (`unknown` outside a git checkout, e.g. from a source archive).

use std::path::Path;
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

fn main() {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from).unwrap_or_default();
    let commit = git(&dir, &["rev-parse", "--short=10", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=WHITTLE_COMMIT={commit}");
    // Built again when HEAD moves (a commit, a checkout), not otherwise.
    if let Some(git_dir) = git(&dir, &["rev-parse", "--absolute-git-dir"]) {
        let git_dir = Path::new(&git_dir);
        let head = git(&dir, &["symbolic-ref", "-q", "HEAD"]);
        // A file that does not exist would make cargo run this every build.
        let watched = ["HEAD".to_owned(), head.unwrap_or_default(), "packed-refs".to_owned()];
        for file in watched.iter().filter(|f| !f.is_empty()).map(|f| git_dir.join(f)).filter(|f| f.is_file()) {
            println!("cargo:rerun-if-changed={}", file.display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
