/**
 * What the outbox needs of node-postgres, said structurally: a `pg.Pool`, `pg.PoolClient` or
 * `pg.Client` fits, and the package's declarations need no `@types/pg`.
 */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[]; rowCount?: number | null }>;
}

/** A connection held for LISTEN (from `pool.connect()`). */
export interface ListeningClient extends Queryable {
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  release(error?: Error | boolean): void;
}

export interface PoolLike extends Queryable {
  connect(): Promise<ListeningClient>;
}
