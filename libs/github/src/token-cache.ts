/**
 * Where @octokit/auth-app keeps installation tokens. Its own cache keeps a token 59 minutes whatever
 * GitHub said; this one reads the token's `expires_at` and lets it go `marginMs` before that, so a
 * token with a shorter life (GitHub Enterprise, a fake) is never used stale.
 */
export class InstallationTokenCache {
  private readonly entries = new Map<string, { value: string; freshUntil: number }>();

  constructor(
    private readonly marginMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (this.now() >= entry.freshUntil) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** auth-app stores `token|createdAt|expiresAt|…`; an unreadable expiry is not cached at all. */
  set(key: string, value: string): void {
    const expiresAt = Date.parse(value.split('|')[2] ?? '');
    if (Number.isNaN(expiresAt)) return;
    this.entries.set(key, { value, freshUntil: expiresAt - this.marginMs });
  }
}
