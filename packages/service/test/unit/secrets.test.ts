import { describe, expect, it } from 'vitest';
import { rotateSecrets, SecretBox } from '../../src/domain/secrets.js';

const k1 = 'a'.repeat(64);
const k2 = 'b'.repeat(64);

describe('SecretBox (AES-256-GCM)', () => {
  it('round-trips and never shows the plaintext', () => {
    const box = new SecretBox(k1);
    const c = box.encrypt('Bearer top-secret', 'documents.fetch_headers:doc_1');
    expect(c).toMatch(/^v1:[0-9a-f]{8}:/);
    expect(c).not.toContain('top-secret');
    expect(box.encrypt('Bearer top-secret', 'documents.fetch_headers:doc_1')).not.toBe(c); // fresh IV
    expect(box.decrypt(c, 'documents.fetch_headers:doc_1')).toBe('Bearer top-secret');
  });

  it("refuses a tampered value, another row's context, or an unknown key", () => {
    const box = new SecretBox(k1);
    const c = box.encrypt('secret', 'ctx:a');
    const parts = c.split(':');
    const flipped = Buffer.from(parts[4]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    parts[4] = flipped.toString('base64url');
    expect(() => box.decrypt(parts.join(':'), 'ctx:a')).toThrow();
    expect(() => box.decrypt(c, 'ctx:b')).toThrow();
    expect(() => new SecretBox(k2).decrypt(c, 'ctx:a')).toThrow(/ENCRYPTION_KEY_PREVIOUS/);
    expect(() => new SecretBox('short')).toThrow(/64 hexadecimal/);
  });

  it('rotates: the new key encrypts, the previous still decrypts, rotateSecrets re-encrypts', async () => {
    const old = new SecretBox(k1);
    const rows = new Map([
      ['doc_1', old.encrypt('one', 'documents.fetch_headers:doc_1')],
      ['doc_2', old.encrypt('two', 'documents.fetch_headers:doc_2')],
    ]);
    const secrets = new Map([['whk_1', old.encrypt('whsec_x', 'webhook_endpoints.secret:whk_1')]]);
    const storeOf = (values: Map<string, string>, context: (id: string) => string) => ({
      encryptedValues: async () => [...values].map(([id, value]) => ({ id, context: context(id), value })),
      replaceEncryptedValue: async (id: string, v: string) => void values.set(id, v),
    });
    const stores = [
      storeOf(rows, (id) => `documents.fetch_headers:${id}`),
      storeOf(secrets, (id) => `webhook_endpoints.secret:${id}`),
    ];
    const rotating = new SecretBox(k2, k1);
    expect(rotating.isStale(rows.get('doc_1')!)).toBe(true);
    expect(await rotateSecrets(stores, rotating)).toEqual({ total: 3, rotated: 3 });
    expect(await rotateSecrets(stores, rotating)).toEqual({ total: 3, rotated: 0 });
    const onlyNew = new SecretBox(k2);
    expect(onlyNew.decrypt(rows.get('doc_2')!, 'documents.fetch_headers:doc_2')).toBe('two');
    expect(onlyNew.decrypt(secrets.get('whk_1')!, 'webhook_endpoints.secret:whk_1')).toBe('whsec_x');
  });
});
