import { withoutTrailingSlashes } from '../strings.js';
import { ConfigError } from './environment.js';

/** Traces sent to an OpenTelemetry collector over OTLP/HTTP (issue 43); unset: no tracing at all. */
export interface TracingConfig {
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  endpoint: string;
  /** `service.name` of every span (OTEL_SERVICE_NAME). */
  serviceName: string;
}

interface TracingEnvironment {
  OTEL_SDK_DISABLED: boolean;
  OTEL_TRACES_EXPORTER?: 'otlp' | 'none' | undefined;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string | undefined;
  OTEL_EXPORTER_OTLP_PROTOCOL?: string | undefined;
  OTEL_SERVICE_NAME?: string | undefined;
}

/** Both OTLP/HTTP encodings reach the same receiver port; the exporter sends JSON, which every receiver takes. */
const HTTP_PROTOCOLS = ['http/json', 'http/protobuf'];

/** The OTLP/HTTP default of the OpenTelemetry specification. */
const DEFAULT_ENDPOINT = 'http://localhost:4318/v1/traces';

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      `${name} must be an http(s) URL such as http://otel-collector:4318, got "${value}"`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http(s) URL (OTLP/HTTP), got "${value}"`);
  return value;
}

/**
 * Tracing is on when an OTLP endpoint is set (or OTEL_TRACES_EXPORTER=otlp asks for the default
 * one), as the OpenTelemetry variables define it: the traces endpoint is used as given, the general
 * one gets the signal's path. OTEL_SDK_DISABLED and OTEL_TRACES_EXPORTER=none turn it off whatever
 * else is set.
 */
export function tracingConfig(e: TracingEnvironment): TracingConfig | undefined {
  if (e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === 'none') return undefined;
  const protocol = e.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && !HTTP_PROTOCOLS.includes(protocol))
    throw new ConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported: traces are sent over OTLP/HTTP (http/json or http/protobuf; the collector's port 4318)`,
    );
  const traces = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const general = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  let endpoint: string | undefined;
  if (traces) endpoint = httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces);
  else if (general)
    endpoint = `${withoutTrailingSlashes(httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', general))}/v1/traces`;
  // Asked for by name, the exporter sends where the specification says: a collector on this host.
  else if (e.OTEL_TRACES_EXPORTER === 'otlp') endpoint = DEFAULT_ENDPOINT;
  if (!endpoint) return undefined;
  return { endpoint, serviceName: e.OTEL_SERVICE_NAME ?? 'docslurp' };
}
