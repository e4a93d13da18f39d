# 活动时间线页面（web/）自身的文字。工具动作文本在 tools.ftl。
page-title = Keel · 活动时间线
language-label = 语言
sign-out = 退出
sessions-label = 会话
session-label = 会话
empty-hint = 开始一个任务，或在左侧选择一个会话。
auth-refused = 服务器拒绝了该令牌，请输入有效的令牌。
loading = 加载中…
cancel = 取消
run-running = 运行中
run-idle = 空闲
connection-connecting = 连接中
connection-live = ● 实时
connection-reconnecting = 重新连接中
connection-error = 错误
notice-files-truncated = 文件列表已截断（最多 5,000 个文件）。
notice-reload = 较早的事件已不再保存（{ $reason }）；从事件 { $seq } 开始显示历史。
result-heading = 结果
followup-label = 后续请求
followup-wait = 请等待当前轮次结束…
followup-placeholder = 在此会话中继续提问
followup-send = 发送

approval-heading = 需要审批：{ $kind }
approval-reason = 理由（可选）
approval-approve = 批准
approval-reject = 拒绝
approval-edit-plan = 编辑计划…

plan-heading = 计划：{ $goal }
plan-status-proposed = 待批准
plan-status-running = 执行中
plan-status-done = 已完成
plan-status-failed = 失败
plan-status-cancelled = 已取消
plan-progress-label = 已完成 { $done } / { $total } 步
plan-progress-step = 第 { $current }/{ $total } 步
plan-progress-steps = 共 { $total } 步
plan-progress-done = 已完成 { $done } 步
step-status-pending = 待执行
step-status-running = 执行中
step-status-done = 已完成
step-status-failed = 失败

plan-edit-heading = 编辑计划
plan-edit-goal = 目标
plan-edit-step-title = 第 { $n } 步标题
plan-edit-step-description = 第 { $n } 步说明
plan-edit-up = 上移第 { $n } 步
plan-edit-down = 下移第 { $n } 步
plan-edit-delete = 删除第 { $n } 步
plan-edit-delete-short = 删除
plan-edit-add = 添加一步
plan-edit-submit = 批准修改后的计划
plan-edit-cancel = 停止编辑
plan-edit-error-goal = 计划需要一个目标。
plan-edit-error-no-steps = 计划至少需要一步。
plan-edit-error-title = 每一步都需要标题。

question-heading = 智能体提问
question-answer-label = 你的回答
question-submit = 回答

thinking-heading = 思考过程
thinking-summary = { $agent } 的思考
thinking-summary-live = { $agent } 正在思考…

outputs-heading = 命令输出
outputs-none = （暂无输出）
tool-status-running = 运行中
tool-status-success = 完成
tool-status-error = 失败
tool-status-denied = 被拒绝
tool-status-cancelled = 已取消

changes-heading = 改动
changes-diff-label = { $path } 的差异
changes-no-diff = 没有记录差异。
file-op-create = 已创建
file-op-update = 已更新
file-op-delete = 已删除
file-op-move = 已移动

file-runs-heading = 文件运行
file-run-running = 运行中…
file-run-exited = 退出码 { $code }，用时 { $ms } 毫秒
file-run-timed-out = { $ms } 毫秒后超时

usage-heading = 用量
usage-tokens = 令牌：{ $total }（输入 { $prompt }，输出 { $completion }）
usage-cost = 费用 ${ $cost }
usage-session-calls = 轮次之外（记忆提炼、提交信息、拉取请求；{ $calls } 次调用）：输入 { $prompt }，输出 { $completion }
context-window = 上下文窗口：{ $used } / { $limit } 令牌
repomap-built = 已构建仓库地图：{ $files } 个文件，{ $symbols } 个符号，{ $tokens } 个令牌，用时 { $ms } 毫秒
repomap-cached = 仓库地图（缓存）：{ $files } 个文件，{ $symbols } 个符号，{ $tokens } 个令牌

files-heading = 文件
files-selected = 已选择：
files-tree-label = 项目文件
files-run-label = 运行 { $path }

