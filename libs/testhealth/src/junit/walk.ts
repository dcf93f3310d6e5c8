import { attemptsOfCase } from './attempts';
import { JUnitParseError } from './errors';
import type { JUnitLimits } from './limits';
import { attrOf, childrenOf, propertiesOf, textOf } from './nodes';
import { normalizePath, secondsToMs, truncate } from './text';
import type { ParseJUnitOptions, SuiteFailure, TestCaseResult } from './types';
import type { XmlNode } from './xml';

interface SuiteScope {
  name: string;
  file?: string;
  variant?: string;
  timestamp?: string;
}

export interface WalkResult {
  /** One result per <testcase> element, in document order, duplicates not merged yet. */
  elements: TestCaseResult[];
  suiteFailures: SuiteFailure[];
  truncatedFields: number;
}

class Walker {
  readonly elements: TestCaseResult[] = [];
  readonly suiteFailures: SuiteFailure[] = [];
  truncatedFields = 0;

  constructor(
    private readonly limits: JUnitLimits,
    private readonly opts: ParseJUnitOptions,
  ) {}

  private field(value: string): string {
    const { text, truncated } = truncate(value, this.limits.maxFieldLength);
    if (truncated) this.truncatedFields += 1;
    return text;
  }

  container(node: XmlNode, scope: SuiteScope | undefined): void {
    // Merged reports nest whole <testsuites> documents inside one another.
    for (const group of childrenOf(node, 'testsuites')) this.container(group, scope);
    for (const suite of childrenOf(node, 'testsuite')) this.suite(suite, scope);
    for (const testcase of childrenOf(node, 'testcase')) this.testcase(testcase, scope);
  }

  private suite(node: XmlNode, outer: SuiteScope | undefined): void {
    const props = propertiesOf(node);
    const scope: SuiteScope = {
      name: attrOf(node, 'name') ?? '',
      file: attrOf(node, 'file') ?? attrOf(node, 'filepath') ?? outer?.file,
      variant: props.get('variant') ?? outer?.variant,
      timestamp: attrOf(node, 'timestamp') ?? outer?.timestamp,
    };
    for (const [tag, kind] of [
      ['failure', 'failure'],
      ['error', 'error'],
    ] as const) {
      for (const f of childrenOf(node, tag)) {
        const message = truncate(attrOf(f, 'message')?.trim() || textOf(f), this.limits.maxMessageLength).text;
        this.suiteFailures.push({ parent: this.field(scope.name), kind, message });
      }
    }
    this.container(node, scope);
  }

  private testcase(node: XmlNode, scope: SuiteScope | undefined): void {
    if (this.elements.length >= this.limits.maxCases) {
      throw new JUnitParseError('TOO_MANY_CASES', `report holds more than ${this.limits.maxCases} test cases`);
    }
    const props = propertiesOf(node);
    const rawFile = attrOf(node, 'file') ?? attrOf(node, 'filepath') ?? props.get('file') ?? props.get('filepath') ?? scope?.file ?? '';
    const line = Number.parseInt(attrOf(node, 'line') ?? props.get('line') ?? '', 10);
    const explicitId = attrOf(node, 'id');
    const startedAt = attrOf(node, 'timestamp') ?? scope?.timestamp;
    const summary = attemptsOfCase(node, this.limits.maxMessageLength);
    const result: TestCaseResult = {
      name: this.field(attrOf(node, 'name') ?? ''),
      classname: this.field(attrOf(node, 'classname') ?? attrOf(node, 'class') ?? ''),
      file: this.field(normalizePath(rawFile, { repoRoot: this.opts.repoRoot, prefix: this.opts.filePathPrefix })),
      parent: this.field(scope?.name ?? ''),
      variant: this.field(props.get('variant') ?? scope?.variant ?? this.opts.variant ?? ''),
      status: summary.status,
      durationMs: secondsToMs(attrOf(node, 'time') ?? attrOf(node, 'duration')),
      attempts: summary.attempts,
      failedAttempts: summary.failedAttempts,
    };
    if (summary.lastFailure) {
      result.failureKind = summary.lastFailure.kind;
      result.failureMessage = summary.lastFailure.message;
    }
    if (Number.isInteger(line) && line > 0) result.line = line;
    if (explicitId) result.explicitId = explicitId;
    if (startedAt) result.startedAt = startedAt;
    this.elements.push(result);
  }
}

/** Collects every testcase under the document's <testsuites> or <testsuite> root, however deeply suites nest. */
export function walkReport(document: XmlNode, limits: JUnitLimits, opts: ParseJUnitOptions): WalkResult {
  const walker = new Walker(limits, opts);
  walker.container(document, undefined);
  return { elements: walker.elements, suiteFailures: walker.suiteFailures, truncatedFields: walker.truncatedFields };
}
