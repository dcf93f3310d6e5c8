import type { RepoRef } from '@railyard/domain';
import type { WebhookEventType } from './event-types';

/**
 * Webhook endpoints are event-sourced like the queues: every change is an event of one stream,
 * `webhook-endpoints`, and the list is its fold. `decideEndpoints` is the one place their rules live.
 */
export const ENDPOINTS_STREAM = 'webhook-endpoints';

export type EndpointKind = 'webhook' | 'slack';
export type DisabledReason = 'ADMIN_REQUESTED' | 'DELIVERY_FAILED';

export interface EndpointFilter {
  /** Event types it receives; empty: every type (for `slack`, every type it has a message for). */
  events: WebhookEventType[];
  /** Repositories it hears of; empty: all. */
  repos: RepoRef[];
  /** Queue branches it hears of; empty: all. */
  targetBranches: string[];
}

export interface EndpointSettings extends EndpointFilter {
  url: string;
  description: string;
}

interface Ev<T extends string, D> {
  type: T;
  data: D & { endpointId: string; at: string };
}

/**
 * `secret`: the Standard Webhooks signing secret (`whsec_` + base64), kept in the log so every
 * replica's deliverer can sign (docs/decisions.md D243). `startAfter`: the log position when it was
 * created; it is sent the events after it.
 */
export type WebhookEndpointCreated = Ev<
  'WebhookEndpointCreated',
  EndpointSettings & { kind: EndpointKind; secret: string; startAfter: string | null }
>;
export type WebhookEndpointUpdated = Ev<'WebhookEndpointUpdated', { changes: Partial<EndpointSettings> }>;
/** `resealed`: the same secret sealed with another key (D249), not a new one. */
export type WebhookEndpointSecretRotated = Ev<'WebhookEndpointSecretRotated', { secret: string; resealed?: true }>;
export type WebhookEndpointDisabled = Ev<'WebhookEndpointDisabled', { reason: DisabledReason; detail?: string }>;
export type WebhookEndpointEnabled = Ev<'WebhookEndpointEnabled', object>;
export type WebhookEndpointDeleted = Ev<'WebhookEndpointDeleted', object>;

export type EndpointEvent =
  | WebhookEndpointCreated
  | WebhookEndpointUpdated
  | WebhookEndpointSecretRotated
  | WebhookEndpointDisabled
  | WebhookEndpointEnabled
  | WebhookEndpointDeleted;

export const ENDPOINT_EVENT_TYPES: readonly EndpointEvent['type'][] = [
  'WebhookEndpointCreated',
  'WebhookEndpointUpdated',
  'WebhookEndpointSecretRotated',
  'WebhookEndpointDisabled',
  'WebhookEndpointEnabled',
  'WebhookEndpointDeleted',
];

export interface Endpoint extends EndpointSettings {
  endpointId: string;
  kind: EndpointKind;
  secret: string;
  startAfter: bigint | null;
  enabled: boolean;
  disabled?: { reason: DisabledReason; detail?: string; at: string };
  createdAt: string;
  updatedAt: string;
  /** Bumped by every change: a deliverer running an older version starts again with the new settings. */
  version: number;
}

export type EndpointsState = Map<string, Endpoint>;

export const evolveEndpoints = (state: EndpointsState, event: EndpointEvent): EndpointsState => {
  const d = event.data;
  const current = state.get(d.endpointId);
  const touch = (e: Endpoint, changes: Partial<Endpoint>): void => {
    state.set(d.endpointId, { ...e, ...changes, updatedAt: d.at, version: e.version + 1 });
  };
  switch (event.type) {
    case 'WebhookEndpointCreated': {
      const c = event.data;
      state.set(d.endpointId, {
        endpointId: c.endpointId,
        kind: c.kind,
        url: c.url,
        description: c.description,
        events: c.events,
        repos: c.repos,
        targetBranches: c.targetBranches,
        secret: c.secret,
        startAfter: c.startAfter === null ? null : BigInt(c.startAfter),
        enabled: true,
        createdAt: c.at,
        updatedAt: c.at,
        version: 1,
      });
      break;
    }
    case 'WebhookEndpointUpdated':
      if (current) touch(current, event.data.changes);
      break;
    case 'WebhookEndpointSecretRotated':
      if (current) touch(current, { secret: event.data.secret });
      break;
    case 'WebhookEndpointDisabled':
      if (current)
        touch(current, {
          enabled: false,
          disabled: { reason: event.data.reason, ...(event.data.detail ? { detail: event.data.detail } : {}), at: d.at },
        });
      break;
    case 'WebhookEndpointEnabled':
      if (current) {
        const { disabled: _gone, ...rest } = current;
        touch(rest as Endpoint, { enabled: true });
      }
      break;
    case 'WebhookEndpointDeleted':
      state.delete(d.endpointId);
      break;
  }
  return state;
};