rules-heading = 权限规则
rules-refresh = 刷新
rules-empty = 没有规则：每个需要批准的操作都会询问。
rules-revoke = 撤销
rules-revoke-label = 撤销规则 { $rule }
rules-scope-project = 项目
rules-scope-user = 用户

task-heading = 新任务
task-project = 项目
task-mode = 模式
task-root = 根目录
task-task = 任务
task-placeholder = 智能体该做什么？（Ctrl+Enter 开始）
task-starting = 正在开始…
task-start = 开始任务
sessions-empty = 还没有会话。
token-needed = 此页面需要服务器的访问令牌（或用 #token=… 打开）。
token-label = 访问令牌
token-continue = 继续
timeline-heading = 活动
timeline-count = （显示 { $count } 条，最新在后）
timeline-empty = 等待事件…
timeline-label = 智能体活动
checkpoints-heading = 检查点
checkpoints-empty = 还没有检查点：每一轮开始前都会创建一个。
checkpoints-before-turn = 第 { $n } 轮之前
checkpoints-files = { $count } 个文件
checkpoints-rewind = 回退
checkpoints-rewind-label = 将文件和历史回退到第 { $n } 轮之前
checkpoints-fork = 分叉
checkpoints-fork-label = 从第 { $n } 轮之前分叉出新会话
checkpoints-rewound = 已回退：撤销了 { $turns } 轮，恢复了 { $files } 个文件。

# 服务器以代码发送的值。
approval-kind-command = 命令
approval-kind-plan = 计划
approval-kind-tool = 工具调用
mode-auto = 自动
mode-direct = 直接
mode-plan = 计划
session-status-idle = 空闲
session-status-running = 运行中
session-status-completed = 已完成
session-status-failed = 失败
session-status-cancelled = 已取消
waiting-waiting_for_model = 等待模型
waiting-waiting_for_approval = 等待审批
waiting-waiting_for_answer = 等待回答
waiting-indexing = 正在建立索引
task-missing = 项目、根目录和任务都必须填写。
task-root-placeholder = /项目/路径

# 时间线各行：记录的内容，取自产生它们的事件。
phase-planner = 规划
phase-coder = 编码
phase-reviewer = 审查
phase-debugger = 调试
phase-enter = 开始
phase-exit = 完成
timeline-op-create = 已创建
timeline-op-update = 已更新
timeline-op-delete = 已删除
timeline-op-move = 已移动
timeline-move-to = 移至
timeline-mcp = MCP · { $server }
timeline-tool-failed = ✗ 失败
timeline-duration = { $ms } 毫秒
timeline-size = { $size } 字节
timeline-repair = 自我修复
repair-result-pending = 进行中
repair-result-success = 已修复
repair-result-failed = 未修复
timeline-fix = 修复建议：{ $suggestion }
timeline-error = 错误
timeline-error-type = （{ $type }）
timeline-error-type-recoverable = （{ $type }，可恢复）
timeline-plan-summary = { $goal }（共 { $count } 步）
timeline-repair-summary = 第 { $attempt }/{ $max } 次修复：{ $trigger }
timeline-step-start = 第 { $current }/{ $total } 步：{ $title }
timeline-step-done = 第 { $current }/{ $total } 步完成：{ $title }
timeline-step-failed = 第 { $current }/{ $total } 步失败：{ $title }：{ $error }
timeline-task-started = 任务开始：{ $task }
timeline-task-completed = 任务完成：{ $result }
timeline-task-failed = 任务失败：{ $result }
timeline-task-cancelled = 任务已取消：{ $result }
timeline-task-max_iterations = 任务因达到迭代上限而停止：{ $result }
timeline-fallback = 使用备用模型 { $model }，而非 { $requested }
timeline-fallback-reason = 使用备用模型 { $model }，而非 { $requested }：{ $reason }
timeline-plan-modified = 计划已修改：{ $goal }
timeline-llm-retry = 模型调用失败（第 { $attempt }/{ $max } 次），{ $ms } 毫秒后重试：{ $error }
timeline-thinking-failed = 思考失败：{ $error }
timeline-approval-request = 等待审批：{ $subject }
timeline-approval-approve = 已批准
timeline-approval-reject = 已拒绝
timeline-approval-modify = 修改后批准
timeline-context-compressed = 上下文已压缩：{ $from } → { $to } 个令牌
timeline-memory-remember = 记忆已更新（记住）：{ $count } 条
timeline-memory-distill = 记忆已更新（提炼）：{ $count } 条
timeline-rewound = 已回退到 { $checkpoint }（{ $scope }）：撤销了 { $count } 轮
timeline-hook-continue = 钩子 { $event } 已运行：{ $command }
timeline-hook-allow = 钩子 { $event } 允许了调用：{ $command }
timeline-hook-ask = 钩子 { $event } 请求批准：{ $command }
timeline-hook-block = 钩子 { $event } 已阻止：{ $command }
timeline-hook-failed = 钩子 { $event } 失败：{ $command }（{ $error }）
rewind-scope-files = 文件
rewind-scope-conversation = 对话
rewind-scope-both = 文件和对话
run-waiting = 运行中 · { $status }

