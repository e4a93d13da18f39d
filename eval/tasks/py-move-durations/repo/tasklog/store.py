"""The log file: one ``task<TAB>seconds`` line per entry."""
import os


class Store:
    def __init__(self, path):
        self.path = path

    def add(self, task, seconds):
        if "\t" in task or "\n" in task:
            raise ValueError("task names cannot contain tabs or newlines")
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(f"{task}\t{int(seconds)}\n")

    def entries(self):
        if not os.path.exists(self.path):
            return []
        out = []
        with open(self.path, encoding="utf-8") as fh:
            for line in fh:
                task, seconds = line.rstrip("\n").split("\t")
                out.append((task, int(seconds)))
        return out
