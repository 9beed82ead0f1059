import { describe, expect, it } from 'vitest';
import { refusePushEndpoint } from '../../../src/delivery/web-push/web-push-endpoint-guard.ts';
import type { ResolveHost } from '../../../src/net/outbound-url-guard.ts';

const resolvesTo =
  (address: string): ResolveHost =>
  async () => [{ address, family: address.includes(':') ? 6 : 4 }];
const policy = (resolve: ResolveHost, allowPrivate = false) => ({ allowPrivate, resolve });

describe('the push endpoint guard at registration', () => {
  it('refuses a name that resolves to a private address, naming it', async () => {
    expect(await refusePushEndpoint('https://push.example.net/x', policy(resolvesTo('10.0.0.7')))).toMatch(
      /push\.example\.net resolves to 10\.0\.0\.7 is a private address/,
    );
  });

  it('lets through a public address, and anything when private addresses are allowed', async () => {
    expect(await refusePushEndpoint('https://push.example.net/x', policy(resolvesTo('93.184.215.14')))).toBeNull();
    expect(await refusePushEndpoint('https://push.example.net/x', policy(resolvesTo('127.0.0.1'), true))).toBeNull();
  });

  it('lets through a name that does not resolve, or not in time: the send-time check decides', async () => {
    const missing: ResolveHost = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    expect(await refusePushEndpoint('https://push.example.net/x', policy(missing))).toBeNull();
    const never: ResolveHost = () => new Promise(() => {});
    expect(await refusePushEndpoint('https://push.example.net/x', policy(never), 5)).toBeNull();
  });
});
