import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** A sender's payload from samples/ (README there says where each comes from), as text and parsed. */
export function sample(name: string): { text: string; json: any } {
  const text = readFileSync(new URL(`./samples/${name}.json`, import.meta.url), 'utf8');
  return { text, json: JSON.parse(text) };
}

/** GitHub's X-Hub-Signature-256 of `body` under `secret`, as GitHub computes it. */
export function githubSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
