// Runs the graphql-http package's server audits (GraphQL over HTTP
// conformance) against the GraphQL endpoint given as the one argument and
// prints each audit's name and result. It exits 1 when any audit ends in an
// error or a warning, 2 when it cannot run; notices are printed but pass.
//
//	npm ci && node audit.mjs http://127.0.0.1:8080/graphql
//
// server/http_audit_test.go runs it against the real server.
import { serverAudits } from 'graphql-http';

const url = process.argv[2];
if (!url) {
	console.error('usage: node audit.mjs URL (the GraphQL endpoint, e.g. http://127.0.0.1:8080/graphql)');
	process.exit(2);
}

const counts = { ok: 0, notice: 0, warn: 0, error: 0 };
for (const audit of serverAudits({ url })) {
	const result = await audit.fn();
	counts[result.status]++;
	if (result.status === 'ok') {
		console.log(`ok      ${result.name}`);
		continue;
	}
	// The body can be read once; some audits have read it already.
	let body = '';
	try {
		body = await result.response.text();
	} catch {
		body = '(body already read)';
	}
	console.log(`${result.status.padEnd(7)} ${result.name}`);
	console.log(`        reason: ${result.reason}`);
	console.log(`        answer: ${result.response.status} ${result.response.headers.get('content-type') ?? ''} ${body.slice(0, 300)}`);
}
console.log(`${counts.ok} ok, ${counts.notice} notices, ${counts.warn} warnings, ${counts.error} errors`);
process.exit(counts.warn + counts.error > 0 ? 1 : 0);
