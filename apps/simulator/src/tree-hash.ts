/**
 * Tree identities of the modelled repository. A tree is the base plus a set of PRs, and changes that
 * apply cleanly commute, so its identity is an order-free hash of the set: the XOR of one 64-bit key
 * per PR (Zobrist hashing). Adding a PR to a tree is one XOR, whatever the tree's size.
 */
export interface TreeHash {
  hi: number;
  lo: number;
}

export const EMPTY_TREE: TreeHash = { hi: 0, lo: 0 };

const mix = (x: number): number => {
  let z = x | 0;
  z = Math.imul(z ^ (z >>> 16), 0x7feb352d);
  z = Math.imul(z ^ (z >>> 15), 0x846ca68b);
  return (z ^ (z >>> 16)) >>> 0;
};

export const prKey = (prNumber: number): TreeHash => ({ hi: mix(prNumber * 2 + 0x51ed27), lo: mix(prNumber * 2 + 0x2f6b1a3d) });

export const withPr = (tree: TreeHash, prNumber: number): TreeHash => {
  const k = prKey(prNumber);
  return { hi: (tree.hi ^ k.hi) >>> 0, lo: (tree.lo ^ k.lo) >>> 0 };
};

export const treeId = (tree: TreeHash): string => `tree-${tree.hi.toString(16).padStart(8, '0')}${tree.lo.toString(16).padStart(8, '0')}`;
