import { readdirSync } from 'node:fs';
import type { EventStoreConfig } from '@railyard/eventstore';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { startProcess, type RunningProcess } from './processes';

/**
 * The distributed shape spread over "machines": every process gets a data dir of its own, made empty
 * when it starts, so the only things processes share are the networked services in `env` (the event
 * store, Redis, the code host). A process replaced after a crash starts on a new empty dir too.
 */

export type NodeKind = 'api' | 'projector' | 'engine';

export interface ClusterNode extends RunningProcess {
  kind: NodeKind;
  name: string;
  dataDir: string;
}

const SCRIPTS: Record<NodeKind, { script: string; listens: boolean; ready?: RegExp }> = {
  api: { script: 'apps/api/src/main.ts', listens: true },
  // Ready once it is running, active or on standby: the lease decides which one projects.
  projector: {
    script: 'apps/projector/src/main.ts',
    listens: false,
    ready: /"message":"(projector subscribing|waiting for the projector lease)"/,
  },
  engine: { script: 'apps/engine/src/main.ts', listens: false, ready: /"message":"engine started"/ },
};

export class Cluster {
  readonly nodes: ClusterNode[] = [];
  private readonly dirs: string[] = [];
  private started = 0;

  constructor(private readonly env: Record<string, string>) {}

  async start(kind: NodeKind, env: Record<string, string> = {}): Promise<ClusterNode> {
    const dataDir = await makeTempDir(`railyard-node-${kind}-`);
    this.dirs.push(dataDir);
    const { script, listens, ready } = SCRIPTS[kind];
    this.started += 1;
    const name = `${kind}-${this.started}`;
    const proc = await startProcess(script, { ...this.env, ...env, RAILYARD_DATA_DIR: dataDir }, { listens, ...(ready ? { ready } : {}) });
    const node: ClusterNode = Object.assign(proc, { kind, name, dataDir });
    this.nodes.push(node);
    return node;
  }

  /** The nodes of one kind still running, oldest first. */
  running(kind: NodeKind): ClusterNode[] {
    return this.nodes.filter((n) => n.kind === kind && n.proc.exitCode === null && n.proc.signalCode === null);
  }

  /** kill -9, then a replacement on a fresh empty data dir. */
  async crashAndReplace(node: ClusterNode): Promise<ClusterNode> {
    await node.kill9();
    return this.start(node.kind);
  }

  /** What each process left in its own data dir (paths relative to it): what a replacement machine would not have. */
  leftOnDisk(): Record<string, string[]> {
    return Object.fromEntries(this.nodes.map((n) => [n.name, readdirSync(n.dataDir, { recursive: true, encoding: 'utf8' }).sort()]));
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop().catch(() => undefined)));
    await Promise.all(this.dirs.map((d) => removeTempDir(d)));
  }
}

/** Where the shared events live in a run: the environment every process gets and the config a test reads them with. */
export interface SharedEventStore {
  label: string;
  env: Record<string, string>;
  config: EventStoreConfig;
}

/** A database the suite made (and drops): its events under the default schema. */
export const postgresEventStore = (url: string): SharedEventStore => ({
  label: 'postgres',
  env: { RAILYARD_EVENTSTORE: 'postgres', RAILYARD_POSTGRES_URL: url },
  config: { kind: 'postgres', url, schema: 'railyard' },
});

/** A KurrentDB server is shared and never empty: runs keep apart by naming their own streams (a repository of their own). */
export const kurrentEventStore = (url: string): SharedEventStore => ({
  label: 'kurrentdb',
  env: { RAILYARD_EVENTSTORE: 'kurrent', RAILYARD_KURRENTDB_URL: url },
  config: { kind: 'kurrent', url },
});

/** A small seeded generator (mulberry32), so a run's random moments can be replayed from the seed it logs. */
export const seededRandom = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};
