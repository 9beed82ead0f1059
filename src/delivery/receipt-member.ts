import { RECEIPT_FIELD, RECEIPT_LENGTH } from '../domain/receipt.ts';

/**
 * A push's receipt (domain/receipt.ts) as the first member of a JSON object that was serialised once for every push
 * of a batch: the APNs payload and the Web Push clear text get it spliced in per push instead of being serialised
 * again (docs/performance.md, "Fan-out CPU"). A receipt is URL-safe base64 and its field name is ours, so neither
 * needs escaping.
 */
const OPEN = `{"${RECEIPT_FIELD}":"`;

/** What a receipt adds to a payload, the comma included: what the payload-size checks reserve for it. */
export const RECEIPT_MEMBER_BYTES = OPEN.length - 1 + RECEIPT_LENGTH + 2;

export function withReceiptMember(json: string, receipt: string | undefined): string {
  if (receipt === undefined) return json;
  return json === '{}' ? `${OPEN}${receipt}"}` : `${OPEN}${receipt}",${json.slice(1)}`;
}

export function withReceiptMemberBytes(json: Buffer, receipt: string | undefined): Buffer {
  if (receipt === undefined) return json;
  if (json.length === 2) return Buffer.from(`${OPEN}${receipt}"}`);
  return Buffer.concat([Buffer.from(`${OPEN}${receipt}",`), json.subarray(1)]);
}
