import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/domain/clock.ts';
import { FakeFcmDevices } from '../../tools/fakes/index.ts';
import { REGISTRATION_TOKEN, fcmFixture, tokenMessage } from './fcm-fixture.ts';

const TOKEN = 'device-1';

function devicesOn(clock: ManualClock) {
  const devices = new FakeFcmDevices(() => clock.now());
  let n = 0;
  const send = (android: Record<string, unknown> = {}, token = TOKEN) => {
    n += 1;
    devices.accept(token, `projects/p/messages/${n}`, { token, data: { n: String(n) }, android });
    return n;
  };
  const received = (token = TOKEN) =>
    devices.delivered(token).map((delivery) => Number((delivery.message.data as { n: string }).n));
  return { devices, send, received };
}

describe('fake FCM: what reaches the device', () => {
  it('throttles collapsible messages to a burst of 20 per app and device, then one every 3 minutes', () => {
    const clock = new ManualClock();
    const { devices, send, received } = devicesOn(clock);
    for (let i = 0; i < 25; i += 1) send({ collapse_key: 'score' });
    // The 21st to 25th share one key: only the newest of them is still held, and it waits for the refill.
    expect(received()).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(devices.pending(TOKEN)).toBe(1);
    clock.advance(3 * 60_000 - 1);
    expect(received()).toHaveLength(20);
    clock.advance(1);
    expect(received().at(-1)).toBe(25);
    expect(devices.delivered(TOKEN).at(-1)!.deliveredAt).toBe(clock.now());
  });

  it('keeps at most four collapse keys held for a device', () => {
    const clock = new ManualClock();
    const { devices, send, received } = devicesOn(clock);
    for (let i = 0; i < 20; i += 1) send({ collapse_key: 'warm-up' });
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) send({ collapse_key: key });
    expect(devices.pending(TOKEN)).toBe(4);
    clock.advance(60 * 60_000);
    // 'a' and 'b' were dropped; the four kept arrive as the throttle refills.
    expect(received().slice(20)).toEqual([23, 24, 25, 26]);
  });

  it('delivers every non-collapsible message at once, however many', () => {
    const clock = new ManualClock();
    const { send, received } = devicesOn(clock);
    for (let i = 0; i < 30; i += 1) send();
    expect(received()).toHaveLength(30);
  });

  it('holds messages for an offline device until their android.ttl (default 4 weeks) runs out', () => {
    const clock = new ManualClock();
    const { devices, send, received } = devicesOn(clock);
    devices.setOnline(TOKEN, false);
    send({ ttl: '3600s' });
    send();
    send({ ttl: '0s' });
    clock.advance(2 * 60 * 60_000);
    devices.setOnline(TOKEN, true);
    expect(received()).toEqual([2]);
  });

  it('discards all stored non-collapsible messages when an offline device has 100, and counts the notice', () => {
    const clock = new ManualClock();
    const { devices, send, received } = devicesOn(clock);
    devices.setOnline(TOKEN, false);
    for (let i = 0; i < 105; i += 1) send();
    devices.setOnline(TOKEN, true);
    expect(received()).toEqual([101, 102, 103, 104, 105]);
    expect(devices.deletedNotices(TOKEN)).toBe(1);
  });

  it('hands every message the server accepted to the device of its token', async () => {
    const clock = new ManualClock();
    const { send, fcm } = await fcmFixture({ clock });
    expect((await send(tokenMessage({ android: { collapse_key: 'k' } }))).status).toBe(200);
    expect((await send({ ...tokenMessage(), validate_only: true })).status).toBe(200);
    expect(fcm.devices.delivered(REGISTRATION_TOKEN)).toEqual([
      expect.objectContaining({
        name: fcm.requests[0]!.name,
        sentAt: clock.now(),
        deliveredAt: clock.now(),
        message: expect.objectContaining({ android: { collapse_key: 'k' } }),
      }),
    ]);
  });
});
