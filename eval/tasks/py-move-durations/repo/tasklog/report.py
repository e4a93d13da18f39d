"""Reports over logged entries."""
from collections import defaultdict

from .utils import format_duration, pluralize, truncate


def totals(entries):
    """Total seconds per task, in first-seen order."""
    sums = defaultdict(int)
    for task, seconds in entries:
        sums[task] += seconds
    return dict(sums)


def render(entries, width=20):
    sums = totals(entries)
    lines = [f"{truncate(task, width):<{width}} {format_duration(sec):>7}" for task, sec in sums.items()]
    total = sum(sums.values())
    lines.append(f"{pluralize(len(sums), 'task')}, {format_duration(total)} in total")
    return "\n".join(lines)
