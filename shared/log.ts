// pino loggers for every service. Credentials never reach a log line: known secret-bearing paths
// are redacted here, and code never logs tokens, keys or secret data in the first place.

import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export const REDACT_PATHS = ['req.headers.authorization', 'req.headers["proxy-authorization"]', 'req.headers.cookie', 'token', '*.token', 'password', '*.password'];

export function createLogger(service: string, level = process.env.PLATFORM_LOG_LEVEL ?? 'info', opts: LoggerOptions = {}): Logger {
  return pino({ name: service, level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, ...opts });
}

/** A logger that drops everything, for tests that do not assert on logs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
