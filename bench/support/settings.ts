/** Reads a positive integer knob from the environment, refusing anything else rather than guessing. */
export const positiveIntFromEnv = (name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, not "${raw}"`);
  return n;
};

export const redisUrlFromEnv = (env: NodeJS.ProcessEnv = process.env): string =>
  env.BENCH_REDIS_URL || env.RAILYARD_REDIS_URL || 'redis://127.0.0.1:6379';

/** A Redis key namespace no other run (or test) uses; matches the read models' namespace rule. */
export const uniqueNamespace = (label: string): string => `bench-${label}-${process.pid}-${Date.now().toString(36)}`;

/** The PostgreSQL server the PostgreSQL cases create their own (temporary) databases on. */
export const postgresUrlFromEnv = (env: NodeJS.ProcessEnv = process.env): string =>
  env.BENCH_POSTGRES_URL || env.RAILYARD_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
