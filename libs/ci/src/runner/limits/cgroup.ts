import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isProcessAlive } from '@railyard/githost';
import { MIB, type CheckLimits, type LimitName } from './limits';

/** The controllers a check's cgroup needs: processes, memory, CPU. */
const NEEDED = ['pids', 'memory', 'cpu'];
const CPU_PERIOD_US = 100_000;

export type CgroupProbe = { ok: true; root: string } | { ok: false; reason: string };

const controllersOf = async (dir: string): Promise<string[] | null> =>
  fs
    .readFile(path.join(dir, 'cgroup.controllers'), 'utf8')
    .then((t) => t.trim().split(/\s+/).filter(Boolean))
    .catch(() => null);

const missing = (have: readonly string[]): string[] => NEEDED.filter((c) => !have.includes(c));

/** Where the cgroup v2 hierarchy is mounted, from /proc/self/mountinfo; null when it is not. */
const cgroup2Mount = async (): Promise<string | null> => {
  const text = await fs.readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ');
    if (right?.split(' ')[0] === 'cgroup2') return left?.split(' ')[4] ?? null;
  }
  return null;
};

/**
 * Whether checks can each get a cgroup v2 of their own with the pids, memory and cpu controllers:
 * `setting` is `off`, `auto` (a `railyard-ci` group at the top of the v2 hierarchy, which needs root)
 * or the path of a group delegated to Railyard (empty of processes, e.g. a systemd unit's with
 * `Delegate=yes`). Creates the group and one probe child, then removes the child.
 */
export const probeCgroup = async (setting: string): Promise<CgroupProbe> => {
  if (setting === 'off') return { ok: false, reason: 'RAILYARD_CI_CGROUP=off' };
  let root = setting;
  if (setting === 'auto') {
    const mount = await cgroup2Mount();
    if (mount === null) return { ok: false, reason: 'no cgroup v2 hierarchy is mounted' };
    const offered = (await controllersOf(mount)) ?? [];
    if (missing(offered).length > 0)
      return {
        ok: false,
        reason: `the cgroup v2 hierarchy at ${mount} does not offer ${missing(offered).join(', ')} (it offers: ${offered.join(' ') || 'none'}; they are bound to cgroup v1)`,
      };
    root = path.join(mount, 'railyard-ci');
    try {
      await fs.mkdir(root, { recursive: true });
      await fs.writeFile(path.join(mount, 'cgroup.subtree_control'), NEEDED.map((c) => `+${c}`).join(' '));
    } catch (err) {
      return { ok: false, reason: `cannot make ${root}: ${(err as Error).message}` };
    }
  }
  const own = await controllersOf(root);
  if (own === null) return { ok: false, reason: `${root} is not a cgroup v2 group` };
  if (missing(own).length > 0) return { ok: false, reason: `${root} does not have ${missing(own).join(', ')}` };
  const probe = path.join(root, `probe-${process.pid}`);
  try {
    await fs.writeFile(path.join(root, 'cgroup.subtree_control'), NEEDED.map((c) => `+${c}`).join(' '));
    await fs.mkdir(probe, { recursive: true });
    const got = (await controllersOf(probe)) ?? [];
    if (missing(got).length > 0) return { ok: false, reason: `a group made in ${root} does not get ${missing(got).join(', ')}` };
    await removeLeftovers(root);
    return { ok: true, root };
  } catch (err) {
    return { ok: false, reason: `cannot make groups in ${root}: ${(err as Error).message}` };
  } finally {
    await fs.rmdir(probe).catch(() => undefined);
  }
};

/**
 * Groups of checks whose runner process is gone (a crash): their names start with that pid. A group
 * still holding processes cannot be removed (EBUSY) and stays; an empty one goes.
 */
const removeLeftovers = async (root: string): Promise<void> => {
  for (const entry of await fs.readdir(root, { withFileTypes: true }).catch(() => [])) {
    const pid = Number(/^(\d+)-/.exec(entry.name)?.[1]);
    if (entry.isDirectory() && pid > 0 && pid !== process.pid && !isProcessAlive(pid))
      await fs.rmdir(path.join(root, entry.name)).catch(() => undefined);
  }
};

const counter = async (file: string, key: string): Promise<number> => {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const match = new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One check's cgroup: its processes join it (`procs`) before the command runs; the kernel holds them
 * to the limits, refusing forks past `pids.max` and killing the whole group when memory runs out
 * (`memory.oom.group`), and its event counters say afterwards which limit was hit.
 */
export class CheckCgroup {
  private constructor(readonly dir: string) {}

  get procs(): string {
    return path.join(this.dir, 'cgroup.procs');
  }

  /** Named after this process (`<pid>-<name>`), so that a runner starting after a crash can tell leftovers. */
  static async create(root: string, name: string, limits: CheckLimits): Promise<CheckCgroup> {
    const dir = path.join(root, `${process.pid}-${name}`);
    await fs.mkdir(dir);
    const write = (file: string, value: string) => fs.writeFile(path.join(dir, file), value);
    await write('pids.max', String(limits.processes));
    await write('memory.max', String(limits.memoryMib * MIB));
    // No swap to spill into, and the whole check goes when it runs out (not one process at random).
    await write('memory.swap.max', '0').catch(() => undefined);
    await write('memory.oom.group', '1').catch(() => undefined);
    await write('cpu.max', limits.cpus > 0 ? `${Math.round(limits.cpus * CPU_PERIOD_US)} ${CPU_PERIOD_US}` : `max ${CPU_PERIOD_US}`);
    return new CheckCgroup(dir);
  }

  /** The limit the kernel enforced so far, if any: an out-of-memory kill, or a fork refused at pids.max. */
  async hit(): Promise<LimitName | null> {
    const events = path.join(this.dir, 'memory.events');
    if ((await counter(events, 'oom_kill')) > 0 || (await counter(events, 'oom_group_kill')) > 0) return 'memory';
    if ((await counter(path.join(this.dir, 'pids.events'), 'max')) > 0) return 'processes';
    return null;
  }

  /** Kills whatever is left in it and removes it (a group goes once its last process is gone). */
  async remove(): Promise<void> {
    await fs.writeFile(path.join(this.dir, 'cgroup.kill'), '1').catch(() => undefined);
    for (let i = 0; i < 100; i++) {
      try {
        await fs.rmdir(this.dir);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
        await sleep(20);
      }
    }
  }
}
