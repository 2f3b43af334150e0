import type { Logger } from 'pino';
import { buildApp } from '../app.js';
import type { Config } from '../config.js';
import type { AppDeps } from '../http/context.js';
import { servedDocument } from '../http/openapi.js';
import { withoutTrailingSlashes } from '../strings.js';

/** The origin the document names when there is no request to take it from: the embedded default. */
export const DEFAULT_ORIGIN = 'http://127.0.0.1:8080';

/**
 * The OpenAPI document the server serves, built from the routes' declarations alone: no database,
 * storage or model is reached (`docslurp openapi`, the lint in `npm run lint`, the client types' test).
 * Building the routes only reads the configuration; anything else they touched would be a bug here,
 * so it throws.
 */
export async function openApiDocument(config: Config, log: Logger): Promise<unknown> {
  // No tracer: the document is the same with tracing on, and its build starts no SDK.
  const given: Partial<AppDeps> = { config, log, tracer: undefined };
  const deps = new Proxy(given, {
    get(target, name) {
      if (name in target) return target[name as keyof AppDeps];
      if (typeof name !== 'string' || name === 'then') return undefined;
      throw new Error(`building the OpenAPI document touched deps.${name}`);
    },
  }) as AppDeps;
  const app = await buildApp(deps);
  try {
    await app.ready();
    return servedDocument(
      app.swagger(),
      (config.server.publicUrl && withoutTrailingSlashes(config.server.publicUrl)) ?? DEFAULT_ORIGIN,
    );
  } finally {
    await app.close();
  }
}
