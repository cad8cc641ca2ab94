import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ClientErrorsService, maskClientErrorText, pathOnly } from './client-errors.service.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

describe('maskClientErrorText', () => {
  it.each([
    ['Could not share with alice@example.org', 'Could not share with ...'],
    ['The project "Alice Smith genomes" was not found', 'The project "..." was not found'],
    ['a.b+c@lab.uni.ac.uk and bob@x.io', '... and ...'],
    ['sent Bearer abc.def-123 to server', 'sent Bearer ... to server'],
    ['TypeError: x is undefined', 'TypeError: x is undefined'],
  ])('%j → %j', (input, output) => {
    expect(maskClientErrorText(input)).toBe(output);
  });

  it('keeps only the path of a URL', () => {
    expect(pathOnly('/panx/home?q=secret#x')).toBe('/panx/home');
  });
});

describe('ClientErrorsService', () => {
  it('logs a masked report at warn with the user and the path only', () => {
    const { log, lines } = capture();
    new ClientErrorsService(log).report('user-alice', { kind: 'render', message: 'Cannot read "bob@x.org"', url: '/panx/home?token=1' }, 0);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 40,
      msg: 'client error',
      clientError: { kind: 'render', user: 'user-alice', message: 'Cannot read "..."', url: '/panx/home' },
    });
  });

  it('drops reports over the per-minute limit and says how many it dropped', () => {
    const { log, lines } = capture();
    const service = new ClientErrorsService(log, 3);
    for (let i = 0; i < 5; i++) service.report('user-a', { kind: 'background', message: `e${i}` }, 1000 + i);
    expect(lines).toHaveLength(3);
    service.report('user-b', { kind: 'background', message: 'other user' }, 2000);
    expect(lines).toHaveLength(4);
    expect(service.report('user-a', { kind: 'background', message: 'later' }, 70_000)).toEqual({ logged: true });
    expect(lines.some((line) => (line.clientError as { dropped?: number }).dropped === 2)).toBe(true);
  });
});
