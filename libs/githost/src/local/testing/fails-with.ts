import { GitHostError, type GitHostErrorCode } from '../../errors';

/** Awaits a call that must be refused and checks it was refused as a GitHostError with `code`; returns the error. */
export const failsWith = async (promise: Promise<unknown>, code: GitHostErrorCode): Promise<GitHostError> => {
  const err: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GitHostError);
  expect((err as GitHostError).code).toBe(code);
  return err as GitHostError;
};
