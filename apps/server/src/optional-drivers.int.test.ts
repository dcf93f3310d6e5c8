import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Drivers only some deployments use: the embedded server requires them on first use, never at import (docs/decisions.md D290). */
const OPTIONAL = ['/node_modules/ioredis/', '/node_modules/pg/', '/node_modules/@kurrent/', '/node_modules/ajv/'];

describe('the embedded server’s imports', () => {
  it('when the server module is loaded, then no optional driver is loaded with it', async () => {
    // A process of its own: this test's own process may have loaded any of them already.
    const script = `require(${JSON.stringify(path.join(__dirname, 'server.ts'))});
      process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '-e', script], { maxBuffer: 64 * 1024 * 1024 });
    const loaded = JSON.parse(stdout) as string[];
    expect(OPTIONAL.filter((driver) => loaded.some((file) => file.includes(driver)))).toEqual([]);
  });
});
