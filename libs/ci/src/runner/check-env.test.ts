import { checkEnv, checkPath } from './check-env';

const run = {
  repo: { host: 'git.local', owner: 'acme', name: 'widgets' },
  sha: 'a'.repeat(40),
  branch: 'railyard-merge/pr-1/r',
  testRunId: 'r',
  timeoutMinutes: 5,
};

describe('checkEnv', () => {
  it('when the server’s environment holds secrets under any name, then the check gets none of them, only PATH, LANG, LC_ALL, TZ and its run', () => {
    const env = checkEnv(
      {
        PATH: '/usr/bin',
        LANG: 'C.UTF-8',
        TZ: 'UTC',
        RAILYARD_API_TOKENS: 'ops:s:admin',
        KURRENT_URL: 'kurrentdb://u:pw@h',
        AWS_SECRET_ACCESS_KEY: 'k',
      },
      run,
      'unit',
      '/tmp',
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      HOME: '/tmp',
      TMPDIR: '/tmp',
      CI: 'true',
      RAILYARD_CI: 'true',
      RAILYARD_TEST_RUN_ID: 'r',
      RAILYARD_SHA: 'a'.repeat(40),
      RAILYARD_BRANCH: 'railyard-merge/pr-1/r',
      RAILYARD_CHECK: 'unit',
      RAILYARD_REPO: 'git.local/acme/widgets',
    });
  });

  it('when the server has no PATH, then checks get the system default', () => {
    expect(checkPath({})).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
    expect(checkEnv({}, run, 'unit', '/tmp').PATH).toBe(checkPath({}));
  });
});
