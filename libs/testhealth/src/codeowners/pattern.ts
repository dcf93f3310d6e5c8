const escapeRegex = (ch: string): string => ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

function segmentRegex(segment: string): string {
  let out = '';
  for (let i = 0; i < segment.length; i += 1) {
    const ch = segment.charAt(i);
    if (ch === '\\' && i + 1 < segment.length) {
      i += 1;
      out += escapeRegex(segment.charAt(i));
    } else if (ch === '*') out += '[^/]*';
    else if (ch === '?') out += '[^/]';
    else out += escapeRegex(ch);
  }
  return out;
}

/**
 * A CODEOWNERS pattern as GitHub reads it (gitignore rules minus `!`, `[ ]` and `\#`):
 * - a leading `/` or any `/` before the last character anchors the pattern at the repository
 *   root; otherwise it matches at any depth (`*.js`, `logs`, `apps/`);
 * - a trailing `/` matches only what is inside that directory;
 * - `*` and `?` stay within one path segment; `**` spans any number of directories;
 * - a pattern naming a directory owns everything below it, except that a final `/*` owns only
 *   the directory's direct files (GitHub: `assets/*` does not own `assets/img/x.png`).
 */
export function compilePattern(pattern: string): RegExp {
  let p = pattern;
  const dirOnly = p.endsWith('/');
  p = p.replace(/\/+$/, '');
  const anchored = p.includes('/');
  p = p.replace(/^\/+/, '');
  const segments = p.split('/');
  const last = segments.length - 1;
  let body = '';
  segments.forEach((segment, i) => {
    if (segment === '**') body += i === last ? '.*' : '(?:.*/)?';
    else body += segmentRegex(segment) + (i === last ? '' : '/');
  });
  const lastSegment = segments[last];
  const suffix = dirOnly ? '/.*' : lastSegment === '*' || lastSegment === '**' ? '' : '(?:/.*)?';
  return new RegExp(`${anchored ? '^' : '^(?:.*/)?'}${body}${suffix}$`);
}
