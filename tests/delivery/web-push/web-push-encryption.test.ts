import { createECDH } from 'node:crypto';
import { decrypt as eceDecrypt } from 'http_ece';
import { describe, expect, it } from 'vitest';
import { encryptWebPush, encryptWebPushWith } from '../../../src/delivery/web-push/web-push-encryption.ts';
import { createSimulatedBrowser, decryptWebPush } from '../../../tools/fakes/index.ts';

const b64 = (text: string) => Buffer.from(text, 'base64url');

describe('Web Push encryption (RFC 8291 aes128gcm)', () => {
  it('reproduces the RFC 8291 Appendix A message byte for byte from its keys and salt (docs/protocols.md 4.4)', () => {
    const sender = createECDH('prime256v1');
    sender.setPrivateKey(b64('yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw'));
    const body = encryptWebPushWith(
      Buffer.from('When I grow up, I want to be a watermelon'),
      {
        p256dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4',
        auth: 'BTBZMqHH6r4Tts7J_aSIgg',
      },
      sender,
      b64('DGv6ra1nlYgDCS1FRnbzlw'),
    );
    expect(body.toString('base64url')).toBe(
      'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
    );
  });

  it('makes a message the browser and an independent implementation (http_ece) both decrypt, fresh each time', () => {
    const browser = createSimulatedBrowser();
    const keys = { p256dh: browser.p256dh, auth: browser.auth };
    const clear = Buffer.from(JSON.stringify({ title: 'Café ☕', body: 'x'.repeat(3000) }));
    const first = encryptWebPush(clear, keys);
    expect(decryptWebPush(first, browser.keys).equals(clear)).toBe(true);
    expect(
      eceDecrypt(first, { version: 'aes128gcm', privateKey: browser.keys.ecdh, authSecret: browser.auth }).equals(
        clear,
      ),
    ).toBe(true);
    // A fresh key pair and salt per message: the same text never encrypts the same way twice.
    expect(encryptWebPush(clear, keys).subarray(0, 86).equals(first.subarray(0, 86))).toBe(false);
  });
});
