# The Activity Timeline page's own strings (web/). Tool action text is in tools.ftl.
page-title = Keel · Activity Timeline
language-label = Language
sign-out = Sign out
sessions-label = Sessions
session-label = Session
empty-hint = Start a task, or pick a session on the left.
auth-refused = The server refused the token. Enter a valid one.
loading = Loading…
cancel = Cancel
run-running = running
run-idle = idle
connection-connecting = connecting
connection-live = ● live
connection-reconnecting = reconnecting
connection-error = error
notice-files-truncated = The file list is truncated (5,000 files at most).
notice-reload = Older events are no longer stored ({ $reason }); showing the history from event { $seq }.
result-heading = Result
followup-label = Follow-up request
followup-wait = Wait for the current turn to end…
followup-placeholder = Ask a follow-up in this session
followup-send = Send

approval-heading = Approval needed: { $kind }
approval-reason = Reason (optional)
approval-approve = Approve
approval-reject = Reject
approval-edit-plan = Edit plan…

plan-heading = Plan: { $goal }
plan-status-proposed = proposed
plan-status-running = running
plan-status-done = done
plan-status-failed = failed
plan-status-cancelled = cancelled
plan-progress-label = { $done } of { $total } steps done
plan-progress-step = step { $current }/{ $total }
plan-progress-steps = { $total } steps
plan-progress-done = { $done } done
step-status-pending = pending
step-status-running = running
step-status-done = done
step-status-failed = failed

plan-edit-heading = Edit the plan
plan-edit-goal = Goal
plan-edit-step-title = Step { $n } title
plan-edit-step-description = Step { $n } description
plan-edit-up = Move step { $n } up
plan-edit-down = Move step { $n } down
plan-edit-delete = Delete step { $n }
plan-edit-delete-short = Delete
plan-edit-add = Add a step
plan-edit-submit = Approve the changed plan
plan-edit-cancel = Stop editing
plan-edit-error-goal = The plan needs a goal.
plan-edit-error-no-steps = The plan needs at least one step.
plan-edit-error-title = Every step needs a title.

question-heading = The agent asks
question-answer-label = Your answer
question-submit = Answer

thinking-heading = Thinking
thinking-summary = { $agent } thought
thinking-summary-live = { $agent } is thinking…

outputs-heading = Command output
outputs-none = (no output yet)
tool-status-running = running
tool-status-success = done
tool-status-error = failed
tool-status-denied = denied
tool-status-cancelled = cancelled

changes-heading = Changes
changes-diff-label = Diff of { $path }
changes-no-diff = No diff recorded.
file-op-create = created
file-op-update = updated
file-op-delete = deleted
file-op-move = moved

file-runs-heading = File runs
file-run-running = running…
file-run-exited = exit code { $code } after { $ms } ms
file-run-timed-out = timed out after { $ms } ms

usage-heading = Usage
usage-tokens = Tokens: { $total } ({ $prompt } in, { $completion } out)
usage-cost = cost ${ $cost }
usage-session-calls = Outside the turns (memory distillation, commit messages, pull requests; { $calls ->
    [one] one call
   *[other] { $calls } calls
}): { $prompt } in, { $completion } out
context-window = Context window: { $used } of { $limit } tokens
repomap-built = Repo map built: { $files } files, { $symbols } symbols, { $tokens } tokens in { $ms } ms
repomap-cached = Repo map (cached): { $files } files, { $symbols } symbols, { $tokens } tokens

files-heading = Files
files-selected = Selected:
files-tree-label = Project files
files-run-label = Run { $path }

rules-heading = Permission rules
rules-refresh = Refresh
rules-empty = No rules: every action that needs approval asks.
rules-revoke = Revoke
rules-revoke-label = Revoke the rule { $rule }
rules-scope-project = project
rules-scope-user = user

