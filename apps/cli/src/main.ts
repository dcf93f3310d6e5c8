import { prCommand } from './commands/pr';
import { projectionsCommand } from './commands/projections';
import { historyCommand } from './commands/history';
import { replayCommand } from './commands/replay';
import { testsCommand } from './commands/tests';
import { quarantineCommand } from './commands/quarantine';
import { statusCommand } from './commands/status';

type Command = (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  pr: prCommand,
  projections: projectionsCommand,
  status: statusCommand,
  history: historyCommand,
  replay: replayCommand,
  tests: testsCommand,
  quarantine: quarantineCommand,
};

const USAGE = `usage: railyard <command> …   (npm run railyard -- <command> …)
  pr open|update|close|show …   pull requests on the local git host
  projections rebuild           rebuild the Redis read models from the event store
  status set|list …             commit statuses, as an outside CI reports them
  history --repo … --branch …   a queue's audit trail (also after it was deleted)
  replay --repo … --branch … --at ISO   the queue as it was at that instant, rebuilt from its events
  tests upload|list|check …     JUnit results in, unhealthy tests out, the CI quarantine check (through the API)
  quarantine set|list …         per-test quarantine overrides (through the API)`;

const main = async (): Promise<number> => {
  const [name, ...rest] = process.argv.slice(2);
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`${USAGE}\n`);
    return name === undefined || name === 'help' || name === '--help' ? 0 : 2;
  }
  return command(rest, process.env);
};

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`railyard: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
