'use strict';
// `npm start`: the embedded server from the compiled build, built first when the sources are newer
// than it (or there is none yet), so `npm install && npm start` works on a fresh clone
// (docs/operations.md "Build"). The server then runs in this same process: one PID to signal.
const path = require('node:path');
const { ROOT, isStale } = require('./build/sources');

const outDir = path.join(ROOT, 'dist');
if (isStale(outDir)) {
  process.stderr.write('building (npm run build): the sources are newer than dist/\n');
  require('./build/build').build({ outDir });
}
require(path.join(outDir, 'apps/server/src/main.js'));
