import Database from 'better-sqlite3';
import { contentTypePart } from '../model/triggers/policy';
import { boundedPage } from '../kernel/bounded-page';

export interface ListFilter {
  readonly active?: boolean;
  readonly signal?: string;
  readonly app_label?: string;
  readonly model_name?: string;
  /** Lower-case text found in a content type (`app_label.model_name`) or a webhook URL. */
  readonly q?: string;
}

export interface ListPage {
  /** Each item is the resource's JSON text, ready to send. */
  readonly items: readonly string[];
  /** The last id of the page when more may follow. */
  readonly nextAfter: string | undefined;
}

/** The trigger list's query over the read model's tables: filters, `?q=`, id order, pages bounded by count and bytes. */
export const bindTriggerList = (db: Database.Database, maxPageBytes: number) => {
  const listStatements = new Map<string, Database.Statement<Record<string, unknown>, { id: string; json: string }>>();
  return (filter: ListFilter, limit: number, after: string | undefined): ListPage => {
    // With ?q=, the narrow search table is scanned in id order and each hit joined to its row
    // (CROSS JOIN keeps that order of loops): the wide rows are read only for matches.
    const from = filter.q === undefined ? 'triggers t' : 'trigger_search s CROSS JOIN triggers t ON t.id = s.id';
    const where: string[] = [filter.q === undefined ? 't.id > @after' : 's.id > @after'];
    if (filter.active !== undefined) where.push('t.active = @active');
    if (filter.q !== undefined) where.push('instr(s.text, @q) > 0');
    const keyConds = (['signal', 'app_label', 'model_name'] as const).filter((k) => filter[k] !== undefined);
    if (keyConds.length > 0) {
      where.push(
        `EXISTS (SELECT 1 FROM trigger_keys k INDEXED BY trigger_keys_by_trigger WHERE k.trigger_id = t.id AND ${keyConds.map((k) => `k.${k} = @${k}`).join(' AND ')})`,
      );
    }
    const sql = `SELECT t.id, t.json FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${filter.q === undefined ? 't.id' : 's.id'} LIMIT @limit`;
    let statement = listStatements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      listStatements.set(sql, statement);
    }
    const rows = statement.iterate({
      after: after ?? '',
      limit: limit + 1,
      active: filter.active ? 1 : 0,
      signal: filter.signal,
      q: filter.q,
      app_label: filter.app_label === undefined ? undefined : contentTypePart(filter.app_label),
      model_name: filter.model_name === undefined ? undefined : contentTypePart(filter.model_name),
    });
    // One row at a time: a page stops at `limit` items or `maxPageBytes`, whichever comes
    // first, and always holds one item so paging moves on.
    const page = boundedPage(maxPageBytes);
    let lastId: string | undefined;
    for (const r of rows) {
      if (page.items.length === limit || !page.add(r.json)) return { items: page.items, nextAfter: lastId };
      lastId = r.id;
    }
    return { items: page.items, nextAfter: undefined };
  };
};
