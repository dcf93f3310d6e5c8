import { LRUCache } from 'lru-cache';
import { isObjectId } from './names';

/**
 * Answers about a commit that can never change: a commit id is the hash of its content, so its tree,
 * author and message are the same every time they are read. The engine asks for them on every run it
 * starts (the base's tree, each stacked head's subject and author) and a git process each cost a
 * fork of this process; here each is read once. Only full ids are kept (a branch name or a short id
 * may mean another commit tomorrow), keyed by repository as well, so a commit another repository
 * holds never answers for one that lacks it. Bounded: least recently used out first.
 */
export class CommitFacts<T extends NonNullable<unknown>> {
  private readonly known: LRUCache<string, T>;

  constructor(capacity = 4_096) {
    this.known = new LRUCache({ max: capacity });
  }

  async get(gitDir: string, sha: string, read: () => Promise<T>): Promise<T> {
    if (!isObjectId(sha)) return read();
    const key = `${gitDir}\0${sha}`;
    const hit = this.known.get(key);
    if (hit !== undefined) return hit;
    const value = await read();
    this.known.set(key, value);
    return value;
  }

  /** What is known now, without reading. */
  peek(gitDir: string, sha: string): T | undefined {
    return isObjectId(sha) ? this.known.get(`${gitDir}\0${sha}`) : undefined;
  }

  /** Tells what was learnt another way (the writer of a commit knows its tree): the next get answers it without git. */
  remember(gitDir: string, sha: string, value: T): void {
    if (isObjectId(sha)) this.known.set(`${gitDir}\0${sha}`, value);
  }
}
