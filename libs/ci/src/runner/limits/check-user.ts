import { randomInt } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * When the server runs as root, each check runs as a uid of its own, drawn from this range (no
 * account of the system uses it): the kernel counts processes per uid (RLIMIT_NPROC), so a check that
 * holds its whole process budget holds only its own, never another check's (issue 25: one check at
 * the shared uid 65534's limit made another repository's check fail with `fork: EAGAIN`).
 */
export const CHECK_UID_BASE = 2_000_000_000;
export const CHECK_UID_SPAN = 1 << 20;

export const newCheckUid = (): number => CHECK_UID_BASE + randomInt(CHECK_UID_SPAN);

export interface CheckIdentity {
  uid: number;
  /** Host files the sandbox shows as /etc/passwd and /etc/group: the system's, plus the check's own user. */
  passwd: string;
  group: string;
}

const readOrEmpty = (file: string): Promise<string> => fs.readFile(file, 'utf8').catch(() => '');

const withLine = (text: string, line: string): string => `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`;

/**
 * Writes the check's account files into its attempt directory. Tools look their user up (git's
 * identity, `whoami`, Node's os.userInfo()), and a uid without an entry makes them fail.
 */
export const writeCheckIdentity = async (dir: string, uid: number): Promise<CheckIdentity> => {
  const passwd = path.join(dir, 'passwd');
  const group = path.join(dir, 'group');
  await fs.writeFile(passwd, withLine(await readOrEmpty('/etc/passwd'), `railyard-ci:x:${uid}:${uid}:Railyard check:/tmp:/bin/sh`), {
    mode: 0o644,
  });
  await fs.writeFile(group, withLine(await readOrEmpty('/etc/group'), `railyard-ci:x:${uid}:`), { mode: 0o644 });
  return { uid, passwd, group };
};
