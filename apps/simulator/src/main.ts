import { InvariantViolation } from './invariants';
import { loadWorkload, workloadFiles } from './load-workloads';
import { simulate } from './simulator';
import { WorkloadError, type Workload } from './workload';

const USAGE = `usage: npm run simulate -- <workload file or folder>... [--seed N] [--prs N]
  Runs each workload (JSON or YAML, see docs/simulator.md) through the real planner with a
  modelled CI and git host, and prints one JSON line of results per workload.
  --seed N   override every workload's seed
  --prs N    override every workload's number of PRs (a quicker, noisier run)`;

interface Args {
  targets: string[];
  seed?: number;
  prs?: number;
}

const parseArgs = (argv: string[]): Args | string => {
  const args: Args = { targets: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--seed' || a === '--prs') {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || (a === '--prs' && v < 1)) return `${a} needs an integer${a === '--prs' ? ' of at least 1' : ''}`;
      if (a === '--seed') args.seed = v;
      else args.prs = v;
    } else if (a.startsWith('--')) return `unknown option ${a}`;
    else args.targets.push(a);
  }
  return args.targets.length > 0 ? args : 'name at least one workload file or folder';
};

const main = async (): Promise<number> => {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    process.stderr.write(`simulate: ${args}\n${USAGE}\n`);
    return 2;
  }
  const files = (await Promise.all(args.targets.map(workloadFiles))).flat();
  const workloads: Workload[] = [];
  for (const file of files) workloads.push(await loadWorkload(file));
  for (const w of workloads) {
    const run = { ...w, ...(args.seed !== undefined ? { seed: args.seed } : {}), ...(args.prs !== undefined ? { prs: args.prs } : {}) };
    const started = Date.now();
    const result = await simulate(run);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.stderr.write(`simulate: ${w.name} done in ${((Date.now() - started) / 1000).toFixed(1)} s of wall time\n`);
  }
  return 0;
};

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof InvariantViolation) process.stderr.write(`simulate: INVARIANT BROKEN: ${err.message}\n`);
    else if (err instanceof WorkloadError) process.stderr.write(`simulate: bad workload: ${err.message}\n`);
    else process.stderr.write(`simulate: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(err instanceof WorkloadError ? 2 : 1);
  },
);
