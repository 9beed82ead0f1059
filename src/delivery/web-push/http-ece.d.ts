/**
 * Types for the part of `http_ece` (https://github.com/web-push-libs/encrypted-content-encoding, the encryption
 * behind the `web-push` package) that Clarion uses: aes128gcm with a Diffie-Hellman key (RFC 8188, RFC 8291).
 */
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  interface EceParams {
    version: 'aes128gcm';
    /** The receiver's public key (base64url or bytes). */
    dh?: string | Buffer;
    /** Our ephemeral key pair (encrypt), or the receiver's (decrypt). */
    privateKey: ECDH;
    /** The receiver's auth secret (base64url or bytes). */
    authSecret: string | Buffer;
    salt?: string | Buffer;
    /** Record size; 4096 by default. */
    rs?: number;
    pad?: number;
  }

  export function encrypt(buffer: Buffer, params: EceParams): Buffer;
  export function decrypt(buffer: Buffer, params: Omit<EceParams, 'dh'>): Buffer;
}
