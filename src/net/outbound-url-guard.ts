import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { URL_MAX_LENGTH } from '../domain/limits.ts';
import { classifyAddress, describeRefusal } from './address-policy.ts';

/**
 * The SSRF guard (docs/design.md 2.6), for webhook URLs and Web Push subscription endpoints: the URL must be http(s)
 * (https for Web Push), and — unless the operator set CLARION_ALLOW_PRIVATE_ADDRESSES=true (or its older name
 * CLARION_ALLOW_PRIVATE_WEBHOOKS) — every address its host resolves to must be public
 * (address-policy.ts). Checked when the URL is registered, and again on every delivery attempt through
 * `guardedLookup`, which hands the socket exactly the addresses it has just checked: a name that resolves to a
 * public address at registration and to 127.0.0.1 later (DNS rebinding) is refused before any connection is made.
 */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** All addresses of a host name; dns.lookup (the resolver sockets use: /etc/hosts, then DNS) by default. */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: ResolveHost = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface OutboundUrlPolicy {
  allowPrivate: boolean;
  resolve: ResolveHost;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; message: string };

/** Thrown (and reported as the attempt's error) when a host leads to an address the policy refuses. */
export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
  readonly code = 'EADDRESSREFUSED';
}

const PRIVATE_HINT =
  'only public addresses are reached (the operator can allow private ones with CLARION_ALLOW_PRIVATE_ADDRESSES=true)';

/** The one private-address setting: CLARION_ALLOW_PRIVATE_ADDRESSES, or its older name CLARION_ALLOW_PRIVATE_WEBHOOKS. */
export function allowsPrivateAddresses(config: {
  allowPrivateAddresses: boolean;
  allowPrivateWebhooks: boolean;
}): boolean {
  return config.allowPrivateAddresses || config.allowPrivateWebhooks;
}

/** The checks that need no network: scheme, host, no credentials, length. */
export function checkUrlShape(text: string): UrlCheck {
  if (text.length > URL_MAX_LENGTH) return { ok: false, message: `must be at most ${URL_MAX_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'must be an absolute http:// or https:// URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, message: `must use http or https (got ${url.protocol.replace(/:$/, '')})` };
  if (url.hostname === '') return { ok: false, message: 'must name a host' };
  // Credentials in a URL would be stored and shown in plain text; verify the signature instead.
  if (url.username !== '' || url.password !== '')
    return { ok: false, message: 'must not contain a user name or password; verify the webhook signature instead' };
  return { ok: true, url };
}

/** Registration: the shape, then (unless private addresses are allowed) every address the host resolves to. */
export async function checkOutboundUrl(text: string, policy: OutboundUrlPolicy): Promise<UrlCheck> {
  const shape = checkUrlShape(text);
  if (!shape.ok || policy.allowPrivate) return shape;
  try {
    await resolveAllowed(hostOf(shape.url), policy);
    return shape;
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

/** The host of a URL without IPv6 brackets, as sockets and DNS want it. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** A refusal message for an IP-literal host, or null when it is allowed (names are checked by `guardedLookup`). */
export function refuseLiteralHost(host: string): string | null {
  if (isIP(host) === 0) return null;
  const verdict = classifyAddress(host);
  return verdict.allowed ? null : `refused: ${describeRefusal(host, verdict)}; ${PRIVATE_HINT}`;
}

/**
 * Every address of `hostname`, if all are allowed. One refused address refuses the host: a name that mixes public and
 * private records could otherwise be steered to the private one.
 */
export async function resolveAllowed(hostname: string, policy: OutboundUrlPolicy): Promise<ResolvedAddress[]> {
  if (isIP(hostname) !== 0) {
    const refusal = policy.allowPrivate ? null : refuseLiteralHost(hostname);
    if (refusal) throw new AddressRefusedError(refusal);
    return [{ address: hostname, family: isIP(hostname) }];
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await policy.resolve(hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw Object.assign(new Error(`the host ${hostname} does not resolve (${code})`), { code });
  }
  if (addresses.length === 0)
    throw Object.assign(new Error(`the host ${hostname} does not resolve (no addresses)`), { code: 'ENOTFOUND' });
  if (policy.allowPrivate) return addresses;
  for (const { address } of addresses) {
    const verdict = classifyAddress(address);
    if (!verdict.allowed)
      throw new AddressRefusedError(
        `refused: ${hostname} resolves to ${describeRefusal(address, verdict)}; ${PRIVATE_HINT}`,
      );
  }
  return addresses;
}

/**
 * A `lookup` for http.request / net.connect that resolves once, checks every address, and connects only to those.
 * Node calls it with `all: true` when it races IPv4 and IPv6 (autoSelectFamily, on by default since Node 20).
 */
export function guardedLookup(policy: OutboundUrlPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(hostname, policy).then(
      (resolved) => {
        const family = typeof options === 'object' && options !== null ? options.family : undefined;
        const wanted = family === 4 || family === 6 ? resolved.filter((entry) => entry.family === family) : resolved;
        if (wanted.length === 0) {
          callback(
            Object.assign(new Error(`the host ${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
          return;
        }
        if (typeof options === 'object' && options !== null && options.all) {
          (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, wanted);
        } else {
          callback(null, wanted[0]!.address, wanted[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
