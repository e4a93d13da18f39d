export { formatDuration, reportLine } from "./format";
export { Timer } from "./timer";
export type { Step } from "./timer";
