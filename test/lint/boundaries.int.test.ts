import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../..');

interface Fixture {
  file: string;
  code: string;
}

/**
 * Lints source text as if it stood at `file`, with the repository's own eslint.config.mjs, in a
 * child process (ESLint loads its flat config as an ES module, which Jest's module sandbox cannot).
 * Answers the rule ids reported for each fixture.
 */
const lint = async (fixtures: Fixture[]): Promise<string[][]> => {
  const program = `
    const { ESLint } = require('eslint');
    const fixtures = JSON.parse(process.argv[1]);
    (async () => {
      const eslint = new ESLint({ cwd: ${JSON.stringify(ROOT)} });
      const out = [];
      for (const f of fixtures) {
        const [result] = await eslint.lintText(f.code, { filePath: f.file });
        out.push(result.messages.map((m) => m.ruleId));
      }
      process.stdout.write(JSON.stringify(out));
    })().catch((err) => { console.error(err); process.exit(1); });
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', program, JSON.stringify(fixtures)], { cwd: ROOT });
  return JSON.parse(stdout) as string[][];
};

const at = (file: string, code: string): Fixture => ({ file: path.join(ROOT, file), code: `${code}\nexport const used = value;\n` });

describe('import boundaries (eslint.config.mjs)', () => {
  it('when a library or the domain crosses a boundary, production code imports the testkit, or code outside a config module reads process.env, then lint reports it; where it is allowed, then nothing', async () => {
    const cases: [Fixture, boolean][] = [
      [at('libs/readmodels/src/fixture.ts', "import { buildApp as value } from '@railyard/api';"), true],
      [at('libs/runtime/src/fixture.ts', "import { startEngine as value } from '@railyard/engine';"), true],
      [at('libs/runtime/src/fixture.ts', "import { value } from '../../../apps/api/src/app';"), true],
      [at('libs/domain/src/fixture.ts', "import { readFileSync as value } from 'node:fs';"), true],
      [at('libs/domain/src/fixture.ts', "import { execFileSync as value } from 'child_process';"), true],
      [at('libs/domain/src/fixture.ts', "import value from 'ioredis';"), true],
      [at('libs/domain/src/fixture.ts', "import value from 'express';"), true],
      [at('libs/domain/src/fixture.ts', "import value from 'better-sqlite3';"), true],
      [at('libs/domain/src/fixture.ts', "import { Pool as value } from 'pg';"), true],
      [at('libs/domain/src/fixture.ts', "import { MemoryEventStore as value } from '@railyard/eventstore';"), true],
      [at('libs/domain/src/fixture.ts', "import { value } from '../../eventstore/src/memory';"), true],
      [at('apps/cli/src/fixture.ts', "import { replayQueue as value } from '@railyard/api';"), true],
      [at('apps/cli/src/fixture.ts', "import { rebuildProjections as value } from '@railyard/projector';"), true],
      [at('libs/githost/src/fixture.ts', "import { tempGitRepo as value } from '@railyard/testkit';"), true],
      [at('apps/engine/src/fixture.ts', "import { tempGitRepo as value } from '@railyard/testkit';"), true],
      [at('apps/cli/src/fixture.ts', "import { tempGitRepo as value } from '@railyard/testkit';"), true],
      [at('libs/ci/src/fixture.ts', 'const value = process.env.RAILYARD_CI_CONCURRENCY;'), true],
      [at('apps/engine/src/fixture.ts', 'const { env: value } = process;'), true],
      // The same kinds of import where they are allowed: each must stay quiet, or the rule proves nothing.
      [at('libs/domain/src/fixture.ts', "import { value } from './priority';"), false],
      [at('libs/domain/src/fixture.test.ts', "import { readFileSync as value } from 'node:fs';"), false],
      [at('libs/readmodels/src/fixture.ts', "import { evolve as value } from '@railyard/domain';"), false],
      [at('apps/api/src/fixture.ts', "import { replayQueue as value } from '@railyard/readmodels';"), false],
      [at('apps/server/src/fixture.ts', "import { startEngine as value } from '@railyard/engine';"), false],
      [at('apps/cli/src/fixture.ts', "import { rebuildProjections as value } from '@railyard/readmodels';"), false],
      [at('apps/engine/src/testing/fixture.ts', "import { tempGitRepo as value } from '@railyard/testkit';"), false],
      [at('libs/githost/src/fixture.test.ts', "import { tempGitRepo as value } from '@railyard/testkit';"), false],
      [at('apps/engine/src/main.ts', 'const value = process.env.RAILYARD_ENGINE;'), false],
      [at('libs/runtime/src/config.ts', 'const value = process.env.RAILYARD_ENGINE;'), false],
    ];
    const reported = await lint(cases.map(([fixture]) => fixture));
    const outcome = cases.map(([fixture, _], i) => [
      path.relative(ROOT, fixture.file),
      fixture.code.split('\n')[0],
      reported[i]?.some((rule) => rule === 'no-restricted-imports' || rule === 'no-restricted-properties'),
    ]);
    expect(outcome).toEqual(
      cases.map(([fixture, restricted]) => [path.relative(ROOT, fixture.file), fixture.code.split('\n')[0], restricted]),
    );
  }, 120_000);
});
