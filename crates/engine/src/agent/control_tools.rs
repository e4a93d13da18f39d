//! The control tools: calls the agent session handles itself instead of running them in the
//! workspace. They are [`TypedTool`]s so their argument schemas are generated like every other
//! tool's and shown to the model in the same function list.
//!
//! | tool | effect in a session |
//! |---|---|
//! | `attempt_completion` | ends the turn with `run.completion.attempt` |
//! | `create_plan` | switches the turn to plan mode |
//! | `ask_followup_question` | `run.question.ask` → the session's answerer → `run.question.answer` |
//! | `plan_mode_respond` | `run.plan.respond`, then waits for the answer the same way |
//!
//! Outside a session (e.g. `keel tool call`) their `run` only validates and acknowledges.

use async_trait::async_trait;
use keel_events::{Complexity, Plan, PlanStep};
use keel_protocol::ToolResult;
use keel_tools::{ToolContext, TypedTool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;

/// Name of the completion tool.
pub const ATTEMPT_COMPLETION: &str = "attempt_completion";
/// Name of the planning tool.
pub const CREATE_PLAN: &str = "create_plan";
/// Name of the question tool.
pub const ASK_FOLLOWUP_QUESTION: &str = "ask_followup_question";
/// Name of the planning-reply tool.
pub const PLAN_MODE_RESPOND: &str = "plan_mode_respond";

/// Whether `name` is one of the control tools.
pub fn is_control_tool(name: &str) -> bool {
    matches!(
        name,
        ATTEMPT_COMPLETION | CREATE_PLAN | ASK_FOLLOWUP_QUESTION | PLAN_MODE_RESPOND
    )
}

/// Parses a control tool's arguments, with the same kind of message the typed tools give.
pub fn parse_args<T: DeserializeOwned>(
    tool: &str,
    arguments: &serde_json::Value,
) -> Result<T, String> {
    let value = match arguments {
        serde_json::Value::String(text) => serde_json::from_str(text).map_err(|e| {
            format!("Invalid arguments for {tool}: not a JSON object ({e}). Send an object matching the tool's parameters.")
        })?,
        serde_json::Value::Null => serde_json::Value::Object(serde_json::Map::new()),
        other => other.clone(),
    };
    serde_json::from_value(value).map_err(|e| {
        format!("Invalid arguments for {tool}: {e}. Check the tool's parameters and call it again.")
    })
}

/// Arguments of `attempt_completion`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttemptCompletionArgs {
    /// The final result of the task, written for the user: what was done and how it turned out.
    pub result: String,
    /// Optionally, a command the user can run to see the result (e.g. a test command).
    #[serde(default)]
    pub command: Option<String>,
}

/// `attempt_completion`: the model declares the task done; ends the turn.
#[derive(Debug, Clone, Copy, Default)]
pub struct AttemptCompletion;

#[async_trait]
impl TypedTool for AttemptCompletion {
    type Args = AttemptCompletionArgs;

    fn name(&self) -> &'static str {
        ATTEMPT_COMPLETION
    }

    fn description(&self) -> &'static str {
        "Call this once the task is complete, with a summary of the result for the user. It ends the turn: do not call other tools after it. Optionally give a command that demonstrates the result."
    }

    async fn run(&self, _ctx: &ToolContext, args: AttemptCompletionArgs) -> ToolResult {
        ToolResult::ok(format!("Completion recorded: {}", args.result))
    }
}

/// One step of a plan, as the model writes it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanStepArgs {
    /// 1-based position; ignored (steps are numbered in the order given).
    #[serde(default)]
    pub index: Option<u32>,
    /// Short title of the step.
    pub title: String,
    /// What the step does, precisely enough to carry it out.
    pub description: String,
    /// Tools the step is expected to use.
    #[serde(default)]
    pub expected_tools: Vec<String>,
}

/// Arguments of `create_plan`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePlanArgs {
    /// What the plan achieves.
    pub goal: String,
    /// The steps, in order (at least one).
    pub steps: Vec<PlanStepArgs>,
    /// How hard the task is: low, medium or high.
    pub estimated_complexity: Complexity,
}

impl CreatePlanArgs {
    /// The plan with steps numbered 1..n; an error message when it has no step or an empty
    /// title.
    pub fn into_plan(self) -> Result<Plan, String> {
        if self.steps.is_empty() {
            return Err("A plan needs at least one step.".to_owned());
        }
        if self.goal.trim().is_empty() {
            return Err("A plan needs a goal.".to_owned());
        }
        let mut steps = Vec::with_capacity(self.steps.len());
        for (n, step) in self.steps.into_iter().enumerate() {
            if step.title.trim().is_empty() {
                return Err(format!("Step {} of the plan has an empty title.", n + 1));
            }
            steps.push(PlanStep {
                index: u32::try_from(n + 1).unwrap_or(u32::MAX),
                title: step.title,
                description: step.description,
                expected_tools: step.expected_tools,
            });
        }
        Ok(Plan {
            goal: self.goal,
            steps,
            estimated_complexity: self.estimated_complexity,
        })
    }
}

