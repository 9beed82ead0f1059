import type { Command } from 'commander';
import { resolveSecretKey } from '../config/secret-key.ts';
import { sealAppCredentials } from '../delivery/app-credentials.ts';
import { uploadedTokenUriPolicy } from '../delivery/fcm/fcm-token-uri.ts';
import { appView } from '../http/endpoints/apps/app-view.ts';
import { findApp, updateApp } from '../store/apps-queries.ts';
import {
  addAppCredentialOptions,
  credentialInput,
  credentialProblems,
  type AppCredentialOptions,
} from './app-credential-options.ts';
import { fingerprintLines } from './apps-create.ts';
import { CliError, printResult } from './cli-output.ts';
import { parseWholeNumber } from './cli-parse.ts';
import { MAX_THROTTLE_PER_MINUTE } from '../domain/limits.ts';
import { withStore } from './cli-store.ts';

/**
 * `clarion apps update`: rename an app, replace or remove a platform's credentials (replacing clears a failing status),
 * or set its default throttle.
 */
export function addAppsUpdate(apps: Command): void {
  addAppCredentialOptions(
    apps
      .command('update')
      .description('rename an app or replace its credentials')
      .requiredOption('--account <id>', 'account id (acc_…)')
      .requiredOption('--app <id>', 'app id (app_…)')
      .option('--name <name>', 'new display name'),
  )
    .option('--remove-ios', 'remove the iOS credentials')
    .option('--remove-android', 'remove the Android credentials')
    .option(
      '--throttle <per-minute|none>',
      'the throttlePerMinute of sends to its channels that give none; "none" removes it',
      // "none" stays a word: commander turns a parser's null into an empty string.
      (text: string): number | 'none' =>
        text === 'none' ? 'none' : parseWholeNumber('--throttle', text, 1, MAX_THROTTLE_PER_MINUTE),
    )
    .option('--json', 'print one JSON object')
    .action(
      async (
        options: AppCredentialOptions & {
          account: string;
          app: string;
          name?: string;
          removeIos?: boolean;
          removeAndroid?: boolean;
          throttle?: number | 'none';
          json?: boolean;
        },
      ) => {
        const name = options.name?.trim();
        if (name !== undefined && (name === '' || name.length > 100))
          throw new CliError('--name must be 1 to 100 characters', 'validation_failed');
        const input = credentialInput(options);
        if (options.removeIos) input.ios = null;
        if (options.removeAndroid) input.android = null;
        const app = await withStore(async (store, config) => {
          const existing = await findApp(store.db, options.account, options.app);
          if (!existing) throw new CliError(`no app ${options.app} in account ${options.account}`, 'not_found');
          const sealed = sealAppCredentials(
            resolveSecretKey(config.secretKey, config.dataDir),
            existing.id,
            input,
            false,
            uploadedTokenUriPolicy(config),
          );
          if (!sealed.ok) throw credentialProblems(sealed.problems);
          const replaced = Object.keys(sealed.columns).length > 0;
          return (await updateApp(store.db, options.account, existing.id, {
            ...sealed.columns,
            ...(name !== undefined ? { name } : {}),
            ...(options.throttle !== undefined
              ? { throttle_per_minute: options.throttle === 'none' ? null : options.throttle }
              : {}),
            ...(replaced
              ? { credentials_status: 'ok' as const, credentials_error: null, credentials_failed_at: null }
              : {}),
            updated_at: Date.now(),
          }))!;
        });
        const view = appView(app);
        printResult(options, view, [`Updated app ${app.name} (${app.id}).`, ...fingerprintLines(view)]);
      },
    );
}
