import { apiBed, BED_REPO as repo, type ApiBed } from '../testing/api-bed';
import { cursorAfter } from './pull-request-list';

jest.setTimeout(30_000);

let bed: ApiBed;
const KEY = { repo, targetBranch: 'main' };

beforeAll(async () => {
  bed = await apiBed({ prs: 4 });
  expect((await bed.post('/createQueue', KEY)).status).toBe(200);
  for (const n of [3, 1, 4, 2]) expect((await bed.post('/submitPullRequest', { ...KEY, pr: { number: n } })).status).toBe(200);
  expect((await bed.post('/cancelPullRequest', { ...KEY, pr: { number: 2 } })).status).toBe(200);
});
afterAll(() => bed.close());

const list = (body: object) => bed.post('/listPullRequests', { ...KEY, ...body });

describe('listPullRequests', () => {
  it('when pages of take are followed by nextCursor, then every PR comes once in number order and the last page has no cursor', async () => {
    const first = await list({ take: 3 });
    expect(first.status).toBe(200);
    expect(first.body.pullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([1, 2, 3]);
    expect(first.body.nextCursor).toBe(cursorAfter(3));
    const last = await list({ take: 3, cursor: first.body.nextCursor });
    expect(last.body).toEqual({ pullRequests: [expect.objectContaining({ prNumber: 4, state: 'pending', prBaseBranch: 'main' })] });
  });

  it('when no take is given, then 50 is the page size; a state may come in upper case; since keeps concluded PRs', async () => {
    expect((await list({})).body.pullRequests).toHaveLength(4);
    expect((await list({ state: 'CANCELLED' })).body.pullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([2]);
    expect((await list({ since: '2000-01-01T00:00:00+02:00' })).body.pullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([
      2,
    ]);
    expect((await list({ since: '2999-01-01T00:00:00Z' })).body.pullRequests).toEqual([]);
  });

  it('when take is out of 1-100 or the cursor is no UUID, then 400; a UUID this server did not give is a 422', async () => {
    for (const body of [{ take: 0 }, { take: 101 }, { cursor: 'next' }, { state: 'sleeping' }])
      expect([body, (await list(body)).status]).toEqual([body, 400]);
    const foreign = await list({ cursor: '3f2b8c1e-2d4a-4b6c-8e0f-1a2b3c4d5e6f' });
    expect([foreign.status, foreign.body.error.code]).toEqual([422, 'INVALID_CURSOR']);
  });

  it('when the queue does not exist, then 404 QUEUE_NOT_FOUND', async () => {
    expect((await bed.post('/listPullRequests', { repo, targetBranch: 'nowhere' })).body.error.code).toBe('QUEUE_NOT_FOUND');
  });
});

describe('getSubmittedPullRequest by pr.branch', () => {
  it('when a PR is asked by the branch it comes from, then the answer is the one by its number', async () => {
    const byBranch = await bed.post('/getSubmittedPullRequest', { ...KEY, pr: { branch: 'feature-4' } });
    const byNumber = await bed.post('/getSubmittedPullRequest', { ...KEY, pr: { number: 4 } });
    expect([byBranch.status, byBranch.body]).toEqual([200, byNumber.body]);
  });

  it('when no PR came from the branch, or both number and branch are given, then 404 and 400', async () => {
    const none = await bed.post('/getSubmittedPullRequest', { ...KEY, pr: { branch: 'feature-9' } });
    expect([none.status, none.body.error.code]).toEqual([404, 'PR_NOT_IN_QUEUE']);
    expect((await bed.post('/getSubmittedPullRequest', { ...KEY, pr: { number: 4, branch: 'feature-4' } })).status).toBe(400);
  });
});
