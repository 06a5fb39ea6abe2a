/**
 * Prometheus metrics (prom-client), in a registry of each app's own, so tests and several apps
 * in one process never share series.
 *
 * Requests are the hot path: a cache hit costs some tens of microseconds in all, and prom-client
 * hashes the label values on every call, cached children included (0.3 to 0.7 µs each). So the
 * request series are counted in plain numbers per route and endpoint, and handed to the registry
 * as values only when it is scraped. Engine events (backend queries, warming) are rare next to
 * requests and use prom-client's metrics as they are.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from '#prom-client';
import type { CacheSource, CacheStatus } from '../engine/serve/cache/read-through.js';
import type { EngineObserver } from '../engine/serve/observer.js';
import { CONSOLE_PREFIX } from './console.js';
import type { IngestObserver } from '../engine/ingest/queue.js';
import { CATALOG_PATH, LOGS_PATH, LOGS_SHORT_PATH, QUERY_PATH, SOURCES_PATH } from './paths.js';

/** What a request asked for, in a few values (a label per path would let callers mint series). */
export type Route = 'query' | 'ingest' | 'endpoints' | 'console' | 'health' | 'metrics' | 'openapi' | 'other';

export interface Metrics {
  readonly registry: Registry;
  /** For the service: backend queries and cache warming. */
  readonly engine: EngineObserver;
  /**
   * One answered request; `endpoint` is '' when it resolved none (so unknown names make no
   * series), `key` the name of the caller's key or token, '' when it presented none recognised.
   */
  request(route: Route, endpoint: string, status: number, seconds: number, cache: CacheStatus | undefined, key: string): void;
  /** Events sent to a source: accepted (committed) or rejected (refused, or failed), with their body's bytes. */
  ingested(source: string, outcome: 'accepted' | 'rejected', events: number, bytes: number): void;
  /** For the ingest writer: its commits and queue. */
  readonly ingest: IngestObserver;
}

export function routeOf(pathname: string): Route {
  if (pathname.startsWith(QUERY_PATH)) return 'query';
  if (pathname.startsWith(SOURCES_PATH) || pathname === LOGS_PATH || pathname === LOGS_SHORT_PATH) return 'ingest';
  if (pathname === CATALOG_PATH) return 'endpoints';
  if (pathname === '/' || pathname.startsWith(CONSOLE_PREFIX)) return 'console';
  if (pathname === '/health') return 'health';
  if (pathname === '/metrics') return 'metrics';
  return pathname === '/openapi.json' ? 'openapi' : 'other';
}

/** From a cache hit (well under a millisecond) to a long query. */
const REQUEST_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const BACKEND_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const BACKEND_ROWS = [0, 1, 10, 100, 1000, 10_000, 100_000];
const COMMIT_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The requests of one route, endpoint and key. */
interface RequestSeries {
  readonly labels: { route: Route; endpoint: string; key: string };
  readonly statuses: Map<number, number>;
  readonly cache: Record<CacheStatus, number>;
  /** Requests per REQUEST_SECONDS bucket (not cumulative), the last one past them all. */
  readonly buckets: number[];
  seconds: number;
  count: number;
}

type Value = { labels: Record<string, string | number>; value: number; metricName?: string };

/**
 * A metric whose values are made when the registry is scraped: the shape prom-client's registry
 * reads from every metric's get(), and what prom-client registers itself for the metrics it
 * aggregates across a cluster (its types only name its own classes, hence the cast).
 */
function scraped(registry: Registry, name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]): void {
  const metric = { name, help, type, aggregator: 'sum', get: () => ({ name, help, type, aggregator: 'sum', values: values() }) };
  registry.registerMetric(metric as unknown as Metric);
}

