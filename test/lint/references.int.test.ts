import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deadReferences, malformedDecisions } from '../../scripts/references';

/** A git work tree holding `files`, the way the check reads the repository (git ls-files). */
const repoWith = (files: Record<string, string>): string => {
  const root = mkdtempSync(path.join(tmpdir(), 'railyard-refs-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: root });
  return root;
};

const LIVE = {
  'docs/decisions.md':
    '# Decisions\n\n## D1. One thing\nStatus: accepted.\n\n## D2. Another\nStatus: superseded by D1.\n\n## D3. Tried\nStatus: rejected (reverted).\n',
  'docs/engine.md': 'See D1 and `libs/a/src/a.ts`; the user writes `.railyard.yml` and `src/cart.test.ts`.\n',
  'libs/a/src/a.ts': "// Why: D2 (docs/engine.md).\nexport const fixture = 'docs/none.md D9';\n",
};

describe('the reference check (npm run lint)', () => {
  const roots: string[] = [];
  const tree = (files: Record<string, string>) => {
    const root = repoWith(files);
    roots.push(root);
    return root;
  };
  afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

  it('when every cited decision and file exists, then nothing is reported (code strings and user-repo paths are not citations)', () => {
    expect(deadReferences(tree(LIVE))).toEqual([]);
  });

  it('when a comment cites a decision that is not in docs/decisions.md, then it is reported with its line', () => {
    const root = tree({ ...LIVE, 'libs/a/src/b.ts': 'export const b = 1;\n/** Kept for D7. */\n' });
    expect(deadReferences(root)).toEqual([{ file: 'libs/a/src/b.ts', line: 2, cited: 'D7' }]);
  });

  it('when a doc or a comment cites a file outside the repository or a renamed one, then each is reported', () => {
    const root = tree({
      ...LIVE,
      'docs/ops.md': 'As reference/trunk.md §2 says.\n\nMoved: `apps/api/src/gone.ts`, and flaky.md.\n',
      'libs/a/src/c.ts': '// From shared/reference/github.md.\nexport const c = 1;\n',
    });
    expect(deadReferences(root).map((d) => `${d.file}:${d.line} ${d.cited}`)).toEqual([
      'docs/ops.md:1 reference/trunk.md',
      'docs/ops.md:3 apps/api/src/gone.ts',
      'docs/ops.md:3 flaky.md',
      'libs/a/src/c.ts:1 shared/reference/github.md',
    ]);
  });

  it('when a decision has no Status line or runs past 16 lines, then each is reported at its title', () => {
    const long = Array.from({ length: 16 }, (_, i) => `Line ${i}.`).join('\n');
    const root = tree({
      ...LIVE,
      'docs/decisions.md': `# Decisions\n\n## D1. Short\nStatus: accepted.\n\n## D2. No status\nWhy.\n\n## D3. Long\nStatus: accepted.\n${long}\n`,
    });
    expect(malformedDecisions(root).map((d) => `${d.line} ${d.cited}`)).toEqual(['6 D2 without a Status line', '9 D3 of 18 lines']);
    expect(malformedDecisions(tree(LIVE))).toEqual([]);
  });

  it('when this repository is checked, then it cites nothing that is missing and every decision is short with a status', () => {
    const root = path.resolve(__dirname, '../..');
    expect(deadReferences(root)).toEqual([]);
    expect(malformedDecisions(root)).toEqual([]);
  });
});
