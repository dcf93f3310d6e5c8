import { parsePackedRefs } from './refs';

describe('parsePackedRefs', () => {
  it('when the file has a header, refs and peeled tag lines, then each ref maps to its own object id', () => {
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    const c = 'c'.repeat(40);
    const text = `# pack-refs with: peeled fully-peeled sorted \n${a} refs/heads/main\n${b} refs/tags/v1\n^${c}\n${c} refs/pull/1/head\n`;

    expect(parsePackedRefs(text)).toEqual(
      new Map([
        ['refs/heads/main', a],
        ['refs/tags/v1', b],
        ['refs/pull/1/head', c],
      ]),
    );
  });
});
