import type { RepoRef } from '@railyard/domain';
import { isGitHostError } from '@railyard/githost';
import { commitOnBranch, createRepoWithCommits, makeTempDir, removeTempDir } from '@railyard/testkit';
import { resolveRequiredStatuses } from './required-statuses';

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
let root: string;
let n = 0;

/** A commit on its own branch holding exactly these config files (null: absent). */
const commitWith = (files: Record<string, string | null>): Promise<string> =>
  commitOnBranch(root, repo, { branch: `config-${++n}`, files: { 'README.md': 'x\n', ...files } });

beforeAll(async () => {
  root = await makeTempDir();
  await createRepoWithCommits(root, repo);
});
afterAll(() => removeTempDir(root));

describe('resolveRequiredStatuses on the local host', () => {
  it('when the queue has a list, then it wins over the files, even a broken one (which runs no local check)', async () => {
    const sha = await commitWith({ '.railyard.yml': 'merge: [broken' });
    expect(await resolveRequiredStatuses(root, { queueList: ['ci/build'], repo, configSha: sha })).toEqual({
      statuses: ['ci/build'],
      source: 'merge_instance',
      localChecks: [],
    });
  });

  it('when the queue has a list, then the local checks are still the ones .railyard.yml gives the local CI', async () => {
    const sha = await commitWith({ '.railyard.yml': 'ci:\n  test: make test\n  lint: make lint\n' });
    expect(await resolveRequiredStatuses(root, { queueList: ['test'], repo, configSha: sha })).toEqual({
      statuses: ['test'],
      source: 'merge_instance',
      localChecks: ['test', 'lint'],
    });
  });

  it('when .railyard.yml at the config commit lists statuses, then they come from trunk_config', async () => {
    const sha = await commitWith({ '.railyard.yml': 'ci:\n  build: make\nmerge:\n  required_statuses: [build]\n' });
    expect(await resolveRequiredStatuses(root, { queueList: [], repo, configSha: sha })).toEqual({
      statuses: ['build'],
      source: 'trunk_config',
      localChecks: ['build'],
    });
  });

  it('when only .trunk/trunk.yaml lists statuses, then they are read from it', async () => {
    const sha = await commitWith({
      '.railyard.yml': 'ci:\n  build: make\n',
      '.trunk/trunk.yaml': 'version: 0.1\nmerge:\n  required_statuses:\n    - Unit Tests\n',
    });
    expect(await resolveRequiredStatuses(root, { queueList: [], repo, configSha: sha })).toEqual({
      statuses: ['Unit Tests'],
      source: 'trunk_config',
      localChecks: ['build'],
    });
  });

  it('when the files change between commits, then each commit answers its own list', async () => {
    const before = await commitWith({ '.railyard.yml': 'merge:\n  required_statuses: [old]\n' });
    const after = await commitWith({ '.railyard.yml': 'merge:\n  required_statuses: [new]\n' });
    expect(await resolveRequiredStatuses(root, { queueList: [], repo, configSha: before })).toMatchObject({ statuses: ['old'] });
    expect(await resolveRequiredStatuses(root, { queueList: [], repo, configSha: after })).toMatchObject({ statuses: ['new'] });
  });

  it('when .railyard.yml is malformed, then the answer is a config parsing failure that says why', async () => {
    const sha = await commitWith({
      '.railyard.yml': 'merge:\n  required_statuses: build\n',
      '.trunk/trunk.yaml': 'merge:\n  required_statuses: [x]\n',
    });
    expect(await resolveRequiredStatuses(root, { queueList: [], repo, configSha: sha })).toEqual({
      error: 'START_TEST_RUN_CONFIG_PARSING_FAILURE',
      message: expect.stringMatching(/^\.railyard\.yml: merge\.required_statuses: /),
    });
  });

  it('when .railyard.yml is a directory, then it is a config failure, not a missing file', async () => {
    const sha = await commitWith({ '.railyard.yml/x': 'y' });
    expect(await resolveRequiredStatuses(root, { queueList: [], repo, configSha: sha })).toMatchObject({
      error: 'START_TEST_RUN_CONFIG_PARSING_FAILURE',
      message: expect.stringMatching(/is a tree/),
    });
  });

  it('when no file names statuses, then the answer is no required statuses', async () => {
    const none = await commitWith({});
    const checksOnly = await commitWith({ '.railyard.yml': 'ci:\n  build: make\n' });
    for (const sha of [none, checksOnly]) {
      expect(await resolveRequiredStatuses(root, { queueList: [], repo, configSha: sha })).toMatchObject({
        error: 'START_TEST_RUN_NO_REQUIRED_STATUSES',
      });
    }
  });

  it('when the commit or repository does not exist, then it throws instead of guessing', async () => {
    const missingCommit = await resolveRequiredStatuses(root, { queueList: [], repo, configSha: 'f'.repeat(40) }).catch((e: unknown) => e);
    expect(isGitHostError(missingCommit, 'REVISION_NOT_FOUND')).toBe(true);
    const missingRepo = await resolveRequiredStatuses(root, {
      queueList: [],
      repo: { ...repo, name: 'nope' },
      configSha: 'f'.repeat(40),
    }).catch((e: unknown) => e);
    expect(isGitHostError(missingRepo, 'REPO_NOT_FOUND')).toBe(true);
  });
});
