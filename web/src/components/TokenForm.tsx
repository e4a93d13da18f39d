import { useState } from "react";

/** Asks for the bearer token when the URL fragment did not carry one. */
export function TokenForm(props: { error?: string | undefined; onToken(token: string): void }) {
  const [value, setValue] = useState("");
  return (
    <main className="token-page">
      <form
        className="card token-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) props.onToken(value.trim());
        }}
      >
        <h1>Keel · Activity Timeline</h1>
        <p>This page needs the server's access token (or open it with <code>#token=…</code>).</p>
        {props.error && (
          <p role="alert" className="error-text">
            {props.error}
          </p>
        )}
        <label htmlFor="token-input">Access token</label>
        <input
          id="token-input"
          data-testid="token-input"
          type="password"
          autoComplete="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />
        <button type="submit" className="primary" data-testid="token-submit">
          Continue
        </button>
      </form>
    </main>
  );
}
