//! `keel skills list|show NAME`: the skills a session on a project would have (keel-extensions'
//! discovery: the project's `.keel/skills/`, `.agents/skills/`, `.claude/skills/`, then the
//! user's config folder's `skills/`), and the instructions of one.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use keel_extensions::{Skills, Sources};

use keel_config::Environment;

/// `keel skills` subcommands.
///
/// Exit status: 0 on success (a `SKILL.md` skipped is a warning on stderr); 1 when `show`
/// names no skill or its file cannot be read; 2 for usage errors.
#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// List the skills: name, where it comes from, description.
    List(ListArgs),
    /// Print a skill's folder and instructions.
    Show(ShowArgs),
}

/// Arguments of `keel skills list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Project folder whose skills are listed (with the user's).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
}

/// Arguments of `keel skills show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The skill's name (see `keel skills list`).
    pub name: String,
    /// Project folder whose skills are searched (with the user's).
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
}

/// Runs a `keel skills` subcommand.
pub fn run(command: SkillsCommand) -> ExitCode {
    let user_dir = Environment::from_process().user_config_dir();
    let root = match &command {
        SkillsCommand::List(args) => &args.root,
        SkillsCommand::Show(args) => &args.root,
    };
    let (skills, warnings) = Skills::discover(&Sources::new(root, user_dir));
    for warning in &warnings {
        eprintln!("warning: {warning}");
    }
    match command {
        SkillsCommand::List(_) => list(&skills),
        SkillsCommand::Show(args) => show(&skills, &args.name),
    }
}

fn list(skills: &Skills) -> ExitCode {
    if skills.is_empty() {
        eprintln!(
            "keel skills list: no skills (SKILL.md folders in .keel/skills/, .agents/skills/, .claude/skills/ or the user's skills/)"
        );
        return ExitCode::SUCCESS;
    }
    let width = skills
        .all()
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for skill in skills.all() {
        out.push_str(&format!(
            "{:width$}  {:7}  {}\n",
            skill.name,
            skill.scope.as_str(),
            skill.description
        ));
    }
    crate::stdout::print(&out);
    ExitCode::SUCCESS
}

fn show(skills: &Skills, name: &str) -> ExitCode {
    let Some(skill) = skills.get(name) else {
        let names: Vec<&str> = skills.all().iter().map(|s| s.name.as_str()).collect();
        eprintln!(
            "keel skills show: no skill `{name}` (skills: {})",
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        );
        return ExitCode::FAILURE;
    };
    match skill.body() {
        Ok(body) => {
            crate::stdout::print(&format!(
                "# {}\n{}\n\n{}\n\n{body}\n",
                skill.name,
                skill.file().display(),
                skill.description
            ));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("keel skills show: {e}");
            ExitCode::FAILURE
        }
    }
}
