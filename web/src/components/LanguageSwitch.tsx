import { LOCALES, useI18n, type Locale } from "../i18n";

const NAMES: Record<Locale, string> = { en: "English", "zh-CN": "简体中文" };

/** Picks the page's language. */
export function LanguageSwitch(props: { onChange(locale: Locale): void }) {
  const { t, locale } = useI18n();
  return (
    <label className="language">
      <span className="visually-hidden">{t("language-label")}</span>
      <select
        data-testid="language-switch"
        aria-label={t("language-label")}
        value={locale}
        onChange={(e) => {
          const value = e.target.value;
          if (value === "en" || value === "zh-CN") props.onChange(value);
        }}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {NAMES[l]}
          </option>
        ))}
      </select>
    </label>
  );
}