const CACHE_SOURCES: readonly CacheSource[] = ['local_hit', 'shared_hit', 'peer_wait', 'miss'];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  // By route, endpoint and key: the names are the same string objects request after request, so
  // each level is a lookup of a hash already computed.
  const series = new Map<Route, Map<string, Map<string, RequestSeries>>>();
  // Cache answers by endpoint and source: counted like requests, in plain numbers (one per hit).
  const sources = new Map<string, Record<CacheSource, number>>();
  let lastEndpoint: string | undefined;
  let lastCounts: Record<CacheSource, number> = { local_hit: 0, shared_hit: 0, peer_wait: 0, miss: 0 };

  const allSeries = (): RequestSeries[] => [...series.values()].flatMap((byEndpoint) => [...byEndpoint.values()].flatMap((byKey) => [...byKey.values()]));

  const seriesOf = (route: Route, endpoint: string, key: string): RequestSeries => {
    let byEndpoint = series.get(route);
    if (!byEndpoint) series.set(route, (byEndpoint = new Map()));
    let byKey = byEndpoint.get(endpoint);
    if (!byKey) byEndpoint.set(endpoint, (byKey = new Map()));
    let one = byKey.get(key);
    if (!one) {
      one = {
        labels: { route, endpoint, key },
        statuses: new Map(),
        cache: { HIT: 0, MISS: 0, STALE: 0 },
        buckets: new Array<number>(REQUEST_SECONDS.length + 1).fill(0),
        seconds: 0,
        count: 0,
      };
      byKey.set(key, one);
    }
    return one;
  };

  scraped(registry, 'cannery_http_requests_total', 'Requests answered, by route, endpoint, key (the name of the caller\'s key or token) and status.', 'counter', () =>
    allSeries().flatMap(({ labels, statuses }) => [...statuses].map(([status, value]) => ({ labels: { ...labels, status }, value }))),
  );
  scraped(registry, 'cannery_http_request_duration_seconds', 'Time from a request arriving to its response being ready, by route, endpoint and key.', 'histogram', () =>
    allSeries().flatMap(({ labels, buckets, seconds, count }) => {
      const name = 'cannery_http_request_duration_seconds';
      let cumulative = 0;
      const values: Value[] = REQUEST_SECONDS.map((le, index) => {
        cumulative += buckets[index]!;
        return { metricName: `${name}_bucket`, labels: { le, ...labels }, value: cumulative };
      });
      values.push(
        { metricName: `${name}_bucket`, labels: { le: '+Inf', ...labels }, value: count },
        { metricName: `${name}_sum`, labels, value: seconds },
        { metricName: `${name}_count`, labels, value: count },
      );
      return values;
    }),
  );
  scraped(
    registry,
    'cannery_cache_requests_total',
    'Answers of cached endpoints, by endpoint, key and result: hit (fresh entry), miss (waited for the query), stale (a refresh failed).',
    'counter',
    () =>
      allSeries()
        .filter(({ cache }) => cache.HIT + cache.MISS + cache.STALE > 0)
        .flatMap(({ labels: { endpoint, key }, cache }) => [
          { labels: { endpoint, key, result: 'hit' }, value: cache.HIT },
          { labels: { endpoint, key, result: 'miss' }, value: cache.MISS },
          { labels: { endpoint, key, result: 'stale' }, value: cache.STALE },
        ]),
  );

  scraped(
    registry,
    'cannery_cache_lookups_total',
    'Answers of cached endpoints, by endpoint and where they came from: local_hit (this process), shared_hit (the shared store), peer_wait (waited for another replica\'s query), miss (ran the query here).',
    'counter',
    () => [...sources].flatMap(([endpoint, counts]) => CACHE_SOURCES.map((source) => ({ labels: { endpoint, result: source }, value: counts[source] }))),
  );

  const backendSeconds = new Histogram({
    name: 'cannery_backend_query_duration_seconds',
    help: "Backend queries' time, by endpoint (the backend's own measure; failures included).",
    labelNames: ['endpoint'] as const,
    buckets: BACKEND_SECONDS,
    registers,
  });
  const backendRows = new Histogram({
    name: 'cannery_backend_query_rows',
    help: 'Rows each backend query returned, by endpoint.',
    labelNames: ['endpoint'] as const,
    buckets: BACKEND_ROWS,
    registers,
  });
  const backendErrors = new Counter({
    name: 'cannery_backend_query_errors_total',
    help: 'Backend queries that failed, by endpoint and error code.',
    labelNames: ['endpoint', 'code'] as const,
    registers,
  });
  const inFlight = new Gauge({ name: 'cannery_backend_queries_in_flight', help: 'Backend queries running now.', registers });
  const queued = new Gauge({
    name: 'cannery_backend_queries_queued',
    help: 'Backend queries waiting for a slot (CANNERY_MAX_CONCURRENT_QUERIES).',
    registers,
  });
  const warmRuns = new Counter({
    name: 'cannery_cache_warming_runs_total',
    help: 'Background refreshes of cached results, by endpoint.',
    labelNames: ['endpoint'] as const,
    registers,
  });
  const warmFailures = new Counter({
    name: 'cannery_cache_warming_failures_total',
    help: 'Background refreshes that failed (the previous result, if any, is kept), by endpoint.',
    labelNames: ['endpoint'] as const,
    registers,
  });

  const storeErrors = new Counter({
    name: 'cannery_cache_store_errors_total',
    help: 'Calls to the shared cache store that failed (timed out, lost the connection, got an error), by operation.',
    labelNames: ['operation'] as const,
    registers,
  });
  const storeUp = new Gauge({
    name: 'cannery_cache_store_up',
    help: 'Whether the shared cache store is in use (1) or down, the in-process cache answering alone (0). Absent without a shared store.',
    registers: [],
  });

  // Ingest is rare next to requests (a request carries hundreds of events): prom-client's metrics as they are.
  const ingestEvents = new Counter({
    name: 'cannery_ingest_events_total',
    help: 'Events sent to a source over HTTP, by source and outcome (accepted: committed; rejected: refused or failed).',
    labelNames: ['source', 'outcome'],
    registers,
  });
  const ingestBytes = new Counter({
    name: 'cannery_ingest_bytes_total',
    help: 'Request body bytes (as sent, gzip or not) of ingest requests, by source and outcome.',
    labelNames: ['source', 'outcome'],
    registers,
  });
  const commitSeconds = new Histogram({
    name: 'cannery_ingest_commit_duration_seconds',
    help: "The ingest writer's group commits: one source's events of every request waiting, in one transaction.",
    labelNames: ['source'],
    buckets: COMMIT_SECONDS,
    registers,
  });
  const ingestQueue = new Gauge({ name: 'cannery_ingest_queue_events', help: 'Events waiting for the ingest writer, or being written (CANNERY_INGEST_QUEUE_EVENTS bounds it).', registers });

  return {
    registry,
    ingested(source, outcome, events, bytes) {
      ingestEvents.inc({ source, outcome }, events);
      ingestBytes.inc({ source, outcome }, bytes);
    },
    ingest: {
      committed(source, seconds) {
        commitSeconds.observe({ source }, seconds);
      },
      queueDepth(events) {
        ingestQueue.set(events);
      },
    },
    engine: {
      backendLoad(running, waiting) {
        inFlight.set(running);
        queued.set(waiting);
      },
      backendQuery(endpoint, ms, rows) {
        backendSeconds.observe({ endpoint }, ms / 1000);
        backendRows.observe({ endpoint }, rows);
      },
      backendFailure(endpoint, ms, code) {
        backendSeconds.observe({ endpoint }, ms / 1000);
        backendErrors.inc({ endpoint, code });
      },
      warmed(endpoint, ok) {
        warmRuns.inc({ endpoint });
        if (!ok) warmFailures.inc({ endpoint });
      },
      cacheAnswered(endpoint, source) {
        // A run of hits is on one endpoint: its counts are kept at hand.
        if (endpoint !== lastEndpoint) {
          let counts = sources.get(endpoint);
          if (!counts) sources.set(endpoint, (counts = { local_hit: 0, shared_hit: 0, peer_wait: 0, miss: 0 }));
          lastEndpoint = endpoint;
          lastCounts = counts;
        }
        lastCounts[source] += 1;
      },
      sharedStoreError(operation) {
        storeErrors.inc({ operation });
      },
      sharedStoreAvailable(up) {
        // Registered on the first word of a shared store: without one, there is no series to mislead.
        if (!registry.getSingleMetric('cannery_cache_store_up')) registry.registerMetric(storeUp);
        storeUp.set(up ? 1 : 0);
      },
    },
    request(route, endpoint, status, seconds, cache, key) {
      const one = seriesOf(route, endpoint, key);
      one.statuses.set(status, (one.statuses.get(status) ?? 0) + 1);
      if (cache !== undefined) one.cache[cache] += 1;
      let bucket = 0;
      while (bucket < REQUEST_SECONDS.length && seconds > REQUEST_SECONDS[bucket]!) bucket++;
      one.buckets[bucket]! += 1;
      one.seconds += seconds;
      one.count += 1;
    },
  };
}
