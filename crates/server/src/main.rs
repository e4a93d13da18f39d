//! The `keel-server` binary: Keel's HTTP API and Activity Timeline page. Logs go to stderr
//! (`--log-format`, `RUST_LOG`); what stops it before logging is set up is printed there too.
#![allow(clippy::print_stderr)]

use std::process::ExitCode;

use clap::Parser;
use keel_server::ServerArgs;

/// Keel's HTTP server.
#[derive(Debug, Parser)]
#[command(
    name = "keel-server",
    version,
    about = "Keel's HTTP API, live event streams and Activity Timeline page"
)]
struct Cli {
    #[command(flatten)]
    args: ServerArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("keel-server: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(keel_server::run_from_args(cli.args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("keel-server: {e}");
            ExitCode::FAILURE
        }
    }
}
