import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from './config';
import { loadTokens, TOKEN_FILE } from './tokens';

const ADMIN = 'admin-secret-0123456789abcdef';
const READ = 'read-secret-0123456789abcdefgh';

let dir: string;
let warnings: string[];
const warn = (m: string): void => void warnings.push(m);
const announced: string[] = [];
const announce = (l: string): void => void announced.push(l);

const tokensFile = (content: string, mode = 0o600): string => {
  const file = path.join(dir, 'tokens');
  writeFileSync(file, content);
  chmodSync(file, mode);
  return file;
};

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'railyard-tokens-'));
  warnings = [];
  announced.length = 0;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('RAILYARD_API_TOKENS_FILE', () => {
  it('when the file (0600) lists tokens one per line with comments, then exactly those tokens are accepted and nothing is bootstrapped', () => {
    const file = tokensFile(`# ops tokens\nops:${ADMIN}:admin\n\ndashboard:${READ}:read\n`);
    const registry = loadTokens({ file }, path.join(dir, 'data'), announce, warn);
    expect(registry.size).toBe(2);
    expect(registry.identify(ADMIN)?.scope).toBe('admin');
    expect(registry.identify(READ)?.name).toBe('dashboard');
    expect(warnings).toEqual([]);
    expect(announced).toEqual([]);
  });

  it('when loadConfig reads the environment, then the path comes from RAILYARD_API_TOKENS_FILE and both variables at once are refused', () => {
    expect(loadConfig({ RAILYARD_API_TOKENS_FILE: 'secrets/tokens' }).apiTokensFile).toBe(path.resolve('secrets/tokens'));
    expect(() => loadConfig({ RAILYARD_API_TOKENS_FILE: '/run/secrets/tokens', RAILYARD_API_TOKENS: `ops:${ADMIN}:admin` })).toThrow(
      /both set/,
    );
  });

  it('when others can write the file, then it is refused, and when they can only read it, then it is used with a warning', () => {
    const writable = tokensFile(`ops:${ADMIN}:admin\n`, 0o622);
    expect(() => loadTokens({ file: writable }, dir, announce, warn)).toThrow(/can be written by others \(mode 0622\)/);
    const readable = tokensFile(`ops:${ADMIN}:admin\n`, 0o644);
    expect(loadTokens({ file: readable }, dir, announce, warn).size).toBe(1);
    expect(warnings).toEqual([expect.stringMatching(/can be read by others \(mode 0644\); chmod 600/)]);
  });

  it('when the path is missing, a directory, a FIFO, empty, or holds a bad entry, then it refuses to start and says why', () => {
    expect(() => loadTokens({ file: path.join(dir, 'absent') }, dir, announce, warn)).toThrow(/ENOENT/);
    mkdirSync(path.join(dir, 'a-dir'), { mode: 0o700 });
    expect(() => loadTokens({ file: path.join(dir, 'a-dir') }, dir, announce, warn)).toThrow(/not a regular file/);
    execFileSync('mkfifo', ['-m', '600', path.join(dir, 'fifo')]);
    expect(() => loadTokens({ file: path.join(dir, 'fifo') }, dir, announce, warn)).toThrow(/not a regular file/);
    expect(() => loadTokens({ file: tokensFile('# nothing\n\n') }, dir, announce, warn)).toThrow(/holds no token/);
    expect(() => loadTokens({ file: tokensFile('ops:short:admin\n') }, dir, announce, warn)).toThrow(/shorter than 16/);
  });

  it('when the file is a symlink to a 0600 file (how secret mounts look), then it is followed', () => {
    const target = tokensFile(`ops:${ADMIN}:admin\n`);
    symlinkSync(target, path.join(dir, 'link'));
    expect(loadTokens({ file: path.join(dir, 'link') }, dir, announce, warn).identify(ADMIN)?.name).toBe('ops');
  });

  it('when neither variable is set, then the bootstrap admin token in the data dir is still used', () => {
    const data = path.join(dir, 'data');
    const first = loadTokens({}, data, announce, warn);
    expect(first.size).toBe(1);
    expect(announced.join('')).toContain(path.join(data, TOKEN_FILE));
  });
});
