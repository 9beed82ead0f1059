import { FakeApnsDevices } from './apns-devices.ts';
import type { ApnsEnvironment } from './apns-provider-token.ts';
import { startFakeApns, type FakeApns, type FakeApnsOptions } from './apns-server.ts';

/**
 * Apple's two APNs hosts as two fakes: `production` (api.push.apple.com) and `sandbox` (api.sandbox.push.apple.com),
 * with the same keys and topics and one registry of issued device tokens, so a token issued by one is refused by the
 * other with 400 BadDeviceToken, exactly what a debug build's token meets at the production host.
 */
export interface FakeApnsHosts {
  production: FakeApns;
  sandbox: FakeApns;
  devices: FakeApnsDevices;
  /** A device token issued by `environment`'s host. */
  issueToken(token: string, environment: ApnsEnvironment): void;
  close(): Promise<void>;
}

export async function startFakeApnsHosts(options: Omit<FakeApnsOptions, 'environment' | 'devices'> & { issuedTokensOnly?: boolean } = {}): Promise<FakeApnsHosts> {
  const { issuedTokensOnly, ...rest } = options;
  const devices = new FakeApnsDevices(issuedTokensOnly ?? false);
  const production = await startFakeApns({ ...rest, environment: 'production', devices });
  const sandbox = await startFakeApns({ ...rest, environment: 'sandbox', devices }).catch(async (error: unknown) => {
    await production.close();
    throw error;
  });
  return {
    production,
    sandbox,
    devices,
    issueToken: (token, environment) => devices.issue(token, environment),
    close: async () => {
      await Promise.all([production.close(), sandbox.close()]);
    },
  };
}
