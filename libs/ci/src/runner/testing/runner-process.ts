import { LocalCommitStatusStore } from '@railyard/githost';
import { LocalCiRunner, type TriggerInput } from '../local-ci-runner';

/**
 * A runner in a process of its own, for tests that kill it: triggers the run described by
 * RAILYARD_TEST_RUNNER (JSON: gitRoot, dataDir and the trigger input), says "triggered", and waits.
 */
const main = async (): Promise<void> => {
  const spec = JSON.parse(process.env.RAILYARD_TEST_RUNNER ?? '{}') as { gitRoot: string; dataDir: string; trigger: TriggerInput };
  const statuses = new LocalCommitStatusStore({ root: spec.gitRoot });
  const runner = new LocalCiRunner({ gitRoot: spec.gitRoot, dataDir: spec.dataDir, statuses, publicUrl: () => 'http://127.0.0.1:1' });
  await runner.trigger(spec.trigger);
  process.stdout.write('triggered\n');
  setInterval(() => undefined, 60_000);
};

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
