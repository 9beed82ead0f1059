import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, optionGiven } from '../../src/config/load-config.ts';
import { resolveSecretKey } from '../../src/config/secret-key.ts';

describe('optionGiven', () => {
  it('tells a value given in the environment or the config file from one left to its default', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'clarion-given-')), 'config.json');
    writeFileSync(file, JSON.stringify({ CLARION_HOST: '0.0.0.0' }));
    expect(optionGiven('CLARION_HOST', {})).toBe(false);
    expect(optionGiven('CLARION_HOST', { CLARION_HOST: '' })).toBe(false);
    expect(optionGiven('CLARION_HOST', { CLARION_HOST: '0.0.0.0' })).toBe(true);
    expect(optionGiven('CLARION_HOST', { CLARION_CONFIG_FILE: file })).toBe(true);
  });
});

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      baseUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      apnsUrl: 'https://api.push.apple.com',
      apnsSandboxUrl: 'https://api.sandbox.push.apple.com',
      fcmUrl: 'https://fcm.googleapis.com',
      allowPrivateAddresses: false,
      allowPrivateWebhooks: false,
      signup: 'closed',
      rateLimitPerSecond: 50,
      rateLimitBurst: 100,
    });
    expect(config.webhookRetrySchedule).toEqual([
      0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000,
    ]);
    // Standard Webhooks: time out after 15–30 s (docs/protocols.md 5).
    expect(config.webhookTimeout).toBe(15_000);
    expect(config.dataDir).toMatch(/\/data$/);
  });

  it.each([
    ['CLARION_PORT', 'abc', /CLARION_PORT: must be a TCP port/],
    ['CLARION_PORT', '70000', /CLARION_PORT/],
    ['CLARION_BASE_URL', 'not a url', /CLARION_BASE_URL: must be an absolute URL/],
    ['CLARION_ALLOW_PRIVATE_WEBHOOKS', 'yes', /CLARION_ALLOW_PRIVATE_WEBHOOKS: must be true or false/],
    ['CLARION_SIGNUP', 'maybe', /CLARION_SIGNUP: must be one of open, closed/],
    ['CLARION_WEBHOOK_RETRY_SCHEDULE', '5s,soon', /CLARION_WEBHOOK_RETRY_SCHEDULE: "soon" is not a duration/],
    ['CLARION_RATE_LIMIT_BURST', '0', /CLARION_RATE_LIMIT_BURST: must be at least 1/],
    ['CLARION_DATABASE_URL', 'mysql://x/y', /CLARION_DATABASE_URL must start with postgres/],
  ])('refuses %s=%s with a message naming the variable', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('reads a JSON config file, with the environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clarion-config-'));
    const file = join(dir, 'clarion.json');
    writeFileSync(file, JSON.stringify({ CLARION_PORT: 8080, CLARION_SIGNUP: 'closed' }));
    const config = loadConfig({ CLARION_CONFIG_FILE: file, CLARION_SIGNUP: 'open' });
    expect(config.port).toBe(8080);
    expect(config.signup).toBe('open');
  });

  it('refuses unknown keys in the config file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clarion-config-'));
    const file = join(dir, 'clarion.json');
    writeFileSync(file, JSON.stringify({ CLARION_PROT: 8080 }));
    expect(() => loadConfig({ CLARION_CONFIG_FILE: file })).toThrow(/unknown option CLARION_PROT/);
  });
});

describe('resolveSecretKey', () => {
  it('generates a key once into the data dir and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clarion-key-'));
    const first = resolveSecretKey(undefined, dir);
    expect(first).toHaveLength(32);
    expect(resolveSecretKey(undefined, dir).equals(first)).toBe(true);
  });

  it('takes CLARION_SECRET_KEY as hex or base64 and refuses other lengths', () => {
    const hex = 'ab'.repeat(32);
    expect(resolveSecretKey(hex, '/nonexistent').toString('hex')).toBe(hex);
    expect(resolveSecretKey(Buffer.alloc(32, 7).toString('base64'), '/nonexistent')).toEqual(Buffer.alloc(32, 7));
    expect(() => resolveSecretKey('short', '/nonexistent')).toThrow(/CLARION_SECRET_KEY: must be 32 bytes/);
  });
});
