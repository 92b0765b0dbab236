// Thrown inside a write's transaction when its Idempotency-Key turns out to be answered already (a
// request with the same key committed first): the write is abandoned, its transaction rolled back, and
// the kept answer replayed.
import type { StoredResponse } from './stored-response.ts';

export class KeyAnswered extends Error {
  readonly response: StoredResponse;

  constructor(response: StoredResponse) {
    super('the Idempotency-Key was answered by an earlier request');
    this.response = response;
  }
}
