import type { Session } from "../api";
import { useI18n } from "../i18n";

/** The sessions visible to the token, newest first. */
export function SessionList(props: {
  sessions: Session[];
  selected: string | null;
  onSelect(id: string): void;
  error?: string | undefined;
}) {
  const { t, word, dateTime } = useI18n();
  return (
    <section className="session-list" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">{t("sessions-label")}</h2>
      {props.error && (
        <p role="alert" className="error-text">
          {props.error}
        </p>
      )}
      {props.sessions.length === 0 && !props.error && <p className="muted">{t("sessions-empty")}</p>}
      <ul data-testid="session-list">
        {props.sessions.map((s) => (
          <li key={s.id}>
            <button
              type="button"
              data-testid="session-item"
              data-session-id={s.id}
              aria-current={s.id === props.selected ? "true" : undefined}
              className={s.id === props.selected ? "session selected" : "session"}
              onClick={() => props.onSelect(s.id)}
            >
              <span className="session-title">{s.title || s.id}</span>
              <span className="session-meta">
                <span className={`status status-${s.status}`}>{word("session-status-", s.status)}</span> · {s.project_id} ·{" "}
                {dateTime(s.updated_at)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
