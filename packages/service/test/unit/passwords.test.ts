import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/domain/passwords.js';

describe('password hashing', () => {
  it('stores scrypt with its parameters and a fresh salt', async () => {
    const a = await hashPassword('correct horse battery');
    const b = await hashPassword('correct horse battery');
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
  });

  it('verifies the right password only', async () => {
    const h = await hashPassword('correct horse battery');
    expect(await verifyPassword('correct horse battery', h)).toBe(true);
    expect(await verifyPassword('correct horse batterY', h)).toBe(false);
    expect(await verifyPassword('', h)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'bcrypt$whatever')).toBe(false);
  });

  it('treats canonically equivalent Unicode spellings as the same password', async () => {
    const h = await hashPassword('caf\u00e9 au lait!');
    expect(await verifyPassword('cafe\u0301 au lait!', h)).toBe(true);
  });
});
