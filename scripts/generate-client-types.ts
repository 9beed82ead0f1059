// `npm run client:types`: rewrites the client package's types from the app's OpenAPI document (no server needed).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types.ts';

writeFileSync(CLIENT_TYPES_FILE, await renderClientTypes());
console.log(`wrote ${fileURLToPath(CLIENT_TYPES_FILE)}`);
