import { randomUUID } from 'node:crypto';
import { QueueDriver } from '@railyard/queue-driver';
import { engineLog, engineWriter } from '../engine-commands';
import { FactsReader, type FactsReaderOptions } from '../facts';
import type { LocalBed } from './local-bed';

const quiet = { info: () => undefined, warn: () => undefined };

/**
 * A QueueDriver over the bed's local host and CI, wired as the engine wires it: the facts reader
 * hears of every status posted on a sha, and commands are recorded through the engine's writer at `now`.
 */
export const driverOn = (
  bed: LocalBed,
  now: () => Date = () => new Date(),
  factsOptions: FactsReaderOptions = {},
): { driver: QueueDriver; facts: FactsReader } => {
  const facts = new FactsReader(bed.host, bed.ci, undefined, factsOptions);
  bed.ci.onChange((repo, sha) => facts.onEvent({ kind: 'status', repo, sha }));
  const driver = new QueueDriver({
    log: engineLog(engineWriter(bed.store, now), bed.stream),
    facts,
    host: bed.host,
    ci: bed.ci,
    logger: quiet,
    now,
    newRunId: randomUUID,
  });
  return { driver, facts };
};
