import { useState } from "react";
import { useI18n } from "../i18n";

/** Asks for the bearer token when the URL fragment did not carry one. */
export function TokenForm(props: { error?: string | undefined; onToken(token: string): void }) {
  const [value, setValue] = useState("");
  const { t } = useI18n();
  return (
    <main className="token-page">
      <form
        className="card token-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) props.onToken(value.trim());
        }}
      >
        <h1>{t("page-title")}</h1>
        <p>{t("token-needed")}</p>
        {props.error && (
          <p role="alert" className="error-text">
            {props.error}
          </p>
        )}
        <label htmlFor="token-input">{t("token-label")}</label>
        <input
          id="token-input"
          data-testid="token-input"
          type="password"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="submit" className="primary" data-testid="token-submit">
          {t("token-continue")}
        </button>
      </form>
    </main>
  );
}
