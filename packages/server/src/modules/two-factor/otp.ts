import { createHash, randomBytes } from 'node:crypto';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 without padding (what authenticator apps expect in `secret=`). */
export function base32Encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= 0xff;
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** A new TOTP secret: 160 random bits (RFC 4226's recommended length for HMAC-SHA-1), base32. */
export function newTotpSecret(): string {
  return base32Encode(randomBytes(20));
}

/** The `otpauth://` URI that authenticator apps read from a QR code (Key Uri Format). */
export function otpauthUri(issuer: string, account: string, secret: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret, issuer, algorithm: 'SHA1', digits: '6', period: '30' });
  return `otpauth://totp/${label}?${params.toString()}`;
}

/** A backup code: 12 characters of lower-case base32 (60 random bits), shown as `abcd-efgh-ijkm`. */
export function newBackupCode(): string {
  const raw = base32Encode(randomBytes(8)).slice(0, 12).toLowerCase();
  return `${raw.slice(0, 4)}-${raw.slice(4, 8)}-${raw.slice(8, 12)}`;
}

/** Dashes, spaces and case do not matter when a backup code is typed in. */
export function normaliseBackupCode(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

/** Backup codes are stored as SHA-256 of the user id and the normalised code (60 random bits each). */
export function hashBackupCode(userId: string, code: string): string {
  return createHash('sha256')
    .update(`${userId}:${normaliseBackupCode(code)}`)
    .digest('hex');
}
