import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { RepoRef } from '@railyard/domain';
import { MemoryEventStore } from '@railyard/eventstore';
import { createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { localHostStatuses } from './local-statuses';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };

let root: string;
let sha: string;
let gitDir: string;

beforeEach(async () => {
  root = await makeTempDir();
  ({ sha, gitDir } = await createRepoWithCommits(root, repo));
});

afterEach(() => removeTempDir(root));

/** The file an older version kept per commit (docs/ci.md, "Commit statuses"), written as it wrote it. */
const writeOldStatusFile = async (content: unknown): Promise<void> => {
  const file = path.join(gitDir, 'railyard', 'statuses', sha.slice(0, 2), `${sha}.json`);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, typeof content === 'string' ? content : `${JSON.stringify(content)}\n`);
};

const build = { context: 'build', state: 'pending', createdAt: '2026-01-01T09:00:00.000Z', updatedAt: '2026-01-01T09:00:00.000Z' };
const lint = { context: 'lint', state: 'success', createdAt: '2026-01-01T09:01:00.000Z', updatedAt: '2026-01-01T09:01:00.000Z' };

describe('localHostStatuses after an upgrade from status files', () => {
  it('when an older version left statuses in a file, then list answers them beneath the events and a new report replaces its context', async () => {
    await writeOldStatusFile({ version: 1, sha, statuses: [build, lint] });
    const store = localHostStatuses({
      eventStore: new MemoryEventStore(),
      gitRoot: root,
      clock: () => new Date('2026-01-01T10:00:00.000Z'),
    });
    expect(await store.list(repo, sha)).toEqual([build, lint]);

    const answer = await store.set(repo, sha, { context: 'build', state: 'success' });

    const passed = { context: 'build', state: 'success', createdAt: build.createdAt, updatedAt: '2026-01-01T10:00:00.000Z' };
    expect(answer).toEqual(passed);
    expect(await store.list(repo, sha)).toEqual([passed, lint]);
    await store.close();
  });

  it('when the old file is damaged, then list says so as CORRUPT_STATUS_FILE rather than answering no statuses', async () => {
    await writeOldStatusFile('{"version":1,');
    const store = localHostStatuses({ eventStore: new MemoryEventStore(), gitRoot: root });
    await expect(store.list(repo, sha)).rejects.toMatchObject({ code: 'CORRUPT_STATUS_FILE' });
    await store.close();
  });
});
