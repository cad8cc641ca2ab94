import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC signatures for upload and download URLs: the URL carries its own authorisation (clients send
 * no Authorization header with the PUT/GET), valid until `expires`.
 */
export class UrlSigner {
  constructor(private readonly secret: string) {}

  sign(parts: readonly (string | number)[]): string {
    return createHmac('sha256', this.secret).update(parts.join('\n')).digest('base64url');
  }

  verify(parts: readonly (string | number)[], signature: string): boolean {
    const expected = Buffer.from(this.sign(parts));
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
