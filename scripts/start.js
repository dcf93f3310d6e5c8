'use strict';
// `npm start`: the embedded server from the compiled build, built first when the sources are newer
// than it (or there is none yet), so `npm install && npm start` works on a fresh clone
// (docs/operations.md "Build"). The server then runs in this same process: one PID to signal.
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { ROOT, isStale } = require('./build/sources');

const outDir = path.join(ROOT, 'dist');
if (isStale(outDir)) {
  process.stderr.write('building dist/ (npm run build): there is none yet, or the sources changed since\n');
  // A process of its own: esbuild's helper process then ends with the build, not with the server.
  const built = spawnSync(process.execPath, [path.join(__dirname, 'build/build.js')], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
require(path.join(outDir, 'apps/server/src/main.js'));
