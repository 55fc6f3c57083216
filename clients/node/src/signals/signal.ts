/** What an application emits through the outbox: the service's signal, with a few conveniences. */
export type SignalName = 'pre_save' | 'post_save' | 'pre_delete' | 'post_delete';

export interface OutboxSignal {
  signal: SignalName;
  app_label: string;
  model_name: string;
  /** The instance's attributes, as `{{ instance.… }}` reads them. */
  instance: Record<string, unknown>;
  /** The instance before the change, for transition conditions (`$changed`); null or absent: none (a creation). */
  previous?: Record<string, unknown> | null;
  /** Default: the outbox row's own id, a UUIDv7 (the same id sent twice is one dispatch). */
  id?: string;
  /** Default: when `emit` was called. */
  occurred_at?: string | Date;
  /** The instance for ordering; default `instance.pk`, else `instance.id`. */
  instance_key?: string;
}

/** The signal as it is stored in the outbox row and sent: every default filled in. */
export interface WireSignal {
  id: string;
  signal: SignalName;
  app_label: string;
  model_name: string;
  instance: Record<string, unknown>;
  previous?: Record<string, unknown>;
  occurred_at: string;
  instance_key?: string;
}
