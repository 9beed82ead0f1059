import { describe, expect, it } from 'vitest';
import * as clientPackage from '../../packages/client/src/index.ts';
import type { ClientPackage } from '../../src/cli/client-package.ts';

/**
 * src/cli/client-package.ts writes out the part of the client package the CLI uses (src/ may not import packages/).
 * This assignment is the check that the real package fits it: `npx tsc --noEmit` fails here when they drift apart.
 */
const shaped: ClientPackage = clientPackage;

describe("the CLI's view of the client package", () => {
  it('is the package itself', () => {
    expect(shaped.createClarionClient).toBe(clientPackage.createClarionClient);
  });
});
