/** The logging surface the domain needs; pino satisfies it. */
export interface Log {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };
