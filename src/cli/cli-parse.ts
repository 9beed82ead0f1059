import { CliError } from './cli-output.ts';

export function parseWholeNumber(flag: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text)) throw new CliError(`${flag} must be a whole number`, 'validation_failed');
  const value = Number(text);
  if (value < min || value > max) throw new CliError(`${flag} must be from ${min} to ${max}`, 'validation_failed');
  return value;
}
