import { CiModel } from './ci-model';
import { flakeDrawn } from './flake-draws';
import type { SimPr } from './pr-model';
import { Prng } from './prng';
import { smallWorkload } from './testing';

const pr = (number: number): SimPr => ({ number, headSha: `h${number}`, bad: false, areas: 'all', arrivedAt: 0 });
const prs = new Map([1, 2, 3, 4].map((n) => [n, pr(n)]));
const run = (id: string, stack: number[], baseVersion: number) => ({
  testRunId: id,
  testBranchSha: `sha-${id}`,
  stack,
  tested: stack.slice(-1),
  bisection: false,
  baseVersion,
  startedAt: 0,
});

describe('the modelled CI, flakes drawn per tree', () => {
  it('when runs test the same PRs, merged or stacked, then their flakes are the attempts on one tree', () => {
    const seed = 7;
    const w = smallWorkload({ seed, flakeRate: 0.5, flakeDraws: 'per-tree' });
    const ci = new CiModel(w, prs, new Prng(seed, 'ci'), undefined, () => [1, 2, 4]);
    const flaked = [ci.trigger(run('a', [1, 2, 3], 0)), ci.trigger(run('b', [3], 2)), ci.trigger(run('c', [4], 0))].map((r) => r.flaked);
    expect(flaked).toEqual([flakeDrawn(seed, '1,2,3', 1, 0.5), flakeDrawn(seed, '1,2,3', 2, 0.5), flakeDrawn(seed, '4', 1, 0.5)]);
  });

  it('when flakes are drawn from the stream, then the same tree twice draws independently of its attempts', () => {
    const w = smallWorkload({ seed: 7, flakeRate: 0.5 });
    const stream = new Prng(7, 'ci');
    const expected = [1, 2, 3, 4, 5, 6].map(() => {
      const f = stream.chance(0.5);
      stream.chance(0);
      return f;
    });
    const ci = new CiModel(w, prs, new Prng(7, 'ci'));
    expect([1, 2, 3, 4, 5, 6].map((i) => ci.trigger(run(`r${i}`, [1], 0)).flaked)).toEqual(expected);
  });
});
