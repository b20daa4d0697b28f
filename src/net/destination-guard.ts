// SSRF guard for every outbound call Lethe makes on an operator's behalf (webhook callbacks, OAuth token
// fetches). A URL must be https (unless insecure webhooks are allowed) and its host must not be, or
// resolve to, a loopback, private, link-local or otherwise internal address unless the operator listed
// the host in LETHE_WEBHOOK_ALLOWED_HOSTS. The check runs when a URL is saved and again, through
// `guardedLookup`, at connection time, so a DNS answer that changes later cannot reach inside.
import { promises as dns, lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { invalid } from '../errors.ts';

export interface DestinationPolicy {
  allowInsecureWebhooks: boolean;
  webhookAllowedHosts: readonly string[];
}

const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  internal.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // IPv4-compatible (deprecated), with :: and ::1
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  // Teredo and 6to4 tunnel to an IPv4 address the guard cannot see (Teredo's is obfuscated): refused
  ['2001::', 32],
  ['2002::', 16],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}

/**
 * IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96) addresses are judged by the IPv4 they
 * carry (embeddedIpv4), not by the list above: a BlockList holding ::ffff:0:0/96 also matches every IPv4
 * address checked against it.
 *
 * The IPv4 address an IPv6 address carries as IPv4-mapped (::ffff:0:0/96), IPv4-translated
 * (::ffff:0:0:0/96) or NAT64 (64:ff9b::/96), if any. The address is first written the one canonical way
 * (the URL parser's: lower case, zeros compressed, the IPv4 part in hex), so no spelling escapes.
 */
function embeddedIpv4(address: string): string | undefined {
  const canonical = URL.parse(`http://[${address}]/`)?.hostname.slice(1, -1);
  // A form the URL parser refuses (a zone id: fe80::1%eth0) names no host Lethe should call.
  if (canonical === undefined) return '0.0.0.0';
  const carried = /^(?:::ffff:|::ffff:0:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!carried?.[1] || !carried[2]) return undefined;
  const high = Number.parseInt(carried[1], 16);
  const low = Number.parseInt(carried[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return internal.check(address, 'ipv4');
  if (family === 6) {
    const carried = embeddedIpv4(address);
    if (carried !== undefined) return internal.check(carried, 'ipv4');
    return internal.check(address, 'ipv6');
  }
  return true;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

function isListed(host: string, policy: DestinationPolicy): boolean {
  return policy.webhookAllowedHosts.includes(host);
}

/**
 * Checks a URL's shape and, when its host is an address or resolves now, where it points. Names that do
 * not resolve yet are accepted here: they are checked again when Lethe connects.
 * @param field the field name used in the error sentence, such as "url" or "token_url".
 */
export async function assertAllowedDestination(
  raw: string,
  policy: DestinationPolicy,
  field: string,
): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`${field} must be an absolute URL.`);
  }
  if (url.protocol !== 'https:' && !(policy.allowInsecureWebhooks && url.protocol === 'http:')) {
    throw invalid(insecureRefusal(field, url, policy));
  }
  if (url.username || url.password)
    throw invalid(`${field} must not carry credentials; use the authorization secret.`);
  const host = bareHost(url);
  if (isListed(host, policy)) return url;
  if (isIP(host)) {
    if (isInternalAddress(host)) throw internalDestination(field, host);
    return url;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) throw internalDestination(field, host);
  let addresses: string[];
  try {
    addresses = (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
  } catch {
    return url;
  }
  const blocked = addresses.find(isInternalAddress);
  if (blocked) throw internalDestination(field, `${host} (${blocked})`);
  return url;
}

/**
 * The refusal of a scheme. An http URL to an internal host (a receiver on this machine, the usual first
 * try) needs both variables, so the sentence names both: naming one sent people round twice.
 */
function insecureRefusal(field: string, url: URL, policy: DestinationPolicy): string {
  if (policy.allowInsecureWebhooks || url.protocol !== 'http:') return `${field} must use https or http.`;
  const host = bareHost(url);
  const internal =
    !isListed(host, policy) &&
    ((isIP(host) && isInternalAddress(host)) || host === 'localhost' || host.endsWith('.localhost'));
  return internal
    ? `${field} must use https: http is allowed only with LETHE_ALLOW_INSECURE_WEBHOOKS=true, and the internal host ${host} also needs listing in LETHE_WEBHOOK_ALLOWED_HOSTS.`
    : `${field} must use https (http is allowed only with LETHE_ALLOW_INSECURE_WEBHOOKS=true).`;
}

function internalDestination(field: string, where: string) {
  return invalid(
    `${field} points to an internal address ${where}; list the host in LETHE_WEBHOOK_ALLOWED_HOSTS to allow it.`,
  );
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for undici's `connect` option: resolves as usual, then refuses internal addresses unless the
 * host is listed. This is what stops DNS rebinding between the save-time check and the call.
 */
export function guardedLookup(policy: DestinationPolicy) {
  return (hostname: string, options: object, callback: LookupCallback) => {
    const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
    dnsLookup(host, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      if (!isListed(host, policy)) {
        const blocked = list.find((entry) => isInternalAddress(entry.address));
        if (blocked) {
          const refusal: NodeJS.ErrnoException = new Error(
            `refused to connect to ${host}: it resolves to the internal address ${blocked.address}`,
          );
          refusal.code = 'ERR_LETHE_INTERNAL_DESTINATION';
          return callback(refusal, []);
        }
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' }), []);
      return callback(null, first.address, first.family);
    });
  };
}
