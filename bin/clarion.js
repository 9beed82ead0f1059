#!/usr/bin/env node
// The `clarion` command. Clarion runs its TypeScript sources through tsx (esbuild), so there is no build step
// between `npm ci` and `npm start`.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
