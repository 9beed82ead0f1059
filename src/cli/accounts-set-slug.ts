import type { Command } from 'commander';
import { ACCOUNT_SLUG_PATTERN, isAccountSlug } from '../domain/account-slug.ts';
import { isUniqueViolation } from '../store/store-errors.ts';
import { CliError, printResult } from './cli-output.ts';
import { withStore } from './cli-store.ts';

/**
 * The account's slug, the first part of its join pages' address (/join/{slug}/{channelCode}, docs/web-push.md).
 * New accounts get one from their name and older ones the random part of their id; this picks a better one. The old
 * addresses (shared links, printed QR codes) answer 404 from then on, which the output says.
 */
export function addAccountsSetSlug(accounts: Command): void {
  accounts
    .command('set-slug')
    .description('set the name the account has in its public join page addresses (/join/<slug>/<channel>)')
    .requiredOption('--account <id>', 'account id (acc_…)')
    .requiredOption(
      '--slug <slug>',
      'lower-case letters, digits and "-", starting with a letter or digit, at most 63 long',
    )
    .option('--json', 'print one JSON object')
    .action(async (options: { account: string; slug: string; json?: boolean }) => {
      if (!isAccountSlug(options.slug))
        throw new CliError(
          `--slug must match ${ACCOUNT_SLUG_PATTERN}: lower-case letters, digits and "-", like acme-news`,
          'validation_failed',
        );
      const result = await withStore(async (store) => {
        const before = await store.db
          .selectFrom('accounts')
          .select('slug')
          .where('id', '=', options.account)
          .executeTakeFirst();
        if (!before) return undefined;
        try {
          const account = await store.db
            .updateTable('accounts')
            .set({ slug: options.slug })
            .where('id', '=', options.account)
            .returningAll()
            .executeTakeFirstOrThrow();
          return { account, previous: before.slug };
        } catch (error) {
          if (isUniqueViolation(error))
            throw new CliError(`the slug "${options.slug}" is taken by another account`, 'conflict');
          throw error;
        }
      });
      if (!result) throw new CliError(`no account ${options.account}`, 'not_found');
      const { account, previous } = result;
      const changed = previous !== account.slug;
      printResult(options, { id: account.id, name: account.name, slug: account.slug, previousSlug: previous }, [
        `Account ${account.id} has the slug ${account.slug}: its join pages are at /join/${account.slug}/<channel code>.`,
        ...(changed
          ? [`Addresses under /join/${previous}/ no longer work: share the new links and print new QR codes.`]
          : []),
      ]);
    });
}
