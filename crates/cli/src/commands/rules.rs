//! `keel rules list|add|remove`: the approval rules in `.keel/rules.toml` (project) and
//! `$KEEL_CONFIG_DIR/rules.toml` (user). Edits keep the files' comments.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use keel_tools::approval_rules::{
    RuleDecision, RuleScope, RuleSpec, RuleTarget, RulesError, append_rule, project_rules_path,
    remove_rule, user_rules_path,
};
use keel_tools::{Rule, RuleSet};

use keel_config::Environment;

/// `keel rules` subcommands.
///
/// Exit status: 0 on success; 1 when a rules file cannot be read, parsed or written (it is then
/// left as it was; the message names the file and line) or `remove` is given a number no rule
/// has; 2 for usage errors.
#[derive(Debug, Subcommand)]
pub enum RulesCommand {
    /// List the rules in force, the project's first, numbered per file.
    List(ListArgs),
    /// Append a rule: `keel rules add --decision ask -- git push`, or
    /// `keel rules add --decision deny --tool write_file --path 'migrations/**'`.
    Add(AddArgs),
    /// Remove rule N of the project's file (or the user's, with `--user`).
    Remove(RemoveArgs),
}

/// Arguments of `keel rules list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Project folder whose `.keel/rules.toml` is read.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// One JSON object per line (the rule with its scope, file, index and line).
    #[arg(long)]
    pub json: bool,
}

/// Arguments of `keel rules add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// allow, ask or deny.
    #[arg(long, value_name = "DECISION")]
    pub decision: RuleDecision,
    /// A tool's name (with `--path` globs) instead of a command prefix.
    #[arg(long, value_name = "NAME", conflicts_with = "command")]
    pub tool: Option<String>,
    /// Globs relative to the root the tool rule applies to (repeatable).
    #[arg(long = "path", value_name = "GLOB", requires = "tool")]
    pub paths: Vec<String>,
    /// A web host glob `fetch_url` may (or may not) reach instead of a command prefix
    /// (`docs.rs`, `*.python.org`).
    #[arg(long, value_name = "GLOB", conflicts_with_all = ["command", "tool"])]
    pub host: Option<String>,
    /// Let an allow rule allow what the dangerous-command check flags.
    #[arg(long)]
    pub override_safety: bool,
    /// Write to the user's `rules.toml` instead of the project's.
    #[arg(long)]
    pub user: bool,
    /// Project folder whose `.keel/rules.toml` is changed.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
    /// The command prefix, word by word (after `--`).
    #[arg(num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// Arguments of `keel rules remove`.
#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// The rule's number in its file (see `keel rules list`).
    pub number: usize,
    /// Remove from the user's `rules.toml` instead of the project's.
    #[arg(long)]
    pub user: bool,
    /// Project folder whose `.keel/rules.toml` is changed.
    #[arg(long, default_value = ".", value_name = "DIR")]
    pub root: PathBuf,
}

/// Runs a `keel rules` subcommand.
pub fn run(command: RulesCommand) -> ExitCode {
    let env = Environment::from_process();
    let user_dir = env.user_config_dir();
    match command {
        RulesCommand::List(args) => list(&args, user_dir.as_deref()),
        RulesCommand::Add(args) => add(args, user_dir.as_deref()),
        RulesCommand::Remove(args) => remove(&args, user_dir.as_deref()),
    }
}

fn failure(command: &str, error: &RulesError) -> ExitCode {
    eprintln!("keel rules {command}: {error}");
    ExitCode::FAILURE
}

/// The file `--user` (or not) names.
fn target_file(user: bool, root: &Path, user_dir: Option<&Path>) -> Option<(PathBuf, RuleScope)> {
    if user {
        user_dir.map(|dir| (user_rules_path(dir), RuleScope::User))
    } else {
        Some((project_rules_path(root), RuleScope::Project))
    }
}

fn list(args: &ListArgs, user_dir: Option<&Path>) -> ExitCode {
    let set = match RuleSet::load(Some(&args.root), user_dir) {
        Ok(set) => set,
        Err(e) => return failure("list", &e),
    };
    if args.json {
        for rule in set.rules() {
            match serde_json::to_string(rule) {
                Ok(line) => println!("{line}"),
                Err(e) => {
                    eprintln!("keel rules list: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    print!("{}", table(&set, &args.root, user_dir));
    ExitCode::SUCCESS
}

/// The rules grouped by file: `SCOPE FILE`, then `N  DECISION  WHAT` lines.
pub fn table(set: &RuleSet, root: &Path, user_dir: Option<&Path>) -> String {
    let mut out = String::new();
    let mut files = vec![(RuleScope::Project, project_rules_path(root))];
    if let Some(dir) = user_dir {
        files.push((RuleScope::User, user_rules_path(dir)));
    }
    for (scope, file) in files {
        let _ = writeln!(out, "{:<8} {}", scope.as_str(), file.display());
        let rules: Vec<&Rule> = set.rules().iter().filter(|r| r.scope == scope).collect();
        if rules.is_empty() {
            out.push_str("  (no rules)\n");
        }
        for rule in rules {
            let _ = writeln!(out, "  {:>2}  {}", rule.index, rule.describe());
        }
    }
    out
}

fn add(args: AddArgs, user_dir: Option<&Path>) -> ExitCode {
    let target = match (args.tool, args.command.is_empty()) {
        _ if args.host.is_some() => RuleTarget::Host {
            host: args.host.unwrap_or_default(),
        },
        (Some(tool), _) => RuleTarget::Tool {
            tool,
            paths: args.paths,
        },
        (None, false) => RuleTarget::Command {
            prefix: args.command,
        },
        (None, true) => {
            eprintln!(
                "keel rules add: give the command prefix after `--` (e.g. `-- git push`), \
                 `--tool NAME` or `--host GLOB`"
            );
            return ExitCode::from(2);
        }
    };
    let Some((file, scope)) = target_file(args.user, &args.root, user_dir) else {
        eprintln!("keel rules add: no user config folder (set KEEL_CONFIG_DIR)");
        return ExitCode::FAILURE;
    };
    let spec = RuleSpec {
        target,
        decision: args.decision,
        override_safety: args.override_safety,
    };
    match append_rule(&file, scope, &spec) {
        Ok(rule) => {
            println!(
                "added rule {} to {}: {}",
                rule.index,
                file.display(),
                rule.describe()
            );
            ExitCode::SUCCESS
        }
        Err(e) => failure("add", &e),
    }
}

fn remove(args: &RemoveArgs, user_dir: Option<&Path>) -> ExitCode {
    let Some((file, scope)) = target_file(args.user, &args.root, user_dir) else {
        eprintln!("keel rules remove: no user config folder (set KEEL_CONFIG_DIR)");
        return ExitCode::FAILURE;
    };
    match remove_rule(&file, scope, args.number) {
        Ok(rule) => {
            println!(
                "removed rule {} from {}: {}",
                args.number,
                file.display(),
                rule.describe()
            );
            ExitCode::SUCCESS
        }
        Err(e) => failure("remove", &e),
    }
}
