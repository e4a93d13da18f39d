export type OptionSpec = { type: "boolean" | "string"; short?: string };
export type Spec = Record<string, OptionSpec>;

export interface Parsed {
  options: Record<string, boolean | string>;
  positionals: string[];
}

/** Thrown for unknown options and missing values. */
export class ArgError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArgError";
  }
}

/**
 * Parse `argv` (without the program name) according to `spec`.
 *
 * Supported today: `--name` for booleans, `--name value` and `--name=value`
 * for strings, and positionals. Unknown options and a string option without
 * a value throw ArgError.
 */
export function parseArgs(argv: string[], spec: Spec): Parsed {
  const options: Record<string, boolean | string> = {};
  const positionals: string[] = [];

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const opt = spec[name];
      if (!opt) {
        throw new ArgError(`unknown option --${name}`);
      }
      if (opt.type === "boolean") {
        if (eq !== -1) {
          throw new ArgError(`option --${name} does not take a value`);
        }
        options[name] = true;
      } else if (eq !== -1) {
        options[name] = arg.slice(eq + 1);
      } else {
        if (i + 1 >= argv.length) {
          throw new ArgError(`option --${name} needs a value`);
        }
        options[name] = argv[++i];
      }
    } else {
      positionals.push(arg);
    }
  }
  return { options, positionals };
}
