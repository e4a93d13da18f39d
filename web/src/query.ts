// The page's own settings in the URL query
// (`?project=demo&root=/path&mode=plan&shadow=1&session=ID`),
// so a link or a reload opens the same view.

/** Settings read from and written to the URL query. */
export interface PageQuery {
  project: string;
  root: string;
  mode: "auto" | "direct" | "plan";
  /** New sessions stage their changes in a shadow workspace until applied. */
  shadow: boolean;
  session: string | null;
}

const MODES = ["auto", "direct", "plan"] as const;

/** Reads the query of `search` (default: the current URL), with defaults. */
export function readQuery(search: string = window.location.search): PageQuery {
  const params = new URLSearchParams(search);
  const mode = params.get("mode");
  return {
    project: params.get("project") || "demo",
    root: params.get("root") || "",
    mode: MODES.find((m) => m === mode) ?? "auto",
    shadow: params.get("shadow") === "1",
    session: params.get("session") || null,
  };
}

/** Writes some settings into the current URL without navigating. */
export function writeQuery(update: Partial<PageQuery>): void {
  const url = new URL(window.location.href);
  for (const [key, value] of Object.entries(update)) {
    if (value === null || value === undefined || value === "" || value === false) url.searchParams.delete(key);
    else url.searchParams.set(key, value === true ? "1" : String(value));
  }
  window.history.replaceState(null, "", url.pathname + url.search + url.hash);
}
