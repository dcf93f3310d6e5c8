import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

export const ENV_FILE = '.env';

/**
 * Fills `env` with the variables of `<dir>/.env` that it does not hold yet: the real environment
 * always wins, the file only supplies what is missing (docs/operations.md, "Processes and ports"). The server
 * entry points call it before anything reads the environment. Answers the file's path when one was
 * read, undefined when there is none.
 */
export const applyEnvFile = (env: Record<string, string | undefined>, dir: string): string | undefined => {
  const file = path.join(dir, ENV_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  for (const [name, value] of Object.entries(parseEnv(text))) if (env[name] === undefined && value !== undefined) env[name] = value;
  return file;
};
