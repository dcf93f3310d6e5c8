import { Command, CommanderError, Option } from 'commander';
import { cliSettingsFromEnv } from './config';
import { CommandFailed, UsageError, type CliContext, type CommandIo } from './context';

/** A command's body: its parsed options, its positional arguments, the context; resolves to the exit code. */
export type Run = (opts: Record<string, unknown>, ctx: CliContext, args: string[]) => Promise<number>;

/**
 * Command bodies are required on first use, not imported: `--help`, a typo or `submit` then load only
 * what they need, not the event store, git host and Redis clients of every other command
 * (docs/benchmarks.md, "CLI start-up"). Each `require` names its module literally so the bundler that
 * makes the one-file CLI (`npm run build:cli`) can follow it and still defer it.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const COMMANDS = {
  commitStatus: () => require('./commands/commit-status') as Record<string, Run>,
  history: () => require('./commands/history') as Record<string, Run>,
  pr: () => require('./commands/pr') as Record<string, Run>,
  prActions: () => require('./commands/pr-actions') as Record<string, Run>,
  prStatus: () => require('./commands/pr-status') as Record<string, Run>,
  projections: () => require('./commands/projections') as Record<string, Run>,
  quarantine: () => require('./commands/quarantine') as Record<string, Run>,
  queueShow: () => require('./commands/queue-show') as Record<string, Run>,
  replay: () => require('./commands/replay') as Record<string, Run>,
  submit: () => require('./commands/submit') as Record<string, Run>,
  tests: () => require('./commands/tests') as Record<string, Run>,
};
/* eslint-enable @typescript-eslint/no-require-imports */
type CommandModule = keyof typeof COMMANDS;

const lazy = (module: CommandModule, name: string): Run => {
  const run = COMMANDS[module]()[name];
  if (run === undefined) throw new Error(`the command body ${name} is missing from ${module}`);
  return run;
};

const EXIT_CODES = `
Exit codes: 0 done, 1 refused or failed (the message says why), 2 bad usage.
submit/status --wait: 0 merged, 1 failed, 3 cancelled, 4 timed out, 2 bad usage.`;

