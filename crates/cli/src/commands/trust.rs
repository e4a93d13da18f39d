//! `keel trust [DIR]`, `keel trust --list`, `keel trust --revoke DIR`: the folders whose own
//! hooks (`.claude/settings.json`, `.codex/hooks.json`, the project's `[[hooks.*]]`) run, kept
//! in the user's config folder (`trusted-folders.json`, keel-extensions' [`TrustedFolders`]).
//! Also the terminal's question, asked once when a session starts in an untrusted folder that
//! has hooks of its own ([`ask`]).

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use keel_config::Environment;
use keel_extensions::{Hook, Scope, Sources, TrustedFolders};

/// Arguments of `keel trust`.
///
/// Exit status: 0 on success; 1 when the list cannot be read or written, or `--revoke` names
/// a folder not trusted; 2 for usage errors.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The folder to trust (its subfolders too).
    #[arg(default_value = ".", value_name = "DIR", conflicts_with_all = ["list", "revoke"])]
    pub dir: PathBuf,
    /// List the trusted folders.
    #[arg(long)]
    pub list: bool,
    /// Stop trusting DIR.
    #[arg(long, value_name = "DIR", conflicts_with = "list")]
    pub revoke: Option<PathBuf>,
}

/// Runs `keel trust`.
pub fn run(args: TrustArgs) -> ExitCode {
    let Some(user_dir) = Environment::from_process().user_config_dir() else {
        eprintln!("keel trust: no user config folder (set KEEL_CONFIG_DIR or HOME)");
        return ExitCode::from(2);
    };
    let mut trusted = match TrustedFolders::load(&user_dir) {
        Ok(trusted) => trusted,
        Err(e) => {
            eprintln!("keel trust: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.list {
        for folder in trusted.folders() {
            println!("{}", folder.display());
        }
        return ExitCode::SUCCESS;
    }
    let done = if let Some(dir) = &args.revoke {
        if !trusted.revoke(dir) {
            eprintln!("keel trust: {} is not a trusted folder", dir.display());
            return ExitCode::FAILURE;
        }
        format!("no longer trusted: {}", dir.display())
    } else {
        match trusted.trust(&args.dir) {
            Ok(dir) => format!("trusted: {} (its own hooks now run)", dir.display()),
            Err(e) => {
                eprintln!("keel trust: {e}");
                return ExitCode::from(2);
            }
        }
    };
    match trusted.save() {
        Ok(()) => {
            println!("{done}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("keel trust: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Whether `root` is trusted: `--trust`, or listed in the user's trusted folders (an
/// unreadable list trusts nothing, with a warning).
pub fn is_trusted(root: &Path, flag: bool, user_dir: Option<&Path>) -> bool {
    if flag {
        return true;
    }
    let Some(user_dir) = user_dir else {
        return false;
    };
    match TrustedFolders::load(user_dir) {
        Ok(trusted) => trusted.is_trusted(root),
        Err(e) => {
            eprintln!("warning: {e}; no folder is trusted");
            false
        }
    }
}

/// The project's own hooks a session in `root` would run: its `keel.toml`'s and those of its
/// hook files.
pub fn project_hooks(root: &Path, configured: &[Hook]) -> Vec<Hook> {
    let (found, _) = keel_extensions::hook::files::discover(&Sources::new(root, None));
    configured
        .iter()
        .cloned()
        .chain(found)
        .filter(|h| h.origin.scope == Scope::Project)
        .collect()
}

/// On a terminal (standard input and error), asks once whether to trust `root`, whose own
/// hooks are listed; a yes is kept in the trusted folders. Anywhere else, false.
pub fn ask(root: &Path, hooks: &[Hook], user_dir: Option<&Path>) -> bool {
    if hooks.is_empty() || !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return false;
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "{} has hooks of its own, commands Keel would run for it:",
        root.display()
    );
    for hook in hooks {
        let _ = writeln!(err, "  {} `{}` ({})", hook.event, hook.command, hook.origin);
    }
    let _ = write!(
        err,
        "Trust this folder and run them? (kept for later sessions; `keel trust --revoke` undoes it) [y/N] "
    );
    let _ = err.flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    if !matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        let _ = writeln!(err, "Not trusted: the folder's hooks are skipped.");
        return false;
    }
    let Some(user_dir) = user_dir else {
        return true;
    };
    let saved = TrustedFolders::load(user_dir).and_then(|mut trusted| {
        trusted.trust(root)?;
        trusted.save()
    });
    if let Err(e) = saved {
        let _ = writeln!(err, "warning: trusted for this session only: {e}");
    }
    true
}
