import { schemaValidator } from './schema-validator';
import examples from './schemas/webhook-examples.json';

// The validator is what makes the fake trustworthy: these show it refuses what GitHub would never send.

jest.setTimeout(30_000);

const validator = schemaValidator();

const gitRef = {
  ref: 'refs/heads/main',
  node_id: 'REF_1',
  url: 'https://api.github.test/repos/a/b/git/refs/heads/main',
  object: { type: 'commit', sha: 'a'.repeat(40), url: 'https://api.github.test/x' },
};

describe('SchemaValidator', () => {
  test('when an answer has every field its schema asks for, then it is valid', () => {
    expect(validator.validateResponse('git/get-ref', 200, gitRef)).toEqual([]);
  });

  test('when an answer lacks a required field, then the violation names it', () => {
    const { node_id: _dropped, ...partial } = gitRef;
    expect(validator.validateResponse('git/get-ref', 200, partial)).toEqual([
      expect.stringContaining("must have required property 'node_id'"),
    ]);
  });

  test('when a nullable field holds null, then it is valid, and when it holds the wrong type, then it is not', () => {
    const status = {
      url: 'https://api.github.test/s',
      avatar_url: null,
      id: 1,
      node_id: 'SC_1',
      state: 'success',
      description: null,
      target_url: null,
      context: 'test',
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      creator: null,
    };
    expect(validator.validateResponse('repos/create-commit-status', 201, status)).toEqual([]);
    expect(validator.validateResponse('repos/create-commit-status', 201, { ...status, description: 7 })).not.toEqual([]);
  });

  test('when a success status is not one the operation documents, then that is a violation', () => {
    expect(validator.validateResponse('git/update-ref', 201, gitRef)).toEqual(['201 is not a documented response of git/update-ref']);
  });

  test('when an undocumented error comes back, then it must have the shape of GitHub errors', () => {
    expect(
      validator.validateResponse('checks/create', 403, {
        message: 'You have exceeded a secondary rate limit.',
        documentation_url: 'https://docs.github.com/rest',
      }),
    ).toEqual([]);
    expect(validator.validateResponse('checks/create', 502, { message: 7 })).not.toEqual([]);
  });

  test('when a documented status has no body, then a body is a violation', () => {
    expect(validator.validateResponse('git/delete-ref', 204, undefined)).toEqual([]);
    expect(validator.validateResponse('git/delete-ref', 204, {})).toEqual(['204 must have no body']);
  });

  test('when a request body breaks the operation schema, then it is refused', () => {
    expect(validator.validateRequest('git/update-ref', { sha: 'a'.repeat(40), force: false })).toEqual([]);
    expect(validator.validateRequest('git/update-ref', { force: false })).toEqual([
      expect.stringContaining("must have required property 'sha'"),
    ]);
  });

  test('when a webhook payload misses what its event requires, then it is refused', () => {
    const push = structuredClone(examples.examples.push) as Record<string, unknown>;
    delete push.pusher;
    expect(validator.validateWebhook('push', null, push)).toEqual(
      expect.arrayContaining([expect.stringContaining("must have required property 'pusher'")]),
    );
  });

  test('when an installation list holds a user account, then it is valid despite the description spelling allOf', () => {
    const user = {
      login: 'acme',
      id: 1,
      node_id: 'U_1',
      avatar_url: 'https://github.test/a',
      gravatar_id: '',
      url: 'https://api.github.test/users/acme',
      html_url: 'https://github.test/acme',
      followers_url: 'https://api.github.test/f',
      following_url: 'x',
      gists_url: 'x',
      starred_url: 'x',
      subscriptions_url: 'https://api.github.test/s',
      organizations_url: 'https://api.github.test/o',
      repos_url: 'https://api.github.test/r',
      events_url: 'x',
      received_events_url: 'https://api.github.test/e',
      type: 'User',
      site_admin: false,
    };
    const installation = {
      id: 1,
      account: user,
      repository_selection: 'all',
      access_tokens_url: 'https://api.github.test/t',
      repositories_url: 'https://api.github.test/r',
      html_url: 'https://github.test/i',
      app_id: 1,
      app_slug: 'railyard',
      target_id: 1,
      target_type: 'User',
      permissions: {},
      events: [],
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
      single_file_name: null,
      suspended_by: null,
      suspended_at: null,
    };
    expect(validator.validateResponse('apps/get-installation', 200, installation)).toEqual([]);
    expect(validator.validateResponse('apps/list-installations', 200, [installation])).toEqual([]);
  });
});
