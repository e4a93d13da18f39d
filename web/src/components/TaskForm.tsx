import { useState } from "react";
import { newRequestId, type Api, type Session } from "../api";
import { useI18n } from "../i18n";
import type { ImageUpload } from "../images";
import { readQuery, writeQuery, type PageQuery } from "../query";
import { addImages, ImageAttach } from "./ImageAttach";

/** Starts a task: creates a session for project/root, then its first turn. */
export function TaskForm(props: {
  api: Api;
  onStarted(session: Session): void;
  onAuthFailure(err: unknown): boolean;
}) {
  const { t } = useI18n();
  const initial = readQuery();
  const [project, setProject] = useState(initial.project);
  const [root, setRoot] = useState(initial.root);
  const [mode, setMode] = useState<PageQuery["mode"]>(initial.mode);
  const [shadow, setShadow] = useState(initial.shadow);
  const [input, setInput] = useState("");
  const [images, setImages] = useState<ImageUpload[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const submit = async () => {
    const task = input.trim();
    if (!task || !project.trim() || !root.trim()) {
      setError(t("task-missing"));
      return;
    }
    setBusy(true);
    setError(undefined);
    writeQuery({ project: project.trim(), root: root.trim(), mode, shadow });
    try {
      const session = await props.api.createSession({
        project_id: project.trim(),
        root: root.trim(),
        mode,
        ...(shadow ? { shadow: true } : {}),
        title: task.length > 80 ? `${task.slice(0, 77)}…` : task,
      });
      const requestId = newRequestId();
      try {
        await props.api.startTurn(session.id, requestId, task, images);
      } catch (err) {
        // One retry with the same request id: the server deduplicates it.
        if (err instanceof Error && "status" in err && (err as { status: number }).status === 0) {
          await props.api.startTurn(session.id, requestId, task, images);
        } else {
          throw err;
        }
      }
      setInput("");
      setImages([]);
      props.onStarted(session);
    } catch (err) {
      if (!props.onAuthFailure(err)) setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="card task-form"
      aria-labelledby="task-heading"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2 id="task-heading">{t("task-heading")}</h2>
      <div className="row">
        <label>
          {t("task-project")}
          <input data-testid="task-project" value={project} onChange={(e) => setProject(e.target.value)} />
        </label>
        <label>
          {t("task-mode")}
          <select
            data-testid="task-mode"
            value={mode}
            onChange={(e) => setMode(e.target.value as PageQuery["mode"])}
          >
            <option value="auto">{t("mode-auto")}</option>
            <option value="direct">{t("mode-direct")}</option>
            <option value="plan">{t("mode-plan")}</option>
          </select>
        </label>
      </div>
      <label className="checkbox">
        <input
          type="checkbox"
          data-testid="task-shadow"
          checked={shadow}
          onChange={(e) => setShadow(e.target.checked)}
        />{" "}
        {t("task-shadow")}
      </label>
      <label>
        {t("task-root")}
        <input
          data-testid="task-root"
          value={root}
          placeholder={t("task-root-placeholder")}
          onChange={(e) => setRoot(e.target.value)}
        />
      </label>
      <label>
        {t("task-task")}
        <textarea
          data-testid="task-input"
          rows={3}
          value={input}
          placeholder={t("task-placeholder")}
          onChange={(e) => setInput(e.target.value)}
          onPaste={(e) => {
            const files = Array.from(e.clipboardData.files);
            if (files.length > 0) {
              e.preventDefault();
              void addImages(files, images, setImages, setError, t);
            }
          }}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              void submit();
            }
          }}
        />
      </label>
      <ImageAttach images={images} onChange={setImages} onError={setError} disabled={busy} testId="task-images" />
      {error && (
        <p role="alert" className="error-text" data-testid="task-error">
          {error}
        </p>
      )}
      <button type="submit" className="primary" data-testid="task-submit" disabled={busy}>
        {busy ? t("task-starting") : t("task-start")}
      </button>
    </form>
  );
}
