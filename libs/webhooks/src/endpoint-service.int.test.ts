import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '@railyard/eventstore';
import { EndpointService } from './endpoint-service';
import { ENDPOINTS_STREAM } from './endpoints';
import { SecretBox } from './secret-box';
import { newSigningSecret } from './signing';

const META = { actor: 'test', correlationId: 'c' };
const SETTINGS = { url: 'https://hooks.example.com/x', description: '', events: [], repos: [], targetBranches: [] };

describe('EndpointService with sealed secrets', () => {
  let dir: string;
  let events: SqliteEventStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'endpoints-'));
    events = new SqliteEventStore({ file: join(dir, 'events.sqlite') });
  });
  afterEach(async () => {
    await events.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = (service: EndpointService, endpointId: string, secret: string) =>
    service.execute({ type: 'create', endpointId, kind: 'webhook', settings: SETTINGS, secret, startAfter: null }, META);
  const logText = async (): Promise<string> => JSON.stringify((await events.readStream(ENDPOINTS_STREAM)).map((e) => e.data));

  it('when a key is set, then the log never holds the secret and the service answers it opened', async () => {
    const service = new EndpointService(events, undefined, new SecretBox([{ id: 'k1', key: randomBytes(32) }]));
    const secret = newSigningSecret();
    expect((await create(service, 'ep1', secret))?.secret).toBe(secret);
    const rotated = newSigningSecret();
    await service.execute({ type: 'rotate', endpointId: 'ep1', secret: rotated }, META);
    expect(await logText()).not.toContain(secret.slice(6));
    expect(await logText()).not.toContain(rotated.slice(6));
    expect((await service.get('ep1'))?.secret).toBe(rotated);
    expect((await service.list()).map((e) => e.secret)).toEqual([rotated]);
  });

  it('when secrets were stored in clear or under an older key, then reseal moves them to the first key without changing them', async () => {
    const clear = newSigningSecret();
    await create(new EndpointService(events), 'clear', clear);
    const old = { id: 'old', key: randomBytes(32) };
    const underOld = newSigningSecret();
    await create(new EndpointService(events, undefined, new SecretBox([old])), 'sealed', underOld);

    const next = { id: 'new', key: randomBytes(32) };
    const both = new EndpointService(events, undefined, new SecretBox([next, old]));
    expect(await both.reseal(META)).toBe(2);
    expect(await both.reseal(META)).toBe(0);
    const rotations = (await events.readStream(ENDPOINTS_STREAM)).filter((e) => e.type === 'WebhookEndpointSecretRotated');
    expect(
      rotations.map((e) => [(e.data as { endpointId: string }).endpointId, (e.data as { secret: string }).secret.slice(0, 14)]),
    ).toEqual([
      ['clear', 'sealed:v1:new:'],
      ['sealed', 'sealed:v1:new:'],
    ]);
    expect(rotations.map((e) => (e.data as { resealed?: boolean }).resealed)).toEqual([true, true]);

    // The old key can go: every current secret opens with the new one alone, as it was.
    const onlyNew = new EndpointService(events, undefined, new SecretBox([next]));
    const secrets = Object.fromEntries((await onlyNew.list()).map((e) => [e.endpointId, e.secret]));
    expect(secrets).toEqual({ clear, sealed: underOld });
  });
});
