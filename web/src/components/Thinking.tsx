import type { ThinkingBlock } from "../sessionModel";
import { useI18n } from "../i18n";

/** The model's reasoning, one collapsed block per model call. */
export function Thinking(props: { blocks: readonly ThinkingBlock[] }) {
  const { t } = useI18n();
  if (props.blocks.length === 0) return null;
  return (
    <section className="card thinking" data-testid="thinking" aria-labelledby="thinking-heading">
      <h3 id="thinking-heading">{t("thinking-heading")}</h3>
      {props.blocks.map((block) => (
        <details key={block.key} data-testid="thinking-block" data-done={String(block.done)}>
          <summary>
            {block.done ? t("thinking-summary", { agent: block.agent }) : t("thinking-summary-live", { agent: block.agent })}
          </summary>
          <pre className="thinking-text" tabIndex={0}>{block.text}</pre>
        </details>
      ))}
    </section>
  );
}
