"""Static checks for the move: run from the project root."""
import ast
import pathlib
import sys

MOVED = {"format_duration", "parse_duration"}
problems = []

durations = pathlib.Path("tasklog/durations.py")
if not durations.exists():
    problems.append("tasklog/durations.py does not exist")
else:
    tree = ast.parse(durations.read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in sorted(MOVED - defined):
        problems.append(f"{name} is not defined in tasklog/durations.py")

utils = pathlib.Path("tasklog/utils.py")
if not utils.exists():
    problems.append("tasklog/utils.py was removed (it still has other helpers)")
else:
    tree = ast.parse(utils.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in MOVED:
            problems.append(f"tasklog/utils.py still defines {node.name}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name in MOVED or (alias.asname or "") in MOVED:
                    problems.append(f"tasklog/utils.py still imports (re-exports) {alias.name}")
        elif isinstance(node, ast.Name) and node.id in MOVED and isinstance(node.ctx, ast.Store):
            problems.append(f"tasklog/utils.py still binds {node.id}")

for path in sorted(pathlib.Path(".").rglob("*.py")):
    if ".git" in path.parts or path.name == "check_move.py":
        continue
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError as exc:
        problems.append(f"{path}: syntax error {exc}")
        continue
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("utils"):
            for alias in node.names:
                if alias.name in MOVED:
                    problems.append(f"{path}:{node.lineno} still imports {alias.name} from utils")
        if isinstance(node, ast.Attribute) and node.attr in MOVED:
            if isinstance(node.value, ast.Name) and node.value.id == "utils":
                problems.append(f"{path}:{node.lineno} still uses utils.{node.attr}")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
