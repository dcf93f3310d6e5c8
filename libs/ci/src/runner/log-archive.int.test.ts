import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { PostgresBlobStore } from '@railyard/eventstore';
import { commitOnBranch, createTestDatabase, DEFAULT_TEST_POSTGRES_URL, type TestDatabase } from '@railyard/testkit';
import { ciLogBlobName } from '../urls';
import { archivedLogOf, runningAttemptOf } from './log-archive';
import { RunnerBed } from './testing/runner-bed';

jest.setTimeout(60_000);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const bed = new RunnerBed(repo, { baseEnv: { PATH: process.env.PATH, HOME: process.env.HOME } });
let db: TestDatabase;
let seq = 0;
const runId = (): string => `00000000-0000-4000-9000-${String(++seq).padStart(12, '0')}`;

beforeAll(async () => {
  db = await createTestDatabase(process.env.RAILYARD_TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL, 'ci log archive');
});

afterAll(() => db.drop());

const runCheck = async (archive: PostgresBlobStore, command: string): Promise<{ id: string; state?: string }> => {
  const sha = await commitOnBranch(bed.gitRoot, repo, {
    branch: `b-${++seq}`,
    files: { '.railyard.yml': `ci:\n  unit: ${JSON.stringify(command)}\n` },
  });
  const id = runId();
  const runner = bed.runner({ logArchive: archive });
  await runner.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
  await runner.whenDone(id);
  return { id, state: (await bed.statuses.list(repo, sha)).find((s) => s.context === 'unit')?.state };
};

describe('the runner’s log archive', () => {
  it('when a check ends, then the archive holds its whole log, the same bytes as the runner’s file', async () => {
    const archive = await PostgresBlobStore.open({ url: db.url, schema: 'archived' });
    try {
      const { id, state } = await runCheck(archive, 'echo archived-output');

      expect(state).toBe('success');
      const archived = await archive.getNamed(ciLogBlobName(id, 'unit'));
      expect(archived?.toString()).toBe(await bed.logOf(id, 'unit'));
      expect(archived && runningAttemptOf(archived)).toBeNull();
    } finally {
      await archive.close();
    }
  });

  it('when the archive cannot be written, then the check’s verdict and its local log are as without one', async () => {
    const archive = await PostgresBlobStore.open({ url: db.url, schema: 'unreachable' });
    await archive.close();

    const { id, state } = await runCheck(archive, 'echo still-judged; exit 4');

    expect(state).toBe('failure');
    expect(await bed.logOf(id, 'unit')).toMatch(/still-judged\n# exit code 4\n$/);
  });
});

describe('archivedLogOf', () => {
  const write = async (text: string): Promise<string> => {
    const file = path.join(bed.root, `log-${++seq}.log`);
    await fs.writeFile(file, text);
    return file;
  };

  it('when the log is exactly at the cap, then it is archived whole', async () => {
    const text = `${'a'.repeat(999)}\n`;

    expect((await archivedLogOf(await write(text), 1000)).toString()).toBe(text);
  });

  it('when the log is over the cap without a line end near the cut, then the kept tail still fits the cap and ends as the log does', async () => {
    const text = `${'b'.repeat(5000)}the end\n`;
    const archived = (await archivedLogOf(await write(text), 1000)).toString();

    expect(Buffer.byteLength(archived)).toBeLessThanOrEqual(1000);
    expect(archived).toMatch(/^# railyard ci: the first \d+ of 5008 bytes of this log were dropped;/);
    expect(archived.endsWith('bthe end\n')).toBe(true);
  });
});
