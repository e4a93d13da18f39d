export { parseArgs, ArgError } from "./parse";
export type { OptionSpec, Spec, Parsed } from "./parse";
