/** Cuts at a code point boundary and marks the cut, so a truncated name never ends in half a surrogate pair. */
export function truncate(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: `${text.slice(0, end)}…`, truncated: true };
}

const THOUSANDS = /^\d{1,3}(,\d{3})+(\.\d+)?$/;

/**
 * Seconds as written by runners to milliseconds. Some JVM reporters localise the number
 * ("1,234.5" or "0,5"), so both separators are understood; junk becomes 0.
 */
export function secondsToMs(value: string | undefined): number {
  if (value === undefined) return 0;
  let s = value.trim();
  if (THOUSANDS.test(s)) s = s.replace(/,/g, '');
  else if (/^\d+,\d+$/.test(s)) s = s.replace(',', '.');
  const seconds = Number(s);
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 0;
}

/** Forward slashes, no leading "./", repo root stripped, optional prefix for package-relative paths. */
export function normalizePath(path: string, opts: { repoRoot?: string; prefix?: string }): string {
  let p = path.trim().replace(/\\/g, '/');
  const root = opts.repoRoot?.replace(/\\/g, '/').replace(/\/+$/, '');
  if (root && p.startsWith(`${root}/`)) p = p.slice(root.length + 1);
  while (p.startsWith('./')) p = p.slice(2);
  if (p && opts.prefix && !p.startsWith('/')) {
    const prefix = opts.prefix.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
    if (prefix) p = `${prefix}/${p}`;
  }
  return p;
}
