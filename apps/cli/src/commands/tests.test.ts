import { cliInProcess } from '../testing';

const ENV = { RAILYARD_API_URL: 'http://127.0.0.1:9', RAILYARD_API_TOKEN: 't' };

const call = (command: 'tests' | 'quarantine', args: string[], env: NodeJS.ProcessEnv = ENV) => cliInProcess([command, ...args], env);

describe('railyard tests / quarantine: usage', () => {
  it.each([
    [['upload', '--sha', 'abc', '--branch', 'main', 'f.xml'], '--repo is required'],
    [['upload', '--repo', 'acme/widgets', '--sha', 'abc', 'f.xml'], '--repo must be HOST/OWNER/NAME'],
    [['upload', '--repo', 'git.test/acme/w', '--branch', 'main', 'f.xml'], '--sha is required'],
    [['upload', '--repo', 'git.test/acme/w', '--sha', 'abc', 'f.xml'], '--branch is required'],
    [['upload', '--repo', 'git.test/acme/w', '--sha', 'abc', '--branch', 'main', '--pr', '0', 'f.xml'], '--pr must be a positive integer'],
    [['upload', '--repo', 'git.test/acme/w', '--sha', 'abc', '--branch', 'main'], "missing required argument 'files'"],
    [['list', '--repo', 'git.test/acme/w', '--status', 'healthy'], '--status must be flaky or broken'],
    [['list', '--repo', 'git.test/acme/w', '--status', 'flaky', '--page-size', '101'], '--page-size must be a positive integer'],
    [['list', '--repo', 'git.test/acme/w', '--status', 'flaky', '--sha', 'x'], "unknown option '--sha'"],
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['list', '--colour'], "unknown option '--colour'"],
  ])('when tests is given %j, then it exits 2 saying %s', async (args, message) => {
    const run = await call('tests', args);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
  });

  it('when no API is configured, then it says which option or variable is missing', async () => {
    const run = await call('tests', ['list', '--repo', 'git.test/acme/w', '--status', 'flaky'], {});

    expect(run).toMatchObject({ code: 2 });
    expect(run.stderr).toContain('RAILYARD_URL');
  });

  it('when the branch is not given but the CI names it, then the upload goes on to the files', async () => {
    const run = await call('tests', ['upload', '--repo', 'git.test/acme/w', '--sha', 'abc', '/nonexistent/report.xml'], {
      ...ENV,
      GITHUB_REF_NAME: 'main',
    });

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('FILE_UNREADABLE');
  });

  it('when the API cannot be reached, then it exits 1 naming the address', async () => {
    const run = await call('tests', ['list', '--repo', 'git.test/acme/w', '--status', 'broken']);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain('API_UNREACHABLE');
  });

  it.each([
    [['set', '--repo', 'git.test/acme/w', '--mode', 'always'], '--test-id is required'],
    [['set', '--repo', 'git.test/acme/w', '--test-id', 'x', '--mode', 'sometimes'], '--mode must be always, never or auto'],
    [['list', '--repo', 'git.test/acme/w', '--mode', 'always'], "unknown option '--mode'"],
    [['set', 'extra', '--repo', 'git.test/acme/w'], "too many arguments for 'set'"],
    [['reporters', '--repo', 'git.test/acme/w', '--set', 'jenkins', '--anyone'], 'give --set or --anyone, not both'],
  ])('when quarantine is given %j, then it exits 2 saying %s', async (args, message) => {
    const run = await call('quarantine', args);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it('when asked for help, then both print their usage and exit 0', async () => {
    expect(await call('tests', ['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('upload [options] <files...>') });
    expect(await call('quarantine', ['help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('set [options]') });
  });
});
