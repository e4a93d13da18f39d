import { useCallback, useEffect, useMemo, useState } from "react";
import { Api, ApiError, type Session } from "./api";
import { clearToken, loadToken, saveToken } from "./auth";
import { I18nContext, initialLocale, messages, saveLocale, useI18n, type Locale } from "./i18n";
import { readQuery, writeQuery } from "./query";
import { SessionList } from "./components/SessionList";
import { SessionView } from "./components/SessionView";
import { TaskForm } from "./components/TaskForm";
import { TokenForm } from "./components/TokenForm";
import { LanguageSwitch } from "./components/LanguageSwitch";

/** The Activity Timeline page, in the browser's language or the one picked. */
export function App() {
  const [locale, setLocale] = useState<Locale>(() => initialLocale());
  const i18n = messages(locale);
  useEffect(() => {
    document.documentElement.lang = locale;
    document.title = i18n.t("page-title");
  }, [locale, i18n]);
  const changeLocale = useCallback((next: Locale) => {
    saveLocale(next);
    setLocale(next);
  }, []);
  return (
    <I18nContext.Provider value={i18n}>
      <Page onLocale={changeLocale} />
    </I18nContext.Provider>
  );
}

function Page(props: { onLocale(locale: Locale): void }) {
  const { t } = useI18n();
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
      setAuthError(t("auth-refused"));
      return true;
    }
    return false;
  }, [t]);

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
          <span aria-hidden="true">⚓</span> {t("page-title")}
        </h1>
        <LanguageSwitch onChange={props.onLocale} />
        <button
          type="button"
          className="link"
          onClick={() => {
            clearToken();
            setToken(null);
          }}
        >
          {t("sign-out")}
        </button>
      </header>
      <aside className="sidebar" aria-label={t("sessions-label")}>
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
            onForked={(session) => {
              setSessions((list) => [session, ...list.filter((s) => s.id !== session.id)]);
              select(session.id);
            }}
            onChanged={() => {
              // The server may update the session's status a moment after its last event.
              void refresh();
              setTimeout(() => void refresh(), 1000);
            }}
          />
        ) : (
          <div className="empty">
            <p>{t("empty-hint")}</p>
          </div>
        )}
      </main>
    </div>
  );
}
