import { ApiError } from '../http/errors';
import { checkUploadInput, MAX_UPLOAD_BYTES, type UploadInput } from './recorder';

const valid: UploadInput = {
  reporter: 'token:ci',
  repo: { host: 'git.test', owner: 'acme', name: 'w' },
  branch: 'feature/x',
  commitSha: 'a'.repeat(40),
  files: [{ name: 'junit.xml', bytes: Buffer.from('<testsuite/>') }],
};

const refusal = (input: Partial<UploadInput>): ApiError => {
  try {
    checkUploadInput({ ...valid, ...input });
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
};

describe('checkUploadInput', () => {
  it('when everything is well formed, then it passes', () => {
    expect(() => checkUploadInput({ ...valid, prNumber: 3, ciJob: 'unit (linux)', variant: 'linux' })).not.toThrow();
  });

  it.each([
    [{ commitSha: 'abc123' }, 'sha'],
    [{ commitSha: 'A'.repeat(40) }, 'sha'],
    [{ branch: 'a..b' }, 'branch'],
    [{ branch: '-x' }, 'branch'],
    [{ prNumber: 0 }, 'prNumber'],
    [{ ciJob: 'x\ny' }, 'job'],
    [{ variant: 'v'.repeat(256) }, 'variant'],
    [{ files: [] }, 'files'],
    [{ files: [{ name: '', bytes: Buffer.alloc(1) }] }, 'file name'],
    [{ files: Array.from({ length: 101 }, () => ({ name: 'f', bytes: Buffer.alloc(1) })) }, 'at most 100'],
  ])('when %j, then 400 naming %s', (input, word) => {
    const err = refusal(input);
    expect(err).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(err.message).toContain(word);
  });

  it('when the files add up past 20 MiB, then 413', () => {
    const half = Buffer.alloc(MAX_UPLOAD_BYTES / 2 + 1);
    expect(
      refusal({
        files: [
          { name: 'a', bytes: half },
          { name: 'b', bytes: half },
        ],
      }),
    ).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });
});
