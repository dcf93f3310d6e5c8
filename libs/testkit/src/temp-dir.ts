import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** A new empty directory under the OS temp dir; remove it with removeTempDir when the test is done. */
export const makeTempDir = (prefix = 'railyard-test-'): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), prefix));

export const removeTempDir = (dir: string): Promise<void> => fs.rm(dir, { recursive: true, force: true });
