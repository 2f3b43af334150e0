import type { Log } from '../domain/log.js';
import type { WebhookSender } from '../domain/ports.js';
import type { SecretBox } from '../domain/secrets.js';
import type {
  AttemptOutcome,
  ClaimedDelivery,
  DeliveryNext,
  EndpointHealth,
  WebhookOutbox,
} from '../domain/stores.js';
import { signWebhook, webhookSecretContext } from './signing.js';

/** How the worker sends webhook deliveries (the WEBHOOK_* settings). */
export interface WebhookDeliverySettings {
  /** How often an idle dispatcher looks for due deliveries. */
  pollIntervalSeconds: number;
  /** Deliveries one worker sends at once. */
  concurrency: number;
  /** Deliveries to one endpoint in flight at once, across all workers. */
  endpointConcurrency: number;
  /**
   * Deliveries of one account in flight at once, across all workers: below `concurrency`, one
   * account's slow endpoints cannot hold every slot of a worker.
   */
  accountConcurrency: number;
  /** Time limit of one attempt. */
  timeoutSeconds: number;
  /** The wait after the first failed attempt; each further one waits about twice as long. */
  retryBaseSeconds: number;
  /** Retries go on until an attempt fails this long after the event (or a manual redelivery). */
  retryHours: number;
  /** Events older than this, with nothing left to send, are removed with their deliveries. */
  retentionDays: number;
}

/** No wait between two attempts is longer than this, however many failed before. */
export const MAX_RETRY_DELAY_SECONDS = 6 * 3600;
/**
 * A claim lasts twice the attempt's time limit and a little more before another worker may take it
 * over: long enough that a live worker always records its attempt first, short enough that a killed
 * worker's delivery goes out again soon.
 */
const leaseSecondsFor = (timeoutSeconds: number) => 2 * timeoutSeconds + 5;
const PURGE_INTERVAL_MS = 3600_000;
/** After a pass that failed (the database is down), wait at least this long: not a warning every poll. */
const FAILED_PASS_PAUSE_MS = 5000;

/**
 * The wait before the next attempt after `failed` attempts failed: exponential from the base, capped
 * at MAX_RETRY_DELAY_SECONDS, with ±20 % jitter so that deliveries failing together do not come back
 * together; at least what the receiver asked for (Retry-After), within the cap.
 */
export function retryDelaySeconds(
  failed: number,
  baseSeconds: number,
  retryAfter: number | undefined,
  random: () => number = Math.random,
): number {
  const backoff = Math.min(MAX_RETRY_DELAY_SECONDS, baseSeconds * 2 ** Math.max(0, failed - 1));
  const jittered = backoff * (0.8 + 0.4 * random());
  return Math.min(MAX_RETRY_DELAY_SECONDS, Math.max(jittered, retryAfter ?? 0));
}

/** What follows an attempt: done on a 2xx, given up once the retry window has passed, else a retry. */
export function nextAfter(
  delivery: Pick<ClaimedDelivery, 'attempt' | 'retryingForSeconds'>,
  outcome: AttemptOutcome & { retryAfterSeconds?: number | undefined },
  elapsedSeconds: number,
  settings: Pick<WebhookDeliverySettings, 'retryBaseSeconds' | 'retryHours'>,
  random: () => number = Math.random,
): DeliveryNext {
  if (outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300)
    return { status: 'succeeded' };
  if (delivery.retryingForSeconds + elapsedSeconds >= settings.retryHours * 3600) return { status: 'failed' };
  return {
    status: 'pending',
    retryInSeconds: retryDelaySeconds(
      delivery.attempt,
      settings.retryBaseSeconds,
      outcome.retryAfterSeconds,
      random,
    ),
  };
}

/**
 * An endpoint that failed after most of the time limit holds a worker's slot for nothing: it is
 * paused before it gets another (`slow`); one that answered in time is `healthy`.
 */
export function endpointHealth(
  outcome: AttemptOutcome,
  elapsedSeconds: number,
  timeoutSeconds: number,
): EndpointHealth {
  const ok = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
  if (!ok && elapsedSeconds >= timeoutSeconds / 2) return 'slow';
  return elapsedSeconds < timeoutSeconds / 2 ? 'healthy' : 'unchanged';
}

export interface WebhookDispatcherDeps {
  outbox: WebhookOutbox;
  sender: WebhookSender;
  /** Decrypts endpoint secrets; undefined when ENCRYPTION_KEY is not set (nothing can be signed). */
  secrets: SecretBox | undefined;
  settings: WebhookDeliverySettings;
  log: Log;
}

