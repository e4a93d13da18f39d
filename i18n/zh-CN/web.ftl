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

approval-heading = 需要批准：{ $kind }
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
file-op-update = 已修改
file-op-delete = 已删除
file-op-move = 已移动

file-runs-heading = 文件运行
file-run-running = 运行中…
file-run-exited = 退出码 { $code }，用时 { $ms } 毫秒
file-run-timed-out = { $ms } 毫秒后超时

usage-heading = 用量
usage-tokens = 令牌：{ $total }（输入 { $prompt }，输出 { $completion }）
usage-cost = 费用 ${ $cost }
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
