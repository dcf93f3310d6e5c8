import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CheckCgroup, probeCgroup } from './cgroup';
import { DEFAULT_CHECK_LIMITS } from './limits';

// cgroup v2 is a file system of plain files to its writers: a directory of files stands in for one
// here (this machine's pids, memory and cpu controllers are bound to cgroup v1, docs/security.md).
let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'cgroup-'));
});
afterEach(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

describe('probeCgroup', () => {
  it('when the setting is off, then no cgroup is used', async () => {
    expect(await probeCgroup('off')).toEqual({ ok: false, reason: 'RAILYARD_CI_CGROUP=off' });
  });

  it('when the named directory is no cgroup, lacks a controller, or its children do not get them, then it says which', async () => {
    expect(await probeCgroup(root)).toEqual({ ok: false, reason: `${root} is not a cgroup v2 group` });
    await fs.writeFile(path.join(root, 'cgroup.controllers'), 'cpuset hugetlb memory\n');
    expect(await probeCgroup(root)).toEqual({ ok: false, reason: `${root} does not have pids, cpu` });
    await fs.writeFile(path.join(root, 'cgroup.controllers'), 'cpuset cpu io memory hugetlb pids rdma misc\n');
    expect(await probeCgroup(root)).toEqual({ ok: false, reason: `a group made in ${root} does not get pids, memory, cpu` });
    // It asked for the controllers in its children, and left no probe behind.
    expect(await fs.readFile(path.join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+pids +memory +cpu');
    expect((await fs.readdir(root)).sort()).toEqual(['cgroup.controllers', 'cgroup.subtree_control']);
  });

  it('when the groups are there, then the probe answers the root and removes the empty groups a dead runner left', async () => {
    await fs.writeFile(path.join(root, 'cgroup.controllers'), 'cpu memory pids\n');
    // The probe's own child, as the kernel would fill it in.
    await fs.mkdir(path.join(root, `probe-${process.pid}`));
    await fs.writeFile(path.join(root, `probe-${process.pid}`, 'cgroup.controllers'), 'cpu memory pids\n');
    const dead = 2 ** 22 + 1; // above Linux's largest pid: no process has it
    await fs.mkdir(path.join(root, `${dead}-attempt`));
    await fs.mkdir(path.join(root, `${process.pid}-attempt`));
    expect(await probeCgroup(root)).toEqual({ ok: true, root });
    expect(await fs.readdir(root)).not.toContain(`${dead}-attempt`);
    expect(await fs.readdir(root)).toContain(`${process.pid}-attempt`);
  });
});

describe('CheckCgroup', () => {
  it('when a check’s cgroup is made, then its limits are written in the kernel’s units, and its counters say which limit was hit', async () => {
    const cg = await CheckCgroup.create(root, 'attempt-1', { ...DEFAULT_CHECK_LIMITS, processes: 64, memoryMib: 256, cpus: 1.5 });
    const dir = path.join(root, `${process.pid}-attempt-1`);
    const read = (f: string) => fs.readFile(path.join(dir, f), 'utf8');
    expect(await read('pids.max')).toBe('64');
    expect(await read('memory.max')).toBe(String(256 * 1024 * 1024));
    expect(await read('memory.swap.max')).toBe('0');
    expect(await read('memory.oom.group')).toBe('1');
    expect(await read('cpu.max')).toBe('150000 100000');
    expect(cg.procs).toBe(path.join(dir, 'cgroup.procs'));

    expect(await cg.hit()).toBeNull();
    await fs.writeFile(path.join(dir, 'pids.events'), 'max 3\n');
    expect(await cg.hit()).toBe('processes');
    await fs.writeFile(path.join(dir, 'memory.events'), 'low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\noom_group_kill 1\n');
    expect(await cg.hit()).toBe('memory');
  });

  it('when no CPU cap is set, then cpu.max says max', async () => {
    await CheckCgroup.create(root, 'a', { ...DEFAULT_CHECK_LIMITS, cpus: 0 });
    expect(await fs.readFile(path.join(root, `${process.pid}-a`, 'cpu.max'), 'utf8')).toBe('max 100000');
  });
});
