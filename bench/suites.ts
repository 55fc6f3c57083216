import { benchApi } from './api';
import { benchRestart } from './restart';
import { benchDispatch } from './dispatch';
import { benchFanOut } from './fan-out';
import { benchBrokers } from './brokers';
import { benchIntake } from './intake';
import { benchObservability } from './observability';
import { benchPaced } from './paced';
import { benchLongHistory } from './long-history';
import { benchDjango } from './django';
import { benchOrdering } from './ordering';
import { benchConditions } from './conditions';
import { benchPacing } from './pacing';
import { benchOutbox } from './outbox';

/** Every suite `npm run bench -- <suite>` runs, by name (test/integration/processes/bench-smoke.test.ts runs each one small). */
export const suites: Record<string, () => Promise<void>> = {
  api: benchApi,
  restart: benchRestart,
  dispatch: benchDispatch,
  'fan-out': benchFanOut,
  brokers: benchBrokers,
  intake: benchIntake,
  observability: benchObservability,
  paced: benchPaced,
  'long-history': benchLongHistory,
  django: benchDjango,
  ordering: benchOrdering,
  conditions: benchConditions,
  pacing: benchPacing,
  outbox: benchOutbox,
};
