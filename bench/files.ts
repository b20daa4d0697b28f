// node bench/files.ts [--store embedded|postgres] [--runs 3] [--mib 20]
// The files figures alone: a fresh Lethe, then `--runs` uploads and downloads of the same file attribute,
// each with its MB/s and the API's RSS growth (peak during the transfer minus RSS before it). Quicker
// than the subject-store scenario for A/B comparisons; the scenario reports the same measurement.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { fileTransfer } from './lib/files.ts';
import { startLethe } from './lib/lethe.ts';
import { userBatch } from './scenarios/subject-store.ts';

const { values } = parseArgs({
  options: {
    store: { type: 'string', default: 'embedded' },
    runs: { type: 'string', default: '3' },
    mib: { type: 'string', default: '20' },
  },
});
const adminUrl =
  values.store === 'embedded'
    ? undefined
    : (process.env.LETHE_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');

const lethe = await startLethe(adminUrl);
try {
  await lethe.management('POST', '/v1/datastore', { name: 'bench' });
  const key = await lethe.issueBenchKey();
  const created = await fetch(`${lethe.url}/api/entity/create`, {
    method: 'POST',
    headers: { 'api-key': key, datastore: 'bench', 'content-type': 'application/json' },
    body: JSON.stringify(userBatch(900_000, 1)),
  });
  const [owner] = (await created.json()) as { id: string }[];
  if (!owner) throw new Error('entity/create returned no entity');
  for (let run = 1; run <= Number(values.runs); run += 1) {
    const result = await fileTransfer(lethe, key, owner.id, Number(values.mib) * 2 ** 20);
    process.stdout.write(
      `${values.store} run ${run}: upload ${result.uploadMbPerSecond.toFixed(1)} MB/s, download ` +
        `${result.downloadMbPerSecond.toFixed(1)} MB/s, RSS growth ${result.rssGrowthMb.toFixed(1)} MB ` +
        `(load average ${os.loadavg()[0]?.toFixed(1)})\n`,
    );
  }
} finally {
  await lethe.dispose();
}
