#!/usr/bin/env node
// The `clarion` command: the compiled build in dist/ when it is current, else the TypeScript sources through tsx
// (bin/entry-point.js says how it decides), on a supported Node only (bin/node-version.js).
import { unsupportedNodeMessage } from './node-version.js';

const unsupported = unsupportedNodeMessage(process.versions.node);
if (unsupported) {
  console.error(unsupported);
  process.exit(1);
}
const { runEntryPoint } = await import('./entry-point.js');
await runEntryPoint('cli/main');
