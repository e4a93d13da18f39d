//! `execute_command`: runs a shell command in the workspace after the safety check and the
//! approval policy allow it.

use std::time::Duration;

use async_trait::async_trait;
use keel_events::{
    ApprovalDecision, ApprovalKind, LogLevel, RunToolOutput, SystemError, SystemLog,
};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::approval_rules::{RuleDecision, RuleVerdict};
use crate::process::{self, CommandSandbox, ProcessSpec};
use crate::tool::{ToolContext, ToolResult, TypedTool};
use keel_protocol::ApprovalPolicy;
use keel_safety::{Classification, classify};

/// Longest time-out a call may ask for.
pub const MAX_TIMEOUT_SECS: u64 = 3600;
/// How many times a person may modify a command into another dangerous one before it is
/// refused.
const MAX_APPROVAL_ROUNDS: usize = 3;

/// Arguments of `execute_command`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecuteCommandArgs {
    /// The command line to run, as in a terminal (run by bash in the workspace root).
    pub command: String,
    /// Set to true when the command could be destructive or have effects outside the workspace
    /// (installing or removing packages, deleting or overwriting files, network changes,
    /// pushing to a remote); the user is then asked first. False (the default) for reads,
    /// builds and tests.
    #[serde(default)]
    pub requires_approval: bool,
    /// Seconds before the command is killed (default 120, at most 3600).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// True to rerun a command the sandbox blocked outside it (the user is asked).
    #[serde(default)]
    pub requires_escalation: bool,
}

/// The `execute_command` tool.
#[derive(Debug, Clone)]
pub struct ExecuteCommand {
    /// Time-out when the call gives none.
    pub default_timeout: Duration,
    /// Time between SIGTERM and SIGKILL when a command is ended.
    pub grace: Duration,
    /// Cap on the output given back to the model, in bytes.
    pub output_cap: usize,
}

impl Default for ExecuteCommand {
    fn default() -> Self {
        Self {
            default_timeout: process::DEFAULT_TIMEOUT,
            grace: process::DEFAULT_GRACE,
            output_cap: process::DEFAULT_OUTPUT_CAP,
        }
    }
}

/// What the policy says to do with a command.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Gate {
    Run,
    Ask(String),
    Refuse,
    /// An approval rule denies it (the rule and its file are named).
    Deny(String),
}

fn gate(
    policy: ApprovalPolicy,
    verdict: &Classification,
    requires_approval: bool,
    rule: Option<RuleVerdict>,
) -> Gate {
    match rule {
        Some(rule) if rule.decision == RuleDecision::Deny => return Gate::Deny(rule.reason),
        Some(rule) if rule.decision == RuleDecision::Ask => return Gate::Ask(rule.reason),
        Some(_) => return Gate::Run,
        None => {}
    }
    let danger = || match verdict.category {
        Some(category) => format!("dangerous command ({category}): {}", verdict.reason),
        None => verdict.reason.clone(),
    };
    // Code the safety check cannot judge is asked about under every policy that asks or
    // refuses: never allowed unseen, never refused for what it might do.
    let unsure = || format!("the safety check cannot judge it: {}", verdict.reason);
    match policy {
        ApprovalPolicy::Never => Gate::Run,
        ApprovalPolicy::DenyDangerous if verdict.dangerous => Gate::Refuse,
        ApprovalPolicy::DenyDangerous if verdict.uncertain => Gate::Ask(unsure()),
        ApprovalPolicy::DenyDangerous => Gate::Run,
        ApprovalPolicy::OnDangerous if verdict.dangerous => Gate::Ask(danger()),
        ApprovalPolicy::OnDangerous if verdict.uncertain => Gate::Ask(unsure()),
        ApprovalPolicy::OnDangerous if requires_approval => {
            Gate::Ask("the model marked this command as needing approval".to_owned())
        }
        ApprovalPolicy::OnDangerous => Gate::Run,
        ApprovalPolicy::Always if verdict.dangerous => Gate::Ask(danger()),
        ApprovalPolicy::Always if verdict.uncertain => Gate::Ask(unsure()),
        ApprovalPolicy::Always => {
            Gate::Ask("the approval policy asks before every command".to_owned())
        }
    }
}

