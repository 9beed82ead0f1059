import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalog } from '../../src/http/error-catalog.ts';
import { renderConfigurationDoc, renderErrorsDoc } from '../../src/docs/reference-docs.ts';

const read = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

describe('generated reference docs are in step with the code (run `npm run docs` to fix)', () => {
  it('docs/errors.md lists exactly the error catalog', () => {
    const doc = read('errors.md');
    expect(doc).toBe(renderErrorsDoc());
    const documented = [...doc.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((match) => [
      match[2],
      Number(match[1]),
    ]);
    expect(Object.fromEntries(documented)).toEqual(
      Object.fromEntries(Object.entries(errorCatalog).map(([code, entry]) => [code, entry.status])),
    );
  });

  it('docs/configuration.md lists exactly the declared options', () => {
    expect(read('configuration.md')).toBe(renderConfigurationDoc());
  });

  it('keeps the pinned error codes and statuses of docs/design.md 2.1', () => {
    expect(errorCatalog.validation_failed.status).toBe(400);
    expect(errorCatalog.unauthorized.status).toBe(401);
    expect(errorCatalog.channel_not_allowed.status).toBe(403);
    expect(errorCatalog.channel_not_found.status).toBe(404);
    expect(errorCatalog.quota_exceeded.status).toBe(429);
  });
});
