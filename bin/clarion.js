#!/usr/bin/env node
// The `clarion` command: the compiled build in dist/ when it is current, else the TypeScript sources through tsx
// (bin/entry-point.js says how it decides).
import { runEntryPoint } from './entry-point.js';

await runEntryPoint('cli/main');
