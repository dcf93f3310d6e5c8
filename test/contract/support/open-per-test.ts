/** What a contract suite's factory hands back: a fresh store, and how to remove what it left. */
export interface Opened<S> {
  store: S;
  cleanup: () => Promise<void>;
}

/**
 * Opens a fresh store before each test of the enclosing describe and hands it to `use`; closes it
 * and runs its cleanup after the test. Every contract suite (event store, blob store) starts so.
 */
export function openPerTest<S extends { close(): Promise<void> }>(make: () => Promise<Opened<S>>, use: (store: S) => void): void {
  let opened: Opened<S> | undefined;

  beforeEach(async () => {
    opened = await make();
    use(opened.store);
  });

  afterEach(async () => {
    if (!opened) return;
    await opened.store.close();
    await opened.cleanup();
    opened = undefined;
  });
}
