/** What a benchmark module exports: results as they come (streamed) or all at the end. */
export interface BenchmarkModule {
  run(args: string[]): AsyncIterable<object> | Promise<object[]>;
}

/** Name → loader; the loader is lazy so `npm run bench -- api` never loads the other cases. */
export type BenchmarkRegistry = Record<string, () => Promise<BenchmarkModule>>;

export interface DispatchIo {
  /** One JSON result per call, already a full line. */
  out(line: string): void;
  /** Usage and failures, for a human. */
  err(line: string): void;
}

export const usage = (registry: BenchmarkRegistry): string =>
  `usage: npm run bench -- <name> [args...]\nbenchmarks: ${Object.keys(registry).sort().join(', ')}\n`;

/**
 * Runs the named benchmark and prints one JSON line per result as soon as it exists, so a long run
 * that fails half-way has still printed what it measured. Answers the process exit code.
 */
export const dispatch = async (registry: BenchmarkRegistry, argv: string[], io: DispatchIo): Promise<number> => {
  const [name, ...args] = argv;
  const load = name === undefined ? undefined : registry[name];
  if (!load) {
    if (name !== undefined) io.err(`unknown benchmark "${name}"\n`);
    io.err(usage(registry));
    return 2;
  }
  const module = await load();
  for await (const result of asIterable(module.run(args))) io.out(`${JSON.stringify(result)}\n`);
  return 0;
};

const asIterable = async function* (results: AsyncIterable<object> | Promise<object[]>): AsyncIterable<object> {
  if (Symbol.asyncIterator in results) yield* results;
  else yield* await results;
};
