import { describe, expect, it } from 'vitest';
import {
  checkUrlShape,
  checkOutboundUrl,
  guardedLookup,
  systemResolver,
  type ResolveHost,
} from '../../src/net/outbound-url-guard.ts';

const fixed =
  (addresses: Record<string, string[]>): ResolveHost =>
  async (hostname) => {
    const found = addresses[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
const strict = (resolve: ResolveHost) => ({ allowPrivate: false, resolve });

describe('outbound URL shape', () => {
  it.each([
    ['ftp://files.example.com/hook', 'must use http or https (got ftp)'],
    ['javascript:alert(1)', 'must use http or https (got javascript)'],
    ['file:///etc/passwd', 'must use http or https (got file)'],
    ['not a url', 'must be an absolute http:// or https:// URL'],
    ['/relative/path', 'must be an absolute http:// or https:// URL'],
    [
      'https://user:pass@hooks.example.com/',
      'must not contain a user name or password; verify the webhook signature instead',
    ],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('refuses %s', (url, message) => {
    expect(checkUrlShape(url)).toEqual({ ok: false, message });
  });

  it.each([
    'https://hooks.example.com/clarion',
    'http://hooks.example.com:8080/a?b=c',
    'https://[2606:4700:4700::1111]/x',
  ])('accepts %s', (url) => {
    expect(checkUrlShape(url)).toMatchObject({ ok: true });
  });
});

describe('outbound URL check at registration', () => {
  const resolve = fixed({
    'hooks.example.com': ['93.184.215.14', '2606:2800:220:1:248:1893:25c8:1946'],
    'internal.example.com': ['10.0.0.7'],
    'mixed.example.com': ['93.184.215.14', '127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
  });

  it.each([
    ['http://127.0.0.1/hook', 'refused: 127.0.0.1 is a loopback address (127.0.0.0/8)'],
    ['http://10.0.0.1/hook', 'refused: 10.0.0.1 is a private address (10.0.0.0/8)'],
    [
      'http://169.254.169.254/latest/meta-data/',
      'refused: 169.254.169.254 is a cloud metadata address (169.254.169.254/32)',
    ],
    ['http://[::1]:8080/', 'refused: ::1 is a loopback address (::1/128)'],
    ['http://[::ffff:127.0.0.1]/', 'refused: ::ffff:7f00:1 is a loopback address (127.0.0.0/8)'],
    ['http://2130706433/', 'refused: 127.0.0.1 is a loopback address (127.0.0.0/8)'],
    ['http://0x7f.1/', 'refused: 127.0.0.1 is a loopback address (127.0.0.0/8)'],
    [
      'https://internal.example.com/',
      'refused: internal.example.com resolves to 10.0.0.7 is a private address (10.0.0.0/8)',
    ],
    [
      'https://mixed.example.com/',
      'refused: mixed.example.com resolves to 127.0.0.1 is a loopback address (127.0.0.0/8)',
    ],
    [
      'https://metadata.example.com/',
      'refused: metadata.example.com resolves to 169.254.169.254 is a cloud metadata address (169.254.169.254/32)',
    ],
    [
      'https://mapped.example.com/',
      'refused: mapped.example.com resolves to ::ffff:127.0.0.1 is a loopback address (127.0.0.0/8)',
    ],
    ['https://nowhere.example.com/', 'the host nowhere.example.com does not resolve (ENOTFOUND)'],
  ])('refuses %s', async (url, message) => {
    const result = await checkOutboundUrl(url, strict(resolve));
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.message).toBe(
        message.startsWith('refused')
          ? `${message}; only public addresses are reached (the operator can allow private ones with CLARION_ALLOW_PRIVATE_ADDRESSES=true)`
          : message,
      );
  });

  it('refuses localhost, which the system resolver maps to loopback', async () => {
    const result = await checkOutboundUrl('http://localhost:3000/hook', strict(systemResolver));
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^refused: localhost resolves to (127\.0\.0\.1|::1) is a loopback address/),
    });
  });

  it('accepts a host whose every address is public', async () => {
    expect(await checkOutboundUrl('https://hooks.example.com/clarion', strict(resolve))).toMatchObject({ ok: true });
  });

  it('accepts anything http(s) when private webhooks are allowed, without resolving', async () => {
    const never: ResolveHost = async () => {
      throw new Error('must not resolve');
    };
    for (const url of ['http://127.0.0.1:9/', 'http://localhost/', 'http://[::1]/', 'http://unresolvable.invalid/']) {
      expect(await checkOutboundUrl(url, { allowPrivate: true, resolve: never })).toMatchObject({ ok: true });
    }
    expect(await checkOutboundUrl('ftp://x/', { allowPrivate: true, resolve: never })).toMatchObject({ ok: false });
  });
});

describe('guarded lookup at connect time', () => {
  const run = (resolve: ResolveHost, hostname: string, options: { all?: boolean; family?: number } = {}) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((done) =>
      guardedLookup(strict(resolve))(hostname, options as never, (error, address, family) =>
        done({ error, address, family }),
      ),
    );

  it('refuses a name that resolved to a public address at registration and resolves to loopback now (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding: ResolveHost = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    expect(await checkOutboundUrl('https://rebind.example.com/', strict(rebinding))).toMatchObject({ ok: true });
    const result = await run(rebinding, 'rebind.example.com');
    expect(result.error?.message).toMatch(
      /^refused: rebind\.example\.com resolves to 127\.0\.0\.1 is a loopback address/,
    );
    expect(result.error?.code).toBe('EADDRESSREFUSED');
  });

  it('hands the socket exactly the addresses it checked, one or all', async () => {
    const resolve = fixed({ 'hooks.example.com': ['93.184.215.14', '2606:2800:220:1:248:1893:25c8:1946'] });
    expect(await run(resolve, 'hooks.example.com')).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await run(resolve, 'hooks.example.com', { family: 6 })).toEqual({
      error: null,
      address: '2606:2800:220:1:248:1893:25c8:1946',
      family: 6,
    });
    expect((await run(resolve, 'hooks.example.com', { all: true })).address).toEqual([
      { address: '93.184.215.14', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
  });
});
