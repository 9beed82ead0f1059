import type { Command } from 'commander';
import { resolveSecretKey } from '../config/secret-key.ts';
import { sealAppCredentials } from '../delivery/app-credentials.ts';
import { uploadedTokenUriPolicy } from '../delivery/fcm/fcm-token-uri.ts';
import { newId } from '../domain/ids.ts';
import { appView } from '../http/endpoints/apps/app-view.ts';
import { findAccount } from '../store/accounts-queries.ts';
import { insertApp } from '../store/apps-queries.ts';
import {
  addAppCredentialOptions,
  credentialInput,
  credentialProblems,
  type AppCredentialOptions,
} from './app-credential-options.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

/** `clarion apps create`: an app with the account's own credentials (docs/apps.md); prints fingerprints only. */
export function addAppsCreate(apps: Command): void {
  addAppCredentialOptions(
    apps
      .command('create')
      .description("create an app with an account's own iOS, Android and web credentials")
      .requiredOption('--account <id>', 'account id (acc_…)')
      .requiredOption('--name <name>', 'display name'),
  )
    .option('--json', 'print one JSON object')
    .action(async (options: AppCredentialOptions & { account: string; name: string; json?: boolean }) => {
      const name = options.name.trim();
      if (name === '' || name.length > 100)
        throw new CliError('--name must be 1 to 100 characters', 'validation_failed');
      const input = credentialInput(options);
      const app = await withStore(async (store, config) => {
        if (!(await findAccount(store.db, options.account)))
          throw new CliError(`no account ${options.account}`, 'not_found');
        const now = Date.now();
        const id = newId('app', now);
        const sealed = sealAppCredentials(
          resolveSecretKey(config.secretKey, config.dataDir),
          id,
          input,
          true,
          uploadedTokenUriPolicy(config),
        );
        if (!sealed.ok) throw credentialProblems(sealed.problems);
        return insertApp(store.db, { id, accountId: options.account, name, sealed: sealed.columns, now });
      });
      const view = appView(app);
      printResult(options, view, [`Created app ${app.name} (${app.id}).`, ...fingerprintLines(view)]);
    });
}

export function fingerprintLines(view: ReturnType<typeof appView>): string[] {
  return [
    `  iOS:     ${view.ios ? `key ${view.ios.keyId}, team ${view.ios.teamId}, bundle ${view.ios.bundleId}` : 'none'}`,
    `  Android: ${view.android ? `project ${view.android.projectId} (${view.android.clientEmail})` : 'none'}`,
    `  Web:     VAPID public key ${view.web.vapidPublicKey}`,
    `  Credentials: ${view.credentials.status}${view.credentials.error ? ` (${view.credentials.error})` : ''}`,
  ];
}
