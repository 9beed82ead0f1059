import type { ApnsEnvironment } from './apns-provider-token.ts';

/**
 * The devices Apple has issued tokens to, and from which environment: a development build's token is issued by the
 * sandbox, an App Store / TestFlight build's by production, and each host answers 400 BadDeviceToken to a token of the
 * other environment (docs/protocols.md 1.5, "BadDeviceToken"). Shared by a sandbox and a production fake
 * (`startFakeApnsHosts`) so one test can hand out tokens of both kinds and watch Clarion find the right host.
 */
export class FakeApnsDevices {
  private readonly issued = new Map<string, ApnsEnvironment>();

  /**
   * @param issuedOnly true: a token no environment issued is refused by both hosts, as real APNs refuses a made-up
   *   token; false (default): such a token is accepted everywhere, as the fake did before it knew environments.
   */
  constructor(public issuedOnly = false) {}

  /** Issues `token` (hex, any case) from `environment`. */
  issue(token: string, environment: ApnsEnvironment): void {
    this.issued.set(token.toLowerCase(), environment);
  }

  forget(token: string): void {
    this.issued.delete(token.toLowerCase());
  }

  environmentOf(token: string): ApnsEnvironment | undefined {
    return this.issued.get(token.toLowerCase());
  }

  /** Whether the host of `environment` knows this token (and so does not answer BadDeviceToken). */
  knows(token: string, environment: ApnsEnvironment): boolean {
    const issuedBy = this.environmentOf(token);
    return issuedBy === undefined ? !this.issuedOnly : issuedBy === environment;
  }
}