/// `create_plan`: switches the turn to plan mode.
#[derive(Debug, Clone, Copy, Default)]
pub struct CreatePlan;

#[async_trait]
impl TypedTool for CreatePlan {
    type Args = CreatePlanArgs;

    fn name(&self) -> &'static str {
        CREATE_PLAN
    }

    fn description(&self) -> &'static str {
        "Create a step-by-step plan when the task is complex: it changes several files, has interdependent parts, or needs analysis before changes. Do not use it for simple edits, single-file changes or questions. After the plan is created, you will be asked to carry out each step in turn."
    }

    async fn run(&self, ctx: &ToolContext, args: CreatePlanArgs) -> ToolResult {
        match args.into_plan() {
            // Seed 002 §6's words under the Chinese locale.
            Ok(plan) if ctx.lang == keel_events::Lang::ZhCn => {
                ToolResult::ok(format!("计划已创建，共 {} 个步骤", plan.steps.len()))
            }
            Ok(plan) => ToolResult::ok(format!(
                "Plan created with {} steps: {}",
                plan.steps.len(),
                plan.goal
            )),
            Err(e) => ToolResult::error(e),
        }
    }
}

/// Arguments of `ask_followup_question`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskFollowupQuestionArgs {
    /// The question for the user: specific, answerable in a few words.
    pub question: String,
    /// Suggested answers the user can pick from.
    #[serde(default)]
    pub options: Vec<String>,
}

/// `ask_followup_question`: asks the user; the answer is the tool result.
#[derive(Debug, Clone, Copy, Default)]
pub struct AskFollowupQuestion;

#[async_trait]
impl TypedTool for AskFollowupQuestion {
    type Args = AskFollowupQuestionArgs;

    fn name(&self) -> &'static str {
        ASK_FOLLOWUP_QUESTION
    }

    fn description(&self) -> &'static str {
        "Ask the user a question when you cannot go on without information only they have. Offer options when the likely answers are known. Do not ask what you can find out with the other tools."
    }

    async fn run(&self, _ctx: &ToolContext, args: AskFollowupQuestionArgs) -> ToolResult {
        ToolResult::error(format!(
            "Cannot ask `{}`: no one can answer questions here (only an agent session can).",
            args.question
        ))
    }
}

/// Arguments of `plan_mode_respond`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanModeRespondArgs {
    /// The planning reply for the user (analysis, proposal, questions about the approach).
    pub response: String,
    /// Choices offered to the user.
    #[serde(default)]
    pub options: Vec<String>,
}

/// `plan_mode_respond`: a read-only planning reply; the user's answer is the tool result.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlanModeRespond;

#[async_trait]
impl TypedTool for PlanModeRespond {
    type Args = PlanModeRespondArgs;

    fn name(&self) -> &'static str {
        PLAN_MODE_RESPOND
    }

    fn description(&self) -> &'static str {
        "While planning, reply to the user without changing anything: explain your analysis or proposed approach and optionally offer choices. The user's answer comes back as the result."
    }

    async fn run(&self, _ctx: &ToolContext, args: PlanModeRespondArgs) -> ToolResult {
        ToolResult::error(format!(
            "Cannot deliver the planning reply ({} characters): no one can answer here (only an agent session can).",
            args.response.chars().count()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keel_tools::Tool;

    #[test]
    fn plans_are_numbered_and_validated() {
        let args: CreatePlanArgs = parse_args(
            CREATE_PLAN,
            &serde_json::json!({"goal": "g", "estimated_complexity": "low", "steps": [
                {"index": 7, "title": "a", "description": "x"},
                {"title": "b", "description": "y", "expected_tools": ["read_file"]}
            ]}),
        )
        .unwrap();
        let plan = args.into_plan().unwrap();
        assert_eq!(
            plan.steps.iter().map(|s| s.index).collect::<Vec<_>>(),
            [1, 2]
        );
        let empty: CreatePlanArgs = parse_args(
            CREATE_PLAN,
            &serde_json::json!({"goal": "g", "estimated_complexity": "low", "steps": []}),
        )
        .unwrap();
        assert!(empty.into_plan().is_err());
        let bad = parse_args::<CreatePlanArgs>(CREATE_PLAN, &serde_json::json!({"goal": 1}));
        assert!(
            bad.unwrap_err()
                .contains("Invalid arguments for create_plan")
        );
    }

    #[test]
    fn schemas_are_generated() {
        let schema = Tool::parameters(&CreatePlan);
        assert_eq!(
            schema["required"],
            serde_json::json!(["goal", "steps", "estimated_complexity"])
        );
        assert!(schema["properties"]["steps"]["items"]["properties"]["title"].is_object());
        assert!(is_control_tool("attempt_completion") && !is_control_tool("read_file"));
    }
}
