import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, checkSshPublicKey, countryOptions, US_STATES } from './regions';

describe('regions', () => {
  it('lists every ISO country once and names them', () => {
    expect(new Set(COUNTRY_CODES).size).toBe(COUNTRY_CODES.length);
    expect(COUNTRY_CODES.length).toBeGreaterThan(240);
    const options = countryOptions('en');
    expect(options.find((option) => option.value === 'FR')?.label).toBe('France');
    expect(US_STATES).toHaveLength(51);
  });
});

describe('checkSshPublicKey', () => {
  const ed = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFvtEzk2h0b4Z3Ah5qGQ7X2Gv2Q2qJt1wX4Zr8Qv6Jx1 alice@laptop';
  it('accepts an OpenSSH public key', () => {
    expect(checkSshPublicKey(ed)).toBeUndefined();
    expect(checkSshPublicKey(`  ${ed}\n`)).toBeUndefined();
  });
  it.each([
    ['', 'Paste a public key'],
    ['-----BEGIN OPENSSH PRIVATE KEY-----', 'private key'],
    ['ssh-foo AAAA', 'Expected an OpenSSH public key'],
    ['ssh-ed25519 not*base64', 'not valid base64'],
  ])('rejects %j', (text, message) => {
    expect(checkSshPublicKey(text)).toContain(message);
  });
});
