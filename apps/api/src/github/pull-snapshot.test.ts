import type { GithubOctokit } from '@railyard/github';
import { readPullSnapshot } from './pull-snapshot';

const REPO = { host: 'github.com', owner: 'acme', name: 'widgets' };
const pull = {
  number: 4,
  title: 'WIP',
  state: 'open',
  merged: false,
  user: { login: 'alice' },
  head: { sha: 'a'.repeat(40) },
  base: { ref: 'main' },
};
/** Answers the one read the submission makes with `data`, as GitHub's pulls/get would. */
const answering = (data: object) => ({ request: async () => ({ data }) }) as unknown as GithubOctokit;

describe('a pull request as a /railyard merge comment submits it', () => {
  it('when the PR is a draft, then it is submitted with unspecified mergeability, as the adapter reads it (not as a conflict)', async () => {
    const snapshot = await readPullSnapshot(answering({ ...pull, draft: true, mergeable: true }), REPO, 4);
    expect(snapshot).toMatchObject({ number: 4, state: 'open', mergeability: 'unspecified' });
  });

  it('when GitHub computed a conflict, then it is not mergeable; while it works it out, unspecified', async () => {
    expect((await readPullSnapshot(answering({ ...pull, draft: false, mergeable: false }), REPO, 4))?.mergeability).toBe('not_mergeable');
    expect((await readPullSnapshot(answering({ ...pull, draft: false, mergeable: null }), REPO, 4))?.mergeability).toBe('unspecified');
  });
});
