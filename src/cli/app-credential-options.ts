import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { AppCredentialsInput } from '../delivery/app-credentials.ts';
import type { FieldProblem } from '../domain/schema-errors.ts';
import { CliError } from './cli-output.ts';

/** The credential options shared by `clarion apps create` and `clarion apps update` (docs/cli.md). */
export interface AppCredentialOptions {
  apnsKeyFile?: string;
  apnsKeyId?: string;
  apnsTeamId?: string;
  apnsTopic?: string;
  fcmServiceAccountFile?: string;
  vapidPublicKey?: string;
  vapidPrivateKey?: string;
  vapidSubject?: string;
}

export function addAppCredentialOptions(command: Command): Command {
  return command
    .option('--apns-key-file <file>', 'the .p8 key file from the Apple developer account')
    .option('--apns-key-id <kid>', 'the 10-character Key ID of that key')
    .option('--apns-team-id <team>', 'the 10-character Apple Team ID')
    .option('--apns-topic <bundle>', "the app's bundle id")
    .option('--fcm-service-account-file <file>', 'the Firebase service-account JSON')
    .option(
      '--vapid-public-key <key>',
      'Web Push VAPID public key (base64url), with --vapid-private-key; default: a generated pair on create, the same pair on update',
    )
    .option('--vapid-private-key <key>', 'Web Push VAPID private key (base64url)')
    .option('--vapid-subject <url>', 'mailto: or https: contact sent to push services');
}

/** The options as the API's credential input; the four APNs options go together. */
export function credentialInput(options: AppCredentialOptions): AppCredentialsInput {
  const input: AppCredentialsInput = {};
  const apns = [options.apnsKeyFile, options.apnsKeyId, options.apnsTeamId, options.apnsTopic];
  if (apns.some((value) => value !== undefined)) {
    if (apns.some((value) => value === undefined))
      throw new CliError(
        '--apns-key-file, --apns-key-id, --apns-team-id and --apns-topic go together',
        'validation_failed',
      );
    input.ios = {
      key: readFile(options.apnsKeyFile!, '--apns-key-file'),
      keyId: options.apnsKeyId!,
      teamId: options.apnsTeamId!,
      bundleId: options.apnsTopic!,
    };
  }
  if (options.fcmServiceAccountFile !== undefined)
    input.android = { serviceAccount: readFile(options.fcmServiceAccountFile, '--fcm-service-account-file') };
  if (
    options.vapidPublicKey !== undefined ||
    options.vapidPrivateKey !== undefined ||
    options.vapidSubject !== undefined
  ) {
    input.web = {
      ...(options.vapidPublicKey !== undefined ? { publicKey: options.vapidPublicKey } : {}),
      ...(options.vapidPrivateKey !== undefined ? { privateKey: options.vapidPrivateKey } : {}),
      ...(options.vapidSubject !== undefined ? { subject: options.vapidSubject } : {}),
    };
  }
  return input;
}

/** The API's field names turned into the options a CLI user typed. */
const OPTION_OF_FIELD: Record<string, string> = {
  'ios.key': '--apns-key-file',
  'ios.keyId': '--apns-key-id',
  'ios.teamId': '--apns-team-id',
  'ios.bundleId': '--apns-topic',
  'android.serviceAccount': '--fcm-service-account-file',
  web: '--vapid-public-key / --vapid-private-key',
  'web.publicKey': '--vapid-public-key',
  'web.privateKey': '--vapid-private-key',
  'web.subject': '--vapid-subject',
};

export function credentialProblems(problems: FieldProblem[]): CliError {
  return new CliError(
    problems.map((problem) => `${OPTION_OF_FIELD[problem.field] ?? problem.field}: ${problem.message}`).join('; '),
    'validation_failed',
  );
}

function readFile(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError(
      `${option}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      'validation_failed',
    );
  }
}
