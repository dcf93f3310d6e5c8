import { wordsFor } from '@railyard/domain';
import { html, type SafeHtml } from './html';
import { duration } from './links';

/** A long id (a UUID, a commit) shown by its first characters; the full id is its title and data-id, for hover and copy. */
export const shortId = (id: string, length = 8): SafeHtml =>
  html`<code class="id" title="${id}" data-id="${id}">${id.length > length ? id.slice(0, length) : id}</code>`;

/** A code in plain words from one of the domain's tables; the code stays in the title and data-code, so a search finds it. */
export const plain = (table: Readonly<Record<string, string>>, code: string, cls = ''): SafeHtml =>
  html`<span class="${cls || 'code'}" title="${code}" data-code="${code}">${wordsFor(table, code)}</span>`;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const URL_RE = /https?:\/\/[^\s<>"'`)]+/g;

/**
 * A sentence of the domain (reasons, details) as the page shows it: `name` spans become code
 * elements instead of literal backticks, run ids are shortened (full on hover), and a URL said twice
 * is shown once, as a link.
 */
export const prose = (text: string): SafeHtml => {
  // Most sentences (what a waiting PR waits on, once per row of a long queue) have nothing to rewrite.
  if (!/[`/]|[0-9a-f]{8}-/i.test(text)) return html`${text}`;
  const seen = new Set<string>();
  // Drop the second and later copies of a URL, and the separator that came with them.
  const once = text.replace(/(\s*[(:,;-]?\s*)(https?:\/\/[^\s<>"'`)]+)\)?/g, (all, lead: string, url: string) => {
    if (seen.has(url)) return '';
    seen.add(url);
    return all;
  });
  const parts = once.split('`');
  return html`${parts.map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : inline(part)))}`;
};

/** Plain text with its run ids shortened and its URLs linked. */
const inline = (text: string): SafeHtml[] => {
  const out: SafeHtml[] = [];
  const pattern = new RegExp(`${UUID.source}|${URL_RE.source}`, 'gi');
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    const at = m.index ?? 0;
    out.push(html`${text.slice(last, at)}`);
    out.push(
      m[0].startsWith('http')
        ? html`<a href="${m[0]}" title="${m[0]}">${m[0].replace(UUID, (id) => `${id.slice(0, 8)}…`)}</a>`
        : shortId(m[0]),
    );
    last = at + m[0].length;
  }
  out.push(html`${text.slice(last)}`);
  return out;
};

/** A time as "09:30 UTC" (the date too when it is not today), the full ISO time on hover. */
export const clock = (iso: string, now: number): SafeHtml => {
  const d = new Date(iso);
  const sameDay = new Date(now).toISOString().slice(0, 10) === iso.slice(0, 10);
  const text = `${sameDay ? '' : `${iso.slice(0, 10)} `}${d.toISOString().slice(11, 16)} UTC`;
  return html`<time datetime="${iso}" title="${iso}">${text}</time>`;
};

/** Seconds between two ISO times (or until now), never negative. */
export const secondsBetween = (from: string, to: string | number): number =>
  Math.max(0, ((typeof to === 'number' ? to : Date.parse(to)) - Date.parse(from)) / 1000);

/** "4.2 min" for a span between two times. */
export const span = (from: string, to: string | number): string => duration(secondsBetween(from, to));
