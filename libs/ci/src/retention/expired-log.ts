/**
 * What an archived check log becomes once retention sweeps it (docs/decisions.md D296): one short line
 * in its place, so the API can tell a log that expired (410) from one that never was (404). The same
 * bytes for every log, so a sweep can tell a note from a log and never writes one twice.
 */
export const EXPIRED_LOG_NOTE = Buffer.from(
  '# railyard ci: this log expired under the retention setting (RAILYARD_CI_RETENTION_DAYS)\n',
  'utf8',
);

export const isExpiredLog = (archived: Buffer): boolean => archived.equals(EXPIRED_LOG_NOTE);
