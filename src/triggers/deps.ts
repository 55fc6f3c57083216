import * as t from 'io-ts';
import { EventStore } from '../event-store/port';
import { ReadModel } from '../projections/read-model';
import { ProjectionRunner } from '../projections/runner';
import { TriggerInput } from '../model/triggers/codecs';
import type { PreviewOptions } from '../delivery/preview';

/** What the trigger routes need; src/main.ts passes real adapters, tests pass real ones on temp files. */
export interface TriggerDeps {
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly projection: ProjectionRunner;
  readonly triggerInput: t.Decoder<unknown, TriggerInput>;
  /** A merge patch's own shape (buildTriggerPatchCodec); the patched result is checked by triggerInput. */
  readonly triggerPatch: t.Decoder<unknown, unknown>;
  readonly now: () => Date;
  /** What a dry run renders with: the worker's view of brokers, signing and targets, no secret (previewOptionsOf). */
  readonly preview: PreviewOptions;
}
