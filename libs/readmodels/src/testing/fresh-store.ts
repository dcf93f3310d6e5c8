/** The lifecycle every read-model store shares. */
export interface ResettableStore {
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Registers the hooks a read-model suite shares: before each test a store from `open`, reset so no
 * earlier test shows through, handed to `use`; after each test, reset and closed.
 */
export const freshStoreEach = <S extends ResettableStore>(open: () => S | Promise<S>, use: (store: S) => void): void => {
  let store: S | undefined;
  beforeEach(async () => {
    store = await open();
    await store.reset();
    use(store);
  });
  afterEach(async () => {
    await store?.reset();
    await store?.close();
    store = undefined;
  });
};
