// The API's request lines: one per request, at debug level, so that the default level (info) keeps
// /health probes and scrapes out of the log; at debug every request has its line (method, route, status,
// time). On a terminal the lines read as text, elsewhere as JSON (src/http/log-format.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatLogLine, terminalLogStream } from '../../src/http/log-format.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

describe('request log lines', () => {
  let atInfo: TestService;
  let atDebug: TestService;
  before(async () => {
    atInfo = await startTestService({}, { captureLogs: 'info' });
    atDebug = await startTestService({}, { captureLogs: 'debug' });
  });
  after(async () => {
    await atInfo?.stop();
    await atDebug?.stop();
  });

  it('at info (the default level), /health and other requests write no line', async () => {
    assert.equal((await atInfo.call('GET', '/health')).status, 200);
    assert.equal((await atInfo.call('GET', '/v1/datastore')).status, 401);
    const json = atInfo.logLines.filter((line) => line.startsWith('{'));
    assert.deepEqual(
      json.filter((line) => /health|v1\/datastore|incoming request|request completed/.test(line)),
      [],
    );
  });

  it('at debug, each request writes one line with its method, url, status and time', async () => {
    assert.equal((await atDebug.call('GET', '/health')).status, 200);
    const lines = atDebug.logLines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown> & { req?: { url?: string } })
      .filter((entry) => entry.req?.url === '/health');
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, 20);
    assert.equal(lines[0]?.msg, 'request completed');
    assert.deepEqual((lines[0] as { res?: unknown }).res, { statusCode: 200 });
    assert.equal(typeof lines[0]?.responseTime, 'number');
  });

  it('reads as text on a terminal and stays JSON elsewhere', () => {
    const line = JSON.stringify({
      level: 20,
      time: Date.UTC(2026, 0, 2, 3, 4, 5),
      reqId: 'r1',
      req: { method: 'GET', url: '/health' },
      res: { statusCode: 200 },
      responseTime: 1.6,
      msg: 'request completed',
    });
    assert.equal(formatLogLine(`${line}\n`), '03:04:05 DEBUG GET /health 200 2 ms\n');
    assert.equal(
      formatLogLine(JSON.stringify({ level: 50, time: 0, msg: 'boom', reqId: 'r2' })),
      '00:00:00 ERROR boom [r2]\n',
    );
    const written: string[] = [];
    const terminal = terminalLogStream({ isTTY: true, write: (text: string) => written.push(text) });
    assert.ok('stream' in terminal);
    terminal.stream.write(`${line}\n`);
    assert.deepEqual(written, ['03:04:05 DEBUG GET /health 200 2 ms\n']);
    assert.deepEqual(terminalLogStream({ isTTY: false, write: () => true }), {});
  });
});
