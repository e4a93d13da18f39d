# Tool action text (seed 004): what Keel is doing, shown by the terminal renderer and the page.
# One key per tool, `tool-<name>`; variables are the tool's own argument names.
tool-read_file = Reading { $path }
tool-write_file = Writing { $path }
tool-replace_in_file = Editing { $path }
tool-delete_file = Deleting { $path }
tool-move_file = Moving { $fromPath } to { $toPath }
tool-list_files = Listing { $path }
tool-search_files = Searching { $path } for { $regex }
tool-list_code_definition_names = Listing definitions in { $path }
tool-get_project_structure = Reading the project structure
tool-list_package_info = Reading package info for { $path }
tool-read_library_docs = Reading the docs of { $library }
tool-generate_image = Generating image { $path }
tool-use_rag_tool = Searching { $server_name } for “{ $query }”
tool-execute_command = Running { $command }
tool-fetch_url = Fetching { $url }
tool-use_mcp_tool = Calling { $tool_name } on { $server_name }
tool-access_mcp_resource = Reading { $uri } from { $server_name }
tool-ask_followup_question = Asking a question
tool-plan_mode_respond = Proposing a plan
tool-attempt_completion = Finishing the task
tool-create_plan = Drafting a plan: { $goal }
tool-remember = Remembering: { $text }
tool-skill = Loading the skill { $name }
tool-task = Subagent { $subagent_type }: { $description }
# A tool of an MCP server, offered as mcp__SERVER__TOOL.
tool-mcp = Calling { $tool } on { $server }
# A tool with no key of its own (e.g. mcp__SERVER__TOOL).
tool-other = Calling { $name }
