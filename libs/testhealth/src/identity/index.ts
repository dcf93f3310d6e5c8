export { testIdOf, type TestIdentity } from './test-id';
export { uuidV5, uuidVersion, isUuid, NAMESPACE_URL } from './uuid-v5';
export { repositoryHtmlUrl, testHtmlUrl } from './html-urls';
