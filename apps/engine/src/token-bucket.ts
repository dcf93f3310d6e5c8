/**
 * At most `perSecond` takes per second on average, with up to one second's worth saved while idle.
 * It starts empty, so a burst right after start-up takes nothing extra. Written here rather than taken
 * from a rate-limiting library because it is polled inside a pass (take or skip, never wait) and runs
 * on the engine's injected clock, which the libraries' timers do not (docs/decisions.md D38).
 */
export class TokenBucket {
  private tokens = 0;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number,
  ) {
    this.last = now();
  }

  take(): boolean {
    const at = this.now();
    this.tokens = Math.min(Math.max(1, this.perSecond), this.tokens + ((at - this.last) / 1000) * this.perSecond);
    this.last = at;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
