//! `keel import-log FILE --project ID`: a legacy log (seed 003 §8) into the project's store as
//! a completed session whose events the Activity Timeline shows.

use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use keel_store::{LogImportRequest, SqliteStore, Store, import_log, open};

use super::run::{block_on, usage};
use crate::stdout::print;

/// Arguments of `keel import-log`.
///
/// Exit status: 0 when every line was imported, 1 when some were skipped as unreadable (each
/// is reported on standard error with its line number) or the store failed, 2 for usage errors.
#[derive(Debug, Args)]
pub struct ImportLogArgs {
    /// The log file, or `-` to read standard input.
    pub file: PathBuf,
    /// Project the imported session belongs to.
    #[arg(long, value_name = "ID")]
    pub project: String,
    /// Project folder whose store (`.keel/keel.db`) receives the session.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// Another store instead: `sqlite:PATH` or `postgres://…`.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
}

const COMMAND: &str = "import-log";

/// Runs `keel import-log`.
pub fn run(args: ImportLogArgs) -> ExitCode {
    if args.project.trim().is_empty() {
        return usage(COMMAND, "`--project` must not be empty");
    }
    let (source, bytes) = match read_input(&args.file) {
        Ok(input) => input,
        Err(message) => return usage(COMMAND, message),
    };
    block_on(COMMAND, import(args, source, bytes))
}

fn read_input(file: &std::path::Path) -> Result<(String, Vec<u8>), String> {
    let mut bytes = Vec::new();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(("<stdin>".to_owned(), bytes));
    }
    bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let name = file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    Ok((name, bytes))
}

async fn import(args: ImportLogArgs, source: String, bytes: Vec<u8>) -> ExitCode {
    let store: Arc<dyn Store> = match &args.store {
        Some(url) => match open(url).await {
            Ok(store) => store,
            Err(e) => return usage(COMMAND, format!("cannot open the store `{url}`: {e}")),
        },
        None => match SqliteStore::open_project(&args.root).await {
            Ok(store) => Arc::new(store),
            Err(e) => {
                eprintln!("keel {COMMAND}: cannot open the project's store: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    let root = args
        .root
        .canonicalize()
        .unwrap_or_else(|_| args.root.clone());
    let request = LogImportRequest {
        project_id: args.project.clone(),
        root,
        source: source.clone(),
    };
    let result = import_log(store.as_ref(), &request, &bytes).await;
    store.close().await;
    let report = match result {
        Ok(report) => report,
        Err(e) => {
            eprintln!("keel {COMMAND}: nothing imported: {e}");
            return ExitCode::FAILURE;
        }
    };
    for bad in &report.bad_lines {
        eprintln!(
            "keel {COMMAND}: {source}:{}: skipped: {}",
            bad.line, bad.error
        );
    }
    let text = if args.json {
        match serde_json::to_string(&report) {
            Ok(json) => format!("{json}\n"),
            Err(e) => {
                eprintln!("keel {COMMAND}: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        let skipped = match report.bad_lines.len() {
            0 => String::new(),
            1 => ", 1 bad line skipped".to_owned(),
            n => format!(", {n} bad lines skipped"),
        };
        match &report.session_id {
            Some(id) => format!(
                "imported {} lines of {source} into session {id} (project {}){skipped}\n",
                report.imported, args.project
            ),
            None => format!("nothing to import from {source}{skipped}\n"),
        }
    };
    print(&text);
    if report.bad_lines.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
