import { parseArgs, type ParseArgsConfig } from 'node:util';

/** Bad command-line input: the command prints the message and its usage, and exits 2. */
export class UsageError extends Error {}

export interface Subcommand {
  sub: string;
  values: Record<string, string | boolean | undefined>;
  /** Positional arguments after the subcommand (file names, say); empty unless allowed. */
  rest: string[];
}

/**
 * `<command> <sub> [--option …] [positionals]`, strictly: unknown options, options that belong to
 * another subcommand and unexpected positionals are usage errors. 'help' when help was asked for (or
 * no subcommand given).
 */
export const parseSubcommand = (
  command: string,
  argv: string[],
  options: NonNullable<ParseArgsConfig['options']>,
  allowed: Record<string, readonly string[]>,
  opts: { positionals?: boolean } = {},
): Subcommand | 'help' => {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values = parsed.values as Subcommand['values'];
  const [sub, ...rest] = parsed.positionals;
  if (values.help || sub === undefined || sub === 'help') return 'help';
  const permitted = allowed[sub];
  if (permitted === undefined) throw new UsageError(`unknown subcommand ${JSON.stringify(sub)}`);
  if (!opts.positionals && rest.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(rest[0])}`);
  for (const name of Object.keys(values)) {
    if (name !== 'help' && !permitted.includes(name)) throw new UsageError(`--${name} is not an option of ${command} ${sub}`);
  }
  return { sub, values, rest };
};
