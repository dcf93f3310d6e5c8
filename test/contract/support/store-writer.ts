import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { EventStore, RecordedEvent } from '../../../libs/eventstore/src';
import type { Ack, ChildPlan } from './store-writer.child';

export type { Ack, ChildPlan };

export async function readEverything(store: EventStore): Promise<RecordedEvent[]> {
  const all: RecordedEvent[] = [];
  for (;;) {
    const page = await store.readAll(all[all.length - 1]?.position ?? null, 500);
    if (page.length === 0) return all;
    all.push(...page);
  }
}

/** Every stream's revisions run 0, 1, 2, … with no gap or repeat. */
export function expectContiguousRevisions(events: readonly RecordedEvent[]): void {
  const byStream = new Map<string, number[]>();
  for (const e of events) byStream.set(e.streamId, [...(byStream.get(e.streamId) ?? []), e.revision]);
  for (const revisions of byStream.values()) {
    expect(revisions).toEqual(revisions.map((_, i) => i));
  }
}

const TSX = resolve(__dirname, '../../../node_modules/.bin/tsx');
const CHILD = join(__dirname, 'store-writer.child.ts');

/** A writer process and what it has said so far. */
export class Writer {
  readonly acks: Ack[] = [];
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private stderr = '';
  private readonly listeners = new Set<() => void>();
  readonly exited: Promise<number | null>;

  constructor(plan: ChildPlan) {
    this.proc = spawn(TSX, [CHILD, JSON.stringify(plan)], { cwd: resolve(__dirname, '../../..') });
    let partial = '';
    this.proc.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        this.lines.push(line);
        if (line.startsWith('ack ')) this.acks.push(JSON.parse(line.slice(4)) as Ack);
      }
      this.changed();
    });
    this.proc.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((done) => {
      this.proc.on('exit', (code) => {
        this.changed();
        done(code);
      });
    });
  }

  /** The pid of the script itself: tsx runs it in a process of its own. */
  get scriptPid(): number {
    const line = this.lines.find((l) => l.startsWith('pid '));
    if (!line) throw new Error('writer has not reported its pid');
    return Number(line.slice(4));
  }

  async until(test: () => boolean): Promise<void> {
    while (!test()) {
      if (this.proc.exitCode !== null) throw new Error(`writer exited (${this.proc.exitCode}): ${this.stderr}`);
      await new Promise<void>((wake) => {
        const listener = (): void => {
          this.listeners.delete(listener);
          wake();
        };
        this.listeners.add(listener);
      });
    }
  }

  ready(): Promise<void> {
    return this.until(() => this.lines.includes('ready'));
  }

  go(): void {
    this.proc.stdin.end('go\n');
  }

  async finished(): Promise<void> {
    const code = await this.exited;
    if (code !== 0) throw new Error(`writer exited (${code}): ${this.stderr}`);
  }

  /** Stops a writer a failed test left running: the script first, then tsx around it. */
  kill(): void {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    try {
      process.kill(this.scriptPid, 'SIGKILL');
    } catch {
      // Never got as far as reporting its pid, or already gone.
    }
    this.proc.kill('SIGKILL');
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** The writers a test started; afterEach kills whatever a failed test left running. */
export function writerPool(): { start: (plan: ChildPlan) => Writer; killAll: () => void } {
  const writers: Writer[] = [];
  return {
    start: (plan) => {
      const w = new Writer(plan);
      writers.push(w);
      return w;
    },
    killAll: () => {
      for (const w of writers.splice(0)) w.kill();
    },
  };
}
