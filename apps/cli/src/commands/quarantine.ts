import { UsageError, type CliContext } from '../context';
import { allPages, apiTargetOf, postJson } from '../http';
import { positiveIntOption, repoOption } from '../identifiers';

interface QuarantineFlags {
  url?: string;
  api?: string;
  token?: string;
  repo?: string;
  testId?: string;
  mode?: string;
  reason?: string;
  org?: string;
  pageSize?: string;
  set?: string;
  anyone?: boolean;
}

const MODES = ['always', 'never', 'auto'];

/** `railyard quarantine set`: a per-test override (admin token). */
export const setCommand = async (flags: QuarantineFlags, ctx: CliContext): Promise<number> => {
  const repo = repoOption(flags.repo);
  if (!flags.testId) throw new UsageError('--test-id is required');
  const mode = flags.mode?.toLowerCase();
  if (!mode || !MODES.includes(mode)) throw new UsageError('--mode must be always, never or auto');
  const answer = await postJson(apiTargetOf(flags, ctx.settings), '/flaky-tests/set-quarantine', {
    repo,
    testId: flags.testId,
    quarantine: mode,
    ...(flags.reason ? { reason: flags.reason } : {}),
  });
  ctx.io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  return 0;
};

/** `railyard quarantine list`: every quarantined test, all pages. */
export const listCommand = async (flags: QuarantineFlags, ctx: CliContext): Promise<number> => {
  const repo = repoOption(flags.repo);
  const pageSize = positiveIntOption('--page-size', flags.pageSize, 100) ?? 100;
  const target = apiTargetOf(flags, ctx.settings);
  const tests = await allPages(async (token) => {
    const page = await postJson<{ quarantined_tests: unknown[]; page: { next_page_token: string } }>(
      target,
      '/flaky-tests/list-quarantined-tests',
      {
        repo,
        org_url_slug: flags.org ?? ctx.settings.orgSlug ?? 'railyard',
        page_query: { page_size: pageSize, page_token: token },
      },
    );
    return { items: page.quarantined_tests, next: page.page.next_page_token };
  });
  ctx.io.stdout.write(`${JSON.stringify(tests, null, 2)}\n`);
  return 0;
};

/**
 * `railyard quarantine reporters`: whose test-result uploads count as quarantine evidence
 * (docs/test-health.md §4). Without options it shows the setting; `--set a,b` names tokens (admin;
 * an empty list leaves only the local CI's uploads), `--anyone` lets every upload count again.
 */
export const reportersCommand = async (flags: QuarantineFlags, ctx: CliContext): Promise<number> => {
  const repo = repoOption(flags.repo);
  if (flags.set !== undefined && flags.anyone) throw new UsageError('give --set or --anyone, not both');
  const target = apiTargetOf(flags, ctx.settings);
  const answer =
    flags.set === undefined && !flags.anyone
      ? await postJson(target, '/flaky-tests/get-evidence-reporters', { repo })
      : await postJson(target, '/flaky-tests/set-evidence-reporters', {
          repo,
          reporters: flags.anyone
            ? null
            : (flags.set ?? '')
                .split(',')
                .map((name) => name.trim())
                .filter((name) => name !== ''),
        });
  ctx.io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  return 0;
};
