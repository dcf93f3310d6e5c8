import { prCommand } from './commands/pr';
import { projectionsCommand } from './commands/projections';

type Command = (argv: string[], env: NodeJS.ProcessEnv) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  pr: prCommand,
  projections: projectionsCommand,
};

const USAGE = `usage: railyard <command> …   (npm run railyard -- <command> …)
  pr open|update|close|show …   pull requests on the local git host
  projections rebuild           rebuild the Redis read models from the event store`;

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
