import { generateKeyPairSync } from 'node:crypto';
import { DEFAULT_GITHUB_API_URL, parseGithubSettings } from './settings';

const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const SECRET = 'a-webhook-secret-of-some-length';
const env = (overrides: Record<string, string | undefined> = {}) => ({
  RAILYARD_GITHUB_APP_ID: '12345',
  RAILYARD_GITHUB_PRIVATE_KEY: PEM,
  RAILYARD_GITHUB_WEBHOOK_SECRET: SECRET,
  ...overrides,
});

describe('parseGithubSettings', () => {
  test('when no GitHub setting is present, then GitHub is not configured', () => {
    expect(parseGithubSettings({ PATH: '/bin' })).toBeNull();
  });

  test('when all settings are present, then they are parsed with the public API as default', () => {
    expect(parseGithubSettings(env())).toEqual({
      appId: 12345,
      privateKey: PEM.trim(),
      webhookSecret: SECRET,
      apiUrl: DEFAULT_GITHUB_API_URL,
      host: 'github.com',
    });
  });

  test('when the API URL points elsewhere, then it is kept without a trailing slash', () => {
    expect(parseGithubSettings(env({ RAILYARD_GITHUB_API_URL: 'https://ghe.example.com/api/v3/' }))?.apiUrl).toBe(
      'https://ghe.example.com/api/v3',
    );
    expect(() => parseGithubSettings(env({ RAILYARD_GITHUB_API_URL: 'ftp://example.com' }))).toThrow('RAILYARD_GITHUB_API_URL');
  });

  test('when the repositories carry another host name, then it comes from RAILYARD_GITHUB_HOST or the API URL', () => {
    expect(parseGithubSettings(env({ RAILYARD_GITHUB_API_URL: 'https://ghes.example.com/api/v3' }))?.host).toBe('ghes.example.com');
    expect(parseGithubSettings(env({ RAILYARD_GITHUB_API_URL: 'http://127.0.0.1:4000', RAILYARD_GITHUB_HOST: 'GitHub.com' }))?.host).toBe(
      'github.com',
    );
    expect(() => parseGithubSettings(env({ RAILYARD_GITHUB_HOST: 'not a host/' }))).toThrow(/RAILYARD_GITHUB_HOST/);
    expect(parseGithubSettings(env({ RAILYARD_GITHUB_WRITE_INTERVAL_MS: '50' }))?.writeIntervalMs).toBe(50);
    expect(() => parseGithubSettings(env({ RAILYARD_GITHUB_WRITE_INTERVAL_MS: 'fast' }))).toThrow(/WRITE_INTERVAL/);
  });

  test('when the key is given on one line with escaped newlines, then it is restored', () => {
    expect(parseGithubSettings(env({ RAILYARD_GITHUB_PRIVATE_KEY: PEM.replace(/\n/g, '\\n') }))?.privateKey).toBe(PEM.trim());
  });

  test('when the key is a file path, then the file is read', () => {
    const read: string[] = [];
    const settings = parseGithubSettings(env({ RAILYARD_GITHUB_PRIVATE_KEY: '/etc/railyard/app.pem' }), {
      readFile: (path) => {
        read.push(path);
        return PEM;
      },
    });
    expect(read).toEqual(['/etc/railyard/app.pem']);
    expect(settings?.privateKey).toBe(PEM.trim());
  });

  test('when the key file cannot be read or holds no key, then the error says so', () => {
    expect(() => parseGithubSettings(env({ RAILYARD_GITHUB_PRIVATE_KEY: '/nonexistent/app.pem' }))).toThrow(
      'neither a PEM key nor a readable file (ENOENT)',
    );
    expect(() =>
      parseGithubSettings(env({ RAILYARD_GITHUB_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----' })),
    ).toThrow('does not hold a valid private key');
  });

  test('when only some settings are present, then the missing ones are named', () => {
    expect(() => parseGithubSettings({ RAILYARD_GITHUB_APP_ID: '1' })).toThrow(
      'GitHub is partly configured: RAILYARD_GITHUB_PRIVATE_KEY, RAILYARD_GITHUB_WEBHOOK_SECRET missing',
    );
  });

  test('when the App id or secret is malformed, then the error names the setting', () => {
    expect(() => parseGithubSettings(env({ RAILYARD_GITHUB_APP_ID: 'abc' }))).toThrow('RAILYARD_GITHUB_APP_ID');
    expect(() => parseGithubSettings(env({ RAILYARD_GITHUB_WEBHOOK_SECRET: 'short' }))).toThrow('RAILYARD_GITHUB_WEBHOOK_SECRET');
  });
});
