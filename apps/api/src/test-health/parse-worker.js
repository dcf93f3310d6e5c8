// Worker threads start without the TypeScript hooks jest or tsx gave the main thread. In the compiled
// build (docs/operations.md "Build") parse-task.js lies beside this file and plain Node loads it; from
// the sources tsx's own register() gives this thread a loader, so the task itself stays in TypeScript.
const { existsSync } = require('node:fs');
const path = require('node:path');
const { parentPort } = require('node:worker_threads');
const compiled = existsSync(path.join(__dirname, 'parse-task.js'));
if (!compiled) require('tsx/cjs/api').register();
const { runParseTask } = require(compiled ? './parse-task.js' : './parse-task.ts');

parentPort.on('message', ({ id, task }) => {
  try {
    const outcome = runParseTask(task);
    const transfer = outcome.ok && outcome.upload.blob ? [outcome.upload.blob.buffer] : [];
    parentPort.postMessage({ id, outcome }, transfer);
  } catch (err) {
    parentPort.postMessage({ id, crash: err instanceof Error ? err.message : String(err) });
  }
});
