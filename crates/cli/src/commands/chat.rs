//! `keel chat`: a multi-turn conversation in one session, one turn per input line; `/NAME ARGS`
//! runs a custom command (a prompt template, see keel-extensions' [`Commands`]); image files
//! named in a line go with it (the rule is in `chat_images`).

use std::io::IsTerminal as _;
use std::process::ExitCode;

use keel_events::DisplayStyle;
use keel_extensions::{Command, Commands, Sources};

use super::agent_args::AgentArgs;
use super::run::{EXIT_INTERRUPTED, block_on, usage};
use crate::config::Settings;
use crate::host::{Host, Input, TurnEnd};
use keel_render::i18n::Arg;

/// The chat's own commands; a template may not take their names.
pub const BUILT_IN_COMMANDS: [&str; 3] = ["help", "exit", "quit"];

/// Arguments of `keel chat`.
///
/// Each line read is a turn of the same session; `/exit`, `/quit` or end of input ends the
/// chat (exit 0), after distilling the decisions of the turns that changed files into project
/// memory. `/help` lists the commands, the custom ones (`.keel/commands/NAME.md`,
/// `.claude/commands/`, the user's `commands/`) with them; `/NAME ARGS` runs the turn its
/// template gives. A word of a line that ends in `.png`, `.jpg`, `.jpeg`, `.gif` or `.webp`
/// and names a file (from the current folder, else the project root; quote a path with spaces)
/// is attached to that turn as an image, and the chat says so. Ctrl-C during a turn cancels that turn and returns to the prompt; a second
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
        let mut settings = match Settings::load(&args.agent) {
            Ok(settings) => settings,
            Err(e) => return usage("chat", e),
        };
        settings.ask_trust();
        match Host::start(&settings, None).await {
            Ok(host) => chat(host, &settings).await,
            Err(e) => usage("chat", e),
        }
    })
}

/// What a `/…` line asks for.
enum Slash<'a> {
    /// `/exit`, `/quit`.
    Exit,
    /// Shown, nothing run.
    Done,
    /// A custom command's turn.
    Turn(&'a Command, String),
}

/// The chat loop on `host` until `/exit`, end of input or Ctrl-C.
pub async fn chat(mut host: Host, settings: &Settings) -> ExitCode {
    let interactive = std::io::stdin().is_terminal();
    let sources = Sources::new(&settings.root, settings.config.user_config_dir.clone());
    let (commands, warnings) = Commands::discover(&sources, &BUILT_IN_COMMANDS);
    for warning in warnings {
        host.notice(DisplayStyle::Warning, warning.to_string());
    }
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
                let end = match slash(&host, &commands, line) {
                    Some(Slash::Exit) => break,
                    Some(Slash::Done) => continue,
                    Some(Slash::Turn(command, prompt)) => {
                        let overrides = keel_engine::TurnOverrides::of_command(command);
                        host.turn_with(&prompt, &overrides).await
                    }
                    None => match super::chat_images::images_in_line(line, &settings.root) {
                        Ok(images) => {
                            for image in &images {
                                let text = host.text(
                                    "chat-image-attached",
                                    &[
                                        ("name", Arg::from(image.name.clone())),
                                        ("kind", Arg::from(image.media_type.name())),
                                        ("size", Arg::from(keel_render::count(image.size()))),
                                    ],
                                );
                                host.notice(DisplayStyle::Info, text);
                            }
                            host.turn(keel_protocol::TurnInput::new(line, images)).await
                        }
                        Err(e) => {
                            let text = host
                                .text("chat-image-refused", &[("error", Arg::from(e.to_string()))]);
                            host.notice(DisplayStyle::Error, text);
                            continue;
                        }
                    },
                };
                if end == TurnEnd::Interrupted {
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

/// `line` as a command when it is `/NAME` or `/NAME ARGS` (a name of letters, digits, `-`,
/// `_`, `.`, `:`; a line like `/usr/bin is gone` is a prompt). A command that cannot run
/// (unknown, or its template names an unknown placeholder) is said, and nothing is run.
fn slash<'a>(host: &Host, commands: &'a Commands, line: &str) -> Option<Slash<'a>> {
    let rest = line.strip_prefix('/')?;
    let (name, arguments) = match rest.split_once(char::is_whitespace) {
        Some((name, arguments)) => (name, arguments),
        None => (rest, ""),
    };
    let is_name = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
    if !is_name {
        return None;
    }
    match name {
        "exit" | "quit" => return Some(Slash::Exit),
        "help" => {
            host.notice(DisplayStyle::Info, help(host, commands));
            return Some(Slash::Done);
        }
        _ => {}
    }
    let Some(command) = commands.get(name) else {
        let text = host.text("chat-command-unknown", &[("name", Arg::from(name))]);
        host.notice(DisplayStyle::Error, text);
        return Some(Slash::Done);
    };
    match command.expand(arguments) {
        Ok(prompt) => Some(Slash::Turn(command, prompt)),
        Err(e) => {
            let text = host.text(
                "chat-command-failed",
                &[
                    ("name", Arg::from(name)),
                    ("error", Arg::from(e.to_string())),
                ],
            );
            host.notice(DisplayStyle::Error, text);
            Some(Slash::Done)
        }
    }
}

/// `/help`: the built-in commands, then the custom ones with their argument hints.
fn help(host: &Host, commands: &Commands) -> String {
    let mut rows: Vec<(String, String)> = vec![
        ("/help".to_owned(), host.text("chat-help-help", &[])),
        ("/exit, /quit".to_owned(), host.text("chat-help-exit", &[])),
    ];
    for command in commands.all() {
        let usage = match &command.argument_hint {
            Some(hint) => format!("/{} {hint}", command.name),
            None => format!("/{}", command.name),
        };
        rows.push((usage, command.description.clone()));
    }
    let width = rows
        .iter()
        .map(|(u, _)| u.chars().count())
        .max()
        .unwrap_or(0);
    let mut text = host.text("chat-help-title", &[]);
    for (usage, description) in rows {
        text.push_str(&format!("\n  {usage:width$}  {description}"));
    }
    text
}
