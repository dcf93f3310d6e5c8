import { parseSubcommand } from '../args';
import {
  allPages,
  API_OPTIONS,
  API_USAGE,
  apiTargetOf,
  positiveInt,
  postJson,
  repoOption,
  runCommand,
  UsageError,
  type CommandIo,
} from './test-health-api';

const USAGE = `usage: railyard quarantine <subcommand> …   (per-test quarantine, through the API)
  quarantine set --repo HOST/OWNER/NAME --test-id UUID --mode always|never|auto [--reason TEXT]
      always: quarantined whatever its status; never: never quarantined; auto: quarantined while FLAKY
      (needs an admin token)
  quarantine list --repo HOST/OWNER/NAME [--org SLUG] [--page-size N]
      every quarantined test, all pages, as JSON
${API_USAGE}
Exit codes: 0 done, 1 refused (unknown test or repository, token without the scope), 2 bad usage.`;

const OPTIONS = {
  ...API_OPTIONS,
  repo: { type: 'string' },
  'test-id': { type: 'string' },
  mode: { type: 'string' },
  reason: { type: 'string' },
  org: { type: 'string' },
  'page-size': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = Partial<Record<Exclude<keyof typeof OPTIONS, 'help'>, string>> & { help?: boolean };

const ALLOWED: Record<string, readonly string[]> = {
  set: ['api', 'token', 'repo', 'test-id', 'mode', 'reason'],
  list: ['api', 'token', 'repo', 'org', 'page-size'],
};

const MODES = ['always', 'never', 'auto'];

/** `railyard quarantine set|list …`. */
export const quarantineCommand = (
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: CommandIo = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> =>
  runCommand(io, 'railyard quarantine', USAGE, async () => {
    const parsed = parseSubcommand('quarantine', argv, OPTIONS, ALLOWED);
    if (parsed === 'help') {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const { sub } = parsed;
    const values = parsed.values as Values;
    const repo = repoOption(values.repo);
    if (sub === 'set') {
      if (!values['test-id']) throw new UsageError('--test-id is required');
      const mode = values.mode?.toLowerCase();
      if (!mode || !MODES.includes(mode)) throw new UsageError('--mode must be always, never or auto');
      const target = apiTargetOf(values, env);
      const answer = await postJson(target, '/flaky-tests/set-quarantine', {
        repo,
        testId: values['test-id'],
        quarantine: mode,
        ...(values.reason ? { reason: values.reason } : {}),
      });
      io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
      return 0;
    }
    const pageSize = positiveInt('page-size', values['page-size'], 100) ?? 100;
    const target = apiTargetOf(values, env);
    const tests = await allPages(async (token) => {
      const page = await postJson<{ quarantined_tests: unknown[]; page: { next_page_token: string } }>(
        target,
        '/flaky-tests/list-quarantined-tests',
        {
          repo,
          org_url_slug: values.org ?? env.RAILYARD_ORG_SLUG ?? 'railyard',
          page_query: { page_size: pageSize, page_token: token },
        },
      );
      return { items: page.quarantined_tests, next: page.page.next_page_token };
    });
    io.stdout.write(`${JSON.stringify(tests, null, 2)}\n`);
    return 0;
  });
