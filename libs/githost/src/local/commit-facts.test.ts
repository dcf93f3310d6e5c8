import { CommitFacts } from './commit-facts';

const SHA = 'a'.repeat(40);

describe('CommitFacts', () => {
  it('when a full commit id is asked for twice in one repository, then it is read once', async () => {
    const facts = new CommitFacts<string>();
    const read = jest.fn(async () => 'tree-1');
    expect(await facts.get('/r.git', SHA, read)).toBe('tree-1');
    expect(await facts.get('/r.git', SHA, read)).toBe('tree-1');
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('when the same id is asked for in another repository, then that repository is read', async () => {
    const facts = new CommitFacts<string>();
    await facts.get('/a.git', SHA, async () => 'tree-a');
    const read = jest.fn(async () => 'tree-b');
    expect(await facts.get('/b.git', SHA, read)).toBe('tree-b');
    expect(read).toHaveBeenCalledTimes(1);
  });

  it('when a branch name or a short id is asked for, then it is read every time: it may mean another commit later', async () => {
    const facts = new CommitFacts<string>();
    const read = jest.fn(async () => 'tree');
    for (const rev of ['main', 'main', 'abc1234', 'abc1234']) await facts.get('/r.git', rev, read);
    expect(read).toHaveBeenCalledTimes(4);
  });

  it('when a read fails, then nothing is kept and the next ask reads again', async () => {
    const facts = new CommitFacts<string>();
    await expect(facts.get('/r.git', SHA, () => Promise.reject(new Error('gone')))).rejects.toThrow('gone');
    expect(await facts.get('/r.git', SHA, async () => 'tree')).toBe('tree');
  });

  it('when more ids are read than it holds, then the least recently used is read again', async () => {
    const facts = new CommitFacts<string>(2);
    const read = jest.fn(async () => 'tree');
    const ids = ['1', '2', '3'].map((d) => d.repeat(40));
    for (const id of [...ids, ids[0] as string]) await facts.get('/r.git', id, read);
    expect(read).toHaveBeenCalledTimes(4);
  });

  it('when a commit id is remembered, then it is answered without a read; a short id is not kept', async () => {
    const facts = new CommitFacts<string>();
    facts.remember('/r.git', SHA, 'tree-1');
    facts.remember('/r.git', 'abc1234', 'tree-2');
    const read = jest.fn(async () => 'read');
    expect(await facts.get('/r.git', SHA, read)).toBe('tree-1');
    expect(await facts.get('/r.git', 'abc1234', read)).toBe('read');
    expect(read).toHaveBeenCalledTimes(1);
  });
});
