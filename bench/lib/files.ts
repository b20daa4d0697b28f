// One file upload then its download through the API, with the API's RSS sampled all along: the
// "files" figures of the subject-store scenario and `bench/files.ts`.
import type { LetheUnderTest } from './lethe.ts';

export interface FileTransfer {
  uploadMbPerSecond: number;
  downloadMbPerSecond: number;
  /** Peak RSS during the upload or the download, minus the RSS just before the upload. */
  rssGrowthMb: number;
}

export async function peakRss(lethe: LetheUnderTest, during: Promise<unknown>): Promise<number> {
  let peak = await lethe.rssMb();
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await lethe.rssMb());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    await during;
  } finally {
    running = false;
    await sampler;
  }
  return peak;
}

export async function fileTransfer(
  lethe: LetheUnderTest,
  apiKey: string,
  entityId: string,
  bytes: number,
): Promise<FileTransfer> {
  const headers = { 'api-key': apiKey, datastore: 'bench' };
  const before = await lethe.rssMb();
  const form = new FormData();
  form.set('attribute', JSON.stringify({ entityId, name: 'document', value: 'bench.bin' }));
  form.set('file', new Blob([new Uint8Array(bytes)], { type: 'application/octet-stream' }), 'bench.bin');
  let uploadMs = 0;
  const uploadPeak = await peakRss(
    lethe,
    (async () => {
      const started = performance.now();
      const response = await fetch(`${lethe.url}/api/file/upload`, { method: 'POST', headers, body: form });
      await response.text();
      if (response.status !== 200) throw new Error(`upload answered ${response.status}`);
      uploadMs = performance.now() - started;
    })(),
  );
  let downloadMs = 0;
  const downloadPeak = await peakRss(
    lethe,
    (async () => {
      const started = performance.now();
      const query = new URLSearchParams({ entityID: entityId, attributeName: 'document' });
      const response = await fetch(`${lethe.url}/api/file/download?${query}`, { headers });
      const received = (await response.arrayBuffer()).byteLength;
      if (received !== bytes) throw new Error(`download returned ${received} bytes`);
      downloadMs = performance.now() - started;
    })(),
  );
  const megabytes = bytes / 2 ** 20;
  return {
    uploadMbPerSecond: megabytes / (uploadMs / 1000),
    downloadMbPerSecond: megabytes / (downloadMs / 1000),
    rssGrowthMb: Math.max(uploadPeak, downloadPeak) - before,
  };
}
