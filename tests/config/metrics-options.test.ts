import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.ts';

describe('metrics options', () => {
  it('are off by default: no token, no separate port; the port binds to 127.0.0.1 when given', () => {
    const config = loadConfig({});
    expect(config.metricsToken).toBeUndefined();
    expect(config.metricsPort).toBeUndefined();
    expect(config.metricsHost).toBe('127.0.0.1');
    expect(loadConfig({ CLARION_METRICS_PORT: '9464', CLARION_METRICS_HOST: '0.0.0.0' })).toMatchObject({
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
    });
  });

  it('refuses a short token without echoing it, and a port that is not one', () => {
    expect(() => loadConfig({ CLARION_METRICS_TOKEN: 'short-secret' })).toThrow(ConfigError);
    expect(() => loadConfig({ CLARION_METRICS_TOKEN: 'short-secret' })).toThrow(
      /^CLARION_METRICS_TOKEN must be at least 16 characters .*has 12$/,
    );
    try {
      loadConfig({ CLARION_METRICS_TOKEN: 'short-secret' });
    } catch (error) {
      expect((error as Error).message).not.toContain('short-secret');
    }
    expect(loadConfig({ CLARION_METRICS_TOKEN: 'a'.repeat(16) }).metricsToken).toBe('a'.repeat(16));
    expect(() => loadConfig({ CLARION_METRICS_PORT: '70000' })).toThrow(/^CLARION_METRICS_PORT: must be a TCP port/);
  });
});
