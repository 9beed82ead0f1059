import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../src/domain/ids.ts';
import { expectError, expectValidation } from '../../harness/api-expect.ts';
import { FOREIGN_PAYLOAD_ROUTES, routeCases } from '../../harness/api-routes.ts';
import {
  GOOD_PASSWORD,
  randomEmail,
  randomIp,
  sessionCall,
  signUp,
  type DashboardSession,
} from '../../harness/dashboard-session.ts';
import { loadOperations, propertyPaths, withValueAt, type Operation } from '../../harness/openapi-operations.ts';
import { unreadableBecause } from '../../harness/readable-message.ts';
import { get, post } from '../../harness/requests.ts';
import { startTestApp, type TestAccount, type TestApp } from '../../harness/test-app.ts';

let t: TestApp;
let account: TestAccount;
let user: DashboardSession;
beforeAll(async () => {
  t = await startTestApp();
  account = await t.newAccount({ channels: ['news'] });
  user = await signUp(t);
});
afterAll(async () => t.close());

describe('validation messages read well', () => {
  it.each([
    [
      'priority "HIGH"',
      '/api/v1/notifications',
      { channelCode: 'news', title: 'x', priority: 'HIGH' },
      'priority',
      'must be one of: normal, high',
    ],
    [
      'priority 5',
      '/api/v1/notifications',
      { channelCode: 'news', title: 'x', priority: 5 },
      'priority',
      'must be one of: normal, high',
    ],
    [
      'a platform that is not one',
      '/api/v1/subscribers',
      { channelCode: 'news', platform: 'blackberry', token: 'x' },
      'platform',
      'must be one of: ios, android, web',
    ],
    [
      'a channel code with a space',
      '/api/v1/channels',
      { code: 'BAD CODE' },
      'code',
      'must be a channel code of 1 to 64 characters: lower-case letters, digits, "_" and "-", starting with a letter or digit',
    ],
    [
      'a title of the wrong type',
      '/api/v1/notifications',
      { channelCode: 'news', title: 5 },
      'title',
      'must be a string',
    ],
    [
      'an unknown field',
      '/api/v1/notifications',
      { channelCode: 'news', title: 'x', colour: 'red' },
      'colour',
      'is not a known field',
    ],
    [
      'a template that is not one',
      '/api/v1/live-activities',
      { channelCode: 'news', template: 'bar', fields: {} },
      'template',
      'must be one of: progress, timer, score, steps, metrics, status',
    ],
  ])('%s', async (_name, url, body, field, message) => {
    expect(expectValidation(await post(t.app, url, account.secretKey, body), [field])).toEqual([{ field, message }]);
  });

  it('every body field of every route, given a wrong value, answers in words that read well', async () => {
    const operations = (await loadOperations(t.app)).filter(
      (operation) =>
        operation.body !== undefined && !FOREIGN_PAYLOAD_ROUTES.has(`${operation.method} ${operation.path}`),
    );
    expect(operations.length).toBeGreaterThan(10);
    const wrongValues: unknown[] = [42, 'HIGH', true, null, [], {}, '', -1.5, { a: { b: { c: [1] } } }];
    const unreadable: string[] = [];
    let validationErrors = 0;
    for (const operation of operations) {
      const base = baseBody(operation);
      const paths = propertyPaths(operation.body);
      expect(paths.length, `${operation.method} ${operation.path} has fields`).toBeGreaterThan(0);
      for (const { path } of paths) {
        for (const value of wrongValues) {
          const response = await call(operation, withValueAt(base, path, value));
          expect(
            response.statusCode,
            `${operation.method} ${operation.path} ${path.join('.')}=${JSON.stringify(value)}`,
          ).toBeLessThan(500);
          if (response.body?.error?.code !== 'validation_failed') continue;
          validationErrors += 1;
          for (const problem of expectError(response, 'validation_failed').details.fields) {
            const why = unreadableBecause(problem.message);
            if (why)
              unreadable.push(`${operation.method} ${operation.path} ${problem.field}: "${problem.message}" ${why}`);
          }
        }
      }
    }
    expect(validationErrors).toBeGreaterThan(100);
    expect([...new Set(unreadable)]).toEqual([]);
  });

  it('every query parameter of every route, given a wrong value, answers in words that read well', async () => {
    const operations = (await loadOperations(t.app)).filter((operation) => operation.queryParams.length > 0);
    expect(operations.length).toBeGreaterThan(3);
    const unreadable: string[] = [];
    for (const operation of operations) {
      const path = operation.path.replace(/\{(\w+)\}/g, () => newId('notification'));
      for (const { name } of operation.queryParams) {
        for (const value of ['HIGH', '-1', '1.5', '0', 'x'.repeat(300), '', '%00', 'true']) {
          const url = `${path}?${name}=${encodeURIComponent(value)}`;
          const response =
            operation.auth === 'session'
              ? await sessionCall(t, 'GET', url, user)
              : await get(t.app, url, account.secretKey);
          expect(response.statusCode, `${operation.method} ${url}`).toBeLessThan(500);
          if (response.body?.error?.code !== 'validation_failed') continue;
          for (const problem of expectError(response, 'validation_failed').details.fields) {
            const why = unreadableBecause(problem.message);
            if (why)
              unreadable.push(`${operation.method} ${operation.path} ${problem.field}: "${problem.message}" ${why}`);
          }
        }
      }
    }
    expect([...new Set(unreadable)]).toEqual([]);
  });
});

/** A valid body where the harness knows one (so only the changed field is wrong), else an empty object. */
function baseBody(operation: Operation): unknown {
  const url = operation.path.replace(/\{(\w+)\}/g, ':$1');
  const known = routeCases('news').find((route) => route.method === operation.method && route.url === url)?.body;
  if (known !== undefined) return known;
  if (url === '/api/v1/auth/signup' || url === '/api/v1/auth/signin')
    return { email: randomEmail(), password: GOOD_PASSWORD };
  if (url === '/api/v1/keys') return { name: 'walk' };
  return {};
}

function call(operation: Operation, body: unknown) {
  const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) =>
    name === 'code' ? 'news' : newId('liveActivity'),
  );
  if (operation.auth === 'key') {
    return post(t.app, path, account.secretKey, body);
  }
  return sessionCall(t, 'POST', path, operation.auth === 'session' ? user : null, { body, ip: randomIp() });
}
