import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTempDir, removeTempDir } from '@railyard/testkit';
import { provideLog, readySettingsFromEnv, seededLogOf } from './seed-cache';

describe('seeded logs of scale ready', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir('railyard-seed-cache-');
  });
  afterEach(async () => {
    await removeTempDir(dir);
  });

  const seeder = () => {
    const seeded: string[] = [];
    const seedInto = async (file: string): Promise<void> => {
      seeded.push(file);
      writeFileSync(file, `log ${seeded.length}`);
    };
    return { seeded, seedInto };
  };

  it('when no seed directory is given, then the log is seeded where the run wants it', async () => {
    const { seeded, seedInto } = seeder();
    const target = path.join(dir, 'events.sqlite');

    expect(await provideLog(target, 100, undefined, seedInto)).toBe(true);

    expect(seeded).toEqual([target]);
    expect(readFileSync(target, 'utf8')).toBe('log 1');
  });

  it('when the seed directory already holds the size, then it is copied and not seeded again', async () => {
    const { seeded, seedInto } = seeder();
    await provideLog(path.join(dir, 'a.sqlite'), 100, dir, seedInto);

    expect(await provideLog(path.join(dir, 'b.sqlite'), 100, dir, seedInto)).toBe(false);

    expect(seeded).toEqual([`${seededLogOf(dir, 100)}.partial`]);
    expect(readFileSync(path.join(dir, 'b.sqlite'), 'utf8')).toBe('log 1');
    expect(readFileSync(seededLogOf(dir, 100), 'utf8')).toBe('log 1');
  });

  it('when only a partial seed of the size is left, then it is seeded again from scratch', async () => {
    writeFileSync(`${seededLogOf(dir, 100)}.partial`, 'interrupted');
    writeFileSync(`${seededLogOf(dir, 100)}.partial-wal`, 'interrupted');
    const { seeded, seedInto } = seeder();

    expect(await provideLog(path.join(dir, 'a.sqlite'), 100, dir, seedInto)).toBe(true);

    expect(seeded).toHaveLength(1);
    expect(readFileSync(path.join(dir, 'a.sqlite'), 'utf8')).toBe('log 1');
    expect(existsSync(`${seededLogOf(dir, 100)}.partial`)).toBe(false);
  });

  it('when the seed leaves a write-ahead log behind, then it is not kept as a whole log', async () => {
    const seedInto = async (file: string): Promise<void> => {
      writeFileSync(file, 'main');
      writeFileSync(`${file}-wal`, 'frames');
    };

    await expect(provideLog(path.join(dir, 'a.sqlite'), 100, dir, seedInto)).rejects.toThrow(/not closed cleanly/);
    expect(existsSync(seededLogOf(dir, 100))).toBe(false);
  });

  it('when nothing is set, then no seed directory is kept and every size replays', () => {
    expect(readySettingsFromEnv({})).toEqual({ replayMaxEvents: Number.MAX_SAFE_INTEGER, timeoutMs: 1_800_000 });
  });

  it('when the knobs are set, then they are read and a bad number is refused', () => {
    expect(readySettingsFromEnv({ BENCH_SCALE_SEED_DIR: '/x/seeds', BENCH_SCALE_REPLAY_MAX_EVENTS: '1000000' })).toMatchObject({
      seedDir: '/x/seeds',
      replayMaxEvents: 1_000_000,
    });
    expect(() => readySettingsFromEnv({ BENCH_SCALE_REPLAY_MAX_EVENTS: '1e6x' })).toThrow(/positive integer/);
  });
});
