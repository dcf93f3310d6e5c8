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

export const ENDPOINT_SCHEMA_VERSION = 1;

/** Runs endpoint commands against the event store (load, decide, append with the expected revision) and reads the fold. */
export class EndpointService {
  private readonly handler: CommandHandler<EndpointsState, EndpointCommand, EndpointEvent, { at: string }>;

  constructor(
    private readonly eventStore: EventStore,
    now: () => Date = () => new Date(),
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
    const result = await this.handler.execute(ENDPOINTS_STREAM, command, meta);
    return result.state.get(command.endpointId);
  }

  async list(): Promise<Endpoint[]> {
    return [...(await this.handler.read(ENDPOINTS_STREAM)).values()];
  }

  async get(endpointId: string): Promise<Endpoint | undefined> {
    return (await this.handler.read(ENDPOINTS_STREAM)).get(endpointId);
  }

  /** The log's newest position: a new endpoint is sent what happens after it. */
  head(): Promise<bigint | null> {
    return this.eventStore.headPosition();
  }
}
