/**
 * Keeps the written record true: every decision (`Dnn`) and every file that a comment or a doc cites
 * must exist in the repository. A citation of a file outside the repository (research notes kept
 * elsewhere) is as dead as a renamed one, because a reader of the repository cannot open it. Each
 * decision also keeps a status and stays short.
 *
 *   node --import tsx scripts/references.ts --check   # exit 1 and list each dead reference
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface DeadReference {
  file: string;
  line: number;
  cited: string;
}

const CITING = /\.(ts|js|mjs|cjs|md)$/;
/** A decision id: D and one to three digits, alone (not D2D, not a hex digest). */
const DECISION = /(?<![\w-])D(\d{1,3})(?![\w-])/g;
/**
 * A citation of a file: a path from one of the repository's top folders, a research note's path
 * (`reference/…`, never in the repository), or a bare Markdown name. Other paths are examples or
 * files of the user's repository (`.trunk/trunk.yaml`, `src/cart.test.ts`), not citations.
 */
const FILE =
  /(?<![\w./@-])((?:apps|libs|docs|test|bench|scripts|deploy|shared|reference|spec)\/[\w./-]*[\w-]\.(?:md|ts|js|mjs|json|ya?ml)|[\w-]+\.md)(?![\w/-])/g;

const decisionIds = (root: string): Set<string> => {
  const text = readFileSync(path.join(root, 'docs/decisions.md'), 'utf8');
  return new Set([...text.matchAll(/^#{2,3} (D\d{1,3})\b/gm)].map((m) => m[1] as string));
};

/** Tracked and untracked-but-not-ignored files, as git lists them. */
const filesOf = (root: string): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && existsSync(path.join(root, f)));

/**
 * A cited path resolves from the repository's root or the citing file's folder; a bare name, as any
 * file of that name.
 */
const resolves = (cited: string, from: string, files: Set<string>, names: Set<string>): boolean => {
  if (!cited.includes('/')) return names.has(cited);
  // A built file (`apps/server/src/main.js` under dist/) stands for its source.
  const source = cited.replace(/\.js$/, '.ts');
  return [cited, source, path.posix.join(path.posix.dirname(from), cited)].some((c) => files.has(c));
};

/**
 * The lines that can cite: a doc's prose (its fenced code left out) and a source file's comments
 * (a string in code is data, such as a test's fixture path, not a citation).
 */
const citingLines = (file: string, text: string): string[] => {
  const lines = text.split('\n');
  let fenced = false;
  let block = false;
  return lines.map((line) => {
    const t = line.trim();
    if (file.endsWith('.md')) {
      if (t.startsWith('```')) fenced = !fenced;
      return fenced ? '' : line;
    }
    if (block || t.startsWith('/*')) {
      block = !t.includes('*/') || (t.startsWith('/*') && t.indexOf('*/') < 2 && t.length > 2 && !t.endsWith('*/'));
      if (t.endsWith('*/')) block = false;
      return line;
    }
    if (t.startsWith('//')) return line;
    const trailing = line.indexOf(' // ');
    return trailing >= 0 ? line.slice(trailing) : '';
  });
};

/** The longest a decision may run, its title and status included (CONTRIBUTING.md: "at most ~15 lines"). */
const DECISION_LINES = 16;

/**
 * The shape of docs/decisions.md that keeps it a record and not a log: each `## Dnn.` entry says its
 * status on the line after its title (accepted, or superseded by the decision that replaced it) and
 * is at most DECISION_LINES long; measurements go to docs/benchmarks.md. Reported as dead references
 * of the entry's title line.
 */
export const malformedDecisions = (root: string): DeadReference[] => {
  const file = 'docs/decisions.md';
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  const titles = lines.flatMap((line, i) => (/^## D\d{1,3}\. /.test(line) ? [i] : []));
  return titles.flatMap((at, k) => {
    const end = titles[k + 1] ?? lines.length;
    let last = end - 1;
    while (last > at && (lines[last] as string).trim() === '') last--;
    const id = (lines[at] as string).slice(3).split('.')[0] as string;
    const problems: DeadReference[] = [];
    if (!/^Status: (accepted|superseded|rejected)/.test(lines[at + 1] ?? ''))
      problems.push({ file, line: at + 1, cited: `${id} without a Status line` });
    if (last - at + 1 > DECISION_LINES) problems.push({ file, line: at + 1, cited: `${id} of ${last - at + 1} lines` });
    return problems;
  });
};

export const deadReferences = (root: string): DeadReference[] => {
  const decisions = decisionIds(root);
  const all = filesOf(root);
  const files = new Set(all);
  const names = new Set(all.map((f) => path.posix.basename(f)));
  const dead: DeadReference[] = [];
  for (const file of all.filter((f) => CITING.test(f) && !f.startsWith('node_modules/'))) {
    citingLines(file, readFileSync(path.join(root, file), 'utf8')).forEach((text, i) => {
      for (const m of text.matchAll(DECISION)) {
        if (!decisions.has(m[0])) dead.push({ file, line: i + 1, cited: m[0] });
      }
      for (const m of text.matchAll(FILE)) {
        const cited = m[1] as string;
        if (!resolves(cited, file, files, names)) dead.push({ file, line: i + 1, cited });
      }
    });
  }
  return dead;
};

if (require.main === module) {
  const root = path.resolve(__dirname, '..');
  const dead = deadReferences(root);
  for (const d of dead) console.error(`${d.file}:${d.line}: cites ${d.cited}, which is not in the repository`);
  const malformed = malformedDecisions(root);
  for (const d of malformed) console.error(`${d.file}:${d.line}: decision ${d.cited}: a Status line and at most ${DECISION_LINES} lines`);
  if (dead.length > 0) console.error(`${dead.length} dead reference(s): cite a decision or file that exists, or say the fact itself`);
  if (dead.length > 0 || malformed.length > 0) process.exit(1);
}
