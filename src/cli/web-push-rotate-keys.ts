import type { Command } from 'commander';
import { resolveSecretKey } from '../config/secret-key.ts';
import { rotateVapidKeys } from '../delivery/web-push/vapid-keys.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

const WARNING =
  'Every browser subscribed with the current VAPID public key stops receiving pushes: push services refuse a message signed with another key, and Clarion then unsubscribes those browsers. They receive pushes again only after they subscribe anew (the web SDK does so when its page next loads).';

/**
 * `clarion web-push rotate-keys --yes`: a new VAPID key pair (docs/web-push.md, "Rotating the VAPID keys"). Explicit
 * and refused without --yes, because it cuts off every existing browser subscription. Keys given in configuration
 * (CLARION_VAPID_*) are the operator's to change there; this replaces the stored pair only.
 */
export function addWebPushRotateKeys(webPush: Command): void {
  webPush
    .command('rotate-keys')
    .description('replace the stored VAPID key pair; existing browser subscriptions stop working')
    .option('--yes', 'confirm: existing browser subscriptions stop working')
    .option('--json', 'print one JSON object')
    .action(async (options: { yes?: boolean; json?: boolean }) => {
      if (!options.yes) throw new CliError(`refusing without --yes. ${WARNING}`, 'confirmation_required');
      const publicKey = await withStore(async (store, config) => {
        if (config.vapidPublicKey || config.vapidPrivateKey) {
          throw new CliError(
            'the VAPID keys come from CLARION_VAPID_PUBLIC_KEY / CLARION_VAPID_PRIVATE_KEY: change them there',
            'validation_failed',
          );
        }
        return rotateVapidKeys(store.db, resolveSecretKey(config.secretKey, config.dataDir), Date.now());
      });
      printResult(options, { publicKey, warning: WARNING }, [
        `New VAPID public key: ${publicKey}`,
        '',
        `Warning: ${WARNING}`,
        'Restart the Clarion workers so they sign with the new key.',
      ]);
    });
}
