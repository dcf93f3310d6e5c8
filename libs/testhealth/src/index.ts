// Pure core of test health: no I/O, no clock, no globals. Projections and HTTP live elsewhere.
export * from './junit';
export * from './identity';
export * from './classify';
export * from './quarantine';
export * from './codeowners';
export * from './paging';
export * from './events';
export * from './records';
export * from './evaluate';
export * from './repo-facts';