task-heading = New task
task-project = Project
task-mode = Mode
task-root = Root folder
task-task = Task
task-placeholder = What should the agent do? (Ctrl+Enter starts it)
task-starting = Starting…
task-start = Start task
sessions-empty = No sessions yet.
token-needed = This page needs the server's access token (or open it with #token=…).
token-label = Access token
token-continue = Continue
timeline-heading = Activity
timeline-count = ({ $count } shown, newest last)
timeline-empty = Waiting for events…
timeline-label = Agent activity
checkpoints-heading = Checkpoints
checkpoints-empty = No checkpoints yet: one is made before each turn.
checkpoints-before-turn = Before turn { $n }
checkpoints-files = { $count ->
    [one] { $count } file
   *[other] { $count } files
}
checkpoints-rewind = Rewind
checkpoints-rewind-label = Rewind files and history to before turn { $n }
checkpoints-fork = Fork
checkpoints-fork-label = Fork a new session from before turn { $n }
checkpoints-rewound = Rewound: { $turns ->
    [one] { $turns } turn
   *[other] { $turns } turns
} undone, { $files ->
    [one] { $files } file
   *[other] { $files } files
} restored.

# Words for values the server sends as codes.
approval-kind-command = command
approval-kind-plan = plan
approval-kind-tool = tool call
mode-auto = auto
mode-direct = direct
mode-plan = plan
session-status-idle = idle
session-status-running = running
session-status-completed = completed
session-status-failed = failed
session-status-cancelled = cancelled
waiting-waiting_for_model = waiting for the model
waiting-waiting_for_approval = waiting for approval
waiting-waiting_for_answer = waiting for an answer
waiting-indexing = indexing
task-missing = Project, root folder and task are all needed.
task-root-placeholder = /path/to/project

# Timeline rows: what the records say, from the events they came from.
phase-planner = Planner
phase-coder = Coder
phase-reviewer = Reviewer
phase-debugger = Debugger
phase-enter = started
phase-exit = finished
timeline-op-create = Created
timeline-op-update = Updated
timeline-op-delete = Deleted
timeline-op-move = Moved
timeline-move-to = to
timeline-mcp = MCP · { $server }
timeline-tool-failed = ✗ failed
timeline-duration = { $ms } ms
diagnostics-heading = Diagnostics after the edit ({ $servers })
diagnostics-more = … and { $n } more
diagnostics-elsewhere = other files: { $after } errors and warnings ({ $before } before)
diagnostics-late = the language server did not answer in time
timeline-size = { $size } B
timeline-repair = Self-repair attempt
repair-result-pending = pending
repair-result-success = fixed
repair-result-failed = not fixed
timeline-fix = Fix: { $suggestion }
timeline-error = Error
timeline-error-type = ({ $type })
timeline-error-type-recoverable = ({ $type }, recoverable)
timeline-plan-summary = { $goal } ({ $count ->
    [one] { $count } step
   *[other] { $count } steps
})
timeline-repair-summary = Repair attempt { $attempt }/{ $max }: { $trigger }
timeline-step-start = Step { $current }/{ $total }: { $title }
timeline-step-done = Step { $current }/{ $total } done: { $title }
timeline-step-failed = Step { $current }/{ $total } failed: { $title }: { $error }
timeline-task-started = Task started: { $task }
timeline-task-started-images = Task started: { $task } (images: { $images })
timeline-task-completed = Task completed: { $result }
timeline-task-failed = Task failed: { $result }
timeline-task-cancelled = Task cancelled: { $result }
timeline-task-max_iterations = Task stopped at the iteration limit: { $result }
timeline-subagent-started = Subagent { $kind } started: { $description }
timeline-subagent-completed = Subagent { $kind } completed: { $tokens } tokens
timeline-subagent-failed = Subagent { $kind } failed: { $tokens } tokens
timeline-subagent-cancelled = Subagent { $kind } cancelled: { $tokens } tokens
timeline-subagent-max_iterations = Subagent { $kind } stopped at the iteration limit: { $tokens } tokens
timeline-fallback = Using fallback model { $model } instead of { $requested }
timeline-fallback-reason = Using fallback model { $model } instead of { $requested }: { $reason }
timeline-plan-modified = Plan modified: { $goal }
timeline-llm-retry = Model call failed (attempt { $attempt }/{ $max }), retrying in { $ms } ms: { $error }
timeline-thinking-failed = Reasoning failed: { $error }
timeline-approval-request = Waiting for approval: { $subject }
timeline-approval-approve = Approved
timeline-approval-reject = Rejected
timeline-approval-modify = Approved with changes
timeline-context-compressed = Context compressed from { $from } to { $to } tokens
timeline-memory-remember = Memory updated (remembered): { $count ->
    [one] { $count } entry
   *[other] { $count } entries
}
timeline-memory-distill = Memory updated (distilled): { $count ->
    [one] { $count } entry
   *[other] { $count } entries
}
timeline-rewound = Rewound { $checkpoint } ({ $scope }): { $count ->
    [one] { $count } turn
   *[other] { $count } turns
} undone
timeline-hook-continue = Hook { $event } ran: { $command }
timeline-hook-allow = Hook { $event } allowed the call: { $command }
timeline-hook-ask = Hook { $event } asks for approval: { $command }
timeline-hook-block = Hook { $event } blocked: { $command }
timeline-hook-failed = Hook { $event } failed: { $command } ({ $error })
rewind-scope-files = files
rewind-scope-conversation = conversation
rewind-scope-both = files and conversation
run-waiting = running · { $status }

