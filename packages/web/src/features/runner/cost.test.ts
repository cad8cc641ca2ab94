import { describe, expect, it } from 'vitest';
import { cleanTags, describeInstanceType, entryPoints, estimateCost, formatPrice, parseCostLimit } from './cost';

const catalogue = [
  { name: 'small', cores: 2, memoryMB: 7680, diskGB: 32, pricePerHour: 0.133 },
  { name: 'big', cores: 8, memoryMB: 32768, diskGB: 300, pricePerHour: 0.48 },
];

describe('instance types and the cost estimate', () => {
  it('lists the entry points an executable sets types for, with the project default otherwise', () => {
    expect(entryPoints(undefined, 'small')).toEqual([{ key: '*', label: 'All entry points', defaultType: 'small' }]);
    expect(entryPoints({ '*': { instanceType: 'big' } }, 'small')).toEqual([{ key: '*', label: 'All entry points', defaultType: 'big' }]);
    expect(entryPoints({ process: { instanceType: 'big' }, '*': { instanceType: 'small' }, main: {} }, 'x').map((e) => [e.key, e.defaultType])).toEqual([
      ['*', 'small'],
      ['process', 'big'],
    ]);
  });

  it('adds the prices per hour of the chosen types and multiplies by the hours; unknown types are reported', () => {
    expect(estimateCost(['small', 'big'], catalogue, 2)).toEqual({ perHour: 0.613, total: 1.226, unknown: [] });
    expect(estimateCost(['small', 'huge'], catalogue, 1)).toEqual({ perHour: 0.133, total: 0.133, unknown: ['huge'] });
    expect(estimateCost(['small'], catalogue, Number.NaN).total).toBe(0);
  });

  it('formats prices and types', () => {
    expect(formatPrice(0.133)).toBe('$0.133');
    expect(formatPrice(1.2)).toBe('$1.20');
    expect(formatPrice(0)).toBe('$0.00');
    expect(describeInstanceType({ name: 'small', cores: 2, memoryMB: 7680, diskGB: 32, pricePerHour: 0.133 })).toBe(
      'small · 2 cores · 7.5 GiB · 32 GB disk · $0.133/h',
    );
  });

  it('reads a cost limit and tags', () => {
    expect(parseCostLimit('')).toEqual({ ok: true, value: undefined });
    expect(parseCostLimit('$12.5')).toEqual({ ok: true, value: 12.5 });
    expect(parseCostLimit('-1')).toMatchObject({ ok: false });
    expect(parseCostLimit('ten')).toMatchObject({ ok: false });
    expect(cleanTags([' a', 'b', 'a', ''])).toEqual(['a', 'b']);
  });
});