/// The command line in a `modify` reply: a JSON string, or an object with `command`.
fn modified_command(value: Option<&serde_json::Value>) -> Option<String> {
    let text = match value? {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Object(map) => map.get("command")?.as_str()?.to_owned(),
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}

#[async_trait]
impl TypedTool for ExecuteCommand {
    type Args = ExecuteCommandArgs;

    fn name(&self) -> &'static str {
        "execute_command"
    }

    fn description(&self) -> &'static str {
        "Run a shell command in the workspace root (bash -c) and get its exit code and output \
         (stdout and stderr interleaved; long output keeps its beginning and end). Use it to \
         build, test, run scripts, inspect git state or install dependencies. Commands run \
         without standard input, so never use interactive programs; pass non-interactive flags \
         (e.g. -y). Set requires_approval to true for anything destructive or with effects \
         outside the workspace. Dangerous commands (recursive deletes of / or ~, disk writes, \
         force pushes, git reset --hard, shutdowns, curl | sh, …) need the user's approval or \
         are refused. The command is killed after timeout_secs (default 120), together with \
         any background processes it started. If a result says it was blocked by the sandbox, \
         retry with requires_escalation."
    }

    fn brief(&self) -> Option<&'static str> {
        Some(
            "Run a shell command in the project root (tests, builds, git, mv) and get its exit code and output.",
        )
    }

    async fn run(&self, ctx: &ToolContext, args: ExecuteCommandArgs) -> ToolResult {
        if args.command.trim().is_empty() {
            return ToolResult::error(
                "`command` is empty. Pass the command line to run, e.g. `cargo test`.",
            );
        }
        let timeout = match args.timeout_secs {
            None => self.default_timeout,
            Some(0) => {
                return ToolResult::error("`timeout_secs` must be at least 1.");
            }
            Some(secs) if secs > MAX_TIMEOUT_SECS => {
                return ToolResult::error(format!(
                    "`timeout_secs` is {secs}; the most allowed is {MAX_TIMEOUT_SECS}."
                ));
            }
            Some(secs) => Duration::from_secs(secs),
        };

        if !ctx.root.is_dir() {
            return ToolResult::error(format!(
                "The workspace root `{}` is not a folder; the command was not run.",
                ctx.root.display()
            ));
        }
        let original = args.command;
        let mut command = original.clone();
        let mut verdict = classify(&command);
        let mut rounds = 0;
        loop {
            match gate(
                ctx.approval,
                &verdict,
                args.requires_approval && command == original,
                ctx.rules.check_command(&command),
            ) {
                Gate::Run => break,
                Gate::Deny(reason) => {
                    return ToolResult::error(format!(
                        "Refused to run: {reason}. Do not retry it; find another way or ask the \
                         user to change the rule (`keel rules list`)."
                    ));
                }
                Gate::Refuse => {
                    let category = verdict
                        .category
                        .map_or_else(String::new, |c| format!(" ({c})"));
                    return ToolResult::error(format!(
                        "Refused to run `{command}`: it is dangerous{category}: {}. The approval \
                         policy `deny-dangerous` refuses dangerous commands without asking. Find \
                         a safer way to reach the goal, or ask the user to run it themselves.",
                        verdict.reason
                    ));
                }
                Gate::Ask(_) if rounds >= MAX_APPROVAL_ROUNDS => {
                    let state = if verdict.dangerous {
                        "still dangerous"
                    } else {
                        "still not approved"
                    };
                    return ToolResult::error(format!(
                        "Refused to run `{command}`: it is {state} after {rounds} rounds of \
                         approval ({}).",
                        verdict.reason
                    ));
                }
                Gate::Ask(reason) => {
                    rounds += 1;
                    let reply = ctx
                        .request_approval(ApprovalKind::Command, &command, reason)
                        .await;
                    match reply.decision {
                        ApprovalDecision::Approve => break,
                        ApprovalDecision::Reject => {
                            let why = reply.reason.filter(|r| !r.trim().is_empty()).map_or_else(
                                || " (no reason given)".to_owned(),
                                |r| format!(": {r}"),
                            );
                            return ToolResult::error(format!(
                                "The user denied running `{command}`{why}. It was not run. Do not \
                                 retry the same command; change the approach or ask the user how \
                                 to proceed."
                            ));
                        }
                        ApprovalDecision::Modify => {
                            let Some(new) = modified_command(reply.modified.as_ref()) else {
                                return ToolResult::error(format!(
                                    "The user chose to modify `{command}` but gave no command \
                                     line; nothing was run. Ask the user what to run instead."
                                ));
                            };
                            command = new;
                            verdict = classify(&command);
                            // The person wrote it: run it unless it is dangerous or a rule
                            // denies it.
                            let denied = ctx
                                .rules
                                .check_command(&command)
                                .is_some_and(|r| r.decision == RuleDecision::Deny);
                            if !verdict.dangerous && !denied {
                                break;
                            }
                        }
                    }
                }
            }
        }

        let sandbox = match sandbox_for(ctx, &command, args.requires_escalation).await {
            Ok(sandbox) => sandbox,
            Err(refusal) => return refusal,
        };
        let spec = ProcessSpec::shell(&command, &ctx.root)
            .with_timeout(timeout)
            .with_grace(self.grace)
            .with_output_cap(self.output_cap)
            .with_sandbox(sandbox);
        let spec = if ctx.shadowed {
            spec.with_env(crate::shadow::command_env(&ctx.root))
        } else {
            spec
        };
        let emitter = ctx.emitter.clone();
        let call_id = ctx.call_id.clone();
        let mut on_output = |stream, text: &str| {
            emitter.emit(RunToolOutput {
                call_id: call_id.clone(),
                stream,
                content: text.to_owned(),
            });
        };
        let outcome = match process::run(&spec, &ctx.cancel, &mut on_output).await {
            Ok(outcome) => outcome,
            Err(e) => return ToolResult::error(format!("Could not run `{command}`: {e}.")),
        };

        let modified = if command == original {
            String::new()
        } else {
            format!("The user changed the command to `{command}`. ")
        };
        let ending = outcome.describe(timeout);
        let message = if outcome.timed_out {
            format!(
                "{modified}Command timed out after {} s and was killed with everything it \
                 started; pass a larger timeout_secs if it needs longer.",
                timeout.as_secs()
            )
        } else if outcome.cancelled {
            format!("{modified}Command was cancelled and killed.")
        } else if let Some(blocked) = &outcome.blocked {
            format!(
                "{modified}Command finished: {ending}; {blocked} (sandbox: {}). If it must run \
                 outside the sandbox, call execute_command again with requires_escalation: \
                 true; the user will be asked.",
                ctx.sandbox.describe()
            )
        } else {
            format!("{modified}Command finished: {ending}.")
        };
        let exit = match outcome.exit_code {
            Some(code) => code.to_string(),
            None => format!("none ({ending})"),
        };
        let output = if outcome.output.is_empty() {
            "(no output)".to_owned()
        } else {
            outcome.output
        };
        let content = format!("Exit code: {exit}\nOutput:\n{output}");
        ToolResult {
            success: outcome.exit_code == Some(0) && !outcome.timed_out && !outcome.cancelled,
            message,
            content: Some(content),
            summary: None,
            images: Vec::new(),
        }
    }
}

