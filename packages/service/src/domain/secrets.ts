import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SecretStore } from './stores.js';

/**
 * Encrypts credentials the service must keep for a while (for example the headers a worker sends
 * when fetching a protected URL) with AES-256-GCM. Each value records which key encrypted it, so a
 * key can be rotated: the new key encrypts, the previous one still decrypts until `secrets rotate`
 * has re-encrypted everything. The context (which row the value belongs to) is authenticated too,
 * so a ciphertext copied to another row does not decrypt.
 */
export class SecretBox {
  private readonly current: { id: string; key: Buffer };
  private readonly keys = new Map<string, Buffer>();

  constructor(currentHex: string, previousHex?: string) {
    this.current = SecretBox.load(currentHex);
    this.keys.set(this.current.id, this.current.key);
    if (previousHex) {
      const previous = SecretBox.load(previousHex);
      this.keys.set(previous.id, previous.key);
    }
  }

  private static load(hex: string): { id: string; key: Buffer } {
    if (!/^[0-9a-f]{64}$/i.test(hex))
      throw new Error('an encryption key is 64 hexadecimal characters (32 bytes)');
    const key = Buffer.from(hex, 'hex');
    return { id: createHash('sha256').update(key).digest('hex').slice(0, 8), key };
  }

  static generateKey(): string {
    return randomBytes(32).toString('hex');
  }

  /** `v1:<key id>:<iv>:<tag>:<ciphertext>` (base64url parts). */
  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      'v1',
      this.current.id,
      iv.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
      ct.toString('base64url'),
    ].join(':');
  }

  decrypt(value: string, context: string): string {
    const [version, keyId, iv, tag, ct] = value.split(':');
    if (version !== 'v1' || !keyId || !iv || !tag || ct === undefined)
      throw new Error('not an encrypted value');
    const key = this.keys.get(keyId);
    if (!key)
      throw new Error(
        `encrypted with a key that is not configured (id ${keyId}); set ENCRYPTION_KEY_PREVIOUS`,
      );
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** True when `value` was encrypted with an older key and should be re-encrypted. */
  isStale(value: string): boolean {
    return value.split(':')[1] !== this.current.id;
  }
}

/** The authenticated context of a document's encrypted fetch headers: they belong to that row only. */
export const fetchHeadersContext = (documentId: string) => `documents.fetch_headers:${documentId}`;

/** Re-encrypts every stored value that an older key encrypted (step 2 of a key rotation). */
export async function rotateSecrets(
  stores: SecretStore[],
  box: SecretBox,
): Promise<{ total: number; rotated: number }> {
  let total = 0;
  let rotated = 0;
  for (const store of stores) {
    const values = await store.encryptedValues();
    total += values.length;
    for (const { id, context, value } of values) {
      if (!box.isStale(value)) continue;
      await store.replaceEncryptedValue(id, box.encrypt(box.decrypt(value, context), context));
      rotated++;
    }
  }
  return { total, rotated };
}
