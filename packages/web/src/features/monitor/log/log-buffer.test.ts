import { describe, expect, it } from 'vitest';
import { asLogMessage, formatLine, isEndOfLog, LogBuffer, type LogMessage } from './log-buffer';

const msg = (line: number, text: string, level = 'STDOUT', source = 'APP'): LogMessage => ({
  timestamp: 1_700_000_000_000 + line,
  source,
  level,
  job: 'job-x',
  line,
  msg: text,
});

describe('LogBuffer', () => {
  it('keeps lines in order and skips repeats and older lines, so a resumed stream never shows a line twice', () => {
    const buffer = new LogBuffer();
    expect(buffer.cursor).toBeUndefined();
    expect(buffer.append([msg(3, 'a'), msg(5, 'b')])).toBe(2);
    expect(buffer.cursor).toBe(5);
    // the same lines again (an overlapping page or a replay after reconnect), then new ones
    expect(buffer.append([msg(3, 'a'), msg(5, 'b'), msg(4, 'late'), msg(9, 'c', 'STDERR')])).toBe(1);
    expect(buffer.length).toBe(3);
    expect([0, 1, 2].map((i) => buffer.msg(i))).toEqual(['a', 'b', 'c']);
    expect(buffer.level(2)).toBe('STDERR');
    expect(buffer.lineId(2)).toBe(9);
    expect(buffer.cursor).toBe(9);
  });

  it('skips END_LOG and bumps its version only when lines were added', () => {
    const buffer = new LogBuffer();
    const before = buffer.version;
    buffer.append([{ ...msg(0, 'END_LOG', 'INFO', 'SYSTEM') }]);
    expect(buffer.length).toBe(0);
    expect(buffer.version).toBe(before);
    buffer.append([msg(1, 'x')]);
    expect(buffer.version).toBe(before + 1);
  });

  it('grows past its first arrays and keeps unknown levels apart', () => {
    const buffer = new LogBuffer();
    const many = Array.from({ length: 5000 }, (_, i) => msg(i + 1, `l${i + 1}`, i % 1000 === 0 ? 'CUSTOM' : 'STDOUT'));
    buffer.append(many);
    expect(buffer.length).toBe(5000);
    expect(buffer.msg(4999)).toBe('l5000');
    expect(buffer.level(1000)).toBe('CUSTOM');
    expect(buffer.levelCounts()).toEqual([
      { level: 'STDOUT', count: 4995 },
      { level: 'CUSTOM', count: 5 },
    ]);
  });

  it('writes the whole log as text, one line each with time and level', () => {
    const buffer = new LogBuffer();
    buffer.append([msg(1, 'hello'), msg(2, '<script>alert(1)</script>', 'STDERR'), msg(3, 'set-up', 'INFO', 'SYSTEM')]);
    const text = buffer.toText();
    expect(text.split('\n')).toEqual([
      `${new Date(1_700_000_000_001).toISOString()} STDOUT hello`,
      `${new Date(1_700_000_000_002).toISOString()} STDERR <script>alert(1)</script>`,
      `${new Date(1_700_000_000_003).toISOString()} INFO set-up`,
      '',
    ]);
    expect(formatLine(buffer, 0)).toContain('STDOUT hello');
    expect(buffer.source(2)).toBe('SYSTEM');
    expect(new LogBuffer().toText()).toBe('');
  });
});

describe('frames', () => {
  it('accepts well-formed frames and refuses others', () => {
    expect(asLogMessage({ timestamp: 1, source: 'APP', level: 'STDOUT', job: 'job-x', line: 4, msg: 'hi', try: 1 })).toEqual({
      timestamp: 1,
      source: 'APP',
      level: 'STDOUT',
      job: 'job-x',
      line: 4,
      msg: 'hi',
      try: 1,
    });
    expect(asLogMessage({ level: 'STDOUT', line: 1 })).toBeUndefined();
    expect(asLogMessage({ level: 'STDOUT', line: '1', msg: 'x' })).toBeUndefined();
    expect(asLogMessage(null)).toBeUndefined();
    expect(asLogMessage('text')).toBeUndefined();
    expect(isEndOfLog({ source: 'SYSTEM', msg: 'END_LOG' })).toBe(true);
    expect(isEndOfLog({ source: 'APP', msg: 'END_LOG' })).toBe(false);
  });
});
