import * as path from 'node:path';
import { PostgresBlobStore, SqliteEventStore } from '@railyard/eventstore';
import { localHostStatuses } from '@railyard/githost';
import { LocalCiRunner, type TriggerInput } from '../local-ci-runner';
import type { SandboxMode } from '../sandbox';

/**
 * A runner in a process of its own, for tests that kill it, run it as another user, or run it on a
 * data dir of its own beside an API on another: triggers the run described by RAILYARD_TEST_RUNNER
 * (JSON: gitRoot, dataDir, the trigger input, `once`, `archive`: the PostgreSQL blob store its
 * finished logs go to, and `sandbox`: the sandbox mode), reporting statuses to the data dir's event store (the test bed's,
 * runner-bed.ts), and says "triggered". Then it waits forever, or with `once` until the run is
 * done, and exits.
 */
const main = async (): Promise<void> => {
  const spec = JSON.parse(process.env.RAILYARD_TEST_RUNNER ?? '{}') as {
    gitRoot: string;
    dataDir: string;
    trigger: TriggerInput;
    once?: boolean;
    archive?: { postgresUrl: string; schema: string };
    sandbox?: SandboxMode;
  };
  const eventStore = new SqliteEventStore({ file: path.join(spec.dataDir, 'events.sqlite') });
  const statuses = localHostStatuses({ eventStore, gitRoot: spec.gitRoot });
  const archive = spec.archive ? await PostgresBlobStore.open({ url: spec.archive.postgresUrl, schema: spec.archive.schema }) : undefined;
  const runner = new LocalCiRunner({
    gitRoot: spec.gitRoot,
    dataDir: spec.dataDir,
    statuses,
    publicUrl: () => 'http://127.0.0.1:1',
    ...(archive ? { logArchive: archive } : {}),
    ...(spec.sandbox ? { sandbox: { mode: spec.sandbox, network: 'none' as const } } : {}),
  });
  await runner.trigger(spec.trigger);
  process.stdout.write('triggered\n');
  if (!spec.once) {
    setInterval(() => undefined, 60_000);
    return;
  }
  await runner.whenDone(spec.trigger.testRunId);
  await runner.close();
  await statuses.close();
  await archive?.close();
  await eventStore.close();
};

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
