import { describe, expect, it } from 'vitest';
import { alertStep } from '../../../src/domain/relays/alertmanager.ts';

const alert = (labels: Record<string, string>, annotations: Record<string, string> = {}) => ({
  status: 'firing' as const,
  labels: { alertname: 'HighLatency', ...labels },
  annotations,
  fingerprint: 'ABCDEF0123456789',
});

describe('Alertmanager alerts as steps of a status activity', () => {
  it.each([
    ['critical', 'error'],
    ['Page', 'error'],
    ['warning', 'warning'],
    ['info', 'warning'],
    ['', 'warning'],
  ])('reads severity %j as state %s', (severity, state) => {
    expect(alertStep(alert(severity ? { severity } : {})).start?.fields.state).toBe(state);
  });

  it('keys by the fingerprint in lower case, titles by name and instance, clips long text', () => {
    const step = alertStep(alert({ instance: 'api-1' }, { summary: 'x'.repeat(300) }));
    expect(step.key).toBe('alertmanager-abcdef0123456789');
    expect(step.start?.fields.title).toBe('HighLatency · api-1');
    const message = String(step.start?.fields.message);
    expect(Array.from(message)).toHaveLength(200);
    expect(message.endsWith('…')).toBe(true);
  });

  it('clears a message the alert no longer has, and ends a resolved alert as ok', () => {
    expect(alertStep(alert({})).change).toEqual({
      event: 'update',
      fields: { title: 'HighLatency', state: 'warning', message: null },
    });
    expect(alertStep({ ...alert({}, { summary: 'p99 800 ms' }), status: 'resolved' })).toMatchObject({
      start: null,
      change: { event: 'end', fields: { state: 'ok', message: 'Resolved: p99 800 ms' } },
    });
  });

  it('makes a key from the labels when there is no usable fingerprint, whatever their order', () => {
    const a = alertStep({ status: 'firing', labels: { alertname: 'A', instance: 'x' } });
    const b = alertStep({ status: 'firing', labels: { instance: 'x', alertname: 'A' }, fingerprint: 'not hex!' });
    expect(a.key).toMatch(/^alertmanager-[0-9a-f]{16}$/);
    expect(b.key).toBe(a.key);
  });
});
