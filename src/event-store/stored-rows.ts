import { StoredEvent } from './port';

/** An event as the SQL stores keep it: data and metadata as JSON text, numbers as their driver returns them. */
export interface SqlEventRow {
  position: number | bigint | string;
  stream_id: string;
  revision: number | bigint | string;
  type: string;
  data: string;
  metadata: string;
}

/** The columns a SqlEventRow is read from. */
export const COLUMNS = 'position, stream_id, revision, type, data, metadata';

export const toStored = (r: SqlEventRow): StoredEvent => ({
  position: BigInt(r.position),
  streamId: r.stream_id,
  revision: BigInt(r.revision),
  type: r.type,
  data: JSON.parse(r.data) as Record<string, unknown>,
  metadata: JSON.parse(r.metadata) as Record<string, unknown>,
});
