import type { UploadReportsInput } from '@railyard/ci';
import type { RegistrySnapshot } from '@railyard/observability';
import type { RailyardConfig } from '@railyard/runtime';
import type { AppendOutcome, AppendRequest } from './appends';

/** What the engine thread starts from: plain values, worked out once by the server (libs/runtime). */
export interface EngineThreadData {
  config: RailyardConfig;
  /** The embedded server's own address: CI log links and check-run details point at it. */
  selfUrl: string;
}

/** Server → engine thread. */
export type ToEngineThread =
  | { type: 'metrics'; id: number }
  | { type: 'reportsUploaded'; id: number; error?: string }
  | { type: 'appended'; id: number; outcome: AppendOutcome }
  | { type: 'stop' };

/** Engine thread → server. */
export type FromEngineThread =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  | { type: 'metrics'; id: number; snapshot: RegistrySnapshot }
  /** A finished check's test reports, for the API's test health (the server's own thread holds it). */
  | { type: 'uploadReports'; id: number; input: UploadReportsInput }
  /** An append for the server's thread to make on its connection (appends.ts). */
  | { type: 'append'; id: number; request: AppendRequest }
  | { type: 'stopped' };
