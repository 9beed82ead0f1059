// `npm run docs`: rewrites the generated reference pages from the code.
import { writeFileSync } from 'node:fs';
import { renderConfigurationDoc, renderErrorsDoc } from '../src/docs/reference-docs.ts';

writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorsDoc());
writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigurationDoc());
console.log('wrote docs/errors.md and docs/configuration.md');
