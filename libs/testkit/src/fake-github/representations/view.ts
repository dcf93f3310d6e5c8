import type { FakeState } from '../state';
import type { Urls } from './urls';

/** What every representation reads: the fake's records and its addresses. */
export interface View {
  state: FakeState;
  urls: Urls;
}
