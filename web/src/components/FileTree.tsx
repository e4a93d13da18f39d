import { useMemo, useState } from "react";
import { buildTree, type FileTreeState, type TreeNode } from "../fileTree";
import { useI18n } from "../i18n";

/** Extensions keel-server knows an interpreter for (`keel_tools::file_run::interpreter_for`). */
const RUNNABLE = /\.(py|pyw|sh|bash|zsh|fish|js|mjs|cjs|ts|mts|cts|rb|pl|php|lua|r|go|ps1|tcl)$/i;

/** Whether the FileTree offers to run `path`. */
export function isRunnable(path: string): boolean {
  return RUNNABLE.test(path);
}

function Node(props: {
  node: TreeNode;
  depth: number;
  selected: string | null;
  collapsed: Set<string>;
  onToggle(path: string): void;
  onSelect(path: string): void;
  onRun?(path: string): void;
}) {
  const { node, depth, selected } = props;
  const { t } = useI18n();
  if (node.kind === "dir") {
    const open = !props.collapsed.has(node.path);
    return (
      <li role="treeitem" aria-expanded={open} aria-selected={false} data-testid="dir-node" data-path={node.path}>
        <button
          type="button"
          className="tree-row dir"
          style={{ paddingLeft: `${depth * 14 + 6}px` }}
          onClick={() => props.onToggle(node.path)}
        >
          <span aria-hidden="true">{open ? "▾" : "▸"}</span> {node.name}
        </button>
        {open && (
          <ul role="group">
            {node.children.map((child) => (
              <Node key={`${child.kind}:${child.path}`} {...props} node={child} depth={depth + 1} />
            ))}
          </ul>
        )}
      </li>
    );
  }
  const isSelected = node.path === selected;
  return (
    <li role="treeitem" aria-selected={isSelected} data-testid="file-node" data-path={node.path} data-selected={String(isSelected)}>
      <button
        type="button"
        className={isSelected ? "tree-row file selected" : "tree-row file"}
        style={{ paddingLeft: `${depth * 14 + 6}px` }}
        onClick={() => props.onSelect(node.path)}
      >
        <span aria-hidden="true">□</span> {node.name}
      </button>
      {props.onRun && isRunnable(node.path) && (
        <button
          type="button"
          className="run-file"
          data-testid="run-file"
          aria-label={t("files-run-label", { path: node.path })}
          title={t("files-run-label", { path: node.path })}
          onClick={() => props.onRun?.(node.path)}
        >
          <span aria-hidden="true">▶</span>
        </button>
      )}
    </li>
  );
}

/** The session root's files, kept in sync from `file_update` events; click to select, ▶ to
 * run a script. */
export function FileTree(props: {
  state: FileTreeState;
  loaded: boolean;
  onSelect(path: string): void;
  onRun?(path: string): void;
}) {
  const { t } = useI18n();
  const tree = useMemo(() => buildTree(props.state.files), [props.state.files]);
  const [collapsed, setCollapsed] = useState<Set<string>>(() => new Set());
  const toggle = (path: string) =>
    setCollapsed((set) => {
      const next = new Set(set);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });
  return (
    <aside className="filetree card" aria-labelledby="files-heading">
      <h3 id="files-heading">
        {t("files-heading")} <span className="muted">({props.state.files.length})</span>
      </h3>
      {props.state.selected && (
        <p className="selected-file" data-testid="selected-file">
          {t("files-selected")} <code>{props.state.selected}</code>
        </p>
      )}
      {!props.loaded ? (
        <p className="muted">{t("loading")}</p>
      ) : (
        <ul role="tree" aria-label={t("files-tree-label")} data-testid="file-tree">
          {tree.map((node) => (
            <Node
              key={`${node.kind}:${node.path}`}
              node={node}
              depth={0}
              selected={props.state.selected}
              collapsed={collapsed}
              onToggle={toggle}
              onSelect={props.onSelect}
              {...(props.onRun ? { onRun: props.onRun } : {})}
            />
          ))}
        </ul>
      )}
    </aside>
  );
}
