import { cyclingPrBodies, freshSubmitBodies, resubmitBodies } from './request-bodies';

const repo = { host: 'git.bench', owner: 'acme', name: 'widgets' };
const parse = (body: string) => JSON.parse(body) as { targetBranch: string; pr: { number: number }; priority?: number };
const pulls = (numbers: number[]) => numbers.map((number) => ({ number, base: `b${number % 2}` }));

describe('benchmark request bodies', () => {
  it('when re-submissions wrap around the PRs, then each PR asks for a different priority than the time before', () => {
    const next = resubmitBodies(repo, pulls([1, 2, 3]));
    const last = new Map<number, number>();
    for (let i = 0; i < 30; i++) {
      const { pr, priority } = parse(next());
      expect(priority).not.toBe(last.get(pr.number));
      last.set(pr.number, priority as number);
    }
    expect([...last.keys()].sort()).toEqual([1, 2, 3]);
  });

  it('when fresh submissions are drawn, then each asks for a PR not asked for before until the prepared ones run out', () => {
    const next = freshSubmitBodies(repo, pulls([101, 102, 103, 104]));

    const numbers = Array.from({ length: 5 }, () => parse(next()).pr.number);

    expect(numbers).toEqual([101, 102, 103, 104, 101]);
    expect(next.used()).toBe(5);
  });

  it('when a PR request is drawn, then it goes to the queue of the branch the PR targets', () => {
    const next = cyclingPrBodies(repo, pulls([7, 8]));

    expect([next(), next(), next()].map((b) => [parse(b).pr.number, parse(b).targetBranch])).toEqual([
      [7, 'b1'],
      [8, 'b0'],
      [7, 'b1'],
    ]);
    expect(JSON.parse(next())).toMatchObject({ repo });
  });
});
