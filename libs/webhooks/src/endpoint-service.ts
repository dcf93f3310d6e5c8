import { randomUUID } from 'node:crypto';
import { CommandHandler, type CommandMeta, type EventStore } from '@railyard/eventstore';
import {
  decideEndpoints,
  ENDPOINTS_STREAM,
  evolveEndpoints,
  type Endpoint,
  type EndpointCommand,
  type EndpointEvent,
  type EndpointsState,
} from './endpoints';
import { SecretBox } from './secret-box';

export const ENDPOINT_SCHEMA_VERSION = 1;

/**
 * Runs endpoint commands against the event store (load, decide, append with the expected revision) and
 * reads the fold. Secrets go into the log sealed by `box` (when it has a key) and come out opened:
 * nothing outside this class sees a sealed one.
 */
export class EndpointService {
  private readonly handler: CommandHandler<EndpointsState, EndpointCommand, EndpointEvent, { at: string }>;

  constructor(
    private readonly eventStore: EventStore,
    now: () => Date = () => new Date(),
    private readonly box: SecretBox = new SecretBox(),
  ) {
    this.handler = new CommandHandler(
      eventStore,
      { initialState: () => new Map(), evolve: evolveEndpoints, decide: decideEndpoints },
      {
        context: () => ({ at: now().toISOString() }),
        newEventId: randomUUID,
        schemaVersion: ENDPOINT_SCHEMA_VERSION,
        now: () => now().toISOString(),
      },
    );
  }

  async execute(command: EndpointCommand, meta: CommandMeta): Promise<Endpoint | undefined> {
    const sealed = 'secret' in command ? { ...command, secret: this.box.seal(command.secret, command.endpointId) } : command;
    const result = await this.handler.execute(ENDPOINTS_STREAM, sealed, meta);
    const endpoint = result.state.get(command.endpointId);
    return endpoint && this.opened(endpoint);
  }

  async list(): Promise<Endpoint[]> {
    return [...(await this.handler.read(ENDPOINTS_STREAM)).values()].map((e) => this.opened(e));
  }

  async get(endpointId: string): Promise<Endpoint | undefined> {
    const endpoint = (await this.handler.read(ENDPOINTS_STREAM)).get(endpointId);
    return endpoint && this.opened(endpoint);
  }

  /**
   * Seals again, with the first key, every secret stored in clear or under an older key: the same
   * secret (receivers change nothing), recorded as a rotation marked `resealed`. Run at each start;
   * once it has run, keys after the first open nothing current and can be removed. Answers how many.
   */
  async reseal(meta: CommandMeta): Promise<number> {
    let count = 0;
    for (const endpoint of (await this.handler.read(ENDPOINTS_STREAM)).values()) {
      if (!this.box.stale(endpoint.secret)) continue;
      const secret = this.box.open(endpoint.secret, endpoint.endpointId);
      await this.execute({ type: 'rotate', endpointId: endpoint.endpointId, secret, resealed: true }, meta);
      count += 1;
    }
    return count;
  }

  private opened(endpoint: Endpoint): Endpoint {
    return { ...endpoint, secret: this.box.open(endpoint.secret, endpoint.endpointId) };
  }

  /** The log's newest position: a new endpoint is sent what happens after it. */
  head(): Promise<bigint | null> {
    return this.eventStore.headPosition();
  }
}
