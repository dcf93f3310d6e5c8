/**
 * Requests sent to the other thread, each waiting for the answer that carries its id: the engine
 * thread's appends and report uploads, the server's metric scrapes.
 */
export class Pending<T> {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (value: T) => void; reject: (err: Error) => void }>();

  /** Sends the request under a new id; rejects after `timeout.ms` with its message when no answer came. */
  ask(send: (id: number) => void, timeout?: { ms: number; message: string }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const id = ++this.next;
      this.waiting.set(id, { resolve, reject });
      if (timeout) setTimeout(() => this.fail(id, new Error(timeout.message)), timeout.ms).unref();
      send(id);
    });
  }

  settle(id: number, value: T): void {
    this.take(id)?.resolve(value);
  }

  fail(id: number, err: Error): void {
    this.take(id)?.reject(err);
  }

  private take(id: number) {
    const waiting = this.waiting.get(id);
    this.waiting.delete(id);
    return waiting;
  }
}
