/** Where the fake's API answers and where its (unserved) web pages would be, without a trailing slash. */
export interface Urls {
  api: string;
  html: string;
}

/** A GraphQL-style global id; clients must treat it as opaque, so any stable string does. */
export const nodeId = (kind: string, id: number | string): string => `${kind}_${Buffer.from(String(id)).toString('base64url')}`;
