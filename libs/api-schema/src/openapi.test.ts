import { openApiDocument, operations } from './openapi';

type Doc = {
  paths: Record<
    string,
    {
      post: { requestBody: { content: { 'application/json': { schema: { required?: string[]; properties?: Record<string, unknown> } } } } };
    }
  >;
};

describe('openApiDocument', () => {
  const doc = openApiDocument() as unknown as Doc;
  const schemaOf = (path: string) => doc.paths[path]!.post.requestBody.content['application/json'].schema;

  it('when generated, then every operation is there with its request schema', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(operations.map((o) => o.path).sort());
  });

  it("when a schema is generated, then the spec's required fields are required", () => {
    expect(schemaOf('/getSubmittedPullRequest').required).toEqual(expect.arrayContaining(['repo', 'targetBranch', 'pr']));
    expect(schemaOf('/setImpactedTargets').required).toEqual(expect.arrayContaining(['repo', 'targetBranch', 'pr', 'impactedTargets']));
    expect(Object.keys(schemaOf('/updateQueue').properties ?? {})).toEqual(
      expect.arrayContaining([
        'concurrency',
        'bisectionConcurrency',
        'mergeMethod',
        'requiredStatuses',
        'deleteRequiredStatuses',
        'state',
        'mode',
      ]),
    );
  });
});
