/**
 * One of a queue's maps by PR number as a fold reads and changes it: the document's own map (memory),
 * or a store's structure that loads only the PRs a batch names (Redis: D312 for failed PRs, D337 for
 * live entries).
 */
export interface KeptFields<T> {
  get(pr: string): T | undefined;
  set(pr: string, value: T): void;
  delete(pr: string): void;
  /** Forgets them all: the queue was created again or deleted. */
  clear(): void;
}

/**
 * A map of the document as KeptFields: `map` reads it afresh on every call, since `clear` (`reset`)
 * puts a new one in its place.
 */
export const fieldsInDoc = <T>(map: () => Record<string, T>, reset: () => void): KeptFields<T> => ({
  get: (pr) => map()[pr],
  set: (pr, value) => void (map()[pr] = value),
  delete: (pr) => void delete map()[pr],
  clear: reset,
});
