// The page's strings in English and Simplified Chinese: Fluent catalogues from the repository's
// `i18n/` (web.ftl for the page, tools.ftl for tool action text, shared with the terminal),
// bundled at build time; the language follows the browser unless the user picks one.
import { FluentBundle, FluentResource, type FluentVariable } from "@fluent/bundle";
import { createContext, useContext } from "react";
import enTools from "../../i18n/en/tools.ftl?raw";
import enWeb from "../../i18n/en/web.ftl?raw";
import zhTools from "../../i18n/zh-CN/tools.ftl?raw";
import zhWeb from "../../i18n/zh-CN/web.ftl?raw";

/** The languages the page speaks. */
export const LOCALES = ["en", "zh-CN"] as const;
/** One of [`LOCALES`]. */
export type Locale = (typeof LOCALES)[number];

/** The catalogue texts of each language (web.ftl, then tools.ftl). */
export const CATALOGUES: Record<Locale, readonly string[]> = {
  en: [enWeb, enTools],
  "zh-CN": [zhWeb, zhTools],
};

const STORAGE_KEY = "keel.lang";

/** The language for the browser's preferred languages: Chinese for any `zh*`, else English. */
export function pickLocale(languages: readonly string[]): Locale {
  for (const language of languages) {
    const lower = language.toLowerCase();
    if (lower.startsWith("zh")) return "zh-CN";
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

/** The language chosen before (kept per browser), else the browser's. */
export function initialLocale(): Locale {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === "en" || saved === "zh-CN") return saved;
  } catch {
    // No storage (private mode): fall back to the browser's language.
  }
  return pickLocale(typeof navigator === "undefined" ? [] : navigator.languages ?? [navigator.language]);
}

/** Remembers the user's choice of language. */
export function saveLocale(locale: Locale): void {
  try {
    localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // Not remembered; the switch still applies to this page.
  }
}

/** Formatted messages of one language. */
export class Messages {
  private readonly bundle: FluentBundle;
  private readonly numbers: Intl.NumberFormat;
  private readonly times: Intl.DateTimeFormat;
  private readonly dateTimes: Intl.DateTimeFormat;

  constructor(readonly locale: Locale) {
    this.bundle = new FluentBundle(locale, { useIsolating: false });
    this.numbers = new Intl.NumberFormat(locale);
    this.times = new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
    this.dateTimes = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", hourCycle: "h23" });
    for (const text of CATALOGUES[locale]) {
      const errors = this.bundle.addResource(new FluentResource(text));
      if (errors.length > 0) throw new Error(`i18n/${locale}: ${errors.map(String).join("; ")}`);
    }
  }

  /** The message `id` with `args`; the id itself when the catalogue lacks it. */
  t = (id: string, args?: Record<string, FluentVariable>): string => {
    const message = this.bundle.getMessage(id);
    if (!message?.value) return id;
    return this.bundle.formatPattern(message.value, args ?? null);
  };

  /** True when the catalogue has message `id`. */
  has = (id: string): boolean => this.bundle.hasMessage(id);

  /** The word for a code the server sends (`prefix` + `code`, e.g. `mode-plan`); the code
   * itself when the catalogue has no word for it. */
  word = (prefix: string, code: string): string => (this.has(prefix + code) ? this.t(prefix + code) : code);

  /** `n` written the language's way (thousands separators). */
  number = (n: number): string => this.numbers.format(n);

  /** The time of day of an RFC 3339 timestamp (24-hour clock); empty when it is not one. */
  time = (ts: string): string => {
    const date = new Date(ts);
    return Number.isNaN(date.getTime()) ? "" : this.times.format(date);
  };

  /** Date and time of an RFC 3339 timestamp; the text itself when it is not one. */
  dateTime = (ts: string): string => {
    const date = new Date(ts);
    return Number.isNaN(date.getTime()) ? ts : this.dateTimes.format(date);
  };

  /** What a tool call does, from its name and arguments (`tool-<name>`, else `tool-other`). */
  tool = (name: string, args: unknown): string => {
    const vars: Record<string, FluentVariable> = { name };
    if (args && typeof args === "object" && !Array.isArray(args)) {
      for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
        if (typeof value === "string" || typeof value === "number") vars[key] = value;
        else if (Array.isArray(value)) vars[key] = value.map(String).join(" ");
      }
    }
    const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
    if (!this.bundle.hasMessage(`tool-${name}`) && mcp?.[1] && mcp[2]) {
      return this.t("tool-mcp", { server: mcp[1], tool: mcp[2] });
    }
    const id = this.bundle.hasMessage(`tool-${name}`) ? `tool-${name}` : "tool-other";
    const message = this.bundle.getMessage(id);
    if (!message?.value) return name;
    // A variable the call did not pass shows as its name, not as an error.
    return this.bundle.formatPattern(message.value, vars, []);
  };
}

const cache = new Map<Locale, Messages>();

/** The (shared) messages of `locale`. */
export function messages(locale: Locale): Messages {
  let found = cache.get(locale);
  if (!found) {
    found = new Messages(locale);
    cache.set(locale, found);
  }
  return found;
}

/** The page's current language. */
export const I18nContext = createContext<Messages>(messages("en"));

/** The current language's messages. */
export function useI18n(): Messages {
  return useContext(I18nContext);
}
