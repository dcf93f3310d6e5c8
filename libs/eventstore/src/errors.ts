/**
 * An append reused event ids in a way that is not a plain retry: some ids are new and some known,
 * or the known ids sit in another stream or at other revisions. Treating it as a retry would hide a
 * bug in the caller's id generation, so the append is refused and nothing is written.
 */
export class EventIdConflictError extends Error {
  constructor(
    readonly streamId: string,
    readonly conflictingIds: readonly string[],
  ) {
    super(`stream ${streamId}: event ids already recorded elsewhere: ${conflictingIds.join(', ')}`);
    this.name = 'EventIdConflictError';
  }
}
