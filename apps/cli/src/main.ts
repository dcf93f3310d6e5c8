import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli } from './program';

/** Set by the one-file bundle's build (scripts/build/cli.js), which has no package.json beside it. */
declare const RAILYARD_CLI_VERSION: string | undefined;

/** The repository's version: the root package.json, which is what a release tags. */
const version = (): string => {
  if (typeof RAILYARD_CLI_VERSION === 'string') return RAILYARD_CLI_VERSION;
  try {
    return (JSON.parse(readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
};

/**
 * Exits only once stdout and stderr have taken every byte: process.exit() with output still queued
 * for a pipe drops whatever the pipe had not yet accepted (64 KiB on Linux).
 */
const exitAfterDrain = (code: number): void => {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
};

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }, process.env, version()).then(
  exitAfterDrain,
  (err: unknown) => {
    process.stderr.write(`railyard: ${err instanceof Error ? err.message : String(err)}\n`);
    exitAfterDrain(1);
  },
);
