import { testIdOf } from './test-id';
import { uuidV5, uuidVersion } from './uuid-v5';

describe('uuidV5', () => {
  it('when hashing the RFC 4122 example name in the DNS namespace, then it yields the well-known v5 UUID', () => {
    // given the DNS namespace and "www.example.com"
    // when
    const id = uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8');
    // then
    expect(id).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    expect(uuidVersion(id)).toBe(5);
  });
});

describe('testIdOf', () => {
  const example = {
    orgSlug: 'example_org',
    repoFullName: 'example_repo',
    file: 'src/lib.rs',
    classname: 'ExampleClass',
    parent: 'parent/fact/path',
    name: 'example_name',
  };

  it('when given the fields of Trunk staging test, then it reproduces the id Trunk shows for it', () => {
    // given a test without file whose classname and parent are the test file path
    const path = 'modules/settings/repoName/__tests__/ticketing-integration.vitest.tsx';
    // when
    const id = testIdOf({
      orgSlug: 'trunk-staging-org',
      repoFullName: 'github.com/trunk-io/trunk',
      classname: path,
      parent: path,
      name: 'Ticketing Integration > should allow you to select a ticketing system',
    });
    // then
    expect(id).toBe('3f507aef-e834-523b-a8ad-edaba6b137be');
  });

  it('when there is no variant, then the id is the single hash of the joined key', () => {
    expect(testIdOf(example)).toBe('06cb6db5-f807-5198-b072-af67a0636f8a');
  });

  it('when a variant is given, then the id is re-hashed with the variant', () => {
    expect(testIdOf({ ...example, variant: 'unix' })).toBe('1bf61475-b542-5faf-aa85-e66a691257a3');
  });

  it('when the report carries a v5 id, then it is used as is', () => {
    const explicitId = 'a6e84936-3ee9-57d5-b041-ae124896f654';
    expect(testIdOf({ ...example, explicitId })).toBe(explicitId);
  });

  it('when the report carries a v5 id and a variant is given, then the id is hashed with the variant', () => {
    const explicitId = 'a6e84936-3ee9-57d5-b041-ae124896f654';
    expect(testIdOf({ ...example, explicitId, variant: 'unix' })).toBe('8057218b-95e4-5373-afbe-c366d4058615');
  });

  it('when the report id starts with "trunk:", then only org, repo, id and variant are hashed', () => {
    expect(testIdOf({ ...example, explicitId: 'trunk:12345', variant: 'unix' })).toBe('4392f63c-8dc9-5cec-bbdc-e7b90c2e5a6b');
  });

  it('when the report carries a non-v5 id with a variant, then the id falls back to the single hash of the key', () => {
    const explicitId = '08e1c642-3a55-45cf-8bf9-b9d0b21785dd';
    expect(testIdOf({ ...example, explicitId, variant: 'unix' })).toBe('c869cb93-66e2-516d-a0ea-15ff4b413c3f');
  });

  it('when the report id is empty, then it is ignored', () => {
    expect(testIdOf({ ...example, explicitId: '', variant: 'unix' })).toBe('1bf61475-b542-5faf-aa85-e66a691257a3');
  });

  it('when the file differs, then the id differs', () => {
    expect(testIdOf({ ...example, file: 'src/other.rs' })).not.toBe(testIdOf(example));
  });
});
