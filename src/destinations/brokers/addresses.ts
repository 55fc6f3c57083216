import type { AddressKind, KeySection, SettingsKey } from '../broker-kit/settings-keys';
import { publisherFor } from './registry';

/** One section of a broker type's keys, or none for a type this build does not know. */
const sectionOf = (brokerType: string, section: KeySection): Readonly<Record<string, SettingsKey>> =>
  publisherFor(brokerType)?.keys[section] ?? {};

/** The keys of one section of a broker type that say where messages go. */
export const addressKeys = (brokerType: string, section: KeySection): ReadonlySet<string> =>
  new Set(
    Object.entries(sectionOf(brokerType, section))
      .filter(([, k]) => k.address !== undefined)
      .map(([name]) => name),
  );

/** The address kind of one key, if it has one. */
export const addressKind = (brokerType: string, section: KeySection, key: string): AddressKind | undefined => {
  const keys = sectionOf(brokerType, section);
  return Object.prototype.hasOwnProperty.call(keys, key) ? keys[key]!.address : undefined;
};

/**
 * The host of `host:port`, `[v6]:port` or a bare host. Without brackets, a value with several
 * colons is read every way (all of it an IPv6 address, or the host before the first or the last
 * colon): clients differ (kafkajs splits at the first), and every reading must pass.
 */
const hostsOfHostPort = (s: string): string[] => {
  const t = s.trim();
  if (t.startsWith('[')) return [t.slice(1, t.indexOf(']') >= 0 ? t.indexOf(']') : undefined)];
  const colon = t.lastIndexOf(':');
  if (colon < 0) return [t];
  return t.indexOf(':') === colon ? [t.slice(0, colon)] : [t, t.slice(0, t.indexOf(':')), t.slice(0, colon)];
};

/** A URL's hostname without brackets or the root dot. */
const bare = (hostname: string) => (hostname.startsWith('[') ? hostname.slice(1, -1) : hostname.replace(/\.+$/, ''));

/** A host as the private-target classifier expects it: IPv6 without brackets, a name in lower case without the root dot. */
const normalised = (raw: string): string => {
  const host = raw.trim().replace(/^\[(.*)\]$/, '$1');
  try {
    return bare(new URL(`http://${host.includes(':') ? `[${host}]` : host}/`).hostname);
  } catch {
    return host.toLowerCase();
  }
};

/** An empty host is no host: a client may take it for the local one. */
const readable = (hosts: string[]): string[] | undefined => (hosts.some((h) => h === '') ? undefined : hosts);

/**
 * The hosts a value of this kind makes the worker connect to, as URL parsing leaves them (names
 * in lower case, IPv6 without brackets), or undefined when the value cannot be read as one
 * (the publisher's own settings check names that problem). `port` and `destination` values
 * name no host.
 */
export const hostsOf = (kind: AddressKind, value: string): string[] | undefined => {
  switch (kind) {
    case 'url': {
      try {
        const host = new URL(value.trim()).hostname;
        // Non-http schemes (amqp:, …) leave `2130706433` as it is: read as an http host, it is an address.
        return host === '' ? undefined : [normalised(bare(host))];
      } catch {
        return undefined;
      }
    }
    case 'host':
      return readable([normalised(value)]);
    case 'host-ports':
      return readable(
        value
          .split(',')
          .filter((s) => s.trim() !== '')
          .flatMap(hostsOfHostPort)
          .map(normalised),
      );
    default:
      return [];
  }
};
