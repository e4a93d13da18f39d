export { truncate, squish, escapeHtml } from "./text";
export { renderCard, plainTextSummary } from "./feed";
export type { FeedItem } from "./feed";
