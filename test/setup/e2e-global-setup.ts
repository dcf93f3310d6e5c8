import { buildIfStale } from './compiled-build';
import needRedis from './global-setup';

/** The e2e tier needs what the integration tier needs, and runs its processes from the production build. */
export default async function e2eGlobalSetup(): Promise<void> {
  await needRedis();
  buildIfStale();
}
