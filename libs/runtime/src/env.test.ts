import { readFileSync } from 'node:fs';
import path from 'node:path';
import { railyardEnvSchema } from './env';

describe('the environment schema', () => {
  it('when .env.example is read, then it lists every variable the schema parses', () => {
    const example = readFileSync(path.resolve(__dirname, '../../../.env.example'), 'utf8');
    const listed = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    expect(Object.keys(railyardEnvSchema.shape).filter((name) => !listed.has(name))).toEqual([]);
  });
});
