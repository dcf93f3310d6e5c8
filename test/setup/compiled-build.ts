import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { isStale, ROOT } from '../../scripts/build/sources';

/** Where the e2e tier runs Railyard's processes from: the production build `npm start` runs too. */
export const BUILD_DIR = path.join(ROOT, 'dist');

/**
 * Builds dist/ when it is missing or older than a source (D300), once per jest run, so a file run alone
 * with `npx jest <file>` gets the same build. A process of its own, as `npm start` does it: esbuild's
 * helper process then ends with the build instead of holding jest open.
 */
export const buildIfStale = (): void => {
  if (!isStale(BUILD_DIR)) return;
  const built = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build/build.js')], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`the e2e tier runs the production build, and npm run build failed (exit ${built.status})`);
};
