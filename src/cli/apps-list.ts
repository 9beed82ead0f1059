import type { Command } from 'commander';
import { appView } from '../http/endpoints/apps/app-view.ts';
import { listApps } from '../store/apps-queries.ts';
import { printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

/** `clarion apps list`: an account's apps with their fingerprints (never a private key). */
export function addAppsList(apps: Command): void {
  apps
    .command('list')
    .description("list an account's apps (fingerprints only)")
    .requiredOption('--account <id>', 'account id (acc_…)')
    .option('--json', 'print one JSON object')
    .action(async (options: { account: string; json?: boolean }) => {
      const rows = await withStore((store) =>
        listApps(store.db, { accountId: options.account, after: null, limit: 1_000 }),
      );
      const views = rows.map(appView);
      printResult(
        options,
        { apps: views },
        views.length === 0
          ? ['No apps: channels use the built-in default app (CLARION_APNS_*, CLARION_FCM_*).']
          : views.map(
              (app) =>
                `${app.id}  ${app.credentials.status.padEnd(7)}  ${app.ios?.bundleId ?? '-'}  ${app.android?.projectId ?? '-'}  ${app.name}`,
            ),
      );
    });
}
