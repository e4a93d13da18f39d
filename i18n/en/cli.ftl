# The terminal's own words (`keel run`, `keel chat`, `keel replay`): the renderer's lines and
# the prompts. Counts come twice: `$count` (a number, picks the plural form) and `$n` (the same
# number written with thousands separators).

## The task and its end (agent.*)
mode-plan = (plan mode)
mode-direct = (direct mode)
end-completed = ✓ completed
end-failed = ✗ failed: { $reason }
end-cancelled = ⊘ cancelled
end-max-iterations = ⚠ stopped: the iteration limit was reached
files-changed = { $count ->
    [one] { $n } file changed
   *[other] { $n } files changed
}
usage-tokens = { $total } tokens ({ $prompt } in, { $completion } out)
usage-tokens-cached = { $total } tokens ({ $prompt } in, { $completion } out, { $cached } cached)

## Preparation notes (prepare.*)
model-selected = model { $model }
model-fallback = ⚠ model { $model } (fallback from { $requested })
model-fallback-reason = ⚠ model { $model } (fallback from { $requested }: { $reason })
conversation-new = new conversation { $id }
conversation-resumed = resumed conversation { $id }
history-loaded = history: { $count ->
    [one] { $n } message
   *[other] { $n } messages
} · turn { $turn }
history-pending = { $count ->
    [one] { $n } tool call pending
   *[other] { $n } tool calls pending
}
instructions-none = instructions: none
instructions-files = instructions: { $files }
instructions-file = { $path } ({ $tokens } tokens)
instructions-file-cut = { $path } ({ $tokens } tokens, cut)
repomap-built = repo map: { $files } files, { $symbols } symbols, { $tokens } tokens ({ $duration })
repomap-built-cached = repo map: { $files } files, { $symbols } symbols, { $tokens } tokens ({ $duration }, cached)

## The model (run.llm.*, run.usage.report, run.context.*)
finish-length = ⚠ the answer was cut off at the output token limit
finish-content-filter = ⚠ the provider filtered the answer
finish-truncated = ⚠ the response stream ended early
finish-cancelled = ⊘ the response was cancelled
llm-retry = ↻ model call failed (attempt { $attempt }/{ $max }): { $error } — retrying in { $delay }
thinking = ✻ thinking
thinking-collapsed = ✻ thinking…
thinking-failed = ⚠ thinking failed: { $error }
usage-call = tokens: { $prompt } in, { $completion } out{ $cached }{ $cost } · session { $session }
usage-call-cached = , { $cached } cached
# A session-level model call (the memory distillation), made after the turn ended.
usage-session-call = { $purpose ->
    [commit_message] commit message
    [pull_request] pull request text
   *[other] memory distillation
} (the session's, not a turn's) · tokens: { $prompt } in, { $completion } out{ $cached }{ $cost } · session { $session }
context-window = context: { $used } / { $limit } tokens ({ $percent }%)
context-compressed = context compressed: { $from } → { $to } tokens

## Tool calls (run.tool.*)
call-denied = { " " }denied
call-cancelled = { " " }cancelled
call-no-result = { " " }— no result
diagnostics-more = … and { $n } more
diagnostics-elsewhere = other files: { $after } errors and warnings ({ $before } before)
diagnostics-late = the language server did not answer in time

## Approvals and questions (run.approval.*, run.question.*)
approval-needed-command = ? approval needed for command:{ " " }
approval-needed-plan = ? approval needed for plan:{ " " }
approval-needed-tool = ? approval needed for tool call:{ " " }
approval-approved = ✓ approved
approval-approved-reason = ✓ approved: { $reason }
approval-rejected = ✗ rejected
approval-rejected-reason = ✗ rejected: { $reason }
approval-modified = ✎ approved with changes
approval-modified-reason = ✎ approved with changes: { $reason }
result = ✓ result

## Waiting (the spinner)
waiting-model = waiting for the model…
waiting-thinking = thinking…

## Errors (system.error)
error-line = ✗ error [{ $kind }]: { $message }
error-recoverable = { " " }(recoverable)

## Prompts (the person at the terminal answers them)
prompt-approve-command = ? Approve command: { $subject }
prompt-approve-plan = ? Approve plan: { $subject }
prompt-approve-tool = ? Approve tool call: { $subject }
prompt-choices-edit = [y]es [n]o [a]lways [e]dit ›{ " " }
prompt-choices = [y]es [n]o [a]lways ›{ " " }
prompt-hint-edit = answer y, n (reason), a, or e NEW COMMAND ›{ " " }
prompt-hint = answer y, n (reason) or a ›{ " " }
prompt-hint-edit-needs-command = type e followed by the new command line ›{ " " }
prompt-answer = ›{ " " }
prompt-planning = (planning)
prompt-options = options: { $options }

