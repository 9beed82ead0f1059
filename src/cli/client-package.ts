import { existsSync } from 'node:fs';
import { CliError } from './cli-output.ts';

/** The client package's compiled JavaScript (packages/client/tsconfig.build.json), from this module's place. */
const COMPILED = new URL('../../packages/client/dist/index.js', import.meta.url);
/** Its TypeScript sources, from this module's place: src/cli/ and a compiled dist/cli/ are both two levels down. */
const SOURCES = new URL('../../packages/client/src/index.ts', import.meta.url);

type Json = Record<string, unknown>;

/**
 * What the HTTP commands use of the client package (packages/client/src/index.ts), written out here because nothing
 * in src/ may import packages/, not even its types: a build of src/ alone would take the imported files into its
 * program and write their JavaScript beside them. tests/client/cli-client-shape.test.ts checks at compile time that
 * the real package fits this shape.
 */
export interface ClientPackage {
  createClarionClient(options: { baseUrl: string; apiKey: string }): CliClient;
  ClarionApiError: abstract new (...args: never[]) => ApiErrorLike;
  ClarionConnectionError: abstract new (...args: never[]) => ConnectionErrorLike;
}

/** No attempt got an answer (packages/client/src/clarion-connection-error.ts). */
export interface ConnectionErrorLike extends Error {
  timedOut: boolean;
  attempts: number;
}

export interface ApiErrorLike extends Error {
  status: number;
  code: string;
  requestId: string | null;
  details: Json | undefined;
}

export interface CliClient {
  send(notification: Json & { channelCode: string }, options?: { idempotencyKey?: string }): Promise<NotificationView>;
  startLiveActivity(
    activity: Json & { channelCode: string; template: string; fields: Json },
  ): Promise<LiveActivityView>;
  updateLiveActivity(id: string, update: Json & { fields: Json }): Promise<LiveActivityView>;
  endLiveActivity(id: string, end?: Json): Promise<LiveActivityView>;
  cancelLiveActivity(id: string): Promise<LiveActivityView>;
}

export type NotificationView = Json & {
  id: string;
  channelCode: string;
  status: string;
  recipientCount: number;
  sendAt: string | null;
};
export type LiveActivityView = Json & {
  id: string;
  template: string;
  status: string;
  recipientCount: number;
  sendAt: string | null;
  fields: Json;
};

/**
 * The client package, loaded when an HTTP command runs rather than when any `clarion` command starts.
 *
 * Run from the sources (tsx), it is imported as TypeScript like every other module. Run from a compiled build of
 * src/ (JavaScript), it cannot be: that build does not contain packages/, so this takes the package's own build
 * (`npx tsc -p packages/client/tsconfig.build.json` → packages/client/dist/) and, without one, its sources through
 * tsx, which is already a dependency. Loading it lazily also keeps every other command from failing or slowing down
 * when the package is missing.
 */
export async function loadClientPackage(): Promise<ClientPackage> {
  if (import.meta.url.endsWith('.ts')) return import(SOURCES.href);
  if (existsSync(COMPILED)) return import(COMPILED.href);
  if (!existsSync(SOURCES)) {
    throw new CliError(
      'the client package (packages/client) is missing from this installation: build it with `npx tsc -p packages/client/tsconfig.build.json`',
      'client_missing',
    );
  }
  const { register } = await import('tsx/esm/api');
  register();
  return import(SOURCES.href);
}
