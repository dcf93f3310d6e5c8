import { execFile } from 'node:child_process';
import { lstatSync, promises as fs, readlinkSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { CheckIdentity } from './limits/check-user';
import { unprivilegedDrop, unshareArgv } from './unshare-sandbox';

/**
 * `auto` (default): bubblewrap where it works, else the util-linux `unshare` sandbox (docs/decisions.md
 * D59); `bwrap` or `unshare`: that one only; `off`: a plain child process, for development only.
 */
export type SandboxMode = 'auto' | 'bwrap' | 'unshare' | 'off';
/** What a check actually runs in, once the probe has picked. */
export type SandboxKind = 'bwrap' | 'unshare' | 'off';
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
  /** The bubblewrap program: `bwrap` on the checks' PATH unless another is named (tests name a missing one). */
  bwrap?: string;
}

/** The host paths one check may touch: its checkout and scratch directory (read-write) and its repository's objects (read-only). */
export interface CheckSpace {
  checkout: string;
  scratch: string;
  objects: string;
  /** Server root: the check's own uid and account files (limits/check-user.ts); without it, uid 65534. */
  user?: CheckIdentity;
  /** The unshare sandbox: an empty directory of the attempt's, where the check's root file system is built. */
  rootDir?: string;
}

/**
 * The unprivileged user a check runs as when the server runs as root and no uid of its own was given
 * (limits/check-user.ts gives each check one). Started by root, the check would otherwise be root on
 * the host's files it can see; as an unprivileged user it reads only what any local user may read.
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
  // Root starts bwrap privileged (no user namespace) and drops to the check's uid inside; anyone else
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

/** Drops from root to the check's uid with no capabilities left and none to gain (no setuid programs). */
const dropRoot = (uid: number): string[] => [
  'setpriv',
  `--reuid=${uid}`,
  `--regid=${uid}`,
  '--clear-groups',
  '--bounding-set=-all',
  '--inh-caps=-all',
  '--no-new-privs',
  '--',
];

/** How the unshare sandbox's first process, root of its namespaces, hands over to the check. */
const dropOf = (asRoot: boolean, uid: number | undefined): string[] =>
  asRoot ? dropRoot(uid ?? SANDBOX_UID) : unprivilegedDrop(process.getuid?.() ?? 0, process.getgid?.() ?? 0);

/**
 * The file system of one check, in bubblewrap's option language: the system directories read-only,
 * hidden paths covered, its own account files (server root), a fresh /proc (its own processes only),
 * /dev and /dev/shm of its own, its scratch directory as /tmp, its repository's objects read-only and
 * its checkout read-write, both at their host paths (the checkout's alternates name the objects by
 * that path). bwrap takes it as it is; the unshare sandbox replays the same steps (unshare-sandbox.ts).
 */
export const mountPlan = (opts: SandboxOptions, space: CheckSpace): string[] => {
  const dirs = [...new Set([...ancestors(space.objects), ...ancestors(space.checkout)])].filter((d) => d !== '/tmp');
  return [
    ...systemArgs(),
    ...maskArgs(opts.hiddenPaths ?? []),
    ...(space.user ? ['--ro-bind', space.user.passwd, '/etc/passwd', '--ro-bind', space.user.group, '/etc/group'] : []),
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
  ];
};

/**
 * The argv that runs `inner` (an argv) for one check in the sandbox `kind`; with the sandbox off,
 * `inner` itself. The environment is whatever the caller spawns this argv with: it is passed on as it is.
 */
export const sandboxArgv = (kind: SandboxKind, opts: SandboxOptions, space: CheckSpace, inner: readonly string[]): string[] => {
  if (kind === 'off') return [...inner];
  const asRoot = isRoot();
  const plan = mountPlan(opts, space);
  if (kind === 'unshare') {
    if (space.rootDir === undefined) throw new Error('the unshare sandbox needs a root directory');
    return unshareArgv(opts, space.rootDir, plan, asRoot, dropOf(asRoot, space.user?.uid), inner);
  }
  return [
    opts.bwrap ?? 'bwrap',
    ...namespaceArgs(opts, asRoot),
    ...plan,
    '--',
    ...(asRoot ? dropRoot(space.user?.uid ?? SANDBOX_UID) : []),
    ...inner,
  ];
};

/** Whether checks run as a uid the runner chooses (the server is root and sandboxes them): then each gets its own. */
export const checksGetOwnUid = (kind: SandboxKind): boolean => kind !== 'off' && isRoot();

export type SandboxProbe = { ok: true; kind: SandboxKind } | { ok: false; reason: string };

export const SANDBOX_FIX =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow user namespaces, or set RAILYARD_CI_SANDBOX=off to run checks unsandboxed (development only: a check can then read every secret of this process)';

const tryRun = (
  argv: string[],
  searchPath: string,
): Promise<{ ok: true } | { ok: false; code?: string; stderr: string; message: string }> =>
  new Promise((resolve) => {
    execFile(argv[0] as string, argv.slice(1), { env: { PATH: searchPath }, timeout: 10_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve({ ok: true });
      resolve({
        ok: false,
        code: (error as NodeJS.ErrnoException).code as string | undefined,
        stderr: stderr.trim(),
        message: error.message,
      });
    });
  });

const probeBwrap = async (opts: SandboxOptions, searchPath: string): Promise<string | null> => {
  const argv = [opts.bwrap ?? 'bwrap', ...namespaceArgs(opts, isRoot()), ...systemArgs(), '--proc', '/proc', '--dev', '/dev', '--', 'true'];
  const got = await tryRun(argv, searchPath);
  if (got.ok) return null;
  return got.code === 'ENOENT'
    ? 'bubblewrap (bwrap) is not installed'
    : `bubblewrap cannot make the sandbox here: ${got.stderr || got.message}`;
};

const probeUnshare = async (opts: SandboxOptions, searchPath: string): Promise<string | null> => {
  const rootDir = await fs.mkdtemp(path.join(os.tmpdir(), 'railyard-probe-'));
  try {
    const plan = [...systemArgs(), '--proc', '/proc', '--dev', '/dev'];
    const got = await tryRun(unshareArgv(opts, rootDir, plan, isRoot(), dropOf(isRoot(), undefined), ['true']), searchPath);
    if (got.ok) return null;
    return got.code === 'ENOENT'
      ? 'util-linux unshare is not installed'
      : `the unshare sandbox cannot run here: ${(got.stderr || got.message).split('\n').slice(-1)[0]}`;
  } finally {
    await fs.rm(rootDir, { recursive: true, force: true }).catch(() => undefined);
  }
};

/**
 * Which sandbox checks run in here: runs `true` the way a check would run, finding the tools on the
 * checks' PATH. `auto` takes bubblewrap when it works, else the util-linux `unshare` sandbox; when
 * neither works, the reason says why for each.
 */
export const probeSandbox = async (opts: SandboxOptions, searchPath: string): Promise<SandboxProbe> => {
  if (opts.mode === 'off') return { ok: true, kind: 'off' };
  const reasons: string[] = [];
  if (opts.mode !== 'unshare') {
    const bwrap = await probeBwrap(opts, searchPath);
    if (bwrap === null) return { ok: true, kind: 'bwrap' };
    reasons.push(bwrap);
  }
  if (opts.mode !== 'bwrap') {
    const unshare = await probeUnshare(opts, searchPath);
    if (unshare === null) return { ok: true, kind: 'unshare' };
    reasons.push(unshare);
  }
  return { ok: false, reason: reasons.join('; ') };
};
