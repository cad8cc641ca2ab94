import { describe, expect, it } from 'vitest';
import { modalWindowReducer } from './modal-window';

describe('job-log modal window', () => {
  it('opens, maximises, minimises, restores and closes', () => {
    let state = modalWindowReducer('CLOSED', 'open');
    expect(state).toBe('OPEN');
    state = modalWindowReducer(state, 'maximize');
    expect(state).toBe('MAXIMIZED');
    expect(modalWindowReducer(state, 'open')).toBe('MAXIMIZED');
    state = modalWindowReducer(state, 'minimize');
    expect(state).toBe('MINIMIZED');
    state = modalWindowReducer(state, 'restore');
    expect(state).toBe('OPEN');
    expect(modalWindowReducer(state, 'close')).toBe('CLOSED');
  });

  it('a closed modal stays closed except for open', () => {
    for (const action of ['minimize', 'maximize', 'restore', 'close'] as const) expect(modalWindowReducer('CLOSED', action)).toBe('CLOSED');
  });
});
