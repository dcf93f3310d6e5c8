type KurrentDbModule = typeof import('@kurrent/kurrentdb-client');

/**
 * The KurrentDB client module, required on first use rather than imported: it brings gRPC, protobuf
 * and OpenTelemetry (about 220 modules, a third of a server's start-up CPU, paid again by the engine
 * thread) into every process that imports the event store, though only a KurrentDB-backed one uses it
 * (docs/benchmarks.md, "Test suite time"). The literal name lets the bundler follow and defer it.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const kurrentdb = (): KurrentDbModule => require('@kurrent/kurrentdb-client') as KurrentDbModule;
