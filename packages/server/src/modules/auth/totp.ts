import { createHmac, timingSafeEqual } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export function base32Decode(text: string): Buffer {
  const clean = text.replace(/=+$/, '').toUpperCase().replace(/\s/g, '');
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error('invalid base32');
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 6238 TOTP code (SHA-1, 30 s steps, 6 digits: what authenticator apps use). */
export function totpCode(secretBase32: string, atMs: number): string {
  const counter = Math.floor(atMs / 30_000);
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64BE(BigInt(counter));
  const hmac = createHmac('sha1', base32Decode(secretBase32)).update(buffer).digest();
  const offset = (hmac[hmac.length - 1] ?? 0) & 15;
  const code = (hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return code.toString().padStart(6, '0');
}

/** The 30-second step a time falls in (the TOTP counter). */
export function totpStep(atMs: number): number {
  return Math.floor(atMs / 30_000);
}

/** The step whose code `code` is, among the current one and one either side (clock drift); undefined when none. */
export function matchTotpStep(secretBase32: string, code: string, atMs: number): number | undefined {
  for (const drift of [-1, 0, 1]) {
    const at = atMs + drift * 30_000;
    const expected = Buffer.from(totpCode(secretBase32, at));
    const given = Buffer.from(code);
    if (expected.length === given.length && timingSafeEqual(expected, given)) return totpStep(at);
  }
  return undefined;
}

/** Accepts the current code and one step either side, for clock drift. */
export function verifyTotp(secretBase32: string, code: string, atMs: number): boolean {
  return matchTotpStep(secretBase32, code, atMs) !== undefined;
}
