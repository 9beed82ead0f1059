import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { findApiKeyByValue } from '../../../src/store/api-keys-queries.ts';
import { expectError } from '../../harness/api-expect.ts';
import { get } from '../../harness/requests.ts';
import { eventually } from '../../harness/wait-for.ts';
import { startTestApp } from '../../harness/test-app.ts';

describe('GET /readyz → 503 unavailable', () => {
  it('answers unavailable once the store is closed, while /healthz still answers', async () => {
    const t = await startTestApp();
    try {
      await t.newAccount(); // the store has been used (Kysely's destroy() is a no-op on a store that never ran a query)
      await t.store.close();
      const error = expectError(await get(t.app, '/readyz', null), 'unavailable');
      expect(error.message).toBe('Storage is unreachable.');
      expect((await get(t.app, '/healthz', null)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('answers unavailable to a request arriving while the server is closing (draining an open connection)', async () => {
    const t = await startTestApp();
    const account = await t.newAccount();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    const ended = new Promise((resolve) => socket.on('close', resolve));

    // Request 1 sends its headers but holds back its 2-byte body: the connection stays busy, so close() must drain it.
    socket.write(
      `POST /api/v1/subscribers/sub_x/unsubscribe HTTP/1.1\r\nHost: clarion\r\nAuthorization: Bearer ${account.publishableKey}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 13\r\n\r\n',
    );
    // Its auth hook has run once the key's last use is recorded.
    await eventually(async () =>
      expect((await findApiKeyByValue(t.store.db, account.publishableKey))?.last_used_at).not.toBeNull(),
    );

    const closed = t.app.close();
    await eventually(() => expect(t.app.server.listening).toBe(false));
    // Finish request 1 and pipeline request 2 behind it on the same connection.
    socket.write('{"token":"x"}GET /readyz HTTP/1.1\r\nHost: clarion\r\n\r\n');
    await ended;
    await closed;
    await t.close();

    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 404 /);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503 /);
    const body = JSON.parse(responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4));
    expect(body).toMatchObject({
      success: false,
      error: { code: 'unavailable', requestId: expect.stringMatching(/^req_/) },
    });
    expect(responses[1]).toMatch(new RegExp(`x-request-id: ${body.error.requestId}`, 'i'));
  });
});
