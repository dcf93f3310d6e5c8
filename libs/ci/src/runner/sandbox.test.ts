import { mountPlan, sandboxArgv } from './sandbox';

const space = {
  checkout: '/srv/railyard/ci-work/r/a/src',
  scratch: '/srv/railyard/ci-work/r/a/tmp',
  objects: '/srv/railyard/git/h/o/n.git/objects',
};
const inner = ['env', 'bash', '-c', 'true'];

/** The value following each occurrence of `flag` (bwrap options take their arguments positionally). */
const after = (argv: string[], flag: string, count = 1): string[][] =>
  argv.flatMap((a, i) => (a === flag ? [argv.slice(i + 1, i + 1 + count)] : []));

describe('sandboxArgv', () => {
  it('when the sandbox is off, then the command runs as it is', () => {
    expect(sandboxArgv('off', { mode: 'off', network: 'none' }, space, inner)).toEqual(inner);
  });

  it('when the network is none, then the check gets a network namespace of its own; with host, it keeps the server’s', () => {
    expect(sandboxArgv('bwrap', { mode: 'bwrap', network: 'none' }, space, inner)).toContain('--unshare-net');
    expect(sandboxArgv('bwrap', { mode: 'bwrap', network: 'host' }, space, inner)).not.toContain('--unshare-net');
  });

  it('when a check runs in bubblewrap, then only its checkout and scratch are writable, the objects read-only, and the command comes last', () => {
    const argv = sandboxArgv('bwrap', { mode: 'bwrap', network: 'none' }, space, inner);
    expect(argv[0]).toBe('bwrap');
    expect(after(argv, '--bind', 2)).toEqual([
      [space.scratch, '/tmp'],
      [space.checkout, space.checkout],
    ]);
    expect(after(argv, '--ro-bind', 2)).toContainEqual([space.objects, space.objects]);
    expect(after(argv, '--ro-bind', 2).map(([source]) => source)).not.toContain('/srv/railyard');
    expect(argv.slice(-inner.length)).toEqual(inner);
    expect(argv).toEqual(expect.arrayContaining(['--unshare-pid', '--unshare-ipc', '--die-with-parent', '--proc']));
  });

  it('when a hidden path lies under a system directory the check sees, then it is covered; elsewhere nothing is needed', () => {
    const argv = sandboxArgv(
      'bwrap',
      { mode: 'bwrap', network: 'none', hiddenPaths: ['/etc/hostname', '/etc', '/srv/railyard/api-tokens'] },
      space,
      inner,
    );
    expect(after(argv, '--ro-bind', 2)).toContainEqual(['/dev/null', '/etc/hostname']);
    expect(after(argv, '--tmpfs')).toContainEqual(['/etc']);
    expect(argv.join(' ')).not.toContain('api-tokens');
  });

  it('when the check has an account of its own, then its passwd and group files are shown over the system’s', () => {
    const user = { uid: 2_000_000_123, passwd: '/srv/a/passwd', group: '/srv/a/group' };
    const argv = sandboxArgv('bwrap', { mode: 'bwrap', network: 'none' }, { ...space, user }, inner);
    expect(after(argv, '--ro-bind', 2)).toEqual(
      expect.arrayContaining([
        ['/srv/a/passwd', '/etc/passwd'],
        ['/srv/a/group', '/etc/group'],
      ]),
    );
  });

  it('when a check runs in the unshare sandbox, then unshare makes the namespaces and the same mount plan follows, the command last', () => {
    const options = { mode: 'unshare', network: 'none' } as const;
    const argv = sandboxArgv('unshare', options, { ...space, rootDir: '/srv/railyard/ci-work/r/a/root' }, inner);
    expect(argv.slice(0, 1)).toEqual(['unshare']);
    expect(argv).toEqual(expect.arrayContaining(['--mount', '--pid', '--ipc', '--uts', '--net', '--fork', '--kill-child']));
    expect(argv.join('\n')).toContain(mountPlan(options, space).join('\n'));
    expect(argv.slice(-inner.length)).toEqual(inner);
    expect(sandboxArgv('unshare', { ...options, network: 'host' }, { ...space, rootDir: '/r' }, inner)).not.toContain('--net');
    expect(() => sandboxArgv('unshare', options, space, inner)).toThrow(/root directory/);
  });
});
