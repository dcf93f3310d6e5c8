/**
 * Why a report was refused. Stable UPPER_SNAKE codes: the API maps them to a 400 (413 for
 * TOO_LARGE) and the CLI prints them, so never rename one.
 */
export type JUnitParseErrorCode = 'TOO_LARGE' | 'NOT_JUNIT' | 'MALFORMED' | 'TOO_DEEP' | 'TOO_MANY_CASES' | 'ENTITIES_NOT_ALLOWED';

export class JUnitParseError extends Error {
  constructor(
    readonly code: JUnitParseErrorCode,
    message: string,
    /** 1-based position of the problem in the XML text, when the validator knows it. */
    readonly position?: { line: number; column: number },
  ) {
    super(message);
    this.name = 'JUnitParseError';
  }
}
