import { flakeDrawn, TreeFlakes, treeOfPrs } from './flake-draws';

describe('flakes drawn per tree and attempt', () => {
  it('when the same seed, tree and attempt are drawn twice, then the draw is the same', () => {
    expect(flakeDrawn(3, '1,2', 1, 0.1)).toBe(flakeDrawn(3, '1,2', 1, 0.1));
    expect(flakeDrawn(3, '1,2', 1, 0)).toBe(false);
  });

  it('when trees are drawn at 10%, then about one run in ten flakes', () => {
    const drawn = Array.from({ length: 2000 }, (_, i) => flakeDrawn(1, `${i}`, 1, 0.1)).filter(Boolean).length;
    expect(drawn).toBeGreaterThan(160);
    expect(drawn).toBeLessThan(240);
  });

  it('when the same PRs are stacked in another order, then they name the same tree', () => {
    expect(treeOfPrs([7, 3, 12, 3])).toBe('3,7,12');
  });

  it('when a tree is run again, then its next attempt is drawn, not the first again', () => {
    const seed = Array.from({ length: 50 }, (_, i) => i + 1).find((s) => flakeDrawn(s, '1,2', 1, 0.5) !== flakeDrawn(s, '1,2', 2, 0.5));
    if (seed === undefined) throw new Error('no seed draws two attempts apart');
    const draws = new TreeFlakes(seed, 0.5);
    expect([draws.draw([2, 1]), draws.draw([1, 2])]).toEqual([flakeDrawn(seed, '1,2', 1, 0.5), flakeDrawn(seed, '1,2', 2, 0.5)]);
  });
});