const commandPath = (cmd: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

const errorName = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Loads the body, runs it, and turns what it throws into the documented exit codes (never a stack trace). */
const actionOf =
  (ctx: CliContext, done: (code: number) => void, module: CommandModule, name: string) =>
  async (...params: unknown[]): Promise<void> => {
    const cmd = params[params.length - 1] as Command;
    const args = params.slice(0, -2).flatMap((p) => (Array.isArray(p) ? p.map(String) : p === undefined ? [] : [String(p)]));
    try {
      done(await lazy(module, name)(cmd.opts(), ctx, args));
    } catch (err) {
      if (err instanceof UsageError) cmd.error(`error: ${err.message}`, { exitCode: 2, code: 'railyard.usage' });
      const { ApiRefusal } = require('./http') as typeof import('./http'); // eslint-disable-line @typescript-eslint/no-require-imports
      if (err instanceof ApiRefusal) {
        const status = err.status > 0 ? `${err.status} ` : '';
        ctx.io.stderr.write(`railyard ${commandPath(cmd).replace(/^railyard /, '')}: ${status}${err.code}: ${err.message}\n`);
        return done(1);
      }
      ctx.io.stderr.write(`railyard ${commandPath(cmd).replace(/^railyard /, '')}: ${errorName(err)}\n`);
      done(err instanceof CommandFailed ? err.exitCode : 1);
    }
  };

/**
 * The server is `--url` on every command (`--api`, the first CLI's spelling, still works). Commands
 * that can also read the data dir's stores (`history`, `replay`, `status set|list`) use them unless
 * --url is given; the others default to RAILYARD_URL.
 */
const remoteOptions = (cmd: Command, where: 'server' | 'local-by-default' = 'server'): Command => {
  cmd.option(
    '--url <url>',
    where === 'server' ? 'the Railyard server (default: RAILYARD_URL)' : 'go through this Railyard server instead of the local store',
  );
  cmd.addOption(new Option('--api <url>', 'older spelling of --url').hideHelp());
  return cmd.option('--token <token>', 'an API token (default: RAILYARD_TOKEN)');
};

const queueOptions = (cmd: Command): Command =>
  cmd
    .option('--repo <host/owner/name>', 'the repository, e.g. github.com/acme/widgets')
    .option('--branch <branch>', "the queue's target branch, e.g. main");

const waitOptions = (cmd: Command): Command =>
  cmd
    .option('--wait', 'print one line per change and exit with the verdict (0 merged, 1 failed, 3 cancelled, 4 timed out)')
    .option('--timeout <duration>', 'with --wait: give up after this long, e.g. 2h, 90m (default: no limit)')
    .option('--poll-interval <duration>', 'with --wait: how often to ask the server', '2s');

/** The whole command line. `done` receives the exit code of the command that ran. */
export const buildProgram = (ctx: CliContext, version: string, done: (code: number) => void): Command => {
  const act = (module: CommandModule, name: string) => actionOf(ctx, done, module, name);
  const program = new Command('railyard');
  program
    .description('Railyard, the self-hostable merge queue: submit and follow PRs, and administer the local parts.')
    .version(version, '-v, --version', 'print the version')
    .helpOption('-h, --help', 'print this help')
    .exitOverride()
    .configureOutput({ writeOut: (s) => void ctx.io.stdout.write(s), writeErr: (s) => void ctx.io.stderr.write(s) })
    .showHelpAfterError('(add --help for usage)')
    .enablePositionalOptions()
    .addHelpText('after', EXIT_CODES);

  program
    .command('version')
    .description('print the version')
    .action(() => {
      ctx.io.stdout.write(`${version}\n`);
      done(0);
    });

  // ---- For CI jobs and people, over HTTP (RAILYARD_URL, RAILYARD_TOKEN) ----
  const submit = program
    .command('submit')
    .description('submit a PR to a queue; with --wait, follow it until it merges, fails or is cancelled')
    .option('--pr <number>', 'the PR number');
  queueOptions(submit)
    .option('--priority <priority>', 'urgent, high, medium, low or 0-255 (lower goes first; default medium)')
    .option('--no-batch', 'test this PR alone, never in a batch');
  waitOptions(submit).option('--json', 'machine output: the answer as JSON (with --wait, one JSON object per line)');
  remoteOptions(submit).action(act('submit', 'submitCommand'));

  for (const [name, description] of [
    ['cancel', 'take a PR out of its queue'],
    ['restart', 'restart the tests of a queued PR'],
  ] as const) {
    const cmd = program.command(name).description(description).option('--pr <number>', 'the PR number');
    remoteOptions(queueOptions(cmd).option('--json', 'machine output: the answer as JSON')).action(act('prActions', `${name}Command`));
  }

  const status = program
    .command('status')
    .description("a submitted PR's state, position and what it waits for (status set|list: commit statuses)")
    .enablePositionalOptions()
    .usage('--repo <host/owner/name> --branch <branch> --pr <number> [options]  |  status set|list [options]')
    .argument('[command]', 'set or list: commit statuses (see status set --help)')
    .option('--pr <number>', 'the PR number');
  waitOptions(queueOptions(status)).option('--json', 'machine output: the answer as JSON');
  remoteOptions(status).action(act('prStatus', 'statusCommand'));
  const statusSet = status
    .command('set')
    .description('report a commit status, as an outside CI does (the configured event store, or --url)')
    .option('--repo <host/owner/name>', 'the repository')
    .option('--sha <sha>', 'the full commit SHA')
    .option('--context <name>', 'the status name, e.g. jenkins/build')
    .option('--state <state>', 'pending, success, failure or error')
    .option('--target-url <url>', 'the link the status points at (a build page)')
    .option('--description <text>', 'a short description');
  remoteOptions(statusSet, 'local-by-default').action(act('commitStatus', 'setCommand'));
  const statusList = status
    .command('list')
    .description("a commit's statuses (the configured event store, or --url)")
    .option('--repo <host/owner/name>', 'the repository')
    .option('--sha <sha>', 'the full commit SHA');
  remoteOptions(statusList, 'local-by-default').action(act('commitStatus', 'listCommand'));

  const queue = program.command('queue').description('queues');
  remoteOptions(queueOptions(queue.command('show').description('the queue as a table: position, PR, state, what each PR waits for')))
    .option('--json', 'machine output: getQueue as JSON')
    .action(act('queueShow', 'queueShowCommand'));

  // ---- Local parts: the git host, the stores, the read models ----
  const pr = program.command('pr').description('pull requests on the local git host (RAILYARD_GIT_ROOT), printed as JSON');
  const prOptions = (cmd: Command): Command =>
    cmd.option('--repo <host/owner/name>', 'the repository').option('--number <n>', 'the PR number');
  prOptions(pr.command('open').description('open a PR'))
    .option('--head <branch|sha>', 'the branch or commit to merge')
    .option('--base <branch>', 'the branch to merge into')
    .option('--title <title>', 'the title (default: the head commit subject)')
    .option('--author <name>', 'the author (default: the head commit author)')
    .action(act('pr', 'prOpen'));
  prOptions(pr.command('update').description("change a PR's head, base or title"))
    .option('--head <branch|sha>', 'the new head')
    .option('--base <branch>', 'the new base')
    .option('--title <title>', 'the new title')
    .action(act('pr', 'prUpdate'));
  prOptions(pr.command('close').description('close a PR')).action(act('pr', 'prClose'));
  prOptions(pr.command('show').description('print a PR')).action(act('pr', 'prShow'));

  program
    .command('projections')
    .description('the Redis read models of the distributed shape')
    .command('rebuild')
    .description(
      'rebuild every Redis read model from event position 0 (needs RAILYARD_REDIS_URL; refuses while a projector holds the lease)',
    )
    .action(act('projections', 'rebuildCommand'));

  const historySource = (cmd: Command): Command => remoteOptions(queueOptions(cmd), 'local-by-default');
  historySource(program.command('history').description("a queue's audit trail, oldest first (also after the queue was deleted)"))
    .option('--since <iso>', 'only events at or after this time')
    .option('--until <iso>', 'only events before this time')
    .option('--json', 'one JSON object per line, every field')
    .action(act('history', 'historyCommand'));
  historySource(program.command('replay').description('the queue as it was at an instant, rebuilt from its events'))
    .option('--at <iso>', 'the instant, e.g. 2026-03-01T09:30:00Z')
    .option('--json', 'machine output: the getQueue answer as JSON')
    .action(act('replay', 'replayCommand'));

  const tests = program.command('tests').description('test results in, test health out (through the API)');
  remoteOptions(tests.command('upload').description('record JUnit XML reports (plain or .gz) of one CI job'))
    .argument('<files...>', 'the report files')
    .option('--repo <host/owner/name>', 'the repository')
    .option('--sha <sha>', 'the tested commit')
    .option('--branch <branch>', "the branch (default: the CI's branch variable)")
    .option('--job <name>', 'the CI job')
    .option('--pr <number>', 'the PR the run was for')
    .option('--variant <name>', 'the variant (platform, shard…)')
    .action(act('tests', 'uploadCommand'));
  remoteOptions(tests.command('list').description('every flaky or broken test, all pages, as JSON'))
    .option('--repo <host/owner/name>', 'the repository')
    .option('--status <status>', 'flaky or broken')
    .option('--org <slug>', 'the organisation slug (default: RAILYARD_ORG_SLUG, else railyard)')
    .option('--page-size <n>', 'rows per request', '100')
    .action(act('tests', 'listCommand'));
  remoteOptions(tests.command('check').description('exit 0 only when every failed test in the reports is quarantined'))
    .argument('<files...>', 'the report files')
    .option('--repo <host/owner/name>', 'the repository')
    .action(act('tests', 'checkCommand'));

  const quarantine = program.command('quarantine').description('per-test quarantine overrides (through the API)');
  remoteOptions(quarantine.command('set').description('always: quarantined whatever its status; never; auto: while flaky (admin)'))
    .option('--repo <host/owner/name>', 'the repository')
    .option('--test-id <uuid>', 'the test id')
    .option('--mode <mode>', 'always, never or auto')
    .option('--reason <text>', 'why, for the audit trail')
    .action(act('quarantine', 'setCommand'));
  remoteOptions(quarantine.command('list').description('every quarantined test, all pages, as JSON'))
    .option('--repo <host/owner/name>', 'the repository')
    .option('--org <slug>', 'the organisation slug (default: RAILYARD_ORG_SLUG, else railyard)')
    .option('--page-size <n>', 'rows per request', '100')
    .action(act('quarantine', 'listCommand'));
  remoteOptions(quarantine.command('reporters').description('whose test-result uploads count as quarantine evidence; show, or set (admin)'))
    .option('--repo <host/owner/name>', 'the repository')
    .option('--set <names>', 'comma-separated token names (or reporter ids); empty: the local CI only')
    .option('--anyone', 'every upload counts again (the default)')
    .action(act('quarantine', 'reportersCommand'));

  return program;
};

/**
 * Runs one command line and resolves to its exit code; never calls process.exit, so tests run it in
 * process and the entry point decides when output has drained.
 */
export const runCli = async (argv: string[], io: CommandIo, env: NodeJS.ProcessEnv, version = '0.0.0'): Promise<number> => {
  let code = 0;
  const ctx: CliContext = { io, env, settings: cliSettingsFromEnv(env) };
  const program = buildProgram(ctx, version, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return code;
  } catch (err) {
    // Help and --version end in a CommanderError with exit code 0; every other parse error is usage (2).
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    io.stderr.write(`railyard: ${errorName(err)}\n`);
    return 1;
  }
};
