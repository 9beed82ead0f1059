import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { ClarionApp } from '../../../src/http/app-types.ts';
import {
  reportLiveActivityTokens,
  type ApnsRequestRecord,
  type FakeLiveActivity,
  type FcmSendRecord,
  type TokenReporter,
} from '../../../tools/fakes/index.ts';
import { post } from '../../harness/requests.ts';
import type { TestAccount } from '../../harness/test-app.ts';
import { waitFor } from '../../harness/wait-for.ts';
import { startDeliveryHarness, type DeliveryHarness } from '../engine/delivery-harness.ts';

/**
 * The delivery harness (API + worker + fake APNs/FCM on one ManualClock) plus the iOS app's part: every update token
 * the fake's devices are given is reported back through POST /live-activities/{id}/tokens with the device's
 * publishable key (tools/fakes/apns/apns-live-activity-reporter.ts), over inject().
 */
export interface LiveActivityHarness extends DeliveryHarness {
  reporter: TokenReporter;
  /**
   * An iOS device registered with a push-to-start token (none with `pushToStartToken: false`), reported for
   * `template` when given (else untemplated), and with `osVersion` and `locale` when given.
   */
  iosDevice(
    account: TestAccount,
    channelCode: string,
    options?: { pushToStartToken?: boolean; template?: string; osVersion?: string; locale?: string },
  ): Promise<IosDevice>;
  /** The device reports one more push-to-start token, for `template` (iOS issues one per ActivityAttributes type). */
  addPushToStartToken(account: TestAccount, channelCode: string, device: IosDevice, template: string): Promise<string>;
  androidDevice(
    account: TestAccount,
    channelCode: string,
    options?: { locale?: string },
  ): Promise<{ subscriberId: string; token: string }>;
  /** Waits until no Live Activity job is due or running (the 8-hour expiry, due later, does not count). */
  settle(): Promise<void>;
  /** The activity the fake started on this device for this Clarion activity. */
  deviceActivity(device: IosDevice, liveActivityId: string): Promise<FakeLiveActivity>;
  apnsPushes(token: string): ApnsRequestRecord[];
  fcmPushes(token: string): FcmSendRecord[];
}

export interface IosDevice {
  subscriberId: string;
  token: string;
  /** The token it registered with (untemplated, or for the `template` it was registered with). */
  pushToStartToken: string | null;
  osVersion: string | null;
}

/** `options` go to the delivery harness (e.g. `apns: { environment: 'production' }` for a production fake host). */
export async function startLiveActivityHarness(
  options: Parameters<typeof startDeliveryHarness>[0] = {},
): Promise<LiveActivityHarness> {
  // A database of its own on PostgreSQL: these tests move their clock (8 hours, Retry-After), and on the shared one
  // other files' workers would claim these jobs and push them to their own fakes, and this worker theirs.
  const h = await startDeliveryHarness({ ...options, isolatedDatabase: true });
  const devices = new Map<string, { subscriberId: string; deviceToken: string; publishableKey: string }>();
  const reporter = reportLiveActivityTokens(h.apns.liveActivities, {
    deviceFor: (token) => devices.get(token),
    post: injectPoster(h.app),
  });

  const register = async (account: TestAccount, body: Record<string, unknown>) => {
    const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, body);
    expect(response.statusCode).toBe(201);
    return response.body.data.id as string;
  };

  return {
    ...h,
    reporter,
    async iosDevice(account, channelCode, options = {}) {
      const token = randomBytes(32).toString('hex');
      const pushToStartToken = options.pushToStartToken === false ? null : randomBytes(40).toString('hex');
      const subscriberId = await register(account, {
        channelCode,
        platform: 'ios',
        token,
        ...(pushToStartToken ? { pushToStartToken } : {}),
        ...(options.template ? { template: options.template } : {}),
        ...(options.osVersion ? { osVersion: options.osVersion } : {}),
        ...(options.locale ? { locale: options.locale } : {}),
      });
      if (pushToStartToken)
        devices.set(pushToStartToken, { subscriberId, deviceToken: token, publishableKey: account.publishableKey });
      return { subscriberId, token, pushToStartToken, osVersion: options.osVersion ?? null };
    },
    async addPushToStartToken(account, channelCode, device, template) {
      const pushToStartToken = randomBytes(40).toString('hex');
      const response = await post(h.app, '/api/v1/subscribers', account.publishableKey, {
        channelCode,
        platform: 'ios',
        token: device.token,
        pushToStartToken,
        template,
        ...(device.osVersion ? { osVersion: device.osVersion } : {}),
      });
      expect(response.statusCode).toBe(200);
      devices.set(pushToStartToken, {
        subscriberId: device.subscriberId,
        deviceToken: device.token,
        publishableKey: account.publishableKey,
      });
      return pushToStartToken;
    },
    async androidDevice(account, channelCode, options = {}) {
      const token = `fcm-${randomBytes(24).toString('base64url')}`;
      const locale = options.locale ? { locale: options.locale } : {};
      return { subscriberId: await register(account, { channelCode, platform: 'android', token, ...locale }), token };
    },
    async settle() {
      await waitFor(
        async () => {
          const busy = await h.store.db
            .selectFrom('jobs')
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('kind', 'like', 'live_activity.%')
            .where((eb) =>
              eb.or([
                eb('state', '=', 'running'),
                eb.and([eb('state', '=', 'available'), eb('run_at', '<=', h.clock.now())]),
              ]),
            )
            .executeTakeFirstOrThrow();
          await reporter.settled();
          return Number(busy.count) === 0;
        },
        15_000,
        'the Live Activity jobs to finish',
      );
    },
    async deviceActivity(device, liveActivityId) {
      let found: FakeLiveActivity | undefined;
      await waitFor(
        () => {
          found = h.apns.liveActivities.find(
            (activity) =>
              activity.pushToStartToken === device.pushToStartToken &&
              activity.attributes.activityId === liveActivityId,
          );
          return found !== undefined;
        },
        15_000,
        `the fake device to start ${liveActivityId}`,
      );
      return found!;
    },
    apnsPushes: (token) => h.apns.requests.filter((request) => request.token === token.toLowerCase()),
    fcmPushes: (token) => h.fcm.requests.filter((request) => request.target?.value === token),
    async close() {
      reporter.stop();
      await reporter.settled();
      await h.close();
    },
  };
}

function injectPoster(app: ClarionApp) {
  return async (path: string, body: unknown, headers: Record<string, string>) => {
    const response = await app.inject({ method: 'POST', url: path, headers, payload: JSON.stringify(body) });
    return { status: response.statusCode };
  };
}
