import { configOptions, type OptionDeclaration } from '../config/config-options.ts';
import { errorCatalog, errorCodes } from '../http/error-catalog.ts';

/**
 * docs/errors.md and docs/configuration.md are generated from the error catalog and the option list, so the
 * docs cannot drift from the code: `npm run docs` rewrites them and tests/docs fails when they differ.
 */
export function renderErrorsDoc(): string {
  const rows = errorCodes.map((code) => {
    const entry = errorCatalog[code];
    return `| ${entry.status} | \`${code}\` | ${entry.message} | ${entry.when} |`;
  });
  return [
    '# Errors',
    '',
    '<!-- Generated from src/http/error-catalog.ts by `npm run docs`; a test fails when this file is out of date. -->',
    '',
    'Every error has the same envelope, and every response carries an `X-Request-Id` header equal to `error.requestId`:',
    '',
    '```json',
    '{"success": false, "error": {"code": "validation_failed", "message": "Some fields are missing or wrong.",',
    '  "details": {"fields": [{"field": "fields.progress", "message": "progress is a fraction from 0 to 1: send 0.45 for 45 %"}]},',
    '  "requestId": "req_01j…"}}',
    '```',
    '',
    'Codes are stable: a code is never renamed, only added. The `message` is for people and may change.',
    'A 5xx never says why; the cause is logged with the request id.',
    '',
    '| status | code | default message | when |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

export function renderConfigurationDoc(): string {
  const rows = (configOptions as readonly OptionDeclaration[]).map((option) => {
    const values = option.values ? ` One of: ${option.values.map((value) => `\`${value}\``).join(', ')}.` : '';
    const range = option.min !== undefined ? ` From ${option.min} to ${option.max}.` : '';
    const fallback = option.default === undefined ? '(none)' : `\`${option.default}\``;
    return `| \`${option.env}\` | ${fallback} | ${option.description}${values}${range} |`;
  });
  return [
    '# Configuration',
    '',
    '<!-- Generated from src/config/config-options.ts by `npm run docs`; a test fails when this file is out of date. -->',
    '',
    'Clarion reads its options from environment variables. Optionally, `CLARION_CONFIG_FILE` names a JSON file',
    'whose keys are the same variable names (`{"CLARION_PORT": 8080}`); a variable set in the environment wins',
    'over the file. Every value is checked at start: a bad one stops start-up with a message naming the variable.',
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
    ...rows,
    '| `NODE_EXTRA_CA_CERTS` | (none) | Standard Node.js variable: extra CA certificates to trust. How tests and demos trust the local fake APNs/FCM servers. |',
    '',
  ].join('\n');
}
