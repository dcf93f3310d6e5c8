import type { TestHealthReadModels } from '@railyard/readmodels';
import type { TokenRegistry } from '@railyard/auth';
import type { TestHealthConfig } from './config';
import type { TestEvaluator } from './evaluator';
import type { EvidenceReporters } from './evidence-reporters';
import type { UploadRecorder } from './recorder';
import type { RepoFacts } from '@railyard/testhealth';
import type { Clock, TestHealthWriter } from './writer';

/** What the test-health routes share; built once by createTestHealth. */
export interface TestHealthContext {
  config: TestHealthConfig;
  tokens: TokenRegistry;
  store: TestHealthReadModels;
  facts: RepoFacts;
  recorder: UploadRecorder;
  evaluator: TestEvaluator;
  evidenceReporters: EvidenceReporters;
  writer: TestHealthWriter;
  clock: Clock;
  /** Base of html_url fields: RAILYARD_PUBLIC_URL, else the server's own address once it listens. */
  baseUrl: () => string;
}
