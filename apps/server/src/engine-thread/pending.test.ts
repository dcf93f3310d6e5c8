import { Pending } from './pending';

describe('Pending', () => {
  it('when the answer with its id comes, then that request resolves with it and no other', async () => {
    const pending = new Pending<string>();
    const sent: number[] = [];
    const first = pending.ask((id) => sent.push(id));
    const second = pending.ask((id) => sent.push(id));
    expect(new Set(sent).size).toBe(2);
    pending.settle(sent[1] as number, 'two');
    pending.settle(sent[0] as number, 'one');
    await expect(Promise.all([first, second])).resolves.toEqual(['one', 'two']);
  });

  it('when the other side says it failed, then the request rejects with that error', async () => {
    const pending = new Pending<void>();
    let id = 0;
    const asked = pending.ask((i) => (id = i));
    pending.fail(id, new Error('the API is not up yet'));
    await expect(asked).rejects.toThrow('the API is not up yet');
  });

  it('when no answer comes in time, then the request rejects with the timeout’s message and a late answer changes nothing', async () => {
    const pending = new Pending<number>();
    let id = 0;
    const asked = pending.ask((i) => (id = i), { ms: 10, message: 'the engine thread did not answer' });
    await expect(asked).rejects.toThrow('the engine thread did not answer');
    expect(() => pending.settle(id, 1)).not.toThrow();
  });
});
