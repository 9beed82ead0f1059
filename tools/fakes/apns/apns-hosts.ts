import { FakeApnsDevices } from './apns-devices.ts';
import { FakeApnsKeyTokens, type ApnsEnvironment } from './apns-provider-token.ts';
import { startFakeApns, type FakeApns, type FakeApnsOptions } from './apns-server.ts';

/**
 * Apple's two APNs hosts as two fakes: `production` (api.push.apple.com) and `sandbox` (api.sandbox.push.apple.com),
 * with the same keys and topics and one registry of issued device tokens, so a token issued by one is refused by the
 * other with 400 BadDeviceToken, exactly what a debug build's token meets at the production host. They also share each
 * key's current provider token: Apple's 20-minute refresh rule is the key's, not a host's.
 */
export interface FakeApnsHosts {
  production: FakeApns;
  sandbox: FakeApns;
  devices: FakeApnsDevices;
  /** A device token issued by `environment`'s host. */
  issueToken(token: string, environment: ApnsEnvironment): void;
  close(): Promise<void>;
}

export async function startFakeApnsHosts(
  options: Omit<FakeApnsOptions, 'environment' | 'devices' | 'keyTokens'> & { issuedTokensOnly?: boolean } = {},
): Promise<FakeApnsHosts> {
  const { issuedTokensOnly, ...rest } = options;
  const devices = new FakeApnsDevices(issuedTokensOnly ?? false);
  const keyTokens = new FakeApnsKeyTokens();
  const production = await startFakeApns({ ...rest, environment: 'production', devices, keyTokens });
  const sandbox = await startFakeApns({ ...rest, environment: 'sandbox', devices, keyTokens }).catch(
    async (error: unknown) => {
      await production.close();
      throw error;
    },
  );
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
