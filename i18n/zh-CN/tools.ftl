# 工具动作文本（seed 004）：终端渲染器和页面显示 Keel 正在做什么。
# 每个工具一个键 `tool-<name>`；变量名即工具参数名。
tool-read_file = 正在读取 { $path }
tool-write_file = 正在写入 { $path }
tool-replace_in_file = 正在编辑 { $path }
tool-delete_file = 正在删除 { $path }
tool-move_file = 正在将 { $fromPath } 移动到 { $toPath }
tool-list_files = 正在列出 { $path }
tool-search_files = 正在 { $path } 中搜索 { $regex }
tool-list_code_definition_names = 正在列出 { $path } 中的定义
tool-get_project_structure = 正在读取项目结构
tool-list_package_info = 正在读取 { $path } 的包信息
tool-read_library_docs = 正在阅读 { $library } 的文档
tool-generate_image = 正在生成图片 { $path }
tool-use_rag_tool = 正在 { $server_name } 中检索“{ $query }”
tool-execute_command = 正在运行 { $command }
tool-fetch_url = 正在获取 { $url }
tool-use_mcp_tool = 正在调用 { $server_name } 上的 { $tool_name }
tool-access_mcp_resource = 正在从 { $server_name } 读取 { $uri }
tool-ask_followup_question = 正在提问
tool-plan_mode_respond = 正在提出计划
tool-attempt_completion = 正在完成任务
tool-create_plan = 正在制定计划：{ $goal }
tool-remember = 正在记住：{ $text }
tool-skill = 正在加载技能 { $name }
tool-task = 子代理 { $subagent_type }：{ $description }
# MCP 服务器的工具，以 mcp__SERVER__TOOL 提供。
tool-mcp = 正在调用 { $server } 上的 { $tool }
# 没有专门键的工具（如 mcp__SERVER__TOOL）。
tool-other = 正在调用 { $name }
