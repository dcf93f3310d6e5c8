import type Database from 'better-sqlite3';
import type { PagedDoc, PagedDocs } from '@railyard/readmodels';

/**
 * The documents the in-memory read models page out (docs/decisions.md D320), in read-models.sqlite
 * beside their snapshots. Rows change only inside a snapshot's transaction (`stage`), so they always
 * match the snapshot rows: a kill at any instant leaves both as of one position. Keys are stored as
 * bytes: the models' keys hold NUL separators. Bodies are JSON (the documents are JSON data): about
 * twice as fast to write as v8.serialize for documents this small, and many are written per snapshot.
 */
export class PagedDocsTable {
  private readonly getStmt: Database.Statement;
  private readonly rangeStmt: Database.Statement;
  private readonly putStmt: Database.Statement;

  constructor(private readonly db: Database.Database) {
    db.exec(
      'CREATE TABLE IF NOT EXISTS paged (model TEXT NOT NULL, kind TEXT NOT NULL, key BLOB NOT NULL, grp TEXT NOT NULL, num INTEGER NOT NULL, body TEXT NOT NULL, UNIQUE (model, kind, key))',
    );
    db.exec('CREATE INDEX IF NOT EXISTS paged_walk ON paged (model, kind, grp, num)');
    this.getStmt = db.prepare('SELECT body FROM paged WHERE model = ? AND kind = ? AND key = ?').pluck();
    this.rangeStmt = db.prepare('SELECT num, body FROM paged WHERE model = ? AND kind = ? AND grp = ? AND num > ? ORDER BY num LIMIT ?');
    this.putStmt = db.prepare('INSERT OR REPLACE INTO paged (model, kind, key, grp, num, body) VALUES (?, ?, ?, ?, ?, ?)');
  }

  /** The model's view of its rows. */
  of(model: string): PagedDocs {
    return {
      get: (kind, key) => {
        const body = this.getStmt.get(model, kind, Buffer.from(key)) as string | undefined;
        return body === undefined ? undefined : JSON.parse(body);
      },
      range: (kind, group, afterNum, limit) =>
        (this.rangeStmt.all(model, kind, group, afterNum, limit) as { num: number; body: string }[]).map((r) => ({
          num: r.num,
          doc: JSON.parse(r.body) as unknown,
        })),
      forget: () =>
        this.db.transaction(() => {
          this.clear(model);
          this.db.prepare('DELETE FROM snapshots WHERE name = ?').run(model);
        })(),
    };
  }

  /** Copies the documents now, in the turn their snapshot is taken; `put` writes them in its transaction. */
  stage(model: string, docs: readonly PagedDoc[]): () => void {
    const rows = docs.map((d) => [model, d.kind, Buffer.from(d.key), d.group, d.num, JSON.stringify(d.doc)] as const);
    return () => {
      for (const r of rows) this.putStmt.run(...r);
    };
  }

  /** A model folded again from position 0 starts with none. */
  clear(model: string): void {
    this.db.prepare('DELETE FROM paged WHERE model = ?').run(model);
  }
}
