// Custom commands on the page (issue 26 §3): a follow-up typed as `/NAME ARGS` runs the
// session's command NAME (the server expands it); while the name is being typed, the commands
// it may become are offered.
import type { CustomCommand } from "./api";

/** The commands `input` may be naming: all of them after a lone `/`, those whose name starts
 * with what follows it, none once arguments are typed or for input that is no command. */
export function matchingCommands(commands: CustomCommand[], input: string): CustomCommand[] {
  const text = input.trimStart();
  if (!text.startsWith("/")) return [];
  const typed = text.slice(1);
  if (/\s/.test(typed)) return [];
  return commands.filter((c) => c.name.startsWith(typed));
}

/** What the input becomes when `command` is picked: its name and a space for the arguments. */
export function pickedCommand(command: CustomCommand): string {
  return `/${command.name} `;
}
