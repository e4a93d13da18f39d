//! proptest strategies for every catalogue payload, one per `EventKind` variant.

use keel_events::*;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use serde_json::{Map, Value};

/// Any string, including control characters, quotes and non-BMP unicode.
pub fn text() -> impl Strategy<Value = String> + Clone {
    any::<String>()
}

fn opt_text() -> impl Strategy<Value = Option<String>> + Clone {
    option::of(text())
}

fn texts() -> impl Strategy<Value = Vec<String>> + Clone {
    vec(text(), 0..4)
}

/// Free-form JSON without floats (serde_json does not promise exact float round trips without
/// its `float_roundtrip` feature).
pub fn json_value() -> impl Strategy<Value = Value> + Clone {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((text(), inner), 0..4)
                .prop_map(|entries| Value::Object(entries.into_iter().collect())),
        ]
    })
}

/// A JSON value that is not `null` (an `Option<Value>` field holding `Some(null)` is written as
/// `null` and read back as `None`).
fn present_json() -> impl Strategy<Value = Value> + Clone {
    json_value().prop_filter("not null", |v| !v.is_null())
}

fn json_map() -> impl Strategy<Value = Map<String, Value>> + Clone {
    vec((text(), json_value()), 0..4).prop_map(|entries| entries.into_iter().collect())
}

fn usage() -> impl Strategy<Value = Usage> + Clone {
    (
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        option::of(any::<u64>()),
    )
        .prop_map(
            |(prompt_tokens, completion_tokens, total_tokens, cached_tokens)| Usage {
                prompt_tokens,
                completion_tokens,
                total_tokens,
                cached_tokens,
            },
        )
}

fn progress() -> impl Strategy<Value = Progress> + Clone {
    (any::<u32>(), any::<u32>()).prop_map(|(current, total)| Progress { current, total })
}

fn plan() -> impl Strategy<Value = Plan> + Clone {
    let step = (any::<u32>(), text(), text(), texts()).prop_map(
        |(index, title, description, expected_tools)| PlanStep {
            index,
            title,
            description,
            expected_tools,
        },
    );
    let complexity = prop_oneof![
        Just(Complexity::Low),
        Just(Complexity::Medium),
        Just(Complexity::High)
    ];
    (text(), vec(step, 0..4), complexity).prop_map(|(goal, steps, estimated_complexity)| Plan {
        goal,
        steps,
        estimated_complexity,
    })
}

fn mode() -> impl Strategy<Value = ResponseMode> + Clone {
    prop_oneof![Just(ResponseMode::Direct), Just(ResponseMode::Plan)]
}

fn approval_kind() -> impl Strategy<Value = ApprovalKind> + Clone {
    prop_oneof![
        Just(ApprovalKind::Plan),
        Just(ApprovalKind::Command),
        Just(ApprovalKind::Tool)
    ]
}

fn status_kind() -> impl Strategy<Value = StatusKind> + Clone {
    prop_oneof![
        Just(StatusKind::WaitingForModel),
        Just(StatusKind::WaitingForApproval),
        Just(StatusKind::WaitingForAnswer),
        Just(StatusKind::Indexing),
    ]
}

fn file_op() -> impl Strategy<Value = FileOp> + Clone {
    prop_oneof![
        Just(FileOp::Create),
        Just(FileOp::Update),
        Just(FileOp::Delete),
        Just(FileOp::Move)
    ]
}

fn kind<P: Into<EventKind> + std::fmt::Debug + 'static>(
    strategy: impl Strategy<Value = P> + 'static,
) -> BoxedStrategy<EventKind> {
    strategy.prop_map(Into::into).boxed()
}

