import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { Receiver, type Received } from '@railyard/testkit';
import { TRUNK_EVENT_TYPES, trunkSchemaOf } from '@railyard/webhooks';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const schemas = new Map(TRUNK_EVENT_TYPES.map((t) => [t as string, ajv.compile(trunkSchemaOf(t))]));

export interface Checked {
  id: string;
  type: string;
  payload: Record<string, unknown>;
}

/**
 * What a careful receiver does with each request: verifies the signature with the `standardwebhooks`
 * package (not ours) and holds Trunk's types against Trunk's published schema with ajv.
 */
export const checkDelivery = (secret: string, r: Received): Checked => {
  const payload = new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Record<string, unknown>;
  const type = String(payload.type);
  const validate = schemas.get(type);
  if (validate && !validate(payload)) throw new Error(`${type} breaks Trunk's schema: ${ajv.errorsText(validate.errors)}`);
  return { id: String(r.headers['webhook-id']), type, payload };
};

/** The receivers a suite starts, each on 127.0.0.1, all stopped together at its end. */
export const receiverPool = (): { start: () => Promise<Receiver>; stopAll: () => Promise<void> } => {
  const all: Receiver[] = [];
  return {
    start: async () => {
      const r = await new Receiver().start();
      all.push(r);
      return r;
    },
    stopAll: async () => {
      await Promise.all(all.map((r) => r.stop()));
    },
  };
};