## Plans, steps, repairs (run.plan.*, run.execution.*, run.step.*, run.repair.*, run.anomaly.*)
plan-created = Plan:{ " " }
plan-updated = Plan updated:{ " " }
plan-meta = { " " }· { $count ->
    [one] { $n } step
   *[other] { $n } steps
} · complexity { $complexity }
complexity-low = low
complexity-medium = medium
complexity-high = high
plan-step-tools = tools: { $tools }
plan-replan = ⚠ replan: { $message }
plan-replan-reason = reason: { $reason }
plan-complete = ✓ plan complete
plan-failed = ✗ plan failed
at-step = { " " }at step { $step }
execution-failed = ✗ execution failed{ $step }: { $error }
repair-attempt = ↻ repair { $attempt }/{ $max }
repair-fixed = { " " }✓ fixed
repair-not-fixed = { " " }✗ not fixed
anomaly = ⚠ anomaly ({ $kind }): { $message }
anomaly-repeated-call = repeated call
anomaly-consecutive-failures = consecutive failures
anomaly-no-progress = no progress

## File runs (exec.file.*)
exec-timed-out = ✗ { $file } timed out after { $duration }
exec-exited-ok = ✓ { $file } exited with { $code } ({ $duration })
exec-exited = ✗ { $file } exited with { $code } ({ $duration })
exec-signalled = ✗ { $file } was ended by a signal ({ $duration })

## Memory (run.memory.update)
memory-remembered = remembered
memory-distilled = memory distilled
memory-nothing-new = { $source }: nothing new to keep
memory-kept = { $source }: { $new } new, { $known } known
memory-dropped = , { $dropped } dropped
memory-total = { " " }· { $count ->
    [one] { $n } entry
   *[other] { $n } entries
} in memory

## Verbose detail (run.response.start, run.llm.start, run.file.change)
response-direct = — direct mode —
response-plan = — plan mode —
llm-call = → { $model } · iteration { $iteration } · { $count ->
    [one] { $n } message
   *[other] { $n } messages
}
system-prompt = system prompt ({ $count ->
    [one] { $n } character
   *[other] { $n } characters
}):
system-prompt-unchanged = system prompt unchanged ({ $count ->
    [one] { $n } character
   *[other] { $n } characters
})
diff-more = … { $n } more diff { $count ->
    [one] line
   *[other] lines
} (--verbose shows them)
checkpoint-rewound = rewound to before checkpoint { $checkpoint } ({ $scope }): { $n } { $count ->
    [one] turn
   *[other] turns
} undone (events { $from }–{ $to } kept)
checkpoint-restored = { "  " }restored { $path }
checkpoint-removed = { "  " }removed { $path }
hook-start = ↪ hook { $event }: { $command }
hook-end = ↪ hook { $event } { $decision }: { $command } ({ $duration })
hook-reason = { "  " }{ $reason }
hook-decision-continue = ran
hook-decision-allow = allowed
hook-decision-ask = asks for approval
hook-decision-block = blocked
subagent-start = ⤷ subagent { $kind }: { $description }
subagent-end = ⤶ subagent { $kind } { $status } ({ $tokens } tokens, { $duration })
subagent-status-completed = done
subagent-status-failed = failed
subagent-status-cancelled = cancelled
subagent-status-max-iterations = stopped at the iteration limit

## Lists, plans run step by step, context summaries, display lag
list-separator = { ", " }
plan-summary = : { $summary }
execution-start = ▶ Executing { $count ->
    [one] { $n } step
   *[other] { $n } steps
}: { $goal }
execution-end = ✓ All steps done: { $goal }
execution-cancelled = ⊘ Execution cancelled{ $step }
context-summary-model = , summary by the model
context-summary-extractive = , extractive summary
context-summary-extractive-failed = , extractive summary (the model's failed: { $reason })
tool-output-of = ▸ output of { $call }
events-skipped = ⚠ { $count ->
    [one] { $n } event
   *[other] { $n } events
} after #{ $seq } skipped (the display fell behind)
rewind-scope-files = files
rewind-scope-conversation = conversation
rewind-scope-both = files and conversation

## The session around the turns (notices of keel run, keel chat, keel sessions resume)
session-id = session { $id }
session-chat = session { $id } (type /exit or press Ctrl-D to leave)
chat-help-title = Commands:
chat-help-help = list the commands
chat-help-exit = leave the chat (Ctrl-D too)
chat-command-unknown = unknown command /{ $name }: type /help for the list
chat-command-failed = /{ $name } not run: { $error }
chat-image-attached = attached { $name } ({ $kind }, { $size } bytes)
chat-image-refused = not sent: { $error }
command-override-skipped = not applied in this turn: { $problem }
turn-cancelling = cancelling the turn (Ctrl-C again to quit)
turn-interrupted = interrupted
memory-interrupted = memory not distilled: interrupted
notice-warning = warning: { $message }
