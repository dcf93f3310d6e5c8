// Worker threads start without the TypeScript hooks jest or tsx gave the main thread; tsx's own
// register() gives this one a loader, so the task itself stays in TypeScript.
const { parentPort } = require('node:worker_threads');
require('tsx/cjs/api').register();
const { runParseTask } = require('./parse-task.ts');

parentPort.on('message', ({ id, task }) => {
  try {
    const outcome = runParseTask(task);
    const transfer = outcome.ok && outcome.upload.blob ? [outcome.upload.blob.buffer] : [];
    parentPort.postMessage({ id, outcome }, transfer);
  } catch (err) {
    parentPort.postMessage({ id, crash: err instanceof Error ? err.message : String(err) });
  }
});
