import { execFile, spawn } from 'node:child_process';
import { promises as fs, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { RepoRef } from '@railyard/domain';
import { runGit, type CommitStatus } from '@railyard/githost';
import { commitOnBranch, eventually } from '@railyard/testkit';
import type { LocalCiRunnerOptions } from './local-ci-runner';
import type { CheckFinished } from './outcome';
import { RunnerBed } from './testing/runner-bed';

jest.setTimeout(60_000);

const run = promisify(execFile);
const chown = (args: string[]) => run('chown', args);

const repo: RepoRef = { host: 'git.test', owner: 'acme', name: 'widgets' };
const bed = new RunnerBed(repo);
let seq = 0;

const CHECKOUT = path.resolve(__dirname, '../../../..');
const AS_ROOT = process.getuid?.() === 0;

/** The first directory from `dir` up that other users cannot pass through, if any. */
const closedToOthers = (dir: string): string | null => {
  for (let d = dir; ; d = path.dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return d;
    if (d === path.dirname(d)) return null;
  }
};

// As root, one case starts the runner as uid 65534 from this checkout: a clone under a private
// directory (a home directory, `mktemp -d`) is out of that user's reach, so the case says so and skips.
const privateAbove = AS_ROOT ? closedToOthers(CHECKOUT) : null;
if (privateAbove !== null) {
  process.stderr.write(
    `\nsandbox unprivileged-server case SKIPPED: ${privateAbove} is closed to other users, so uid 65534 cannot load this checkout; clone it under a directory others may pass through to run it\n`,
  );
}
const itFromReachableCheckout = privateAbove === null ? it : it.skip;

const runId = (): string => `00000000-0000-4000-9000-${String(++seq).padStart(12, '0')}`;

/** Runs `command` as the check `probe` of a fresh commit holding `files`; answers its final status and log. */
const runCheck = async (
  command: string,
  opts: Partial<LocalCiRunnerOptions> = {},
  files: Record<string, string> = {},
): Promise<{ status: CommitStatus | undefined; log: string; sha: string; finished: CheckFinished[] }> => {
  const sha = await commitOnBranch(bed.gitRoot, repo, {
    branch: `railyard-merge/pr-${++seq}/x`,
    files: { '.railyard.yml': `ci:\n  probe: ${JSON.stringify(command)}\n`, ...files },
  });
  const id = runId();
  const finished: CheckFinished[] = [];
  const r = bed.runner(opts, finished);
  await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
  await r.whenDone(id);
  const status = (await bed.statuses.list(repo, sha)).find((s) => s.context === 'probe');
  return { status, log: await bed.logOf(id, 'probe'), sha, finished };
};

/** The isolation every sandbox gives (bubblewrap, and the unshare sandbox used where bubblewrap is missing). */
describe.each(['bwrap', 'unshare'] as const)('the %s sandbox of a local check', (mode) => {
  const sandbox = { mode, network: 'none' } as const;

  it('when a check looks around, then it sees its own processes only, its checkout and /tmp writable, its repository’s objects read-only, and nothing else of the data dir', async () => {
    const { status, log, sha } = await runCheck(
      [
        'echo "procs: $(ls -d /proc/[0-9]* | wc -l)"',
        `echo "server: $(test -e /proc/${process.pid}/environ && echo visible || echo absent)"`,
        'echo "head: $(git rev-parse HEAD)"',
        'echo "clean: $(git status --porcelain | wc -l)"',
        'touch made-here && echo "checkout: writable"',
        'touch /tmp/x && echo "tmp: writable $HOME"',
        `touch ${bed.gitDir}/objects/x 2>/dev/null && echo "objects: writable" || echo "objects: read-only"`,
        `ls ${bed.gitDir} 2>&1 | tr '\\n' ' '; echo`,
        `ls ${path.join(bed.root, 'ci-logs')} 2>&1 | head -1`,
        'exec 3<>/dev/tcp/1.1.1.1/53 2>/dev/null && echo "net: reached" || echo "net: none"',
        'echo "user: $(id -un)"',
      ].join('; '),
      { sandbox },
    );
    expect(status).toMatchObject({ state: 'success' });
    expect(log).toContain(`head: ${sha}`);
    expect(log).toContain('clean: 0');
    expect(log).toContain('checkout: writable');
    expect(log).toContain('tmp: writable /tmp');
    expect(log).toContain('objects: read-only');
    expect(log).toContain('server: absent');
    expect(log).toContain('net: none');
    // bwrap's init, the shell, and the commands of the pipeline: a handful, not the host's hundreds.
    expect(Number(/procs: (\d+)/.exec(log)?.[1])).toBeLessThan(10);
    // Of the bare repository only its objects are mounted; the logs directory does not exist at all.
    expect(log).toContain('\nobjects \n');
    expect(log).toContain("ci-logs': No such file or directory");
    // As root, each check has an account of its own (limits/check-user.ts): tools can look it up.
    expect(log).toContain(AS_ROOT ? 'user: railyard-ci' : 'user: ');
  });

  itFromReachableCheckout(
    'when the server runs as an unprivileged user, then the check runs as that user with no capabilities, in the same isolation, and what it leaves is removed',
    async () => {
      // As bed.root, the runner's process is moved to uid 65534 to take the user-namespace path; as
      // anyone else it is that path already.
      const uid = AS_ROOT ? 65534 : (process.getuid?.() as number);
      const sha = await commitOnBranch(bed.gitRoot, repo, {
        branch: 'unprivileged',
        files: {
          '.railyard.yml': `ci:\n  probe: ${JSON.stringify(
            "echo uid=$(id -u); grep CapEff /proc/self/status; echo procs=$(ls -d /proc/[0-9]* | wc -l); tr '\\0' '\\n' < /proc/1/environ; ls " +
              bed.root +
              '; mkdir -p cache/m /tmp/cache/m && chmod 555 cache /tmp/cache' +
              '; exec 3<>/dev/tcp/1.1.1.1/53 || echo net-none',
          )}\n`,
        },
      });
      if (AS_ROOT) await chown(['-R', `${uid}:${uid}`, bed.root]);
      const id = runId();
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'testing/runner-process.ts')], {
        cwd: CHECKOUT,
        env: {
          PATH: process.env.PATH,
          HOME: bed.root,
          UNPRIVILEGED_CANARY: 'canary-of-the-runner-0451',
          RAILYARD_TEST_RUNNER: JSON.stringify({
            gitRoot: bed.gitRoot,
            dataDir: bed.root,
            once: true,
            trigger: { repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 },
            sandbox: mode,
          }),
        },
        ...(AS_ROOT ? { uid, gid: uid } : {}),
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
      const log = await bed.logOf(id, 'probe');
      expect(log).toContain(`uid=${uid}\n`);
      expect(log).toMatch(/CapEff:\s+0000000000000000\n/);
      expect(Number(/procs=(\d+)/.exec(log)?.[1])).toBeLessThan(10);
      // The sandbox's first process holds the check's environment and nothing else; under unshare it is
      // the namespaces' root, whose /proc entry the check (with no capabilities) may not even read.
      expect(log).toMatch(mode === 'bwrap' ? /RAILYARD_CHECK=probe/ : /\/proc\/1\/environ: Permission denied/);
      expect(log).not.toContain('canary-of-the-runner');
      expect(log).toContain('net-none');
      expect(log).toMatch(/\nci-work\ngit\n/);
      expect((await bed.statuses.list(repo, sha))[0]?.state).toBe('success');
      // Read-only directories the check left (as module caches do) went with its checkout.
      expect(await fs.readdir(path.join(bed.root, 'ci-work'))).toEqual([]);
    },
  );

  it('when the network setting is host, then a check reaches the host’s loopback, which it does not by default', async () => {
    const server: Server = createServer((socket) => socket.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const command = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
      const host = await runCheck(command, { sandbox: { mode, network: 'host' } });
      expect(host.log).toContain('hello from the host');
      const none = await runCheck(command, { sandbox });
      expect(none.log).not.toContain('hello from the host');
      expect(none.status?.state).toBe('failure');
    } finally {
      server.close();
    }
  });

  it('when the checkout is removed while the check runs, then it reports CI_CHECKOUT_LOST rather than a failure', async () => {
    const sha = await commitOnBranch(bed.gitRoot, repo, {
      branch: 'lost',
      files: { '.railyard.yml': 'ci:\n  probe: "touch started; sleep 2; test -f .railyard.yml"\n' },
    });
    const id = runId();
    const finished: CheckFinished[] = [];
    const r = bed.runner({ sandbox }, finished);
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    const runDir = path.join(bed.root, 'ci-work', id);
    const checkout = async (): Promise<string | undefined> => {
      const attempt = (await fs.readdir(runDir).catch(() => [] as string[])).find((e) => !e.endsWith('.json'));
      return attempt && path.join(runDir, attempt, 'src');
    };
    await eventually(
      async () => {
        const dir = await checkout();
        return dir !== undefined && (await fs.stat(path.join(dir, 'started')).catch(() => null)) !== null;
      },
      'the check to start in its checkout',
      30_000,
    );
    await fs.rm((await checkout()) as string, { recursive: true, force: true });
    await r.whenDone(id);
    expect((await bed.statuses.list(repo, sha))[0]).toMatchObject({
      state: 'error',
      description: 'infrastructure error CI_CHECKOUT_LOST: the checkout disappeared while the check ran',
    });
    expect(finished[0]?.outcome).toMatchObject({ kind: 'infrastructure', code: 'CI_CHECKOUT_LOST' });
  });

  it('when the tested code links to a private file of the server, then the check cannot read it and the file keeps its owner and mode', async () => {
    const secret = path.join(bed.root, 'private-secret');
    await fs.writeFile(secret, 'private-bytes-0123456789\n', { mode: 0o600 });
    const before = await fs.stat(secret);
    // Links are stored in the tree as links (mode 120000), exactly as a PR would push them.
    const blob = async (content: string) => (await runGit(bed.gitDir, ['hash-object', '-w', '--stdin'], { input: content })).stdout.trim();
    const entries = [
      `120000 blob ${await blob(secret)}\tleak`,
      `120000 blob ${await blob(bed.root)}\tleak-dir`,
      `100644 blob ${await blob('ci:\n  probe: "cat leak; cat leak-dir/private-secret; ls -l"\n')}\t.railyard.yml`,
    ];
    const tree = (await runGit(bed.gitDir, ['mktree'], { input: `${entries.join('\n')}\n` })).stdout.trim();
    const who = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
    const sha = (await runGit(bed.gitDir, ['commit-tree', tree], { env: who, input: 'links' })).stdout.trim();
    const id = runId();
    const r = bed.runner({ sandbox });
    await r.trigger({ repo, sha, branch: 'b', testRunId: id, timeoutMinutes: 5 });
    await r.whenDone(id);
    const log = await bed.logOf(id, 'probe');
    expect(log).toMatch(/leak -> /);
    expect(log).not.toContain('private-bytes');
    const after = await fs.stat(secret);
    expect([after.uid, after.gid, after.mode]).toEqual([before.uid, before.gid, before.mode]);
  });
});

