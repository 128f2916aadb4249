// Follows a board's precompute to DONE with the graphql-sse package's
// client (distinct connections mode, its default) against a running
// nqueens server, as a frontend would:
//
//   node follow.mjs http://127.0.0.1:8080/graphql <admin token> <n>
//
// It subscribes to boardProgress(n), asks for the precompute once the
// first event has come, and follows the board until the server completes
// the subscription; then it asks for count(n) as a query over the same
// transport. It prints one JSON line, {"states": [...], "total": "...",
// "count": "..."}, for the Go test (server/sse_client_test.go) to check,
// and exits 1 on any error.
import { createClient } from 'graphql-sse';

const [url, token, nArg] = process.argv.slice(2);
if (!url || !token || !nArg) {
  console.error('usage: node follow.mjs <url of /graphql> <admin token> <n>');
  process.exit(2);
}
const n = Number(nArg);

// Retries would hide a failure of the server: none.
const client = createClient({ url, fetchFn: fetch, retryAttempts: 0 });

async function precompute() {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: 'mutation($n: Int!) { precompute(n: $n) { state } }', variables: { n } }),
  });
  const body = await res.json();
  if (!res.ok || body.errors) {
    throw new Error(`precompute: ${res.status} ${JSON.stringify(body)}`);
  }
}

const states = [];
let total = null;
const progress = client.iterate({
  query: 'subscription($n: Int!) { boardProgress(n: $n) { n state total } }',
  variables: { n },
});
for await (const result of progress) {
  if (result.errors) {
    throw new Error(`boardProgress: ${JSON.stringify(result.errors)}`);
  }
  const board = result.data.boardProgress;
  states.push(board.state);
  total = board.total;
  if (states.length === 1) {
    await precompute();
  }
}

let count = null;
for await (const result of client.iterate({ query: 'query($n: Int!) { count(n: $n) { total } }', variables: { n } })) {
  if (result.errors) {
    throw new Error(`count: ${JSON.stringify(result.errors)}`);
  }
  count = result.data.count.total;
}
client.dispose();
console.log(JSON.stringify({ states, total, count }));
