import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import {
  generateWebhookSecret,
  signatureHeader,
  signWebhook,
  webhookHeaders,
  webhookSigningKey,
} from '../../src/webhooks/webhook-signature.ts';

// The Standard Webhooks test vector (libraries/javascript/src/webhook.test.ts; docs/protocols.md section 5).
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  messageId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampSeconds: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('Standard Webhooks signing', () => {
  it('matches the specification test vector', () => {
    expect(signWebhook(vector.secret, vector)).toBe(vector.signature);
  });

  it('agrees with the official library for fresh secrets and bodies', () => {
    for (let n = 0; n < 20; n += 1) {
      const secret = generateWebhookSecret();
      const body = JSON.stringify({ type: 'subscriber.created', n, text: 'ünïcode ✓' });
      const timestampSeconds = Math.floor(Date.now() / 1000);
      const headers = webhookHeaders([secret], { messageId: `msg_${n}`, timestampSeconds, body });
      expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
      expect(headers['webhook-signature']).toBe(
        new Webhook(secret).sign(`msg_${n}`, new Date(timestampSeconds * 1000), body),
      );
    }
  });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookSigningKey(secret)).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
  });

  it('signs with every secret during a rotation, space-separated, and either secret verifies', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const input = {
      messageId: 'msg_rotation',
      timestampSeconds: Math.floor(Date.now() / 1000),
      body: '{"type":"webhook.test"}',
    };
    const header = signatureHeader([current, previous], input);
    expect(header.split(' ')).toEqual([signWebhook(current, input), signWebhook(previous, input)]);
    const headers = {
      'webhook-id': input.messageId,
      'webhook-timestamp': String(input.timestampSeconds),
      'webhook-signature': header,
    };
    expect(new Webhook(current).verify(input.body, headers)).toEqual({ type: 'webhook.test' });
    expect(new Webhook(previous).verify(input.body, headers)).toEqual({ type: 'webhook.test' });
    expect(() => new Webhook(generateWebhookSecret()).verify(input.body, headers)).toThrow();
  });

  it('sets the three headers and the content type', () => {
    expect(webhookHeaders([vector.secret], vector)).toEqual({
      'content-type': 'application/json',
      'webhook-id': vector.messageId,
      'webhook-timestamp': '1614265330',
      'webhook-signature': vector.signature,
    });
  });
});
