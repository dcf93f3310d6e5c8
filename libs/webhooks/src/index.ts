export * from './event-types';
export * from './messages';
export * from './mapping';
export { TRUNK_WEBHOOKS_COMMIT, trunkSchemaOf } from './trunk-schemas';