# Approval "always": the server writes allow rules for the same command or tool.
approval-always = Always allow
approval-always-hint = Approve, and write an allow rule so the same command or tool call is not asked about again
always-heading = Rules written
always-rules = Always allowed: { $count ->
    [one] { $count } rule written
   *[other] { $count } rules written
}.
always-no-rules = Approved; no rule was written for this request.
always-file = In { $file }:

panel-refresh = Refresh

# The shadow workspace: changes staged until they are applied.
shadow-heading = Staged changes (shadow workspace)
shadow-empty = Nothing staged: the real files are as the agent left them.
shadow-summary = { $files ->
    [one] { $files } file staged
   *[other] { $files } files staged
}
shadow-include = Include { $path }
shadow-kind-created = created
shadow-kind-updated = updated
shadow-kind-deleted = deleted
shadow-kind-moved = moved
shadow-conflict = conflict
shadow-no-diff = No diff (binary or too large).
shadow-wait = A turn is running; apply or discard when it ends.
shadow-apply = Apply all
shadow-apply-some = Apply { $count ->
    [one] { $count } file
   *[other] { $count } files
}
shadow-discard = Discard all…
shadow-discard-some = Discard { $count ->
    [one] { $count } file
   *[other] { $count } files
}…
shadow-discard-confirm = Discard every staged change? The real files stay as they are.
shadow-discard-confirm-some = Discard { $count ->
    [one] { $count } staged change
   *[other] { $count } staged changes
}? The real files stay as they are.
shadow-discard-yes = Discard
shadow-keep = Keep
shadow-applied = Applied { $count ->
    [one] { $count } file
   *[other] { $count } files
} to the real tree; { $remaining } still staged.
shadow-applied-conflicts = Applied { $count ->
    [one] { $count } file
   *[other] { $count } files
}; { $conflicts ->
    [one] { $conflicts } conflict
   *[other] { $conflicts } conflicts
} left staged (the real file changed since the agent saw it): { $detail }
shadow-discarded-all = Discarded every staged change.
shadow-discarded = Discarded { $count ->
    [one] { $count } staged change
   *[other] { $count } staged changes
}; { $remaining } still staged.

# Project memory: what the model remembers across sessions.
memory-heading = Project memory
memory-empty = Nothing remembered yet.
memory-kind-label = Kind
memory-kind-all = All kinds ({ $count })
memory-kind-count = { $kind } ({ $count })
memory-kind-fact = fact
memory-kind-convention = convention
memory-kind-decision = decision
memory-filter-label = Filter memory
memory-filter-placeholder = Filter by words or tags
memory-none-match = No entry matches.
memory-forget = Forget
memory-forget-label = Forget “{ $text }”
memory-forget-confirm = Forget this entry?
memory-forget-yes = Forget
memory-keep = Keep
memory-forgotten = Forgotten: { $text }

# MCP servers of the session.
commands-heading = Custom commands
mcp-heading = MCP servers
mcp-empty = No MCP servers are configured for this project.
mcp-state-running = running
mcp-state-failed = failed
mcp-state-stopped = not started
mcp-state-disabled = disabled
mcp-tools = { $count ->
    [one] { $count } tool
   *[other] { $count } tools
}
mcp-tools-offered = { $offered } of { $count } tools offered
mcp-tool-list = Tools
mcp-tool-not-offered = (not offered)
task-shadow = Stage changes in a shadow workspace (review, then apply)
image-attach = Images for the model (PNG, JPEG, GIF, WebP; paste works too)
images-attached = Attached images
image-remove = Remove { $name }
image-wrong-type = { $name } is not a PNG, JPEG, GIF or WebP image
image-too-large = { $name } is over 10 MiB, the largest image the model is sent
