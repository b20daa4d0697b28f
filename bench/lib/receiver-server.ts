// The local receiver: answers every POST with 200 over keep-alive. Used for the raw POST/s baseline and
// as the webhook target of the privacy-request benchmark: `/halt` answers a two_way call with
// `{"halt": true}` (the request pauses), every other path with `{}` (proceed). GET answers the count of
// calls received.
import { createServer } from 'node:http';

let received = 0;
const server = createServer((request, response) => {
  if (request.method === 'GET') {
    response.end(JSON.stringify({ received }));
    return;
  }
  request.resume();
  request.on('end', () => {
    received += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(request.url === '/halt' ? '{"halt":true}' : '{}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
