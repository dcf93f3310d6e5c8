import { Minimatch, type MinimatchOptions } from 'minimatch';

/**
 * minimatch set to gitignore's reading of a glob, which CODEOWNERS uses: `*` and `?` match dot files
 * too, and braces, extglobs, `#` and `!` are plain characters (the parser has already refused `!` and
 * `[ ]` lines). From version 11 minimatch matches each path segment with a state machine, never a
 * backtracking regular expression, so a hostile pattern costs time proportional to the pattern times
 * the path (docs/decisions.md D220).
 */
const OPTIONS: MinimatchOptions = {
  dot: true,
  nobrace: true,
  noext: true,
  nocomment: true,
  nonegate: true,
  optimizationLevel: 0,
  platform: 'linux',
};

/** Whether a normalized repository path matches one CODEOWNERS pattern. */
export type PathMatcher = (path: string) => boolean;

/**
 * A CODEOWNERS pattern as GitHub reads it (gitignore rules minus `!`, `[ ]` and `\#`):
 * - a leading `/` or any `/` before the last character anchors the pattern at the repository
 *   root; otherwise it matches at any depth (`*.js`, `logs`, `apps/`);
 * - a trailing `/` matches only what is inside that directory;
 * - `*` and `?` stay within one path segment; `**` spans any number of directories;
 * - a pattern naming a directory owns everything below it, except that a final `/*` owns only
 *   the directory's direct files (GitHub: `assets/*` does not own `assets/img/x.png`).
 */
export function compilePattern(pattern: string): PathMatcher {
  const dirOnly = pattern.endsWith('/');
  const trimmed = pattern.replace(/\/+$/, '');
  const anchored = trimmed.includes('/');
  const glob = (anchored ? '' : '**/') + trimmed.replace(/^\/+/, '');
  const last = glob.slice(glob.lastIndexOf('/') + 1);
  const globs = dirOnly ? [`${glob}/**`] : last === '*' || last === '**' ? [glob] : [glob, `${glob}/**`];
  const matchers = globs.map((g) => new Minimatch(g, OPTIONS));
  return (path) => matchers.some((m) => m.match(path));
}
