import type { KeptFields } from '../projection/kept-fields';

/**
 * Fields of one Redis hash as a batch sees them: only those its events name are loaded (HMGET), and
 * what the fold does to them is kept as the writes to make, so the whole hash is never read nor
 * written (D312 for failed PRs, D337 for live entries). null: loaded, and no such field.
 */
export class LoadedFields<T> implements KeptFields<T> {
  protected readonly values = new Map<string, T | null>();
  /** Fields the batch changed: written (or deleted) after any clear. */
  readonly changed = new Set<string>();
  /** True once the queue was created again or deleted in the batch: every stored field goes first. */
  cleared = false;

  constructor(
    loaded: ReadonlyMap<string, T | null>,
    private readonly what: string,
  ) {
    for (const [field, value] of loaded) this.values.set(field, value);
  }

  get(field: string): T | undefined {
    const value = this.values.get(field);
    // A field the batch did not name would read as absent and fold a wrong result: refuse.
    if (value === undefined) throw new Error(`${this.what} ${field} was not loaded for this batch`);
    return value ?? undefined;
  }

  set(field: string, value: T): void {
    this.get(field);
    this.values.set(field, value);
    this.changed.add(field);
  }

  delete(field: string): void {
    if (!this.get(field)) return;
    this.values.set(field, null);
    this.changed.add(field);
  }

  clear(): void {
    this.cleared = true;
    for (const [field, value] of this.values) if (value) this.values.set(field, null);
  }

  /** The value as the batch left it (null: none), for the fields it changed. */
  valueOf(field: string): T | null {
    return this.values.get(field) ?? null;
  }
}
