import { createLogger, errorFields } from '@railyard/observability';
import { applyEnvFile } from '@railyard/runtime';
import { startServer } from './server';

/** `npm start`: the embedded single process with its defaults. */
const main = async (): Promise<void> => {
  applyEnvFile(process.env, process.cwd());
  const logger = createLogger('railyard');
  const server = await startServer({}, { logger });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    server.close().then(
      () => process.exit(0),
      (err) => {
        logger.error('stop failed', errorFields(err));
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
};

main().catch((err) => {
  createLogger('railyard').error('failed to start', errorFields(err));
  process.exit(1);
});
