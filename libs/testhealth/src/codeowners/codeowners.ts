import { compilePattern, type PathMatcher } from './pattern';

export interface CodeownersRule {
  pattern: string;
  /** Empty when the line names no owner: matching files are explicitly unowned. */
  owners: string[];
  /** 1-based line in the file. */
  line: number;
}

export interface CodeownersProblem {
  line: number;
  message: string;
}

export interface Codeowners {
  rules: CodeownersRule[];
  /** Lines that were skipped, with why; GitHub shows the same lines as errors. */
  problems: CodeownersProblem[];
  /** Owners of a repository-relative path: the last matching rule wins. */
  ownersOf(path: string): string[];
}

const USER_OR_TEAM = /^@[A-Za-z0-9](?:[A-Za-z0-9-]*)(?:\/[A-Za-z0-9._-]+)?$/;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

/** Splits on unescaped whitespace and stops at an unescaped `#` that starts a token (a comment). */
function tokensOf(line: string): string[] {
  const tokens: string[] = [];
  let current = '';
  for (let i = 0; i < line.length; i += 1) {
    const ch = line.charAt(i);
    if (ch === '\\' && i + 1 < line.length) {
      current += ch + line.charAt(i + 1);
      i += 1;
    } else if (/\s/.test(ch)) {
      if (current) tokens.push(current);
      current = '';
    } else if (ch === '#' && current === '') {
      break;
    } else {
      current += ch;
    }
  }
  if (current) tokens.push(current);
  return tokens;
}

export function normalizeRepoPath(path: string): string {
  let p = path.trim().replace(/\\/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  return p.replace(/^\/+/, '');
}

/**
 * Parses a GitHub CODEOWNERS file. Lines GitHub rejects (negation, character ranges, malformed
 * owners) are skipped and listed in `problems` rather than failing the whole file, so one typo
 * does not wipe out ownership for every test.
 */
export function parseCodeowners(text: string): Codeowners {
  const rules: CodeownersRule[] = [];
  const problems: CodeownersProblem[] = [];
  const compiled: PathMatcher[] = [];
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, index) => {
      const line = index + 1;
      const [pattern, ...owners] = tokensOf(raw.trim());
      if (pattern === undefined) return;
      if (pattern.startsWith('!')) return void problems.push({ line, message: `negated pattern ${pattern} is not supported` });
      if (/[[\]]/.test(pattern.replace(/\\./g, ''))) {
        return void problems.push({ line, message: `character ranges in ${pattern} are not supported` });
      }
      const bad = owners.filter((o) => !USER_OR_TEAM.test(o) && !EMAIL.test(o));
      if (bad.length > 0) return void problems.push({ line, message: `invalid owner(s) ${bad.join(', ')}` });
      rules.push({ pattern, owners, line });
      compiled.push(compilePattern(pattern));
    });

  const ownersOf = (path: string): string[] => {
    const p = normalizeRepoPath(path);
    if (!p) return [];
    for (let i = rules.length - 1; i >= 0; i -= 1) {
      if (compiled[i]?.(p)) return [...(rules[i]?.owners ?? [])];
    }
    return [];
  };
  return { rules, problems, ownersOf };
}

/** Free-function form of Codeowners.ownersOf. */
export function ownersOf(codeowners: Codeowners, path: string): string[] {
  return codeowners.ownersOf(path);
}