/// One strategy per catalogue entry, named by its type string, in catalogue order.
pub fn kind_strategies() -> Vec<(&'static str, BoxedStrategy<EventKind>)> {
    vec![
        (
            "agent.start",
            kind(
                (
                    text(),
                    text(),
                    option::of(prop_oneof![
                        Just(ModeHint::Auto),
                        Just(ModeHint::Direct),
                        Just(ModeHint::Plan)
                    ]),
                    option::of(vec(
                        (text(), text(), any::<u32>()).prop_map(|(name, media_type, size)| {
                            ImageInfo {
                                name,
                                media_type,
                                size: u64::from(size),
                            }
                        }),
                        0..3,
                    )),
                )
                    .prop_map(|(agent_name, task_input, mode_hint, images)| {
                        AgentStart {
                            agent_name,
                            task_input,
                            mode_hint,
                            images,
                        }
                    }),
            ),
        ),
        (
            "agent.end",
            kind(
                (
                    prop_oneof![
                        Just(AgentStatus::Completed),
                        Just(AgentStatus::Failed),
                        Just(AgentStatus::Cancelled),
                        Just(AgentStatus::MaxIterations)
                    ],
                    text(),
                    texts(),
                    usage(),
                    opt_text(),
                )
                    .prop_map(|(status, result, files_changed, usage, warning)| {
                        AgentEnd {
                            status,
                            result,
                            files_changed,
                            usage,
                            warning,
                        }
                    }),
            ),
        ),
        (
            "prepare.model.select",
            kind((text(), text(), any::<bool>(), opt_text()).prop_map(
                |(requested_model, final_model, is_fallback, reason)| PrepareModelSelect {
                    requested_model,
                    final_model,
                    is_fallback,
                    reason,
                },
            )),
        ),
        (
            "prepare.conversation.open",
            kind(
                (
                    text(),
                    prop_oneof![
                        Just(ConversationAction::New),
                        Just(ConversationAction::Resume)
                    ],
                )
                    .prop_map(|(conversation_id, action)| {
                        PrepareConversationOpen {
                            conversation_id,
                            action,
                        }
                    }),
            ),
        ),
        (
            "prepare.history.load",
            kind((any::<u64>(), any::<u64>(), any::<u64>()).prop_map(
                |(start_turn, action_history_len, pending_tool_count)| PrepareHistoryLoad {
                    start_turn,
                    action_history_len,
                    pending_tool_count,
                },
            )),
        ),
        (
            "prepare.repomap.build",
            kind(
                (
                    any::<u64>(),
                    any::<u64>(),
                    any::<u64>(),
                    any::<u64>(),
                    any::<bool>(),
                )
                    .prop_map(|(files, symbols, tokens, duration_ms, cached)| {
                        PrepareRepomapBuild {
                            files,
                            symbols,
                            tokens,
                            duration_ms,
                            cached,
                        }
                    }),
            ),
        ),
        (
            "prepare.instructions.load",
            kind(
                (
                    vec(
                        (
                            text(),
                            prop_oneof![
                                Just(InstructionsScope::User),
                                Just(InstructionsScope::Project),
                                Just(InstructionsScope::Nested),
                            ],
                            any::<u64>(),
                            any::<bool>(),
                        )
                            .prop_map(
                                |(path, scope, tokens, truncated)| InstructionsFile {
                                    path,
                                    scope,
                                    tokens,
                                    truncated,
                                },
                            ),
                        0..4,
                    ),
                    any::<u64>(),
                    any::<u64>(),
                )
                    .prop_map(|(files, total_tokens, max_tokens)| {
                        PrepareInstructionsLoad {
                            files,
                            total_tokens,
                            max_tokens,
                        }
                    }),
            ),
        ),
        (
            "run.response.start",
            kind(mode().prop_map(|mode| RunResponseStart { mode })),
        ),
        (
            "run.response.end",
            kind(mode().prop_map(|mode| RunResponseEnd { mode })),
        ),
        (
            "run.llm.start",
            kind((text(), any::<u32>(), any::<u32>(), opt_text()).prop_map(
                |(model, iteration, message_count, system_prompt)| RunLlmStart {
                    model,
                    iteration,
                    message_count,
                    system_prompt,
                },
            )),
        ),
        (
            "run.llm.delta",
            kind(text().prop_map(|text| RunLlmDelta { text })),
        ),
        (
            "run.llm.end",
            kind(
                (
                    text(),
                    vec(
                        (text(), text(), json_value()).prop_map(|(id, name, arguments)| ToolCall {
                            id,
                            name,
                            arguments,
                        }),
                        0..3,
                    ),
                    prop_oneof![
                        Just(FinishReason::Stop),
                        Just(FinishReason::ToolCalls),
                        Just(FinishReason::Length),
                        Just(FinishReason::ContentFilter),
                        Just(FinishReason::Truncated),
                        Just(FinishReason::Cancelled),
                        Just(FinishReason::Other)
                    ],
                    option::of(usage()),
                )
                    .prop_map(|(llm_output, tool_calls, finish_reason, usage)| {
                        RunLlmEnd {
                            llm_output,
                            tool_calls,
                            finish_reason,
                            usage,
                        }
                    }),
            ),
        ),
        (
            "run.llm.retry",
            kind((any::<u32>(), any::<u32>(), any::<u64>(), text()).prop_map(
                |(attempt, max_attempts, delay_ms, error)| RunLlmRetry {
                    attempt,
                    max_attempts,
                    delay_ms,
                    error,
                },
            )),
        ),
        (
            "run.thinking.start",
            kind((text(), any::<bool>(), any::<bool>()).prop_map(
                |(agent_name, is_initial, is_forced)| RunThinkingStart {
                    agent_name,
                    is_initial,
                    is_forced,
                },
            )),
        ),
        (
            "run.thinking.delta",
            kind(
                (text(), text())
                    .prop_map(|(agent_name, text)| RunThinkingDelta { agent_name, text }),
            ),
        ),
        (
            "run.thinking.end",
            kind(
                (text(), text())
                    .prop_map(|(agent_name, result)| RunThinkingEnd { agent_name, result }),
            ),
        ),
        (
            "run.thinking.fail",
            kind(
                (text(), text()).prop_map(|(agent_name, error_message)| RunThinkingFail {
                    agent_name,
                    error_message,
                }),
            ),
        ),
        (
            "run.tool.start",
            kind(
                (text(), text(), json_value(), option::of(any::<u32>())).prop_map(
                    |(call_id, tool_name, arguments, step_id)| RunToolStart {
                        call_id,
                        tool_name,
                        arguments,
                        step_id,
                        mcp_server: None,
                    },
                ),
            ),
        ),
        (
            "run.tool.output",
            kind(
                (
                    text(),
                    prop_oneof![Just(OutputStream::Stdout), Just(OutputStream::Stderr)],
                    text(),
                )
                    .prop_map(|(call_id, stream, content)| RunToolOutput {
                        call_id,
                        stream,
                        content,
                    }),
            ),
        ),
        (
            "run.tool.end",
            kind(
                (
                    text(),
                    text(),
                    prop_oneof![
                        Just(ToolStatus::Success),
                        Just(ToolStatus::Error),
                        Just(ToolStatus::Denied),
                        Just(ToolStatus::Cancelled)
                    ],
                    text(),
                    any::<u64>(),
                    text(),
                    text(),
                    option::of(any::<u32>()),
                    opt_text(),
                    opt_text(),
                )
                    .prop_map(
                        |(
                            call_id,
                            tool_name,
                            status,
                            result,
                            duration_ms,
                            args_summary,
                            result_summary,
                            step_id,
                            from_path,
                            to_path,
                        )| RunToolEnd {
                            call_id,
                            tool_name,
                            status,
                            result,
                            duration_ms,
                            args_summary,
                            result_summary,
                            step_id,
                            from_path,
                            to_path,
                            mcp_server: None,
                            diagnostics: None,
                        },
                    ),
            ),
        ),
        (
            "run.approval.request",
            kind((text(), approval_kind(), text(), text()).prop_map(
                |(approval_id, kind, subject, reason)| RunApprovalRequest {
                    approval_id,
                    kind,
                    subject,
                    reason,
                    plan: None,
                },
            )),
        ),
        (
            "run.approval.resolve",
            kind(
                (
                    text(),
                    prop_oneof![
                        Just(ApprovalDecision::Approve),
                        Just(ApprovalDecision::Reject),
                        Just(ApprovalDecision::Modify)
                    ],
                    option::of(approval_kind()),
                    opt_text(),
                    option::of(present_json()),
                )
                    .prop_map(|(approval_id, decision, kind, reason, modified)| {
                        RunApprovalResolve {
                            approval_id,
                            decision,
                            kind,
                            reason,
                            modified,
                        }
                    }),
            ),
        ),
        (
            "run.plan.create",
            kind(plan().prop_map(|plan| RunPlanCreate { plan })),
        ),
        (
            "run.plan.modify",
            kind(plan().prop_map(|plan| RunPlanModify { plan })),
        ),
        (
            "run.plan.replan",
            kind((text(), text()).prop_map(|(message, reason)| RunPlanReplan { message, reason })),
        ),
        (
            "run.plan.complete",
            kind(
                (any::<bool>(), text(), texts()).prop_map(|(success, summary, files_changed)| {
                    RunPlanComplete {
                        success,
                        summary,
                        files_changed,
                    }
                }),
            ),
        ),
        (
            "run.plan.respond",
            kind(
                (text(), texts(), text()).prop_map(|(response, options, question_id)| {
                    RunPlanRespond {
                        response,
                        options,
                        question_id,
                    }
                }),
            ),
        ),
        (
            "run.execution.start",
            kind((plan(), text()).prop_map(|(plan, message)| RunExecutionStart { plan, message })),
        ),
        (
            "run.execution.end",
            kind(
                (plan(), text(), text()).prop_map(|(plan, message, summary)| RunExecutionEnd {
                    plan,
                    message,
                    summary,
                }),
            ),
        ),
        (
            "run.execution.fail",
            kind(
                (option::of(plan()), option::of(any::<u32>()), text(), text()).prop_map(
                    |(plan, step_id, error, message)| RunExecutionFail {
                        plan,
                        step_id,
                        error,
                        message,
                    },
                ),
            ),
        ),
        (
            "run.execution.cancel",
            kind(
                (text(), option::of(any::<u32>()))
                    .prop_map(|(message, step_id)| RunExecutionCancel { message, step_id }),
            ),
        ),
        (
            "run.step.start",
            kind((any::<u32>(), text(), text(), progress()).prop_map(
                |(step_id, title, description, progress)| RunStepStart {
                    step_id,
                    title,
                    description,
                    progress,
                },
            )),
        ),
        (
            "run.step.output",
            kind(
                (any::<u32>(), text())
                    .prop_map(|(step_id, content)| RunStepOutput { step_id, content }),
            ),
        ),
        (
            "run.step.end",
            kind((any::<u32>(), text(), texts(), progress()).prop_map(
                |(step_id, title, files_changed, progress)| RunStepEnd {
                    step_id,
                    title,
                    files_changed,
                    progress,
                },
            )),
        ),
        (
            "run.step.fail",
            kind((any::<u32>(), text(), text(), progress()).prop_map(
                |(step_id, title, error, progress)| RunStepFail {
                    step_id,
                    title,
                    error,
                    progress,
                },
            )),
        ),
        (
            "run.repair.attempt",
            kind(
                (
                    option::of(any::<u32>()),
                    any::<u32>(),
                    any::<u32>(),
                    text(),
                    opt_text(),
                    opt_text(),
                    opt_text(),
                    prop_oneof![
                        Just(RepairResult::Pending),
                        Just(RepairResult::Success),
                        Just(RepairResult::Failed)
                    ],
                )
                    .prop_map(
                        |(
                            step_id,
                            attempt_number,
                            max_attempts,
                            trigger,
                            error_type,
                            error_message,
                            suggestion,
                            result,
                        )| RunRepairAttempt {
                            step_id,
                            attempt_number,
                            max_attempts,
                            trigger,
                            error_type,
                            error_message,
                            suggestion,
                            result,
                        },
                    ),
            ),
        ),
        (
            "run.anomaly.detect",
            kind(
                (
                    option::of(any::<u32>()),
                    prop_oneof![
                        Just(AnomalyKind::RepeatedCall),
                        Just(AnomalyKind::ConsecutiveFailures),
                        Just(AnomalyKind::NoProgress)
                    ],
                    text(),
                )
                    .prop_map(|(step_id, anomaly, message)| RunAnomalyDetect {
                        step_id,
                        anomaly,
                        message,
                    }),
            ),
        ),
        (
            "run.file.change",
            kind(
                (
                    text(),
                    file_op(),
                    opt_text(),
                    opt_text(),
                    text(),
                    any::<u64>(),
                    any::<u64>(),
                    option::of(any::<u64>()),
                    opt_text(),
                    opt_text(),
                    option::of(any::<bool>()),
                )
                    .prop_map(
                        |(
                            path,
                            op,
                            from_path,
                            to_path,
                            summary,
                            lines_added,
                            lines_removed,
                            size,
                            mime_type,
                            diff,
                            staged,
                        )| RunFileChange {
                            path,
                            op,
                            from_path,
                            to_path,
                            summary,
                            lines_added,
                            lines_removed,
                            size,
                            mime_type,
                            diff,
                            staged,
                        },
                    ),
            ),
        ),
        (
            "run.context.compress",
            kind(
                (
                    any::<u64>(),
                    any::<u64>(),
                    text(),
                    option::of(prop_oneof![
                        Just(SummarizerKind::Model),
                        Just(SummarizerKind::Extractive),
                        Just(SummarizerKind::Other),
                    ]),
                    opt_text(),
                    option::of(usage()),
                )
                    .prop_map(
                        |(
                            original_tokens,
                            compressed_tokens,
                            summary,
                            summarizer,
                            fallback_reason,
                            usage,
                        )| RunContextCompress {
                            original_tokens,
                            compressed_tokens,
                            summary,
                            summarizer,
                            fallback_reason,
                            usage,
                        },
                    ),
            ),
        ),
        (
            "run.context.window",
            kind(
                (any::<u64>(), any::<u64>())
                    .prop_map(|(tokens_used, limit)| RunContextWindow { tokens_used, limit }),
            ),
        ),
        (
            "run.usage.report",
            kind(
                (
                    any::<u64>(),
                    any::<u64>(),
                    any::<u64>(),
                    option::of(any::<u64>()),
                    usage(),
                    opt_text(),
                    // Up to 15 significant digits: JSON text that parses back to the same f64.
                    option::of((0u64..1_000_000_000_000).prop_map(|n| n as f64 / 1e6)),
                    option::of(prop_oneof![
                        Just(CallPurpose::Turn),
                        Just(CallPurpose::Summary),
                        Just(CallPurpose::MemoryDistill),
                        Just(CallPurpose::CommitMessage),
                        Just(CallPurpose::PullRequest)
                    ]),
                )
                    .prop_map(
                        |(
                            prompt_tokens,
                            completion_tokens,
                            total_tokens,
                            cached_tokens,
                            cumulative,
                            model,
                            cost_usd,
                            purpose,
                        )| {
                            RunUsageReport {
                                prompt_tokens,
                                completion_tokens,
                                total_tokens,
                                cached_tokens,
                                cumulative,
                                model,
                                cost_usd,
                                purpose,
                            }
                        },
                    ),
            ),
        ),
        (
            "run.memory.update",
            kind(
                (
                    prop_oneof![Just(MemorySource::Remember), Just(MemorySource::Distill)],
                    proptest::collection::vec(
                        (
                            text(),
                            prop_oneof![
                                Just(MemoryKind::Fact),
                                Just(MemoryKind::Convention),
                                Just(MemoryKind::Decision)
                            ],
                            text(),
                            any::<bool>(),
                        )
                            .prop_map(|(id, kind, text, new)| {
                                MemoryRecord {
                                    id,
                                    kind,
                                    text,
                                    new,
                                }
                            }),
                        0..3,
                    ),
                    any::<u32>(),
                    any::<u32>(),
                )
                    .prop_map(|(source, entries, dropped, total)| {
                        RunMemoryUpdate {
                            source,
                            entries,
                            dropped,
                            total,
                        }
                    }),
            ),
        ),
        (
            "run.question.ask",
            kind(
                (text(), text(), texts()).prop_map(|(question_id, question, options)| {
                    RunQuestionAsk {
                        question_id,
                        question,
                        options,
                    }
                }),
            ),
        ),
        (
            "run.question.answer",
            kind(
                (text(), text()).prop_map(|(question_id, answer)| RunQuestionAnswer {
                    question_id,
                    answer,
                }),
            ),
        ),
        (
            "run.completion.attempt",
            kind(
                (text(), opt_text())
                    .prop_map(|(result, command)| RunCompletionAttempt { result, command }),
            ),
        ),
        (
            "run.checkpoint.rewind",
            kind(
                (
                    text(),
                    prop_oneof![
                        Just(RewindScope::Files),
                        Just(RewindScope::Conversation),
                        Just(RewindScope::Both),
                    ],
                    texts(),
                    any::<u64>(),
                    any::<u64>(),
                    option::of(any::<u64>()),
                    texts(),
                    texts(),
                )
                    .prop_map(
                        |(
                            checkpoint_id,
                            scope,
                            turn_ids,
                            from_seq,
                            to_seq,
                            messages,
                            files_restored,
                            files_removed,
                        )| RunCheckpointRewind {
                            checkpoint_id,
                            scope,
                            turn_ids,
                            from_seq,
                            to_seq,
                            messages,
                            files_restored,
                            files_removed,
                        },
                    ),
            ),
        ),
        (
            "run.hook.start",
            kind((text(), text(), opt_text(), opt_text(), text()).prop_map(
                |(hook_event, command, matcher, call_id, source)| RunHookStart {
                    hook_event,
                    command,
                    matcher,
                    call_id,
                    source,
                },
            )),
        ),
        (
            "run.hook.end",
            kind(
                (
                    (text(), text(), opt_text(), opt_text()),
                    prop_oneof![
                        Just(HookDecision::Continue),
                        Just(HookDecision::Allow),
                        Just(HookDecision::Ask),
                        Just(HookDecision::Block),
                    ],
                    opt_text(),
                    any::<bool>(),
                    option::of(any::<i32>()),
                    any::<u64>(),
                    opt_text(),
                )
                    .prop_map(
                        |(
                            (hook_event, command, matcher, call_id),
                            decision,
                            reason,
                            updated_input,
                            exit_code,
                            duration_ms,
                            error,
                        )| RunHookEnd {
                            hook_event,
                            command,
                            matcher,
                            call_id,
                            decision,
                            reason,
                            updated_input,
                            exit_code,
                            duration_ms,
                            error,
                        },
                    ),
            ),
        ),
        (
            "run.subagent.start",
            kind((text(), text(), text(), any::<u32>(), text()).prop_map(
                |(call_id, subagent_type, description, depth, model)| RunSubagentStart {
                    call_id,
                    subagent_type,
                    description,
                    depth,
                    model,
                },
            )),
        ),
        (
            "run.subagent.end",
            kind(
                (
                    (text(), text()),
                    prop_oneof![
                        Just(AgentStatus::Completed),
                        Just(AgentStatus::Failed),
                        Just(AgentStatus::Cancelled),
                        Just(AgentStatus::MaxIterations)
                    ],
                    any::<u64>(),
                    any::<u32>(),
                    usage(),
                    // Up to 15 significant digits: JSON text that parses back to the same f64.
                    option::of((0u64..1_000_000_000_000).prop_map(|n| n as f64 / 1e6)),
                    any::<u64>(),
                )
                    .prop_map(
                        |(
                            (call_id, subagent_type),
                            status,
                            report_chars,
                            iterations,
                            usage,
                            cost_usd,
                            duration_ms,
                        )| RunSubagentEnd {
                            call_id,
                            subagent_type,
                            status,
                            report_chars,
                            iterations,
                            usage,
                            cost_usd,
                            duration_ms,
                        },
                    ),
            ),
        ),
        (
            "exec.file.start",
            kind(
                (text(), text(), texts()).prop_map(|(run_id, file, command)| ExecFileStart {
                    run_id,
                    file,
                    command,
                }),
            ),
        ),
        (
            "exec.file.stdout",
            kind((text(), text()).prop_map(|(run_id, content)| ExecFileStdout { run_id, content })),
        ),
        (
            "exec.file.stderr",
            kind((text(), text()).prop_map(|(run_id, content)| ExecFileStderr { run_id, content })),
        ),
        (
            "exec.file.exit",
            kind(
                (
                    text(),
                    text(),
                    option::of(any::<i32>()),
                    any::<u64>(),
                    any::<bool>(),
                )
                    .prop_map(
                        |(run_id, file, exit_code, duration_ms, timed_out)| ExecFileExit {
                            run_id,
                            file,
                            exit_code,
                            duration_ms,
                            timed_out,
                        },
                    ),
            ),
        ),
        (
            "system.status",
            kind(
                (text(), option::of(status_kind()))
                    .prop_map(|(message, kind)| SystemStatus { message, kind }),
            ),
        ),
        (
            "system.log",
            kind(
                (
                    prop_oneof![
                        Just(LogLevel::Debug),
                        Just(LogLevel::Info),
                        Just(LogLevel::Warn),
                        Just(LogLevel::Error)
                    ],
                    text(),
                    option::of(json_map()),
                )
                    .prop_map(|(level, message, metadata)| SystemLog {
                        level,
                        message,
                        metadata,
                    }),
            ),
        ),
        (
            "system.error",
            kind(
                (text(), text(), any::<bool>(), opt_text(), opt_text()).prop_map(
                    |(error, error_type, recoverable, stack, error_display)| SystemError {
                        error,
                        error_type,
                        recoverable,
                        stack,
                        error_display,
                    },
                ),
            ),
        ),
        (
            "system.cli_display",
            kind(
                (
                    text(),
                    prop_oneof![
                        Just(DisplayStyle::Info),
                        Just(DisplayStyle::Warning),
                        Just(DisplayStyle::Success),
                        Just(DisplayStyle::Error)
                    ],
                )
                    .prop_map(|(message, style)| SystemCliDisplay { message, style }),
            ),
        ),
    ]
}

/// Any catalogue payload, every variant equally likely.
pub fn any_kind() -> impl Strategy<Value = EventKind> {
    proptest::strategy::Union::new(kind_strategies().into_iter().map(|(_, s)| s))
}

/// A whole event with an arbitrary envelope (millisecond timestamps, as on the wire).
pub fn any_event() -> impl Strategy<Value = Event> {
    (
        any::<u128>(),
        any::<u64>(),
        // 1970 .. 2100, in milliseconds.
        0i64..4_102_444_800_000,
        text(),
        opt_text(),
        opt_text(),
        text(),
        any_kind(),
    )
        .prop_map(
            |(id, seq, millis, session_id, turn_id, parent_call_id, project_id, kind)| Event {
                id: uuid::Uuid::from_u128(id),
                seq,
                ts: chrono::DateTime::from_timestamp_millis(millis).unwrap_or_default(),
                session_id,
                turn_id,
                parent_call_id,
                project_id,
                kind,
            },
        )
}
