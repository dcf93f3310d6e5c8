import supertest from 'supertest';
import { checkAgainstTrunk, type Answer } from './trunk-contract';

/**
 * Every answer any e2e suite gets through supertest, whatever helper sent the request, is held
 * against Trunk's contract (support/trunk-contract.ts): a suite's own `request(url).post(...)` is a
 * Trunk client as much as `poster` is. Set up for the e2e tier by jest.config.js.
 */

interface SentTest {
  method: string;
  url: string;
  _data?: unknown;
}
type Assert = (this: SentTest, resError: Error | null, res: Answer | undefined, fn: (err: unknown, res: unknown) => void) => void;

const proto = (supertest as unknown as { Test: { prototype: { assert: Assert } } }).Test.prototype;
const assert = proto.assert;
proto.assert = function (this: SentTest, resError, res, fn) {
  if (res) {
    try {
      checkAgainstTrunk(this.method, this.url, this._data, res);
    } catch (err) {
      fn.call(this, err, res);
      return;
    }
  }
  assert.call(this, resError, res, fn);
};
