const cache = new Map<string, RegExp>();

function regexOf(glob: string): RegExp {
  let re = cache.get(glob);
  if (!re) {
    const body = [...glob].map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\/-]/g, '\\$&'))).join('');
    re = new RegExp(`^${body}$`);
    cache.set(glob, re);
  }
  return re;
}

/**
 * Branch globs as Trunk's monitors read them: `*` matches any run of characters including `/`
 * (so `gh-readonly-queue/*` covers `gh-readonly-queue/main/pr-1-abc`), `?` one character.
 */
export function branchMatches(branch: string, globs: readonly string[]): boolean {
  return globs.some((g) => regexOf(g).test(branch));
}
