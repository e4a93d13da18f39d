import { useCallback, useEffect, useMemo, useState } from "react";
import { Api, ApiError, type Session } from "./api";
import { clearToken, loadToken, saveToken } from "./auth";
import { readQuery, writeQuery } from "./query";
import { SessionList } from "./components/SessionList";
import { SessionView } from "./components/SessionView";
import { TaskForm } from "./components/TaskForm";
import { TokenForm } from "./components/TokenForm";

/** The Activity Timeline page. */
export function App() {
  const [token, setToken] = useState<string | null>(() => loadToken());
  const [authError, setAuthError] = useState<string | undefined>();
  const [sessions, setSessions] = useState<Session[]>([]);
  const [listError, setListError] = useState<string | undefined>();
  const [selected, setSelected] = useState<string | null>(() => readQuery().session);
  const api = useMemo(() => (token ? new Api(token) : null), [token]);

  const onAuthFailure = useCallback((err: unknown) => {
    if (err instanceof ApiError && err.status === 401) {
      clearToken();
      setToken(null);
      setAuthError("The server refused the token. Enter a valid one.");
      return true;
    }
    return false;
  }, []);

  const refresh = useCallback(async () => {
    if (!api) return;
    try {
      setSessions(await api.listSessions());
      setListError(undefined);
    } catch (err) {
      if (!onAuthFailure(err)) setListError(err instanceof Error ? err.message : String(err));
    }
  }, [api, onAuthFailure]);

  useEffect(() => {
    void refresh();
    const timer = setInterval(() => void refresh(), 5000);
    return () => clearInterval(timer);
  }, [refresh]);

  const select = useCallback((id: string | null) => {
    setSelected(id);
    writeQuery({ session: id });
  }, []);

  if (!api) {
    return (
      <TokenForm
        error={authError}
        onToken={(value) => {
          saveToken(value);
          setAuthError(undefined);
          setToken(value);
        }}
      />
    );
  }

  return (
    <div className="app">
      <header className="topbar">
        <h1>
          <span aria-hidden="true">⚓</span> Keel · Activity Timeline
        </h1>
        <button
          type="button"
          className="link"
          onClick={() => {
            clearToken();
            setToken(null);
          }}
        >
          Sign out
        </button>
      </header>
      <aside className="sidebar" aria-label="Sessions">
        <TaskForm
          api={api}
          onStarted={(session) => {
            setSessions((list) => [session, ...list.filter((s) => s.id !== session.id)]);
            select(session.id);
          }}
          onAuthFailure={onAuthFailure}
        />
        <SessionList sessions={sessions} selected={selected} onSelect={select} error={listError} />
      </aside>
      <main className="main">
        {selected ? (
          <SessionView
            key={selected}
            api={api}
            sessionId={selected}
            onAuthFailure={onAuthFailure}
            onChanged={() => {
              // The server may update the session's status a moment after its last event.
              void refresh();
              setTimeout(() => void refresh(), 1000);
            }}
          />
        ) : (
          <div className="empty">
            <p>Start a task, or pick a session on the left.</p>
          </div>
        )}
      </main>
    </div>
  );
}
