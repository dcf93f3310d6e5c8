/**
 * The engine's side of `npm run bench -- ci`'s ci-status-notify-process: a process of its own that
 * listens to commit statuses on a SQLite event store and prints the commit of each change.
 * Usage: node --import tsx status-listener.child.ts '{"file":"…/events.sqlite","gitRoot":"…"}'
 * Prints `ready` once it hears changes, then one sha a line; exits when its stdin closes.
 */
import { SqliteEventStore } from '@railyard/eventstore';
import { localHostStatuses } from '@railyard/githost';

const main = async (): Promise<void> => {
  const { file, gitRoot } = JSON.parse(process.argv[2] ?? '{}') as { file: string; gitRoot: string };
  const eventStore = new SqliteEventStore({ file });
  const statuses = localHostStatuses({ eventStore, gitRoot });
  statuses.onChange((_repo, sha) => void process.stdout.write(`${sha}\n`));
  await statuses.whenListening();
  process.stdout.write('ready\n');
  process.stdin.resume();
  process.stdin.on('end', () => {
    void statuses
      .close()
      .then(() => eventStore.close())
      .then(() => process.exit(0));
  });
};

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
