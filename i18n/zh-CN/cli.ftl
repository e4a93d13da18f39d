# 终端上的文字（`keel run`、`keel chat`、`keel replay`）：渲染器的各行和提问。
# 数量给两次：`$count`（数字，用来选复数形式）和 `$n`（同一个数，带千位分隔符）。

## 任务与结束（agent.*）
mode-plan = （计划模式）
mode-direct = （直接模式）
end-completed = ✓ 已完成
end-failed = ✗ 失败：{ $reason }
end-cancelled = ⊘ 已取消
end-max-iterations = ⚠ 已停止：达到迭代上限
files-changed = { $count ->
   *[other] 更改了 { $n } 个文件
}
usage-tokens = { $total } 个令牌（输入 { $prompt }，输出 { $completion }）
usage-tokens-cached = { $total } 个令牌（输入 { $prompt }，输出 { $completion }，缓存 { $cached }）

## 准备（prepare.*）
model-selected = 模型 { $model }
model-fallback = ⚠ 模型 { $model }（由 { $requested } 回退）
model-fallback-reason = ⚠ 模型 { $model }（由 { $requested } 回退：{ $reason }）
conversation-new = 新对话 { $id }
conversation-resumed = 继续对话 { $id }
history-loaded = 历史：{ $count ->
   *[other] { $n } 条消息
} · 第 { $turn } 轮
history-pending = { $count ->
   *[other] { $n } 个待处理的工具调用
}
instructions-none = 指令：无
instructions-files = 指令：{ $files }
instructions-file = { $path }（{ $tokens } 个令牌）
instructions-file-cut = { $path }（{ $tokens } 个令牌，已截断）
repomap-built = 仓库地图：{ $files } 个文件，{ $symbols } 个符号，{ $tokens } 个令牌（{ $duration }）
repomap-built-cached = 仓库地图：{ $files } 个文件，{ $symbols } 个符号，{ $tokens } 个令牌（{ $duration }，来自缓存）

## 模型（run.llm.*、run.usage.report、run.context.*）
finish-length = ⚠ 回答在输出令牌上限处被截断
finish-content-filter = ⚠ 回答被服务商过滤
finish-truncated = ⚠ 响应流提前结束
finish-cancelled = ⊘ 响应已取消
llm-retry = ↻ 模型调用失败（第 { $attempt }/{ $max } 次）：{ $error } — { $delay } 后重试
thinking = ✻ 思考
thinking-collapsed = ✻ 思考中…
thinking-failed = ⚠ 思考失败：{ $error }
usage-call = 令牌：输入 { $prompt }，输出 { $completion }{ $cached }{ $cost } · 会话共 { $session }
usage-call-cached = ，缓存 { $cached }
usage-session-call = { $purpose ->
    [commit_message] 提交信息
    [pull_request] 拉取请求文本
   *[other] 记忆提炼
}（属于会话，不属于某一轮）· 令牌：输入 { $prompt }，输出 { $completion }{ $cached }{ $cost } · 会话共 { $session }
context-window = 上下文：{ $used } / { $limit } 个令牌（{ $percent }%）
context-compressed = 上下文已压缩：{ $from } → { $to } 个令牌

## 工具调用（run.tool.*）
call-denied = { " " }被拒绝
call-cancelled = { " " }已取消
call-no-result = { " " }— 无结果
diagnostics-more = …… 另有 { $n } 条
diagnostics-elsewhere = 其他文件：{ $after } 个错误和警告（之前 { $before } 个）
diagnostics-late = 语言服务器未及时回应

## 审批与提问（run.approval.*、run.question.*）
approval-needed-command = ? 需要审批命令：
approval-needed-plan = ? 需要审批计划：
approval-needed-tool = ? 需要审批工具调用：
approval-approved = ✓ 已批准
approval-approved-reason = ✓ 已批准：{ $reason }
approval-rejected = ✗ 已拒绝
approval-rejected-reason = ✗ 已拒绝：{ $reason }
approval-modified = ✎ 修改后批准
approval-modified-reason = ✎ 修改后批准：{ $reason }
result = ✓ 结果

## 等待（转圈指示）
waiting-model = 正在等待模型…
waiting-thinking = 思考中…

## 错误（system.error）
error-line = ✗ 错误 [{ $kind }]：{ $message }
error-recoverable = （可恢复）

## 提问（由终端前的人回答）
prompt-approve-command = ? 是否批准命令：{ $subject }
prompt-approve-plan = ? 是否批准计划：{ $subject }
prompt-approve-tool = ? 是否批准工具调用：{ $subject }
prompt-choices-edit = [y]是 [n]否 [a]总是 [e]编辑 ›{ " " }
prompt-choices = [y]是 [n]否 [a]总是 ›{ " " }
prompt-hint-edit = 请输入 y、n（理由）、a，或 e 加新命令 ›{ " " }
prompt-hint = 请输入 y、n（理由）或 a ›{ " " }
prompt-hint-edit-needs-command = 请输入 e，后面跟新的命令行 ›{ " " }
prompt-answer = ›{ " " }
prompt-planning = （计划）
prompt-options = 选项：{ $options }

