import { describe, expect, it } from "vitest";
import type { FileUpdatePayload } from "../src/contract";
import { applyFileUpdate, buildTree, initFileTree, selectFile } from "../src/fileTree";

const move = (from: string, to: string): FileUpdatePayload => ({ path: to, op: "move", fromPath: from, toPath: to });

describe("FileTree reducer", () => {
  const start = initFileTree(["src/old.ts", "src/util.ts", "README.md", "./src/util.ts"]);

  it("initialises sorted and without duplicates", () => {
    expect(start.files).toEqual(["README.md", "src/old.ts", "src/util.ts"]);
    expect(start.selected).toBeNull();
    expect(initFileTree(["a"], "gone").selected).toBeNull();
    expect(initFileTree(["a"], "a").selected).toBe("a");
  });

  it("adds created files and keeps updated ones", () => {
    const created = applyFileUpdate(start, { path: "src/new/index.ts", op: "create" });
    expect(created.files).toEqual(["README.md", "src/new/index.ts", "src/old.ts", "src/util.ts"]);
    const updated = applyFileUpdate(created, { path: "src/util.ts", op: "update" });
    expect(updated.files).toEqual(created.files);
    expect(applyFileUpdate(start, { path: "late.txt", op: "update" }).files).toContain("late.txt");
  });

  it("removes deleted files and clears a selection on them", () => {
    const selected = selectFile(start, "src/util.ts");
    const deleted = applyFileUpdate(selected, { path: "src/util.ts", op: "delete" });
    expect(deleted.files).toEqual(["README.md", "src/old.ts"]);
    expect(deleted.selected).toBeNull();
    const other = applyFileUpdate(selectFile(start, "README.md"), { path: "src/util.ts", op: "delete" });
    expect(other.selected).toBe("README.md");
    const dir = applyFileUpdate(start, { path: "src", op: "delete" });
    expect(dir.files).toEqual(["README.md"]);
  });

  it("moves a file: old node gone, new node present, selection follows", () => {
    const moved = applyFileUpdate(selectFile(start, "src/old.ts"), move("src/old.ts", "src/new.ts"));
    expect(moved.files).toEqual(["README.md", "src/new.ts", "src/util.ts"]);
    expect(moved.files).not.toContain("src/old.ts");
    expect(moved.selected).toBe("src/new.ts");
  });

  it("moves a file without touching another selection", () => {
    const moved = applyFileUpdate(selectFile(start, "README.md"), move("src/old.ts", "lib/old.ts"));
    expect(moved.files).toEqual(["README.md", "lib/old.ts", "src/util.ts"]);
    expect(moved.selected).toBe("README.md");
  });

  it("moves a directory with everything under it", () => {
    const moved = applyFileUpdate(selectFile(start, "src/util.ts"), move("src", "lib"));
    expect(moved.files).toEqual(["README.md", "lib/old.ts", "lib/util.ts"]);
    expect(moved.selected).toBe("lib/util.ts");
  });

  it("adds the target of a move whose source it did not know", () => {
    const moved = applyFileUpdate(start, move("unknown.ts", "src/known.ts"));
    expect(moved.files).toContain("src/known.ts");
    expect(moved.files).not.toContain("unknown.ts");
  });

  it("builds a tree with directories first", () => {
    const tree = buildTree(["z.txt", "a/b/c.ts", "a/a.ts", "b.md"]);
    expect(tree.map((n) => `${n.kind}:${n.path}`)).toEqual(["dir:a", "file:b.md", "file:z.txt"]);
    expect(tree[0]?.children.map((n) => `${n.kind}:${n.path}`)).toEqual(["dir:a/b", "file:a/a.ts"]);
    expect(tree[0]?.children[0]?.children[0]?.path).toBe("a/b/c.ts");
  });
});