export class WebhookEndpointError extends Error {
  constructor(
    readonly code: 'WEBHOOK_ENDPOINT_NOT_FOUND',
    message: string,
  ) {
    super(message);
    this.name = 'WebhookEndpointError';
  }
}

export type EndpointCommand =
  | { type: 'create'; endpointId: string; kind: EndpointKind; settings: EndpointSettings; secret: string; startAfter: bigint | null }
  | { type: 'update'; endpointId: string; changes: Partial<EndpointSettings>; enabled?: boolean }
  | { type: 'rotate'; endpointId: string; secret: string; resealed?: true }
  | { type: 'disable'; endpointId: string; reason: DisabledReason; detail?: string }
  | { type: 'delete'; endpointId: string };

/** What a command records, given the endpoints as they are; an unknown endpoint is refused. */
export const decideEndpoints = (state: EndpointsState, command: EndpointCommand, ctx: { at: string }): EndpointEvent[] => {
  const { endpointId } = command;
  const at = ctx.at;
  if (command.type === 'create') {
    return [
      {
        type: 'WebhookEndpointCreated',
        data: {
          endpointId,
          kind: command.kind,
          ...command.settings,
          secret: command.secret,
          startAfter: command.startAfter === null ? null : command.startAfter.toString(),
          at,
        },
      },
    ];
  }
  const current = state.get(endpointId);
  if (!current) throw new WebhookEndpointError('WEBHOOK_ENDPOINT_NOT_FOUND', `no webhook endpoint ${endpointId}`);
  switch (command.type) {
    case 'update': {
      const events: EndpointEvent[] = [];
      if (Object.keys(command.changes).length > 0)
        events.push({ type: 'WebhookEndpointUpdated', data: { endpointId, changes: command.changes, at } });
      if (command.enabled === true && !current.enabled) events.push({ type: 'WebhookEndpointEnabled', data: { endpointId, at } });
      if (command.enabled === false && current.enabled)
        events.push({ type: 'WebhookEndpointDisabled', data: { endpointId, reason: 'ADMIN_REQUESTED', at } });
      return events;
    }
    case 'rotate':
      return [
        {
          type: 'WebhookEndpointSecretRotated',
          data: { endpointId, secret: command.secret, ...(command.resealed ? { resealed: true as const } : {}), at },
        },
      ];
    case 'disable':
      // A deliverer giving up on an endpoint an admin already disabled changes nothing.
      if (!current.enabled) return [];
      return [
        {
          type: 'WebhookEndpointDisabled',
          data: { endpointId, reason: command.reason, ...(command.detail ? { detail: command.detail } : {}), at },
        },
      ];
    case 'delete':
      return [{ type: 'WebhookEndpointDeleted', data: { endpointId, at } }];
  }
};

/** An endpoint as the operations and the dashboard show it: no secret, no delivery internals. */
export type EndpointView = Omit<Endpoint, 'secret' | 'startAfter' | 'version'>;

/** What the list and get operations show: everything but the secret, which is shown once, on create and rotate. */
export const publicView = (e: Endpoint): EndpointView => ({
  endpointId: e.endpointId,
  kind: e.kind,
  url: e.url,
  description: e.description,
  events: e.events,
  repos: e.repos,
  targetBranches: e.targetBranches,
  enabled: e.enabled,
  ...(e.disabled ? { disabled: e.disabled } : {}),
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
});
