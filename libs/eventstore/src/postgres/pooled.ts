import type { Pool, PoolClient } from 'pg';

/**
 * Runs `work` on a connection checked out of the pool. While checked out, the pool no longer
 * listens for the connection's errors, and pg emits 'error' when a connection dies between two
 * queries (the server restarted, an administrator ended the session): without a listener of ours
 * that would end the process. A connection that failed is destroyed instead of going back.
 */
export async function withConnection<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let failed: Error | undefined;
  const onError = (err: Error): void => {
    failed ??= err;
  };
  client.on('error', onError);
  try {
    return await work(client);
  } catch (err) {
    failed ??= err instanceof Error ? err : new Error(String(err));
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(failed);
  }
}
