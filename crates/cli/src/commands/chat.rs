//! `keel chat`: a multi-turn conversation in one session, one turn per input line.

use std::io::IsTerminal as _;
use std::process::ExitCode;

use keel_events::DisplayStyle;

use super::agent_args::AgentArgs;
use super::run::{EXIT_INTERRUPTED, block_on, usage};
use crate::config::Settings;
use crate::host::{Host, Input, TurnEnd};
use keel_render::i18n::Arg;

/// Arguments of `keel chat`.
///
/// Each line read is a turn of the same session; `/exit`, `/quit` or end of input ends the
/// chat (exit 0), after distilling the decisions of the turns that changed files into project
/// memory. Ctrl-C during a turn cancels that turn and returns to the prompt; a second
/// Ctrl-C, or Ctrl-C at the prompt, exits with 130. Reads piped input as well as a terminal.
#[derive(Debug, clap::Args)]
pub struct ChatArgs {
    /// Agent settings.
    #[command(flatten)]
    pub agent: AgentArgs,
}

/// Runs `keel chat`.
pub fn run(args: ChatArgs) -> ExitCode {
    block_on("chat", async move {
        let settings = match Settings::load(&args.agent) {
            Ok(settings) => settings,
            Err(e) => return usage("chat", e),
        };
        match Host::start(&settings, None).await {
            Ok(host) => chat(host).await,
            Err(e) => usage("chat", e),
        }
    })
}

/// The chat loop on `host` until `/exit`, end of input or Ctrl-C.
pub async fn chat(mut host: Host) -> ExitCode {
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        let text = host.text("session-chat", &[("id", Arg::from(host.session_id()))]);
        host.notice(DisplayStyle::Info, text);
    }
    loop {
        let prompt = interactive.then(|| "\n> ".to_owned());
        match host.read_input(prompt).await {
            Input::Line(line) => {
                let line = line.trim();
                if line.is_empty() {
                    continue;
                }
                if line == "/exit" || line == "/quit" {
                    break;
                }
                if host.turn(line).await == TurnEnd::Interrupted {
                    host.close().await;
                    return ExitCode::from(EXIT_INTERRUPTED);
                }
            }
            Input::Closed => break,
            Input::Interrupted => {
                host.close().await;
                return ExitCode::from(EXIT_INTERRUPTED);
            }
        }
    }
    host.end_session().await;
    if interactive {
        host.notice_session();
    }
    host.close().await;
    ExitCode::SUCCESS
}
