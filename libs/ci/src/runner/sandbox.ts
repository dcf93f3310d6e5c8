import { execFile } from 'node:child_process';
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

/** `bwrap`: every check in its own namespaces (docs/security.md); `off`: as a plain child process, for development only. */
export type SandboxMode = 'bwrap' | 'off';
/** `none`: the check has a loopback of its own and nothing else; `host`: the server machine's network, localhost included. */
export type CheckNetwork = 'none' | 'host';

export interface SandboxOptions {
  mode: SandboxMode;
  network: CheckNetwork;
  /**
   * Paths a check must never see although they may lie under a system directory it sees read-only
   * (a data dir under /opt, a token file under /etc): each is covered by an empty mount.
   */
  hiddenPaths?: readonly string[];
}

/** The host paths one check may touch: its checkout and scratch directory (read-write) and its repository's objects (read-only). */
export interface CheckSpace {
  checkout: string;
  scratch: string;
  objects: string;
}

/**
 * The unprivileged user a check runs as when the server runs as root. With bubblewrap started by root
 * the check would otherwise be root on the host's files it can see; as `nobody` it reads only what
 * any local user may read.
 */
export const SANDBOX_UID = 65534;

// What a shell and common toolchains need, read-only; on merged-/usr systems the top-level ones are
// symbolic links, recreated as such. /home, /root, /var, /srv, /mnt and /run are not among them.
const SYSTEM_PATHS = ['/usr', '/etc', '/opt', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

type SystemEntry = { path: string; link?: string };

let systemEntries: SystemEntry[] | undefined;
const systemLayout = (): SystemEntry[] => {
  systemEntries ??= SYSTEM_PATHS.flatMap((p): SystemEntry[] => {
    try {
      return lstatSync(p).isSymbolicLink() ? [{ path: p, link: readlinkSync(p) }] : lstatSync(p).isDirectory() ? [{ path: p }] : [];
    } catch {
      return [];
    }
  });
  return systemEntries;
};

const isUnder = (child: string, parent: string): boolean => child === parent || child.startsWith(`${parent}/`);

const realOrNull = (p: string): string | null => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};

/** Hidden paths that a check would see through a read-only system directory, as mounts that cover them. */
const maskArgs = (hidden: readonly string[]): string[] => {
  const visible = systemLayout()
    .filter((e) => !e.link)
    .map((e) => realOrNull(e.path) ?? e.path);
  const args: string[] = [];
  for (const p of new Set(hidden.map((h) => realOrNull(path.resolve(h))).filter((h): h is string => h !== null))) {
    if (!visible.some((v) => isUnder(p, v))) continue;
    args.push(...(lstatSync(p).isDirectory() ? ['--tmpfs', p] : ['--ro-bind', '/dev/null', p]));
  }
  return args;
};

/** Every directory from / down to `dir` (exclusive), so the sandbox user can walk to a bind whose parents bwrap creates. */
const ancestors = (dir: string): string[] => {
  const out: string[] = [];
  for (let p = path.dirname(dir); p !== '/'; p = path.dirname(p)) out.unshift(p);
  return out;
};

const namespaceArgs = (opts: SandboxOptions, asRoot: boolean): string[] => [
  '--die-with-parent',
  // Root starts bwrap privileged (no user namespace) and drops to SANDBOX_UID inside; anyone else
  // needs a user namespace, in which the check keeps the server's uid but no capabilities.
  ...(asRoot ? [] : ['--unshare-user']),
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  ...(opts.network === 'none' ? ['--unshare-net'] : []),
  '--hostname',
  'railyard-ci',
];

const systemArgs = (): string[] =>
  systemLayout().flatMap((e) => (e.link !== undefined ? ['--symlink', e.link, e.path] : ['--ro-bind', e.path, e.path]));

const isRoot = (): boolean => process.getuid?.() === 0;

/** Drops from root to SANDBOX_UID with no capabilities left and none to gain (no setuid programs). */
const DROP_ROOT = [
  'setpriv',
  `--reuid=${SANDBOX_UID}`,
  `--regid=${SANDBOX_UID}`,
  '--clear-groups',
  '--bounding-set=-all',
  '--inh-caps=-all',
  '--no-new-privs',
  '--',
];

/**
 * The argv that runs `inner` (an argv) for one check: in bubblewrap, seeing the system directories
 * read-only, a fresh /proc (its own processes only), /dev and /dev/shm of its own, its scratch
 * directory as /tmp, its repository's objects read-only and its checkout read-write, both at their
 * host paths (the checkout's alternates name the objects by that path). With the sandbox off, `inner`
 * itself. The environment is whatever the caller spawns this argv with: bwrap passes it on as it is.
 */
export const sandboxArgv = (opts: SandboxOptions, space: CheckSpace, inner: readonly string[]): string[] => {
  if (opts.mode === 'off') return [...inner];
  const asRoot = isRoot();
  const dirs = [...new Set([...ancestors(space.objects), ...ancestors(space.checkout)])].filter((d) => d !== '/tmp');
  return [
    'bwrap',
    ...namespaceArgs(opts, asRoot),
    ...systemArgs(),
    ...maskArgs(opts.hiddenPaths ?? []),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '1777',
    '--tmpfs',
    '/dev/shm',
    '--bind',
    space.scratch,
    '/tmp',
    '--symlink',
    '../tmp',
    '/var/tmp',
    ...dirs.flatMap((d) => ['--perms', '0755', '--dir', d]),
    '--ro-bind',
    space.objects,
    space.objects,
    '--bind',
    space.checkout,
    space.checkout,
    '--chdir',
    space.checkout,
    '--',
    ...(asRoot ? DROP_ROOT : []),
    ...inner,
  ];
};

/** The uid that must own a check's checkout and scratch directory so the check can write them. */
export const sandboxOwner = (opts: SandboxOptions): number | null => (opts.mode === 'bwrap' && isRoot() ? SANDBOX_UID : null);

export type SandboxProbe = { ok: true } | { ok: false; reason: string };

export const SANDBOX_FIX =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow user namespaces, or set RAILYARD_CI_SANDBOX=off to run checks unsandboxed (development only: a check can then read every secret of this process)';

/**
 * Whether bubblewrap can make the namespaces a check needs here: runs `true` the way a check would
 * run, finding bwrap on the checks' PATH.
 */
export const probeSandbox = (opts: SandboxOptions, searchPath: string): Promise<SandboxProbe> => {
  if (opts.mode === 'off') return Promise.resolve({ ok: true });
  const argv = ['bwrap', ...namespaceArgs(opts, isRoot()), ...systemArgs(), '--proc', '/proc', '--dev', '/dev', '--', 'true'];
  return new Promise((resolve) => {
    execFile(argv[0] as string, argv.slice(1), { env: { PATH: searchPath }, timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true });
      const code = (error as NodeJS.ErrnoException).code;
      resolve({
        ok: false,
        reason:
          code === 'ENOENT'
            ? 'bubblewrap (bwrap) is not installed'
            : `bubblewrap cannot make the sandbox here: ${stderr.trim() || error.message}`,
      });
    });
  });
};