export interface RunningDispatcher {
  stop(): Promise<void>;
}

/**
 * The worker's webhook dispatcher: takes due deliveries from the outbox (up to `concurrency` in
 * flight), signs and sends each, records the attempt and schedules the next one. The outbox is the
 * truth: a delivery claimed by a worker that dies is due again when its claim lapses, so every event
 * is sent at least once; one that succeeded is never claimed again.
 */
export function startWebhookDispatcher(deps: WebhookDispatcherDeps): RunningDispatcher {
  const { outbox, settings, log } = deps;
  const leaseSeconds = leaseSecondsFor(settings.timeoutSeconds);
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  const deliver = async (d: ClaimedDelivery): Promise<void> => {
    const started = performance.now();
    let outcome: AttemptOutcome & { retryAfterSeconds?: number | undefined };
    let secret: string | undefined;
    try {
      secret = deps.secrets?.decrypt(d.encryptedSecret, webhookSecretContext(d.endpointId));
    } catch (err) {
      log.warn({ err, endpointId: d.endpointId }, 'a webhook secret cannot be decrypted');
    }
    if (secret === undefined) {
      outcome = {
        statusCode: null,
        response: null,
        error: deps.secrets
          ? "The endpoint's secret cannot be decrypted with ENCRYPTION_KEY (or ENCRYPTION_KEY_PREVIOUS)."
          : "The worker has no ENCRYPTION_KEY to read the endpoint's secret.",
      };
    } else {
      const timestamp = Math.floor(Date.now() / 1000);
      outcome = await deps.sender.send({
        url: d.url,
        body: d.body,
        headers: {
          'content-type': 'application/json',
          'webhook-id': d.eventId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(secret, d.eventId, timestamp, d.body),
        },
        signal: stopping.signal,
      });
    }
    // A worker that is stopping hands the delivery over at once, uncharged by the back-off.
    const elapsed = (performance.now() - started) / 1000;
    const next = stopping.signal.aborted
      ? ({ status: 'pending', retryInSeconds: 0 } as const)
      : nextAfter(d, outcome, elapsed, settings);
    await outbox.finishAttempt(d, outcome, next, endpointHealth(outcome, elapsed, settings.timeoutSeconds));
    log.info(
      {
        deliveryId: d.id,
        eventId: d.eventId,
        attempt: d.attempt,
        status: outcome.statusCode,
        next: next.status,
      },
      'webhook attempt',
    );
  };

  const loop = async () => {
    let purgedAt = 0;
    while (!stopping.signal.aborted) {
      const free = settings.concurrency - inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      let failed = false;
      try {
        if (Date.now() - purgedAt > PURGE_INTERVAL_MS) {
          purgedAt = Date.now();
          const purged = await outbox.purgeOlderThan(settings.retentionDays);
          if (purged > 0) log.info({ purged }, 'old webhook events removed');
        }
        if (free > 0)
          claimed = await outbox.claimDue(
            free,
            leaseSeconds,
            settings.endpointConcurrency,
            settings.accountConcurrency,
          );
      } catch (err) {
        failed = true;
        log.warn({ err }, 'webhook dispatcher pass failed');
      }
      for (const d of claimed) {
        const p: Promise<void> = deliver(d)
          .catch((err: unknown) =>
            // The claim lapses and another attempt follows: at least once, maybe twice.
            log.warn({ err, deliveryId: d.id }, 'a webhook attempt could not be recorded'),
          )
          .finally(() => {
            inFlight.delete(p);
            wake?.();
          });
        inFlight.add(p);
      }
      if (stopping.signal.aborted) break;
      // Full: wait for a slot. Drained (fewer due than slots): wait for the next poll.
      if (inFlight.size >= settings.concurrency) await sleep(Number.POSITIVE_INFINITY);
      else if (failed) await sleep(Math.max(FAILED_PASS_PAUSE_MS, settings.pollIntervalSeconds * 1000));
      else if (claimed.length < free) await sleep(settings.pollIntervalSeconds * 1000);
    }
  };
  const running = loop();
  log.info({ concurrency: settings.concurrency }, 'webhook dispatcher started');

  return {
    async stop() {
      stopping.abort();
      wake?.();
      await running;
      await Promise.allSettled([...inFlight]);
    },
  };
}
