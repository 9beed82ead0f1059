import { createCipheriv, createECDH, randomBytes } from 'node:crypto';
import { decrypt as eceDecrypt, encrypt as eceEncrypt } from 'http_ece';
import { describe, expect, it } from 'vitest';
import {
  browserKeysFrom,
  createSimulatedBrowser,
  decryptWebPush,
  WebPushDecryptError,
} from '../../tools/fakes/index.ts';

const b64 = (text: string) => Buffer.from(text, 'base64url');

/** RFC 8291 Appendix A (docs/protocols.md 4.4). */
const VECTOR = {
  uaPrivate: b64('q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94'),
  authSecret: b64('BTBZMqHH6r4Tts7J_aSIgg'),
  body: b64(
    'DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN',
  ),
  cek: b64('oIhVW04MRdy2XN9CiKLxTg'),
  nonce: b64('4h_95klXJ5E_qnoN'),
};

describe("the fake browser's aes128gcm decryption (RFC 8291)", () => {
  it('decrypts the RFC 8291 Appendix A message', () => {
    const keys = browserKeysFrom(VECTOR.uaPrivate, VECTOR.authSecret);
    expect(VECTOR.body.length).toBe(144);
    expect(decryptWebPush(VECTOR.body, keys).toString('utf8')).toBe('When I grow up, I want to be a watermelon');
  });

  it("refuses a changed byte, another browser's keys, a foreign key id and a record that is not the last", () => {
    const keys = browserKeysFrom(VECTOR.uaPrivate, VECTOR.authSecret);
    const changed = Buffer.from(VECTOR.body);
    changed[120] = changed[120]! ^ 1;
    expect(() => decryptWebPush(changed, keys)).toThrow(WebPushDecryptError);
    expect(() => decryptWebPush(VECTOR.body, createSimulatedBrowser().keys)).toThrow(/does not decrypt/);
    const shortId = Buffer.concat([VECTOR.body.subarray(0, 20), Buffer.of(16), randomBytes(40)]);
    expect(() => decryptWebPush(shortId, keys)).toThrow(/65-byte sender public key/);
    // The same key and nonce as the vector, but the delimiter 0x01 (a non-last record, RFC 8188 §2).
    const cipher = createCipheriv('aes-128-gcm', VECTOR.cek, VECTOR.nonce);
    const record = Buffer.concat([
      cipher.update(Buffer.concat([Buffer.from('When I grow up, I want to be a watermelon'), Buffer.of(1)])),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    expect(() => decryptWebPush(Buffer.concat([VECTOR.body.subarray(0, 86), record]), keys)).toThrow(
      /delimiter is not 0x02/,
    );
  });

  it('agrees with an independent implementation (http_ece) both ways', () => {
    const browser = createSimulatedBrowser();
    const clear = Buffer.from(JSON.stringify({ title: 'Café ☕', body: 'x'.repeat(3000) }));
    const sender = createECDH('prime256v1');
    sender.generateKeys();
    const byEce = eceEncrypt(clear, {
      version: 'aes128gcm',
      dh: browser.p256dh,
      privateKey: sender,
      authSecret: browser.auth,
    });
    expect(browser.decrypt(byEce).equals(clear)).toBe(true);
    // …and http_ece, as the browser, reads the Appendix A message the same.
    const uaEcdh = createECDH('prime256v1');
    uaEcdh.setPrivateKey(VECTOR.uaPrivate);
    expect(
      eceDecrypt(VECTOR.body, { version: 'aes128gcm', privateKey: uaEcdh, authSecret: VECTOR.authSecret }).toString(),
    ).toBe('When I grow up, I want to be a watermelon');
  });
});
