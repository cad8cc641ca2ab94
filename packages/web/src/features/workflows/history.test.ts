import { describe, expect, it } from 'vitest';
import { canRedo, canUndo, emptyHistory, type HistoryEntry, historyKey, peekRedo, peekUndo, record, redone, undone } from './history';

const entry = (label: string): HistoryEntry<string> => ({ label, forward: [`do ${label}`], inverse: [`undo ${label}`] });
const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});

describe('undo and redo history', () => {
  it('undoes the last edit first and redoes in the original order', () => {
    let history = record(record(emptyHistory<string>(), entry('a')), entry('b'));
    expect(canRedo(history)).toBe(false);
    expect(peekUndo(history)?.inverse).toEqual(['undo b']);
    history = undone(history);
    expect(peekUndo(history)?.label).toBe('a');
    expect(peekRedo(history)?.forward).toEqual(['do b']);
    history = undone(history);
    expect(canUndo(history)).toBe(false);
    expect(undone(history)).toBe(history);
    history = redone(history);
    expect(peekRedo(history)?.label).toBe('b');
    history = redone(history, { label: 'b', forward: ['do b'], inverse: ['recomputed undo b'] });
    expect(history.past.map((e) => e.inverse[0])).toEqual(['undo a', 'recomputed undo b']);
    expect(redone(history)).toBe(history);
  });

  it('drops the redo stack on a new edit and keeps at most the limit', () => {
    let history = undone(record(emptyHistory<string>(), entry('a')));
    history = record(history, entry('c'));
    expect(canRedo(history)).toBe(false);
    for (let i = 0; i < 5; i++) history = record(history, entry(`n${i}`), 3);
    expect(history.past.map((e) => e.label)).toEqual(['n2', 'n3', 'n4']);
  });

  it('maps Ctrl/Cmd+Z to undo and Shift+Ctrl/Cmd+Z or Ctrl+Y to redo', () => {
    expect(historyKey(key('z', { ctrlKey: true }))).toBe('undo');
    expect(historyKey(key('z', { metaKey: true }))).toBe('undo');
    expect(historyKey(key('Z', { ctrlKey: true, shiftKey: true }))).toBe('redo');
    expect(historyKey(key('z', { metaKey: true, shiftKey: true }))).toBe('redo');
    expect(historyKey(key('y', { ctrlKey: true }))).toBe('redo');
    expect(historyKey(key('z'))).toBeUndefined();
    expect(historyKey(key('z', { ctrlKey: true, altKey: true }))).toBeUndefined();
    expect(historyKey(key('x', { ctrlKey: true }))).toBeUndefined();
  });
});
