//! `keel serve`: runs Keel's HTTP server (the same server as the `keel-server` binary).

use std::process::ExitCode;

pub use keel_server::ServerArgs as ServeArgs;

/// Runs `keel serve` until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("keel serve: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(keel_server::run_from_args(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("keel serve: {e}");
            ExitCode::FAILURE
        }
    }
}
