import { describe, expect, it } from 'vitest';
import { LogBuffer, type LogMessage } from './log-buffer';
import { LogView, splitMatches } from './log-view';

const msg = (line: number, text: string, level = 'STDOUT'): LogMessage => ({ timestamp: line, source: 'APP', level, job: 'job-x', line, msg: text });

function filled(): LogBuffer {
  const buffer = new LogBuffer();
  buffer.append([msg(1, 'start'), msg(2, 'Warning: low disk', 'STDERR'), msg(3, 'step one'), msg(4, 'error in STEP two', 'STDERR'), msg(5, 'done')]);
  return buffer;
}

describe('LogView', () => {
  it('shows every line, or only the chosen levels', () => {
    const buffer = filled();
    const view = new LogView(buffer);
    expect(view.count).toBe(5);
    view.setLevels(new Set(['STDERR']));
    expect(view.count).toBe(2);
    expect([view.lineAt(0), view.lineAt(1)]).toEqual([1, 3]);
    view.setLevels(new Set([]));
    expect(view.count).toBe(0);
    view.setLevels(new Set(['NOPE']));
    expect(view.count).toBe(0);
    view.setLevels(undefined);
    expect(view.count).toBe(5);
  });

  it('finds matches case-insensitively among the shown rows, and keeps finding them as lines arrive', () => {
    const buffer = filled();
    const view = new LogView(buffer, undefined, 'step');
    expect(view.matches).toEqual([2, 3]);
    buffer.append([msg(6, 'last STEP'), msg(7, 'stdout only', 'STDOUT')]);
    expect(view.sync()).toBe(true);
    expect(view.matches).toEqual([2, 3, 5]);
    expect(view.sync()).toBe(false);
    view.setLevels(new Set(['STDERR']));
    expect(view.matches).toEqual([1]);
    view.setQuery('');
    expect(view.matches).toEqual([]);
  });

  it('steps through matches with wrap-around and starts at the row in view', () => {
    const buffer = filled();
    const view = new LogView(buffer, undefined, 'e');
    const expected = [0, 1, 2, 3, 4].filter((row) => buffer.msg(row).toLowerCase().includes('e'));
    expect(view.matches).toEqual(expected);
    const n = expected.length;
    expect(view.step(-1, 1)).toBe(0);
    expect(view.step(-1, -1)).toBe(n - 1);
    expect(view.step(n - 1, 1)).toBe(0);
    expect(view.step(0, -1)).toBe(n - 1);
    expect(view.firstMatchFrom(3)).toBe(expected.findIndex((row) => row >= 3));
    expect(view.firstMatchFrom(99)).toBe(0);
    view.setQuery('zzz');
    expect(view.step(-1, 1)).toBe(-1);
    expect(view.firstMatchFrom(0)).toBe(-1);
  });

  it('scans a million lines in well under the time a reader notices', () => {
    const buffer = new LogBuffer();
    const batch: LogMessage[] = [];
    for (let i = 1; i <= 1_000_000; i++) batch.push(msg(i, `line ${i} of the output`, i % 10 === 0 ? 'STDERR' : 'STDOUT'));
    buffer.append(batch);
    const started = performance.now();
    const view = new LogView(buffer, new Set(['STDERR']), 'line 99999');
    expect(view.count).toBe(100_000);
    const elapsed = performance.now() - started;
    let expected = 0;
    for (let i = 10; i <= 1_000_000; i += 10) if (`line ${i} of`.includes('line 99999')) expected++;
    expect(expected).toBe(1);
    expect(view.matches).toEqual([99_998]);
    expect(view.lineAt(99_998)).toBe(999_989);
    // generous for a loaded two-core machine; typically ~100 ms
    expect(elapsed).toBeLessThan(2000);
  });
});

describe('splitMatches', () => {
  it('splits around every occurrence, keeping the original case', () => {
    expect(splitMatches('Error: an ERROR', 'error')).toEqual([
      { text: 'Error', match: true },
      { text: ': an ', match: false },
      { text: 'ERROR', match: true },
    ]);
    expect(splitMatches('abc', '')).toEqual([{ text: 'abc', match: false }]);
    expect(splitMatches('abc', 'x')).toEqual([{ text: 'abc', match: false }]);
    expect(splitMatches('', 'x')).toEqual([{ text: '', match: false }]);
  });
});
