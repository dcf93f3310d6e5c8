export * from './comment-command';
export * from './webhook-digest';
export * from './delivery-log';
export * from './hint-feed';
