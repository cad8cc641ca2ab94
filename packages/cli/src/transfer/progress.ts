import type cliProgress from 'cli-progress';
import { formatBytes, note } from '../output.js';

import type { FileProgress, TransferProgress } from '@panx/client/transfer';

export type { FileProgress } from '@panx/client/transfer';

/**
 * Progress bars on stderr, one per file in flight plus a total, when stdout is a terminal and
 * `--no-progress` is not given. Disabled, every method is a no-op and notes go straight to stderr
 * (and cli-progress is not even loaded).
 */
export class Progress implements TransferProgress {
  private readonly bars?: cliProgress.MultiBar;
  private readonly total?: cliProgress.SingleBar;
  private transferred = 0;
  private readonly started = Date.now();

  static async create(enabled: boolean, totalBytes: number, totalFiles: number): Promise<Progress> {
    const show = enabled && Boolean(process.stdout.isTTY) && Boolean(process.stderr.isTTY);
    return new Progress(show ? (await import('cli-progress')).default : undefined, totalBytes, totalFiles);
  }

  private constructor(
    library: typeof cliProgress | undefined,
    private readonly totalBytes: number,
    private readonly totalFiles: number,
  ) {
    if (!library) return;
    this.bars = new library.MultiBar(
      {
        stream: process.stderr,
        format: ' {label} |{bar}| {percentage}% {amount} {speed}',
        barsize: 25,
        hideCursor: true,
        clearOnComplete: false,
        autopadding: true,
        fps: 8,
      },
      library.Presets.shades_classic,
    );
    if (totalFiles > 1) this.total = this.bars.create(Math.max(totalBytes, 1), 0, this.payload('total', 0, totalBytes));
  }

  static enabledBy(option: boolean | undefined): boolean {
    return option !== false && Boolean(process.stdout.isTTY);
  }

  private payload(label: string, value: number, size: number) {
    const seconds = (Date.now() - this.started) / 1000;
    return {
      label: label.length > 20 ? `…${label.slice(-19)}` : label.padEnd(20),
      amount: `${formatBytes(value)}/${formatBytes(size)}`,
      speed: seconds > 0.5 ? `${formatBytes(this.transferred / seconds)}/s` : '',
    };
  }

  file(label: string, size: number, already = 0): FileProgress {
    this.transferred += already;
    this.total?.update(this.transferred, this.payload('total', this.transferred, this.totalBytes));
    const bars = this.bars;
    if (!bars) {
      return {
        add: (bytes) => {
          this.transferred += bytes;
        },
        done() {},
      };
    }
    let value = already;
    const bar = bars.create(Math.max(size, 1), already, this.payload(label, value, size));
    return {
      add: (bytes) => {
        value += bytes;
        this.transferred += bytes;
        bar.update(value, this.payload(label, value, size));
        this.total?.update(this.transferred, this.payload(`total (${this.totalFiles} files)`, this.transferred, this.totalBytes));
      },
      done: () => {
        bar.update(Math.max(size, 1), this.payload(label, size, size));
        bar.stop();
      },
    };
  }

  /** A note that does not break the bars. */
  log(line: string): void {
    if (this.bars) this.bars.log(`${line}\n`);
    else note(line);
  }

  stop(): void {
    this.bars?.stop();
  }

  /** On Ctrl-C: restore the terminal (the bars hide the cursor), say how to go on, exit 130. */
  stopOnInterrupt(hint: string): void {
    process.once('SIGINT', () => {
      this.stop();
      process.stderr.write(`\ninterrupted: ${hint}\n`);
      process.exit(130);
    });
  }
}
