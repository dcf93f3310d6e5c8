import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { StatusWriterPlan } from './status-writer.child';

export type { StatusWriterPlan };

const TSX = resolve(__dirname, '../../../node_modules/.bin/tsx');
const CHILD = join(__dirname, 'status-writer.child.ts');

/** Runs a writer process to completion; rejects with its stderr when it fails. */
export const writeStatusesFromChild = async (plan: StatusWriterPlan): Promise<void> => {
  await promisify(execFile)(TSX, [CHILD, JSON.stringify(plan)], { cwd: resolve(__dirname, '../../..') });
};
