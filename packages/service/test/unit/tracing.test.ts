import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { observingStages, Stopwatch, stopwatchFor } from '../../src/domain/stopwatch.js';
import { createLogger, loggerOfSpan } from '../../src/logger.js';

describe('tracing configuration (OTEL_*)', () => {
  it('is off unless an OTLP endpoint is set', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    // Compose passes unset variables through as empty strings.
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_EXPORTER: '', OTEL_SERVICE_NAME: '' })
        .tracing,
    ).toBeUndefined();
  });

  it('sends to the general endpoint with the traces path, or to the traces endpoint as given', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      serviceName: 'docslurp',
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example.com/ingest',
        OTEL_SERVICE_NAME: 'docslurp-eu',
      }).tracing,
    ).toEqual({ endpoint: 'https://traces.example.com/ingest', serviceName: 'docslurp-eu' });
  });

  it('is turned off by OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none, whatever the endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(loadConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'otlp' }).tracing?.endpoint).toBe(
      'http://collector:4318/v1/traces',
    );
    // The exporter named without an endpoint sends to the specification's default.
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing?.endpoint).toBe(
      'http://localhost:4318/v1/traces',
    );
  });

  it('names the setting that is wrong', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).toThrow(
      ConfigError,
    );
    expect(() =>
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      }),
    ).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL "grpc" is not supported/);
    expect(() => loadConfig({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/OTEL_TRACES_EXPORTER/);
    expect(() => loadConfig({ OTEL_SDK_DISABLED: 'maybe' })).toThrow(/OTEL_SDK_DISABLED/);
  });
});

describe('stages told to an observer', () => {
  const recording = () => {
    const stages: { name: string; startMs: number; endMs: number }[] = [];
    return {
      stages,
      observer: {
        stage: (name: string, startMs: number, endMs: number) => stages.push({ name, startMs, endMs }),
      },
    };
  };

  it('each lap is a stage from the last lap to now, in epoch milliseconds', () => {
    const { stages, observer } = recording();
    const before = Date.now();
    const watch = new Stopwatch(observer);
    watch.lap('prepare');
    watch.lap('retrieval');
    expect(stages.map((s) => s.name)).toEqual(['prepare', 'retrieval']);
    expect(stages[0]!.startMs).toBeGreaterThanOrEqual(before - 1);
    expect(stages[1]!.startMs).toBe(stages[0]!.endMs);
    expect(stages[1]!.endMs).toBeGreaterThanOrEqual(stages[1]!.startMs);
    expect(Object.keys(watch.read()).sort()).toEqual(['prepareMs', 'retrievalMs', 'totalMs']);
  });

  it('a stopwatch exists only for someone who reads it', () => {
    expect(stopwatchFor(false, undefined)).toBeUndefined();
    expect(stopwatchFor(true, undefined)).toBeInstanceOf(Stopwatch);
    expect(stopwatchFor(false, recording().observer)).toBeInstanceOf(Stopwatch);
  });

  it('a document stage reaches the metrics and the observer, ending now and as long as it took', () => {
    const { stages, observer } = recording();
    const seen: [string, number][] = [];
    const metrics = (stage: string, seconds: number) => void seen.push([stage, seconds]);
    expect(observingStages(metrics, undefined)).toBe(metrics);
    const before = Date.now();
    observingStages(metrics, observer)('parsing', 0.25);
    expect(seen).toEqual([['parsing', 0.25]]);
    expect(stages).toHaveLength(1);
    expect(stages[0]!.endMs - stages[0]!.startMs).toBe(250);
    expect(stages[0]!.endMs).toBeGreaterThanOrEqual(before);
  });
});

describe('trace ids in log lines', () => {
  const capture = (traceIds?: () => { traceId: string; spanId: string } | undefined) => {
    const lines: Record<string, unknown>[] = [];
    const raw: string[] = [];
    const log = createLogger('info', {
      traceIds,
      destination: {
        write: (line: string) => {
          raw.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        },
      },
    });
    return { log, lines, raw };
  };

  it('name the active span inside one, and nothing outside', () => {
    let active: { traceId: string; spanId: string } | undefined;
    const { log, lines } = capture(() => active);
    log.info('outside');
    active = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    log.child({ job: 'x' }).info('inside');
    expect(lines[0]).not.toHaveProperty('traceId');
    expect(lines[1]).toMatchObject({ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), job: 'x' });
  });

  it("a request's logger names its span once, in itself and its children", () => {
    const { log, lines, raw } = capture(() => ({ traceId: 'c'.repeat(32), spanId: 'd'.repeat(16) }));
    const request = loggerOfSpan(log, { traceId: 'e'.repeat(32), spanId: 'f'.repeat(16) });
    request.child({ step: 1 }).info('in the request');
    expect(lines[0]).toMatchObject({ traceId: 'e'.repeat(32), spanId: 'f'.repeat(16), step: 1 });
    // The line's text, not its parse, which would keep only the last of two equal keys.
    expect(raw[0]!.match(/"traceId"/g)).toHaveLength(1);
    expect(raw[0]).not.toContain('c'.repeat(32));
  });

  it('without tracing, lines carry no ids', () => {
    const { log, lines } = capture();
    log.info('plain');
    expect(Object.keys(lines[0]!).sort()).toEqual(['level', 'msg', 'service', 'time']);
  });
});
