import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { applyEnvFile } from './env-file';

describe('applyEnvFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'railyard-env-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when a .env file is present, then the variables the environment lacks come from it and the ones it has stay', () => {
    writeFileSync(path.join(dir, '.env'), '# a comment\nPORT=9090\nRAILYARD_DATA_DIR="/srv/railyard data"\nRAILYARD_LOG_LEVEL=debug\n');
    const env: Record<string, string | undefined> = { RAILYARD_LOG_LEVEL: 'warn' };
    expect(applyEnvFile(env, dir)).toBe(path.join(dir, '.env'));
    expect(env).toEqual({ PORT: '9090', RAILYARD_DATA_DIR: '/srv/railyard data', RAILYARD_LOG_LEVEL: 'warn' });
  });

  it('when there is no .env file, then the environment is left as it is', () => {
    const env = { PORT: '8080' };
    expect(applyEnvFile(env, dir)).toBeUndefined();
    expect(env).toEqual({ PORT: '8080' });
  });
});
