import { Webhook } from 'standardwebhooks';

const PREFIX = 'whsec_';

/**
 * The Standard Webhooks signer for a registration's secret: the key is the base64-decoded part of a
 * `whsec_…` secret (the convention of the official libraries), otherwise the secret's UTF-8 bytes.
 */
export function signerFor(secret: string): Webhook {
  if (secret.startsWith(PREFIX)) return new Webhook(secret);
  return new Webhook(new Uint8Array(Buffer.from(secret, 'utf8')), { format: 'raw' });
}

/** Why a secret cannot key an HMAC, or null. */
export function secretProblem(secret: string): string | null {
  if (secret.trim() === '') return 'The secret field must not be empty.';
  if (!secret.startsWith(PREFIX)) return null;
  const encoded = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) {
    return 'A secret starting with whsec_ must continue with standard base64 (the key bytes).';
  }
  try {
    signerFor(secret);
    return null;
  } catch {
    return 'A secret starting with whsec_ must continue with standard base64 (the key bytes).';
  }
}

/** The three Standard Webhooks headers of one attempt. */
export function signatureHeaders(secret: string, messageId: string, at: Date, body: string) {
  const timestamp = new Date(Math.floor(at.getTime() / 1000) * 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp.getTime() / 1000),
    'webhook-signature': signerFor(secret).sign(messageId, timestamp, body),
  };
}
