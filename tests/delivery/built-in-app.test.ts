import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.ts';
import { systemClock } from '../../src/domain/clock.ts';
import { builtInApp, createPushProviders } from '../../src/delivery/built-in-app.ts';
import { createApnsSigningKey } from '../../tools/fakes/fake-credentials.ts';
import { capturingLogger } from '../harness/captured-logs.ts';

const folder = mkdtempSync(join(tmpdir(), 'clarion-built-in-app-'));
const file = (name: string, text: string) => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};
const config = (env: Record<string, string> = {}) => loadConfig({ CLARION_DATA_DIR: folder, ...env });
const liveActivity = { liveActivityId: 'lva_x' } as never;

describe('the built-in app, synthesised from configuration', () => {
  it('without credentials fails every push of each platform loudly, saying what to set, and warns at start', async () => {
    const { logger, logs } = capturingLogger();
    const providers = createPushProviders(config(), systemClock, logger, null);
    expect(await providers.ios.send('a', {} as never, { channelCode: 'news' })).toMatchObject({
      kind: 'fatal',
      reason: 'apns_not_configured',
      fix: expect.stringContaining('CLARION_APNS_KEY_FILE'),
    });
    expect(await providers.android.sendLiveActivity('a', liveActivity, {} as never)).toMatchObject({
      kind: 'fatal',
      reason: 'fcm_not_configured',
    });
    expect(await providers.web.send('a', {} as never, { channelCode: 'news' })).toMatchObject({
      kind: 'fatal',
      reason: 'web_push_not_configured',
    });
    expect(logs.map((line) => line.msg)).toEqual([
      'APNs is not configured: iOS pushes will fail with apns_not_configured',
      'FCM is not configured: Android pushes will fail with fcm_not_configured',
    ]);
  });

  it('refuses to start with half the APNs variables, naming the missing ones', () => {
    const { logger } = capturingLogger();
    expect(() =>
      builtInApp(config({ CLARION_APNS_KEY_ID: 'ABC1234567', CLARION_APNS_TOPIC: 'com.example.app' }), logger, null),
    ).toThrow(/missing CLARION_APNS_KEY_FILE, CLARION_APNS_TEAM_ID/);
  });

  it('refuses to start with a key file or service account that does not read, naming the variable', () => {
    const { logger } = capturingLogger();
    const apns = {
      CLARION_APNS_KEY_FILE: file('not-a-key.p8', 'hello'),
      CLARION_APNS_KEY_ID: 'ABC1234567',
      CLARION_APNS_TEAM_ID: 'TEAM123456',
      CLARION_APNS_TOPIC: 'com.example.app',
    };
    expect(() => builtInApp(config(apns), logger, null)).toThrow(/CLARION_APNS_KEY_FILE/);
    expect(() =>
      builtInApp(config({ CLARION_FCM_SERVICE_ACCOUNT_FILE: file('account.json', '{}') }), logger, null),
    ).toThrow(/CLARION_FCM_SERVICE_ACCOUNT_FILE/);
  });

  it('with APNs credentials: iOS pools counted for metrics (none open before a push), broadcasts for its topic', async () => {
    const key = createApnsSigningKey();
    const { logger } = capturingLogger();
    const providers = createPushProviders(
      config({
        CLARION_APNS_KEY_FILE: file('key.p8', key.privateKeyPem),
        CLARION_APNS_KEY_ID: key.keyId,
        CLARION_APNS_TEAM_ID: key.teamId,
        CLARION_APNS_TOPIC: 'com.example.app',
      }),
      systemClock,
      logger,
      null,
    );
    expect(providers.ios.stats?.()).toEqual({ sessions: 0, activeStreams: 0, queued: 0 });
    expect(providers.ios.liveActivityBroadcast).toMatchObject({ topic: 'com.example.app' });
    await providers.ios.close();
  });
});
