import { loadConfig } from './config';
import { missingApiSecrets, requireApiSecrets } from './secrets';

const configOf = (env: Record<string, string>) => loadConfig({ RAILYARD_DATA_DIR: '/tmp/railyard-secrets-test', ...env });
const PAGE = { RAILYARD_PAGE_TOKEN_SECRET: 'a-page-token-secret-0123' };

describe('the secrets a standalone API needs', () => {
  it('when neither tokens nor the page-token secret are set, then both are named', () => {
    expect(missingApiSecrets(configOf({}))).toEqual(['RAILYARD_API_TOKENS or RAILYARD_API_TOKENS_FILE', 'RAILYARD_PAGE_TOKEN_SECRET']);
  });

  it('when only the tokens are set, then the page-token secret is still missing, since sessions and page tokens need it on every replica', () => {
    expect(missingApiSecrets(configOf({ RAILYARD_API_TOKENS: 'ci:0123456789abcdef:write' }))).toEqual(['RAILYARD_PAGE_TOKEN_SECRET']);
  });

  it('when the tokens come from a file and the page-token secret is set, then nothing is missing', () => {
    expect(missingApiSecrets(configOf({ RAILYARD_API_TOKENS_FILE: '/run/secrets/tokens', ...PAGE }))).toEqual([]);
    expect(() => requireApiSecrets(configOf({ RAILYARD_API_TOKENS: 'ci:0123456789abcdef:write', ...PAGE }))).not.toThrow();
  });

  it('when the operator opts into data-dir secrets, then nothing is required', () => {
    expect(missingApiSecrets(configOf({ RAILYARD_SECRETS_FROM_DATA_DIR: 'on' }))).toEqual([]);
  });

  it('when something is missing, then the error names every variable and the opt-in', () => {
    expect(() => requireApiSecrets(configOf({}))).toThrow(
      /RAILYARD_API_TOKENS or RAILYARD_API_TOKENS_FILE and RAILYARD_PAGE_TOKEN_SECRET.*RAILYARD_SECRETS_FROM_DATA_DIR=on/,
    );
  });

  it('when the opt-in has a value other than on or off, then loading the configuration fails naming it', () => {
    expect(() => configOf({ RAILYARD_SECRETS_FROM_DATA_DIR: 'yes' })).toThrow(/RAILYARD_SECRETS_FROM_DATA_DIR/);
  });
});
