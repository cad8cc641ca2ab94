/** SPEC §4 modal states of the job-log modal, and the moves between them. */
export type ModalWindowState = 'OPEN' | 'CLOSED' | 'MINIMIZED' | 'MAXIMIZED';
export type ModalWindowAction = 'open' | 'close' | 'minimize' | 'maximize' | 'restore';

export function modalWindowReducer(state: ModalWindowState, action: ModalWindowAction): ModalWindowState {
  switch (action) {
    case 'open':
      return state === 'CLOSED' ? 'OPEN' : state;
    case 'close':
      return 'CLOSED';
    case 'minimize':
      return state === 'CLOSED' ? state : 'MINIMIZED';
    case 'maximize':
      return state === 'CLOSED' ? state : 'MAXIMIZED';
    case 'restore':
      return state === 'CLOSED' ? state : 'OPEN';
  }
}
