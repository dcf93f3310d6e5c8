import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A new empty directory under the OS temp dir; remove it with removeTempDir when the test is done. */
export const makeTempDir = (prefix = 'railyard-test-'): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), prefix));

/**
 * Removes the directory and everything in it. A process a test just killed may still be writing
 * there for a moment (git finishing an object, a check's last output), which makes the removal find
 * a directory it emptied no longer empty (ENOTEMPTY); Node's own retries try again for about 1.5 s.
 */
export const removeTempDir = (dir: string): Promise<void> => fs.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