/// The sandbox to run `command` in: the context's, or none when a person allowed the model's
/// `requires_escalation` request. `Err` is the result when it must not run: the sandbox mode
/// cannot be enforced here (`system.error`), or escalation was not allowed.
async fn sandbox_for(
    ctx: &ToolContext,
    command: &str,
    requires_escalation: bool,
) -> Result<Option<std::sync::Arc<keel_sandbox::Sandbox>>, ToolResult> {
    if requires_escalation && ctx.sandbox.is_on() {
        let reason = format!(
            "the model asks to run this command outside the sandbox ({})",
            ctx.sandbox.describe()
        );
        let reply = ctx
            .request_approval(ApprovalKind::Command, command, reason)
            .await;
        return match reply.decision {
            ApprovalDecision::Approve => Ok(None),
            ApprovalDecision::Reject | ApprovalDecision::Modify => {
                let why = reply
                    .reason
                    .filter(|r| !r.trim().is_empty())
                    .map_or_else(String::new, |r| format!(" ({r})"));
                Err(ToolResult::error(format!(
                    "Running `{command}` outside the sandbox was not allowed{why}; it was not \
                     run. Find a way that works inside the sandbox, or ask the user to run it \
                     themselves."
                )))
            }
        };
    }
    match &ctx.sandbox {
        CommandSandbox::Off => Ok(None),
        CommandSandbox::Confined(sandbox) => {
            if let Some(warning) = sandbox.warning() {
                ctx.emitter.emit(SystemLog {
                    level: LogLevel::Warn,
                    message: format!("`{command}`: {warning}"),
                    metadata: None,
                });
            }
            Ok(Some(std::sync::Arc::clone(sandbox)))
        }
        CommandSandbox::Refused(why) => {
            ctx.emitter.emit(SystemError {
                error: why.to_string(),
                error_type: "sandbox".to_owned(),
                recoverable: true,
                stack: None,
                error_display: None,
            });
            Err(ToolResult::error(format!(
                "Refused to run `{command}`: {why}."
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_safety::Category;

    #[test]
    fn policy_gate() {
        let danger = Classification::dangerous(Category::ForcePush, "x");
        let benign = Classification::benign();
        use ApprovalPolicy::*;
        assert_eq!(gate(Never, &danger, true, None), Gate::Run);
        assert_eq!(gate(DenyDangerous, &danger, false, None), Gate::Refuse);
        assert_eq!(gate(DenyDangerous, &benign, true, None), Gate::Run);
        assert!(
            matches!(gate(OnDangerous, &danger, false, None), Gate::Ask(r) if r.contains("force_push"))
        );
        assert!(matches!(
            gate(OnDangerous, &benign, true, None),
            Gate::Ask(_)
        ));
        assert_eq!(gate(OnDangerous, &benign, false, None), Gate::Run);
        assert!(matches!(gate(Always, &benign, false, None), Gate::Ask(_)));
        // Inline code the check cannot judge: asked, not allowed and not refused.
        let unsure = Classification::uncertain("`python3` runs code built at run time");
        assert_eq!(gate(Never, &unsure, false, None), Gate::Run);
        for policy in [OnDangerous, DenyDangerous, Always] {
            assert!(
                matches!(gate(policy, &unsure, false, None), Gate::Ask(r) if r.contains("cannot judge") && r.contains("python3")),
                "{policy}"
            );
        }
    }

    #[test]
    fn rules_come_before_the_policy() {
        let rules = crate::approval_rules::RuleSet::parse(
            "[[rule]]\nmatch = [\"git\", \"push\"]\ndecision = \"deny\"\n\
             [[rule]]\nmatch = [\"cargo\"]\ndecision = \"ask\"\n\
             [[rule]]\nmatch = [\"ls\"]\ndecision = \"allow\"\n",
            std::path::Path::new("rules.toml"),
            crate::approval_rules::RuleScope::Project,
        )
        .unwrap();
        let benign = Classification::benign();
        use ApprovalPolicy::*;
        let deny = rules.check_command("git push origin main");
        assert!(
            matches!(gate(Never, &benign, false, deny), Gate::Deny(r) if r.contains("rules.toml:1"))
        );
        let ask = rules.check_command("cargo test");
        assert!(
            matches!(gate(Never, &benign, false, ask), Gate::Ask(r) if r.contains("rules.toml:4"))
        );
        let allow = rules.check_command("ls -la");
        assert_eq!(gate(Always, &benign, false, allow), Gate::Run);
    }

    #[test]
    fn modified_command_shapes() {
        use serde_json::json;
        assert_eq!(modified_command(Some(&json!("ls"))), Some("ls".into()));
        assert_eq!(
            modified_command(Some(&json!({"command": "ls -a"}))),
            Some("ls -a".into())
        );
        assert_eq!(modified_command(Some(&json!(3))), None);
        assert_eq!(modified_command(Some(&json!("  "))), None);
        assert_eq!(modified_command(None), None);
    }
}
