import pino, { type Logger } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A logger that keeps every line (info and above) for the test to read. */
export function capturingLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

export const WARN = 40;
export const ERROR = 50;
