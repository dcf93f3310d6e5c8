import { dispatch, type BenchmarkRegistry } from './dispatch';

const capture = () => {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l) } };
};

describe('benchmark dispatcher', () => {
  const registry: BenchmarkRegistry = {
    streamed: async () => ({
      run: async function* (args: string[]) {
        yield { name: 'a', args };
        yield { name: 'b' };
      },
    }),
    collected: async () => ({ run: async () => [{ name: 'c' }] }),
  };

  it('when a benchmark streams results, then each becomes one JSON line and its arguments are passed on', async () => {
    const { out, io } = capture();

    const code = await dispatch(registry, ['streamed', 'x'], io);

    expect(code).toBe(0);
    expect(out).toEqual(['{"name":"a","args":["x"]}\n', '{"name":"b"}\n']);
  });

  it('when a benchmark answers a list, then each item becomes one JSON line', async () => {
    const { out, io } = capture();

    await dispatch(registry, ['collected'], io);

    expect(out).toEqual(['{"name":"c"}\n']);
  });

  it('when the name is unknown or missing, then it prints the known names and exits with 2', async () => {
    const { out, err, io } = capture();

    expect(await dispatch(registry, ['nope'], io)).toBe(2);
    expect(await dispatch(registry, [], io)).toBe(2);
    expect(out).toEqual([]);
    expect(err.join('')).toContain('benchmarks: collected, streamed');
  });
});
