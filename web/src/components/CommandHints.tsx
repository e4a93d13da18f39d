import type { CustomCommand } from "../api";
import { matchingCommands, pickedCommand } from "../commands";
import { useI18n } from "../i18n";

/** The custom commands the follow-up being typed may name, each with its argument hint and
 * description; picking one puts `/NAME ` in the box. */
export function CommandHints(props: { commands: CustomCommand[]; input: string; onPick(text: string): void }) {
  const { t } = useI18n();
  const matching = matchingCommands(props.commands, props.input);
  if (matching.length === 0) return null;
  return (
    <ul className="command-hints" data-testid="command-hints" aria-label={t("commands-heading")}>
      {matching.map((c) => (
        <li key={c.name}>
          <button type="button" data-testid="command-hint" data-name={c.name} onClick={() => props.onPick(pickedCommand(c))}>
            <code>
              /{c.name}
              {c.argument_hint ? ` ${c.argument_hint}` : ""}
            </code>{" "}
            <span className="muted">{c.description}</span>
          </button>
        </li>
      ))}
    </ul>
  );
}
