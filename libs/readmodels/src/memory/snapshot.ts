/**
 * A read model in process memory that can be saved with the position it covers and resumed from it
 * (the embedded server's start, docs/decisions.md D252). `body` is what the structured clone algorithm
 * (v8.serialize) copies: plain objects, arrays, Maps, bigints, no class instances. `snapshotSchema`
 * names what the body holds and how the projection folded it: raise it whenever either changes, and a
 * snapshot written before is rebuilt from the events instead of being read as something it is not.
 */
export interface Snapshottable {
  readonly snapshotName: string;
  readonly snapshotSchema: number;
  /**
   * Taken in one turn of the event loop, so it never holds half a batch; null before any event.
   * `pagedOut`: documents no longer hot (D320), written beside the body in the same transaction and
   * left out of it; the model reads them back through its PagedDocs.
   */
  snapshot(): { position: bigint; body: unknown; pagedOut?: PagedDoc[] } | null;
  /** Replaces the model with the body; the model then covers `position`. */
  restore(position: bigint, body: unknown): void;
  /** Where documents paged out at earlier snapshots are read back; set before `restore` and any event. */
  pageTo?(paged: PagedDocs): void;
  /** The snapshot that paged these documents out is durable: those not changed since may leave memory. */
  pagedOutDone?(docs: readonly PagedDoc[]): void;
}

/** One document paged out of memory: `group` and `num` order a walk (a queue's PRs by number). */
export interface PagedDoc {
  kind: string;
  key: string;
  group: string;
  num: number;
  /** The document itself (structured-clone data); the model compares it by identity in pagedOutDone. */
  doc: unknown;
}

/**
 * A model's paged-out documents as of its last durable snapshot (embedded: a table of
 * read-models.sqlite, written only in the snapshot's transaction). Synchronous, so a batch is still
 * folded in one turn of the event loop.
 */
export interface PagedDocs {
  get(kind: string, key: string): unknown;
  /** Documents of `group` with `num` above `afterNum`, ascending, at most `limit`. */
  range(kind: string, group: string, afterNum: number, limit: number): { num: number; doc: unknown }[];
  /** Forgets the model's paged documents and its snapshot together (a reset: the model folds from position 0). */
  forget(): void;
}

export const isSnapshottable = (x: unknown): x is Snapshottable =>
  typeof x === 'object' &&
  x !== null &&
  typeof (x as Snapshottable).snapshot === 'function' &&
  typeof (x as Snapshottable).restore === 'function';