# 审批“始终允许”：服务器为同一命令或工具写入允许规则。
approval-always = 始终允许
approval-always-hint = 批准，并写入允许规则，以后同样的命令或工具调用不再询问
always-heading = 已写入的规则
always-rules = 已始终允许：写入了 { $count } 条规则。
always-no-rules = 已批准；此请求没有写入规则。
always-file = 写入 { $file }：

panel-refresh = 刷新

# 影子工作区：变更暂存，直到应用。
shadow-heading = 暂存的变更（影子工作区）
shadow-empty = 没有暂存的变更：真实文件保持智能体留下的样子。
shadow-summary = 暂存了 { $files } 个文件
shadow-include = 包含 { $path }
shadow-kind-created = 新建
shadow-kind-updated = 修改
shadow-kind-deleted = 删除
shadow-kind-moved = 移动
shadow-conflict = 冲突
shadow-no-diff = 没有差异（二进制文件或文件过大）。
shadow-wait = 有一轮正在运行；请在结束后再应用或丢弃。
shadow-apply = 全部应用
shadow-apply-some = 应用 { $count } 个文件
shadow-discard = 全部丢弃…
shadow-discard-some = 丢弃 { $count } 个文件…
shadow-discard-confirm = 丢弃所有暂存的变更？真实文件保持不变。
shadow-discard-confirm-some = 丢弃 { $count } 个暂存的变更？真实文件保持不变。
shadow-discard-yes = 丢弃
shadow-keep = 保留
shadow-applied = 已将 { $count } 个文件应用到真实目录；仍有 { $remaining } 个暂存。
shadow-applied-conflicts = 已应用 { $count } 个文件；{ $conflicts } 个冲突仍暂存（智能体读取后真实文件已被修改）：{ $detail }
shadow-discarded-all = 已丢弃所有暂存的变更。
shadow-discarded = 已丢弃 { $count } 个暂存的变更；仍有 { $remaining } 个暂存。

# 项目记忆：模型跨会话记住的内容。
memory-heading = 项目记忆
memory-empty = 还没有记住任何内容。
memory-kind-label = 类型
memory-kind-all = 全部类型（{ $count }）
memory-kind-count = { $kind }（{ $count }）
memory-kind-fact = 事实
memory-kind-convention = 约定
memory-kind-decision = 决定
memory-filter-label = 筛选记忆
memory-filter-placeholder = 按词语或标签筛选
memory-none-match = 没有匹配的条目。
memory-forget = 忘记
memory-forget-label = 忘记“{ $text }”
memory-forget-confirm = 忘记这一条？
memory-forget-yes = 忘记
memory-keep = 保留
memory-forgotten = 已忘记：{ $text }

# 会话的 MCP 服务器。
mcp-heading = MCP 服务器
mcp-empty = 此项目没有配置 MCP 服务器。
mcp-state-running = 运行中
mcp-state-failed = 失败
mcp-state-stopped = 未启动
mcp-state-disabled = 已停用
mcp-tools = { $count } 个工具
mcp-tools-offered = 提供了 { $count } 个工具中的 { $offered } 个
mcp-tool-list = 工具
mcp-tool-not-offered = （未提供）
task-shadow = 在影子工作区中暂存变更（审阅后再应用）
