/** Byte progress of one file; `add` takes negative values when a failed part is sent again. */
export interface FileProgress {
  add(bytes: number): void;
  done(): void;
}

/** Where the transfer functions report progress and notes (the CLI draws bars; the job helpers print nothing). */
export interface TransferProgress {
  file(label: string, size: number, already?: number): FileProgress;
  log(line: string): void;
}

/** Reports nothing. */
export const silentProgress: TransferProgress = {
  file: () => ({ add() {}, done() {} }),
  log() {},
};

/** A failure that another attempt will not fix (bad size, md5 mismatch, file in the wrong state...). */
export class TransferError extends Error {
  override readonly name = 'TransferError';
}
