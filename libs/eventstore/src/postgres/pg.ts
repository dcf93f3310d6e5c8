type PgModule = typeof import('pg');

/**
 * The PostgreSQL driver, required when a store opens a pool or a listener rather than imported: every
 * process that imports the event store would otherwise load it though only a PostgreSQL-backed one
 * connects (docs/benchmarks.md, "Test suite time").
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const pg = (): PgModule => require('pg') as PgModule;
