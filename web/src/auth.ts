// The bearer token: from the URL fragment `#token=…` (then removed from the address bar) or a
// prompt, kept in sessionStorage for the tab.

const KEY = "keel.token";

/** Reads the token from `#token=…` (storing it) or from sessionStorage. */
export function loadToken(): string | null {
  const hash = window.location.hash.replace(/^#/, "");
  const fromHash = new URLSearchParams(hash).get("token");
  if (fromHash) {
    sessionStorage.setItem(KEY, fromHash);
    const url = new URL(window.location.href);
    url.hash = "";
    window.history.replaceState(null, "", url.pathname + url.search);
    return fromHash;
  }
  return sessionStorage.getItem(KEY);
}

/** Stores a token the user typed in. */
export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

/** Forgets the token (after the server refused it). */
export function clearToken(): void {
  sessionStorage.removeItem(KEY);
}
