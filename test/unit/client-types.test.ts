import type { TriggerDefinition } from '../../src/model/triggers/codecs';
import type { TriggerResource as ServiceTrigger } from '../../src/projections/trigger-view';
import type { DispatchView as ServiceDispatch } from '../../src/temporal/dispatch-client';
import type { DryRunView as ServiceDryRun } from '../../src/triggers/dry-run';
import type { DispatchView, DryRunView, TriggerInput, TriggerResource } from '@action-triggers/client';

/**
 * The client declares the API's shapes itself (it ships without the service); these assignments
 * fail to compile (`npm run typecheck`) when the service's types drift from them.
 */
const fits = <T>(value: T): T => value;

test("the service's trigger, dispatch and dry-run shapes fit the client's declarations", () => {
  const definition: TriggerDefinition = {
    config_signals: [{ signal: 'post_save' }],
    content_types: [{ app_label: 'shop', model_name: 'order' }],
    webhooks: [{ url: 'https://example.com/', http_method: 'POST', payload: { id: '{{ instance.id }}' } }],
    msg_broker_queues: [{ name: 'orders', payload: 'saved' }],
    active: true,
  };
  const resource: ServiceTrigger = { id: 'x', ...definition, ordering: 'none', version: 1, created_at: 't', updated_at: 't' };
  const dispatch: ServiceDispatch = { id: 's', workflow_id: 'w', state: 'delivered', triggers: [], actions: [] };
  const dryRun = undefined as unknown as ServiceDryRun;
  expect(fits<TriggerInput>(definition).active).toBe(true);
  expect(fits<TriggerResource>(resource).version).toBe(1);
  expect(fits<DispatchView>(dispatch).state).toBe('delivered');
  expect(fits<DryRunView | undefined>(dryRun)).toBeUndefined();
});
