/**
 * Seeded pseudo-random numbers (sfc32, seeded through splitmix32). Each concern of the model draws
 * from its own named stream, so changing how often one is drawn (more CI runs under another planner
 * setting) leaves the others untouched: two workloads with the same seed see the same PRs arrive.
 */

const splitmix32 = (state: number): [value: number, next: number] => {
  const next = (state + 0x9e3779b9) | 0;
  let z = next;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return [(z ^ (z >>> 16)) >>> 0, next];
};

/** FNV-1a over the stream name, mixed with the seed: different names give unrelated streams. */
const streamSeed = (seed: number, stream: string): number => {
  let h = 0x811c9dc5 ^ (seed | 0);
  for (let i = 0; i < stream.length; i++) h = Math.imul(h ^ stream.charCodeAt(i), 0x01000193);
  return h >>> 0;
};

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spareNormal: number | undefined;

  constructor(seed: number, stream = '') {
    let s = streamSeed(seed, stream);
    const words: number[] = [];
    for (let i = 0; i < 4; i++) {
      const [v, next] = splitmix32(s);
      words.push(v);
      s = next;
    }
    [this.a, this.b, this.c, this.d] = words as [number, number, number, number];
    // sfc32's first outputs are correlated with the seed; burn them.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return p > 0 && this.next() < p;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Exponential with the given mean: the gap between arrivals of a Poisson process. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  /** Standard normal (Box-Muller; the second value of each pair is kept for the next call). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const v = this.spareNormal;
      this.spareNormal = undefined;
      return v;
    }
    const u = 1 - this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Lognormal with the given median and shape sigma (the standard deviation of its logarithm). */
  lognormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }
}
