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
  /** Taken in one turn of the event loop, so it never holds half a batch; null before any event. */
  snapshot(): { position: bigint; body: unknown } | null;
  /** Replaces the model with the body; the model then covers `position`. */
  restore(position: bigint, body: unknown): void;
}

export const isSnapshottable = (x: unknown): x is Snapshottable =>
  typeof x === 'object' &&
  x !== null &&
  typeof (x as Snapshottable).snapshot === 'function' &&
  typeof (x as Snapshottable).restore === 'function';