describe('where checks run', () => {
  /** A PATH with the shell the runner needs and nothing else: no bwrap, no unshare. */
  const bareBin = async (): Promise<string> => {
    const bin = path.join(bed.root, `bin-${++seq}`);
    await fs.mkdir(bin);
    for (const tool of ['bash', 'env']) await fs.symlink(path.join('/usr/bin', tool), path.join(bin, tool));
    return bin;
  };

  it('when bubblewrap is not installed, then the check runs in the unshare sandbox, isolated as in bubblewrap, and the log at start says so', async () => {
    const sandbox = { mode: 'auto', network: 'none', bwrap: path.join(bed.root, 'no-such-bwrap') } as const;
    const { status, log } = await runCheck(
      `echo ran-$((40 + 2)); echo "procs: $(ls -d /proc/[0-9]* | wc -l)"; test -e /proc/${process.pid}/environ && echo server-visible; ls ${bed.root}`,
      { sandbox },
    );
    expect(status).toMatchObject({ state: 'success' });
    expect(log).toContain('\nran-42\n');
    expect(Number(/procs: (\d+)/.exec(log)?.[1])).toBeLessThan(10);
    expect(log).not.toMatch(/^server-visible$/m);
    // Of the data dir only the way to its checkout and objects: no event store, no logs.
    expect(log).toMatch(/\nci-work\ngit\n/);
    const warnings: string[] = [];
    const logger = { warn: (m: string) => void warnings.push(m), info: () => undefined, error: () => undefined, debug: () => undefined };
    expect(await bed.runner({ sandbox, logger: logger as never }).checkSandbox()).toEqual({ ok: true, kind: 'unshare' });
    expect(warnings).toContainEqual(expect.stringContaining('checks run in the util-linux unshare sandbox'));
  });

  it('when neither bubblewrap nor the unshare sandbox can run, then the check does not run and reports CI_SANDBOX_UNAVAILABLE naming what to install', async () => {
    const bin = await bareBin();
    const { status, log, finished } = await runCheck('echo ran-$((40 + 2))', { baseEnv: { PATH: bin } });
    expect(status).toMatchObject({
      state: 'error',
      description: expect.stringMatching(
        /^infrastructure error CI_SANDBOX_UNAVAILABLE: bubblewrap \(bwrap\) is not installed; util-linux unshare is not installed; install bubblewrap .*RAILYARD_CI_SANDBOX=off/,
      ),
    });
    expect(finished[0]?.outcome).toMatchObject({ kind: 'infrastructure', code: 'CI_SANDBOX_UNAVAILABLE' });
    expect(log).not.toContain('ran-42');
    expect(await bed.runner({ baseEnv: { PATH: bin } }).checkSandbox()).toEqual({
      ok: false,
      reason: 'bubblewrap (bwrap) is not installed; util-linux unshare is not installed',
    });
  });

  it('when the sandbox is off, then the check runs as a plain process and its log says it was unsandboxed', async () => {
    const { status, log } = await runCheck(`test -d ${path.join(bed.root, 'ci-logs')} && echo sees-the-data-dir`, {
      sandbox: { mode: 'off', network: 'host' },
    });
    expect(status?.state).toBe('success');
    expect(log).toContain('# WARNING: no sandbox (RAILYARD_CI_SANDBOX=off)');
    expect(log).toContain('sees-the-data-dir');
  });
});
