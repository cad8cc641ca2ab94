import { describe, expect, it } from 'vitest';
import { classifyHref, initialsOf, safeLogo } from './community-rules';

describe('community rules', () => {
  it.each([
    ['/panx/projects', { kind: 'app', to: '/panx/projects' }],
    ['/panx', { kind: 'app', to: '/panx' }],
    ['https://example.org/guide', { kind: 'external', href: 'https://example.org/guide' }],
    ['http://example.org', { kind: 'invalid' }],
    ['javascript:alert(1)', { kind: 'invalid' }],
    ['/panxevil', { kind: 'invalid' }],
    ['/other', { kind: 'invalid' }],
    ['/panx/\\evil', { kind: 'invalid' }],
  ])('classifies %s', (href, expected) => {
    expect(classifyHref(href)).toEqual(expected);
  });

  it('keeps data:image logos and app paths, drops the rest', () => {
    expect(safeLogo('data:image/png;base64,iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
    expect(safeLogo('/panx/logo.svg')).toBe('/panx/logo.svg');
    expect(safeLogo('data:text/html;base64,PHNjcmlwdD4=')).toBeUndefined();
    expect(safeLogo('https://evil.example/x.png')).toBeUndefined();
    expect(safeLogo(null)).toBeUndefined();
  });

  it('makes initials', () => {
    expect(initialsOf('Rare disease consortium')).toBe('RD');
    expect(initialsOf('panx')).toBe('PA');
    expect(initialsOf('  ')).toBe('?');
  });
});
