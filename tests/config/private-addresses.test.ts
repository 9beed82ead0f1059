import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { allowsPrivateAddresses } from '../../src/net/outbound-url-guard.ts';

describe('CLARION_ALLOW_PRIVATE_ADDRESSES (webhooks and Web Push endpoints)', () => {
  it.each([
    [{}, false],
    [{ CLARION_ALLOW_PRIVATE_ADDRESSES: 'true' }, true],
    [{ CLARION_ALLOW_PRIVATE_ADDRESSES: 'false' }, false],
    // The older name stays accepted and means the same.
    [{ CLARION_ALLOW_PRIVATE_WEBHOOKS: 'true' }, true],
    [{ CLARION_ALLOW_PRIVATE_ADDRESSES: 'false', CLARION_ALLOW_PRIVATE_WEBHOOKS: 'true' }, true],
  ])('%o → private addresses allowed: %s', (env, allowed) => {
    expect(allowsPrivateAddresses(loadConfig(env))).toBe(allowed);
  });
});
