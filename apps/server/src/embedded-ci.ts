import { createLocalCi, type LocalCi, type UploadReportsInput } from '@railyard/ci';
import type { BlobStore, EventStore } from '@railyard/eventstore';
import type { CommitStatusStore } from '@railyard/githost';
import type { Logger } from '@railyard/observability';
import type { RailyardConfig } from '@railyard/runtime';

/** The local CI the embedded server's engine triggers and listens to. */
export const embeddedLocalCi = async (
  config: RailyardConfig,
  eventStore: EventStore,
  blobs: BlobStore,
  selfUrl: string,
  logger: Logger,
  uploadReports: (input: UploadReportsInput) => Promise<void>,
): Promise<{ ci: LocalCi; statuses: CommitStatusStore }> => {
  // Statuses as events in the event store, checks run as child processes; the engine listens to both.
  const ci = await createLocalCi({
    settings: { ...config.ci, dataDir: config.dataDir, gitRoot: config.gitRoot },
    eventStore,
    publicUrl: () => selfUrl,
    logger,
    // As the standalone engine does: an API replica beside this server may run on another machine.
    logArchive: blobs,
    uploadReports,
  });
  return { ci, statuses: ci.statusStore };
};
