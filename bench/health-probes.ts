/**
 * `/health` asked as a load balancer's or Kubernetes' probe asks it: on a NEW connection each
 * time, every `everyMs`, none waiting on another. The probes run on a thread of their own, so the
 * benchmark's own work in this process (its callers, a peer engine's decoding) does not delay them.
 */
import { request as httpRequest } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** How long one probe is waited for at most, to measure how late it was. */
const PROBE_WAIT_MS = 15_000;

export interface Probe {
  /** When it was sent, in ms since the epoch (`performance.timeOrigin + performance.now()`, comparable across threads). */
  at: number;
  /** Milliseconds to the whole answer; undefined: no 200 within PROBE_WAIT_MS (refused, dropped or late). */
  ms: number | undefined;
}

interface ProbeTask {
  probesOf: string;
  everyMs: number;
}

/** The time as the probe thread stamps it, for matching probes to what ran meanwhile. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** GET /health on a connection of its own. */
function probe(url: URL): Promise<Probe> {
  const at = epochMs();
  const started = performance.now();
  return new Promise((resolve) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path: '/health', agent: false, timeout: PROBE_WAIT_MS }, (response) => {
      response.resume();
      response.once('end', () => resolve({ at, ms: response.statusCode === 200 ? performance.now() - started : undefined }));
    });
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve({ at, ms: undefined }));
    request.end();
  });
}

/** Probes `url` every `everyMs` until stopped; `stop` waits for the probes in flight and returns them all. */
export function startProbes(url: string, everyMs: number): { stop(): Promise<Probe[]> } {
  const thread = new Worker(new URL(import.meta.url), { workerData: { probesOf: url, everyMs } satisfies ProbeTask });
  const done = new Promise<Probe[]>((resolve, reject) => {
    thread.once('message', resolve);
    thread.once('error', reject);
  });
  return {
    async stop() {
      thread.postMessage('stop');
      return done;
    },
  };
}

async function probeUntilStopped({ probesOf, everyMs }: ProbeTask): Promise<Probe[]> {
  const target = new URL(probesOf);
  let stopped = false;
  parentPort!.once('message', () => (stopped = true));
  const pending: Promise<Probe>[] = [];
  while (!stopped) {
    pending.push(probe(target));
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  return Promise.all(pending);
}

if (!isMainThread && (workerData as Partial<ProbeTask> | undefined)?.probesOf !== undefined) {
  parentPort!.postMessage(await probeUntilStopped(workerData as ProbeTask));
}
