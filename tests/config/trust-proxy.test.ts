import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

describe('CLARION_TRUST_PROXY', () => {
  it('is unset by default: X-Forwarded-* headers are believed from nobody', () => {
    expect(loadConfig({}).trustProxy).toBeUndefined();
  });

  it.each(['127.0.0.1', '10.0.0.0/8, ::1', 'loopback', 'loopback,uniquelocal,192.168.1.10'])('accepts %s', (value) => {
    expect(loadConfig({ CLARION_TRUST_PROXY: value }).trustProxy).toBe(value);
  });

  it.each(['yes', '10.0.0.0/abc', 'proxy.internal', '*'])('refuses %s with a message naming the variable', (value) => {
    expect(() => loadConfig({ CLARION_TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ CLARION_TRUST_PROXY: value })).toThrow(/CLARION_TRUST_PROXY/);
  });
});
