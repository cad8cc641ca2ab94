import { describe, expect, it } from 'vitest';
import { maskMessage } from './error-reporting';

describe('maskMessage (SPEC §8: names and e-mail masked with ellipses)', () => {
  const names = ['Alice', 'Smith', 'Alice Smith', 'asmith'];
  it.each([
    ['Cannot read profile of Alice Smith', 'Cannot read profile of ...'],
    ['alice smith (asmith) failed', '... (...) failed'],
    ['Mail alice.smith@lab.example.org bounced', 'Mail ... bounced'],
    ['Project "Alice genomes" not found', 'Project "..." not found'],
    ['Malice is not a name here', 'Malice is not a name here'],
    ['TypeError: x is undefined', 'TypeError: x is undefined'],
  ])('%j → %j', (input, expected) => {
    expect(maskMessage(input, names)).toBe(expected);
  });

  it('ignores one-letter names and special characters in names', () => {
    expect(maskMessage('a b c', ['a'])).toBe('a b c');
    expect(maskMessage('x (y) z', ['(y)'])).toBe('x ... z');
  });
});
