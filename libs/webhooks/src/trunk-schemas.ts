import schemas from './trunk-webhooks.json';
import type { TrunkEventType } from './messages';

/**
 * Trunk's published payload schemas (trunk-webhooks.json, copied by scripts/extract-trunk-webhooks.ts).
 * The mapping reads its reason enums from here, so a reason Trunk's schema would refuse is never sent
 * in Trunk's field (it goes in `railyard_reason` instead).
 */
type Schema = { properties?: Record<string, { enum?: string[] }> } & Record<string, unknown>;

export const TRUNK_WEBHOOKS_COMMIT: string = schemas.source.commit;

export const trunkSchemaOf = (type: TrunkEventType): Record<string, unknown> => (schemas.events as Record<string, Schema>)[type] as Schema;

/** The values Trunk's schema of `type` allows in `field`. */
export const trunkEnum = (type: TrunkEventType, field: string): ReadonlySet<string> =>
  new Set((trunkSchemaOf(type) as Schema).properties?.[field]?.enum ?? []);
