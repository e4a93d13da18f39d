// The FileTree's state (seed 003 §7.2): the session root's files, initialised from
// `GET /v1/sessions/{id}/files` and kept in sync from `file_update` records. Pure functions.
import type { FileUpdatePayload } from "./contract";

/** The files and the selected one. `files` is sorted and duplicate-free. */
export interface FileTreeState {
  files: readonly string[];
  selected: string | null;
}

/** A directory or file node of the rendered tree. */
export interface TreeNode {
  name: string;
  path: string;
  kind: "dir" | "file";
  children: TreeNode[];
}

function normalise(path: string): string {
  return path.replace(/\\/g, "/").replace(/^\.\//, "").replace(/\/+/g, "/").replace(/\/$/, "");
}

function sorted(files: Iterable<string>): string[] {
  return [...new Set(files)].sort();
}

/** Whether `path` is `base` or lies under the directory `base`. */
function within(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}/`);
}

/** A fresh state from a file listing. */
export function initFileTree(files: readonly string[], selected: string | null = null): FileTreeState {
  const list = sorted(files.map(normalise).filter((f) => f !== ""));
  return { files: list, selected: selected !== null && list.includes(selected) ? selected : null };
}

/** Selects a file (or clears the selection with `null`). */
export function selectFile(state: FileTreeState, path: string | null): FileTreeState {
  return { ...state, selected: path };
}

/**
 * Applies one file update. `create`/`update` add the path; `delete` removes it (and everything
 * under it when it names a directory) and clears a selection inside it; `move` removes the old
 * node (or directory), adds the new one, and moves the selection along when the old one was
 * selected.
 */
export function applyFileUpdate(state: FileTreeState, update: FileUpdatePayload): FileTreeState {
  const path = normalise(update.path);
  switch (update.op) {
    case "create":
    case "update":
      return state.files.includes(path) ? state : { ...state, files: sorted([...state.files, path]) };
    case "delete": {
      const files = state.files.filter((f) => !within(f, path));
      const selected = state.selected !== null && within(state.selected, path) ? null : state.selected;
      return { files, selected };
    }
    case "move": {
      const from = normalise(update.fromPath ?? "");
      const to = normalise(update.toPath ?? update.path);
      if (from === "" || to === "" || from === to) {
        return applyFileUpdate(state, { ...update, op: "update", path: to });
      }
      const rename = (f: string) => (within(f, from) ? to + f.slice(from.length) : f);
      const moved = state.files.some((f) => within(f, from));
      const files = moved ? sorted(state.files.map(rename)) : sorted([...state.files, to]);
      const selected = state.selected !== null ? rename(state.selected) : null;
      return { files, selected };
    }
  }
}

/** The nested tree of a file list: directories first, then files, each by name. */
export function buildTree(files: readonly string[]): TreeNode[] {
  const root: TreeNode = { name: "", path: "", kind: "dir", children: [] };
  for (const file of files) {
    const parts = file.split("/");
    let node = root;
    parts.forEach((name, i) => {
      const path = parts.slice(0, i + 1).join("/");
      const kind = i === parts.length - 1 ? "file" : "dir";
      let child = node.children.find((c) => c.name === name && c.kind === kind);
      if (!child) {
        child = { name, path, kind, children: [] };
        node.children.push(child);
      }
      node = child;
    });
  }
  const order = (nodes: TreeNode[]) => {
    nodes.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === "dir" ? -1 : 1));
    nodes.forEach((n) => order(n.children));
  };
  order(root.children);
  return root.children;
}
