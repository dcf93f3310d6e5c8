'use strict';
// `npm run build:cli`: the `railyard` CLI as one file a CI job fetches and runs with plain node, no
// install (docs/ci-integration.md, "Getting the CLI in a job"). esbuild bundles apps/cli with every library it uses.
// The drivers of the local stores (SQLite's native addon, the KurrentDB client's native bridge) cannot
// travel in one file: they are replaced by a stand-in that fails with one clear message when a
// command of the local parts (`pr`, `projections`, local `history`) is run from the bundle. Every
// command that talks to a server over HTTP needs none of them.
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '../..');
/** The drivers that cannot travel in one file, each replaced by local-only-driver.js. */
const LOCAL_ONLY = ['better-sqlite3', '@kurrent/kurrentdb-client'];

const version = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;

/** Builds `outfile` (default dist-cli/railyard.cjs) and answers its size in bytes. */
const buildCli = (outfile = path.join(ROOT, 'dist-cli', 'railyard.cjs')) => {
  const standIn = path.join(__dirname, 'local-only-driver.js');
  esbuild.buildSync({
    entryPoints: [path.join(ROOT, 'apps/cli/src/main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile,
    minify: true,
    legalComments: 'eof',
    banner: { js: '#!/usr/bin/env node' },
    define: { RAILYARD_CLI_VERSION: JSON.stringify(version()) },
    alias: Object.fromEntries(LOCAL_ONLY.map((name) => [name, standIn])),
    logLevel: 'error',
  });
  fs.chmodSync(outfile, 0o755);
  return fs.statSync(outfile).size;
};

module.exports = { buildCli };

if (require.main === module) {
  try {
    const bytes = buildCli(process.argv[2] && path.resolve(process.argv[2]));
    console.log(`railyard CLI bundle: ${(bytes / 1024).toFixed(0)} KiB`);
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