## 计划、步骤、修复（run.plan.*、run.execution.*、run.step.*、run.repair.*、run.anomaly.*）
plan-created = 计划：
plan-updated = 计划已更新：
plan-meta = { " " }· { $count ->
   *[other] { $n } 个步骤
} · 复杂度{ $complexity }
complexity-low = 低
complexity-medium = 中
complexity-high = 高
plan-step-tools = 工具：{ $tools }
plan-replan = ⚠ 重新规划：{ $message }
plan-replan-reason = 原因：{ $reason }
plan-complete = ✓ 计划完成
plan-failed = ✗ 计划失败
at-step = （第 { $step } 步）
execution-failed = ✗ 执行失败{ $step }：{ $error }
repair-attempt = ↻ 修复 { $attempt }/{ $max }
repair-fixed = { " " }✓ 已修复
repair-not-fixed = { " " }✗ 未修复
anomaly = ⚠ 异常（{ $kind }）：{ $message }
anomaly-repeated-call = 重复调用
anomaly-consecutive-failures = 连续失败
anomaly-no-progress = 没有进展

## 文件运行（exec.file.*）
exec-timed-out = ✗ { $file } 在 { $duration } 后超时
exec-exited-ok = ✓ { $file } 退出码 { $code }（{ $duration }）
exec-exited = ✗ { $file } 退出码 { $code }（{ $duration }）
exec-signalled = ✗ { $file } 被信号终止（{ $duration }）

## 记忆（run.memory.update）
memory-remembered = 已记住
memory-distilled = 记忆已提炼
memory-nothing-new = { $source }：没有新内容需要保存
memory-kept = { $source }：新增 { $new }，已知 { $known }
memory-dropped = ，丢弃 { $dropped }
memory-total = { " " }· 记忆中共 { $count ->
   *[other] { $n } 条
}

## 详细信息（run.response.start、run.llm.start、run.file.change）
response-direct = — 直接模式 —
response-plan = — 计划模式 —
llm-call = → { $model } · 第 { $iteration } 次迭代 · { $count ->
   *[other] { $n } 条消息
}
system-prompt = 系统提示（{ $count ->
   *[other] { $n } 个字符
}）：
system-prompt-unchanged = 系统提示未变（{ $count ->
   *[other] { $n } 个字符
}）
diff-more = … 还有 { $count ->
   *[other] { $n } 行差异
}（--verbose 显示全部）
checkpoint-rewound = 已回退到检查点 { $checkpoint } 之前（{ $scope }）：撤销了 { $count ->
   *[other] { $n } 轮
}（事件 { $from }–{ $to } 保留）
checkpoint-restored = { "  " }已恢复 { $path }
checkpoint-removed = { "  " }已删除 { $path }
hook-start = ↪ 钩子 { $event }：{ $command }
hook-end = ↪ 钩子 { $event } { $decision }：{ $command }（{ $duration }）
hook-reason = { "  " }{ $reason }
hook-decision-continue = 已运行
hook-decision-allow = 已允许
hook-decision-ask = 请求批准
hook-decision-block = 已阻止
subagent-start = ⤷ 子代理 { $kind }：{ $description }
subagent-end = ⤶ 子代理 { $kind } { $status }（{ $tokens } 个令牌，{ $duration }）
subagent-status-completed = 已完成
subagent-status-failed = 失败
subagent-status-cancelled = 已取消
subagent-status-max-iterations = 达到迭代上限后停止

## 列表、逐步执行的计划、上下文摘要、显示滞后
list-separator = 、
plan-summary = ：{ $summary }
execution-start = { $count ->
   *[other] ▶ 执行 { $n } 个步骤：{ $goal }
}
execution-end = ✓ 所有步骤已完成：{ $goal }
execution-cancelled = ⊘ 执行已取消{ $step }
context-summary-model = ，由模型摘要
context-summary-extractive = ，抽取式摘要
context-summary-extractive-failed = ，抽取式摘要（模型摘要失败：{ $reason }）
tool-output-of = ▸ { $call } 的输出
events-skipped = { $count ->
   *[other] ⚠ 跳过了 #{ $seq } 之后的 { $n } 个事件（显示跟不上）
}
rewind-scope-files = 文件
rewind-scope-conversation = 对话
rewind-scope-both = 文件和对话

## 轮次前后的会话提示（keel run、keel chat、keel sessions resume）
session-id = 会话 { $id }
session-chat = 会话 { $id }（输入 /exit 或按 Ctrl-D 退出）
chat-help-title = 命令：
chat-help-help = 列出命令
chat-help-exit = 退出对话（也可按 Ctrl-D）
chat-command-unknown = 未知命令 /{ $name }：输入 /help 查看列表
chat-command-failed = /{ $name } 未执行：{ $error }
chat-image-attached = 已附加 { $name }（{ $kind }，{ $size } 字节）
chat-image-refused = 未发送：{ $error }
command-override-skipped = 本轮未应用：{ $problem }
turn-cancelling = 正在取消本轮（再按 Ctrl-C 退出）
turn-interrupted = 已中断
memory-interrupted = 未提炼记忆：已中断
notice-warning = 警告：{ $message }
