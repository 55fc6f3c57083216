import { addressKind, hostsOf } from './addresses';
import type { KeySection } from '../broker-kit/settings-keys';
import { isSignalDataPath } from '../../kernel/template-expressions';
import { scanTemplate } from '../../kernel/template-scan';
import type { BrokerQueue } from './queue';
import { checkTarget, TargetCheck } from '../port/target-guard';

/** The one message for a refused broker host: like the webhook guard's, it names no address. */
export const BROKER_TARGET_REFUSED = 'broker target refused: not a public address (allow_private_targets is off)';

type Map = Readonly<Record<string, string>> | undefined;

/** A configured broker's own maps, as the config holds them (templates unrendered). */
export interface ConfiguredBroker {
  readonly broker_type: string;
  readonly conn_details?: Map;
  readonly params?: Map;
}

const fromInstance = (value: string) =>
  scanTemplate(value).some((s) => s.kind === 'expression' && (s.path === undefined || isSignalDataPath(s.path)));

/**
 * The hosts of a broker message that the operator did not write: every host a key the trigger
 * set names, and every host a config value templated over the instance (the signal's data)
 * names, read from the rendered maps. A host the config names literally, or through a dynamic
 * value the operator controls, is the operator's choice, private or not. `undefined` stands for
 * a value no URL parser reads: the broker's client may still read a host in it.
 */
export const untrustedHosts = (
  broker: ConfiguredBroker,
  queue: BrokerQueue,
  rendered: { connDetails: Map; parameters: Map },
): Array<string | undefined> => {
  const hosts = (section: KeySection, fromTrigger: Map, fromConfig: Map, values: Map) =>
    Object.keys(values ?? {}).flatMap((key) => {
      const kind = addressKind(broker.broker_type, section, key);
      if (kind === undefined) return [];
      const set =
        (fromTrigger !== undefined && Object.prototype.hasOwnProperty.call(fromTrigger, key)) ||
        (fromConfig !== undefined && Object.prototype.hasOwnProperty.call(fromConfig, key) && fromInstance(fromConfig[key]!));
      return set ? (hostsOf(kind, values![key]!) ?? [undefined]) : [];
    });
  return [
    ...hosts('conn_details', queue.conn_details, broker.conn_details, rendered.connDetails),
    ...hosts('params', queue.parameters, broker.params, rendered.parameters),
  ];
};

/**
 * The guard's word on hosts, as the webhook guard gives it: a literal address is classified, a
 * name is resolved and refused if any answer is not public. The broker's client resolves the
 * name again when it connects; a name whose answers change in between is the one gap (see
 * docs/decisions.md, "What a trigger may set on a broker"), which is why triggers cannot set
 * addresses unless the config lets them.
 * A host that cannot be read is refused.
 */
export const checkHosts = async (
  hosts: ReadonlyArray<string | undefined>,
  check: (url: string) => Promise<TargetCheck> = checkTarget,
): Promise<TargetCheck> => {
  if (hosts.includes(undefined)) return { kind: 'refused' };
  const checks = await Promise.all([...new Set(hosts as readonly string[])].map((h) => check(`http://${h.includes(':') ? `[${h}]` : h}/`)));
  return checks.find((c) => c.kind === 'refused') ?? checks.find((c) => c.kind === 'unresolved') ?? { kind: 'allowed' };
};
