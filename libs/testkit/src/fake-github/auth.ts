import { randomInt } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { GithubHttpError } from './errors';
import type { FakeApp, FakeInstallation } from './model';
import type { FakeState } from './state';

/** GitHub App authentication as GitHub checks it: RS256 App JWTs, then one-hour installation tokens. */

/** GitHub refuses App JWTs that expire more than ten minutes after they are presented. */
export const MAX_JWT_LIFETIME_SECONDS = 600;
/** Clock drift GitHub tolerates on `iat` and `exp`. */
const CLOCK_TOLERANCE_SECONDS = 60;
export const TOKEN_LIFETIME_MS = 60 * 60 * 1000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export type Caller = { kind: 'app'; app: FakeApp } | { kind: 'installation'; app: FakeApp; installation: FakeInstallation };

const unauthorized = (message: string): GithubHttpError => new GithubHttpError(401, message);

const credentialOf = (header: string | undefined): string | null => {
  const match = /^(?:bearer|token)\s+(\S+)$/i.exec(header ?? '');
  return match ? (match[1] as string) : null;
};

/** The App whose private key signed this JWT, after GitHub's checks on its claims. */
export const verifyAppJwt = (state: FakeState, header: string | undefined): FakeApp => {
  const token = credentialOf(header);
  const decoded = token === null ? null : jwt.decode(token, { json: true });
  if (token === null || decoded === null) throw unauthorized('A JSON web token could not be decoded');
  const app = [...state.apps.values()].find((a) => String(a.id) === String(decoded.iss));
  if (!app?.publicKey) throw unauthorized('A JSON web token could not be decoded');
  const now = Math.floor(state.now().getTime() / 1000);
  if (typeof decoded.iat !== 'number' || decoded.iat > now + CLOCK_TOLERANCE_SECONDS)
    throw unauthorized("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued");
  if (typeof decoded.exp !== 'number' || decoded.exp <= now - CLOCK_TOLERANCE_SECONDS)
    throw unauthorized(
      "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires",
    );
  if (decoded.exp > now + MAX_JWT_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS)
    throw unauthorized("'Expiration time' claim ('exp') is too far in the future");
  try {
    jwt.verify(token, app.publicKey, { algorithms: ['RS256'], clockTimestamp: now, clockTolerance: CLOCK_TOLERANCE_SECONDS });
  } catch {
    throw unauthorized('A JSON web token could not be decoded');
  }
  return app;
};

/** A new installation token: `ghs_` and more random characters than the 40 older clients assumed. */
export const mintToken = (state: FakeState, installation: FakeInstallation): { token: string; expiresAt: number } => {
  let token = 'ghs_';
  for (let i = 0; i < 52; i++) token += BASE62[randomInt(BASE62.length)];
  const expiresAt = state.now().getTime() + TOKEN_LIFETIME_MS;
  state.tokens.set(token, { token, installationId: installation.id, expiresAt });
  return { token, expiresAt };
};

/** The installation an `Authorization: token …` header speaks for, if the token is known and unexpired. */
export const verifyInstallationToken = (state: FakeState, header: string | undefined): Caller & { kind: 'installation' } => {
  const token = credentialOf(header);
  const record = token === null ? undefined : state.tokens.get(token);
  if (!record || record.expiresAt <= state.now().getTime()) throw unauthorized('Bad credentials');
  const installation = state.installations.get(record.installationId);
  if (!installation) throw unauthorized('Bad credentials');
  return { kind: 'installation', app: state.app(installation.appId), installation };
};
