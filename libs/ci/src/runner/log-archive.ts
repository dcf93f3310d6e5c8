import { promises as fs } from 'node:fs';

/**
 * Where a finished check's log goes so that an API on another node can serve it: the blob store's
 * named blobs (libs/eventstore's BlobStore satisfies this; libs/ci does not depend on it).
 */
export interface LogArchive {
  putNamed(name: string, bytes: Buffer): Promise<void>;
  getNamed(name: string): Promise<Buffer | null>;
}

/**
 * The most of one log that is archived (docs/operations.md, "CI logs"): a check's verdict and the
 * failure that explains it are at the end, so a longer log keeps its tail. The runner's node keeps
 * the whole file.
 */
export const MAX_ARCHIVED_LOG_BYTES = 4 * 1024 * 1024;

/** A dropped head is cut at the next line end within this many bytes (and half the tail), so the kept part starts with a whole line. */
const LINE_SEARCH = 4096;

/**
 * The bytes to archive of the log file: all of it up to `max`, else a line saying how much was
 * dropped followed by the last lines, `max` bytes at most in all.
 */
export const archivedLogOf = async (file: string, max = MAX_ARCHIVED_LOG_BYTES): Promise<Buffer> => {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size <= max) return await handle.readFile();
    const room = max - 160;
    const tail = Buffer.alloc(room);
    const { bytesRead } = await handle.read(tail, 0, room, size - room);
    // Searched in the first half at most, so a log of few line ends still keeps most of its tail.
    const newline = tail.subarray(0, Math.min(LINE_SEARCH, Math.floor(bytesRead / 2))).indexOf(0x0a);
    const kept = tail.subarray(newline >= 0 ? newline + 1 : 0, bytesRead);
    const note = `# railyard ci: the first ${size - kept.length} of ${size} bytes of this log were dropped; the node that ran the check keeps them all\n`;
    return Buffer.concat([Buffer.from(note, 'utf8'), kept]);
  } finally {
    await handle.close();
  }
};

/**
 * While a check runs, its archived entry is this note naming the attempt, so a finished log of an
 * earlier attempt (a retry, a run taken over after its runner died) is never served as the current
 * one. The log file of that attempt carries the same line near its top, which is how the API of the
 * running node knows its local file is the live one.
 */
const ATTEMPT_LINE = /^# railyard ci: attempt ([0-9a-f-]{36})\b/m;

/** Only a note starts so: a finished log starts with its check line or with the dropped-bytes line. */
const RUNNING_NOTE = /^# railyard ci: attempt ([0-9a-f-]{36})\n# this check is running;/;

export const attemptLine = (attempt: string): string => `# railyard ci: attempt ${attempt}\n`;

export const runningNote = (attempt: string): Buffer =>
  Buffer.from(
    `${attemptLine(attempt)}# this check is running; the node running it serves its log until it ends, then every API does\n`,
    'utf8',
  );

/** The attempt a running note names, or null for a finished log. */
export const runningAttemptOf = (archived: Buffer): string | null =>
  RUNNING_NOTE.exec(archived.subarray(0, 512).toString('utf8'))?.[1] ?? null;

/** True when the local log file is of `attempt` (its attempt line is among the first few lines). */
export const localLogIsAttempt = async (file: string, attempt: string): Promise<boolean> => {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(LINE_SEARCH);
    const { bytesRead } = await handle.read(head, 0, LINE_SEARCH, 0);
    return ATTEMPT_LINE.exec(head.subarray(0, bytesRead).toString('utf8'))?.[1] === attempt;
  } finally {
    await handle.close();
  }
};
