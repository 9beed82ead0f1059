import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { switchJoinPage } from '../../harness/join-pages.ts';
import { startTestApp, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('GET /api/v1/channels/:code/join-qr-code → 200', () => {
  it("is an SVG QR code of the channel's join page address, which runs and loads nothing when opened alone", async () => {
    const account = await t.newAccount({ channels: ['news'] });
    const { joinUrl } = await switchJoinPage(t, account, 'news', true);
    const response = await t.app.inject({
      method: 'GET',
      url: '/api/v1/channels/news/join-qr-code',
      headers: { authorization: `Bearer ${account.secretKey}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/svg+xml');
    expect(response.headers['content-security-policy']).toBe("default-src 'none'");
    expect(response.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(response.body).not.toMatch(/<script|<foreignObject|href=/i);
    // The same modules the library draws for that address: the code says exactly the join page's URL.
    expect(response.body).toBe(await QRCode.toString(joinUrl, { type: 'svg', margin: 4, errorCorrectionLevel: 'M' }));
  });
});
