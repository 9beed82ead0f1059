import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.ts';
import {
  mintLiveActivityReceipt,
  mintReceipt,
  openReceipt,
  RECEIPT_LENGTH,
  receiptKey,
} from '../../src/domain/receipt.ts';

/**
 * Receipts (src/domain/receipt.ts): bound to one notification (or Live Activity) and one subscriber, unforgeable without
 * the key.
 */
const key = receiptKey(Buffer.alloc(32, 1));
const notificationId = newId('notification');
const subscriberId = newId('subscriber');

describe('receipts', () => {
  it('open to the pair they were made for', () => {
    const receipt = mintReceipt(key, notificationId, subscriberId);
    expect(receipt).toHaveLength(RECEIPT_LENGTH);
    expect(receipt).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(openReceipt(key, receipt)).toEqual({ kind: 'notification', notificationId, subscriberId });
  });

  it("of a Live Activity open to its activity, and never as a notification's", () => {
    const liveActivityId = newId('liveActivity');
    const receipt = mintLiveActivityReceipt(key, liveActivityId, subscriberId);
    expect(receipt).toHaveLength(RECEIPT_LENGTH);
    expect(openReceipt(key, receipt)).toEqual({ kind: 'liveActivity', liveActivityId, subscriberId });
    // The kind is signed: the same ids under the other kind's letter do not open.
    expect(openReceipt(key, `n${receipt.slice(1)}`)).toBeNull();
    expect(openReceipt(key, `a${mintReceipt(key, notificationId, subscriberId).slice(1)}`)).toBeNull();
  });

  it('do not open when altered anywhere, truncated, extended or made with another key', () => {
    const receipt = mintReceipt(key, notificationId, subscriberId);
    for (let at = 0; at < receipt.length; at += 1) {
      const swapped = receipt[at] === 'a' ? 'b' : 'a';
      expect(openReceipt(key, `${receipt.slice(0, at)}${swapped}${receipt.slice(at + 1)}`)).toBeNull();
    }
    expect(openReceipt(key, receipt.slice(0, -1))).toBeNull();
    expect(openReceipt(key, `${receipt}A`)).toBeNull();
    expect(openReceipt(receiptKey(Buffer.alloc(32, 2)), receipt)).toBeNull();
  });

  it('use a key of their own, not the instance key itself', () => {
    const instanceKey = Buffer.alloc(32, 1);
    expect(receiptKey(instanceKey).equals(instanceKey)).toBe(false);
    expect(receiptKey(instanceKey)).toHaveLength(32);
  });
});
