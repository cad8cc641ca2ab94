import { randomBytes } from 'node:crypto';
import { ID_ALPHABET, ID_LENGTH } from '@panx/contract';

/** A fresh `<class>-` + 24 characters of the DNAnexus id alphabet (32 symbols: 5 random bits each). */
export function newId(cls: string): string {
  const bytes = randomBytes(ID_LENGTH);
  let body = '';
  for (const byte of bytes) body += ID_ALPHABET[byte & 31];
  return `${cls}-${body}`;
}

/** An opaque random secret for tokens and signed URLs. */
export function newSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
