"""Static checks for the move: run from the project root."""
import ast
import pathlib
import sys

MOVED = {"is_valid_email", "normalize_phone"}
problems = []

target = pathlib.Path("crm/validation.py")
if not target.exists():
    problems.append("crm/validation.py does not exist")
else:
    tree = ast.parse(target.read_text(encoding="utf-8"))
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in sorted(MOVED - defined):
        problems.append(f"{name} is not defined in crm/validation.py")

models = pathlib.Path("crm/models.py")
if models.exists():
    tree = ast.parse(models.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in MOVED:
            problems.append(f"crm/models.py still defines {node.name}")

for path in sorted(pathlib.Path(".").rglob("*.py")):
    if ".git" in path.parts or path.name == "check_move.py":
        continue
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError as exc:
        problems.append(f"{path}: syntax error {exc}")
        continue
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("models"):
            for alias in node.names:
                if alias.name in MOVED:
                    problems.append(f"{path}:{node.lineno} imports {alias.name} from models")
        if isinstance(node, ast.Attribute) and node.attr in MOVED:
            if isinstance(node.value, ast.Name) and node.value.id == "models":
                problems.append(f"{path}:{node.lineno} uses models.{node.attr}")

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
