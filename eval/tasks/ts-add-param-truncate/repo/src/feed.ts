import { escapeHtml, squish, truncate } from "./text";

export interface FeedItem {
  title: string;
  body: string;
  url: string;
}

/** An HTML card: title (max 60 chars) and a body teaser (max 140 chars). */
export function renderCard(item: FeedItem): string {
  const title = escapeHtml(truncate(squish(item.title), 60));
  const teaser = escapeHtml(truncate(squish(item.body), 140));
  return `<article><h2><a href="${escapeHtml(item.url)}">${title}</a></h2><p>${teaser}</p></article>`;
}

/**
 * A plain-text summary for the e-mail digest: "title: teaser (url)", with the
 * title cut to 40 and the teaser to 80 characters. Digest mails are sent as
 * US-ASCII, so the summary must not contain non-ASCII characters that we add.
 */
export function plainTextSummary(item: FeedItem): string {
  const title = truncate(squish(item.title), 40);
  const teaser = truncate(squish(item.body), 80);
  return `${title}: ${teaser} (${item.url})`;
}
