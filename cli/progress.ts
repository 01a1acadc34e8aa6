/** The ingest progress bar (cli-progress), drawn on stderr only when stderr is a terminal. */
import { Presets, SingleBar } from "cli-progress";

/** Figures shown while ingesting. */
export interface ProgressFigures {
  /** Events the service has answered for. */
  events: number;
  /** Bytes read from the inputs (as stored: compressed files count compressed). */
  bytesRead: number;
}

/** `1.5 MB`, `320 kB`: decimal units, as network rates are quoted. */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** Draws progress on a terminal; on anything else every method does nothing. */
export class Progress {
  private readonly bar: SingleBar | undefined;
  private readonly started = Date.now();
  private figures: ProgressFigures = { events: 0, bytesRead: 0 };

  /** `totalBytes` is the size of every input when known (files), else undefined (standard input). */
  constructor(stream: NodeJS.WriteStream, totalBytes: number | undefined) {
    if (!stream.isTTY) return;
    const bar = totalBytes === undefined ? "" : "{bar} {percentage}% | ";
    this.bar = new SingleBar(
      {
        stream,
        format: `${bar}{events} events | {read} read | {rate}`,
        hideCursor: true,
        clearOnComplete: true,
        fps: 5,
      },
      Presets.shades_classic,
    );
    this.bar.start(totalBytes ?? 0, 0, this.payload());
  }

  /** Records new figures; the bar redraws at its own pace (5 times a second). */
  update(figures: Partial<ProgressFigures>): void {
    if (!this.bar) return;
    this.figures = { ...this.figures, ...figures };
    this.bar.update(this.figures.bytesRead, this.payload());
  }

  /** Removes the bar, so the summary prints on a clean line. */
  stop(): void {
    this.bar?.stop();
  }

  private payload(): Record<string, string> {
    const seconds = Math.max((Date.now() - this.started) / 1000, 0.001);
    return {
      events: this.figures.events.toLocaleString("en-US"),
      read: formatBytes(this.figures.bytesRead),
      rate: `${formatBytes(this.figures.bytesRead / seconds)}/s, ${Math.round(this.figures.events / seconds).toLocaleString("en-US")} events/s`,
    };
  }
}
