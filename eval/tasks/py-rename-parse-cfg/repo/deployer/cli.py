"""Command line entry point: ``deployer plan FILE`` / ``deployer check FILE``."""
import sys

from deployer.config import ConfigError, parse_cfg
from deployer.plan import make_plan


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2 or argv[0] not in ("plan", "check"):
        print("usage: deployer plan|check FILE", file=sys.stderr)
        return 2
    command, path = argv
    try:
        with open(path, encoding="utf-8") as fh:
            cfg = parse_cfg(fh.read())
        plan = make_plan(cfg)
    except (OSError, ConfigError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if command == "plan":
        print(plan.describe())
    else:
        print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
