import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OPERATIONS } from './operations';
import { trunkOperationAt } from './trunk/contract';

/** docs/api.md, "Every v1 endpoint and where its shape comes from": its rows as `METHOD path` → shape. */
const documented = (): Map<string, string> => {
  const text = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'api.md'), 'utf8');
  const section = text.slice(text.indexOf('## Every v1 endpoint'), text.indexOf("## Trunk's contract"));
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `(GET|POST) (\/v1\/[^`]+)` \| [^|]+ \| ([^|]+) \|$/gm))
    rows.set(`${match[1]} ${match[2]}`, (match[3] as string).trim());
  return rows;
};

describe('docs/api.md lists every v1 endpoint', () => {
  it('when the operation table and the docs are compared, then each v1 operation has one row, and the ones marked Trunk are those in Trunk’s document', () => {
    const rows = documented();
    const v1 = OPERATIONS.filter((op) => op.path.startsWith('/v1/'));
    expect([...rows.keys()].sort()).toEqual(v1.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort());
    for (const op of v1) {
      const shape = rows.get(`${op.method.toUpperCase()} ${op.path}`) ?? '';
      expect([op.path, shape.startsWith('Trunk')]).toEqual([op.path, trunkOperationAt(op.method, op.path) !== undefined]);
    }
  });
});
