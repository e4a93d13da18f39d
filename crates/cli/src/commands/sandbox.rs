//! `keel sandbox check`: what this kernel supports for the command sandbox and what each mode
//! enforces here.

use std::process::ExitCode;

use clap::Subcommand;
use keel_sandbox::{ModeReport, SandboxMode, Support};
use serde::Serialize;

/// `keel sandbox` subcommands.
#[derive(Debug, Subcommand)]
pub enum SandboxCommand {
    /// Show what this kernel supports (Landlock ABI, seccomp, mount namespaces) and what each
    /// sandbox mode enforces here. Exit status 0 when every mode is fully enforced, 1 otherwise.
    Check {
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// The `--json` shape.
#[derive(Debug, Serialize)]
struct Report<'a> {
    support: &'a Support,
    modes: Vec<ModeReport>,
}

/// Runs `keel sandbox …`.
pub fn run(command: SandboxCommand) -> ExitCode {
    let SandboxCommand::Check { json } = command;
    let support = Support::get();
    let modes: Vec<ModeReport> = [
        (SandboxMode::ReadOnly, false),
        (SandboxMode::WorkspaceWrite, false),
        (SandboxMode::WorkspaceWrite, true),
        (SandboxMode::Off, true),
    ]
    .into_iter()
    .map(|(mode, network)| support.report(mode, network))
    .collect();
    let all = modes.iter().all(|m| m.enforceable);
    if json {
        match serde_json::to_string_pretty(&Report {
            support,
            modes: modes.clone(),
        }) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("keel sandbox check: {e}");
                return ExitCode::FAILURE;
            }
        }
    } else {
        print!("{}", render(support, &modes));
    }
    if all {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The report as text.
fn render(support: &Support, modes: &[ModeReport]) -> String {
    let mut out = String::new();
    let landlock = support
        .landlock_abi
        .map_or_else(|| "not available".to_owned(), |abi| format!("ABI {abi}"));
    let yes = |b: bool| if b { "yes" } else { "no" };
    out.push_str(&format!("os:               {}\n", support.os));
    out.push_str(&format!("landlock:         {landlock}\n"));
    out.push_str(&format!("seccomp:          {}\n", yes(support.seccomp)));
    out.push_str(&format!(
        "mount namespace:  {}{}\n",
        yes(support.mount_namespace),
        support
            .mount_namespace_error
            .as_deref()
            .map_or_else(String::new, |e| format!(" ({e})"))
    ));
    for mode in modes {
        let network = match mode.mode {
            SandboxMode::Off => String::new(),
            _ if mode.network => ", network = true".to_owned(),
            _ => ", network = false".to_owned(),
        };
        let state = if mode.enforceable {
            "enforced"
        } else {
            "NOT fully enforced"
        };
        out.push_str(&format!("\n{}{network}: {state}\n", mode.mode));
        for line in &mode.enforced {
            out.push_str(&format!("  + {line}\n"));
        }
        for line in &mode.missing {
            out.push_str(&format!("  - {line}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_a_kernel_without_landlock() {
        let support = Support {
            os: "linux".to_owned(),
            landlock_abi: None,
            seccomp: true,
            mount_namespace: false,
            mount_namespace_error: Some("Operation not permitted".to_owned()),
        };
        let modes = vec![
            support.report(SandboxMode::WorkspaceWrite, false),
            support.report(SandboxMode::Off, true),
        ];
        insta::assert_snapshot!(render(&support, &modes));
    }
}
